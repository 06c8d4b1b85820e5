"""The int8 onnxruntime MiniLM gives the numpy float model's sentence vectors, near enough to rank alike."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from orchestrator.engine.runtime import semantic
from orchestrator.engine.runtime.minilm import MiniLM, minilm_embedder

pytest.importorskip("onnxruntime")
from orchestrator.engine.runtime.minilm_onnx import READOUT_LAYERS, OnnxMiniLM, onnx_embedder  # noqa: E402

TEXTS = ["I'd like a platinum visa", "my work phone fell in water", "book me a flight to Lisbon next friday",
         "yes", "help me, I can't remember my password, it's been locked since the update this morning"]


@pytest.fixture(scope="module")
def vectors() -> tuple[np.ndarray, np.ndarray]:
    return minilm_embedder()(TEXTS), onnx_embedder()(TEXTS)


def test_int8_vectors_point_where_the_float_model_points(vectors):
    reference, int8 = vectors
    assert int8.shape == reference.shape == (len(TEXTS), 384)
    assert np.allclose(np.linalg.norm(int8, axis=1), 1.0, atol=1e-5)
    assert (np.sum(reference * int8, axis=1) > 0.97).all()


def test_int8_vectors_keep_the_float_model_similarities(vectors):
    reference, int8 = vectors
    assert np.abs(reference @ reference.T - int8 @ int8.T).max() < 0.05


def test_the_float_graph_is_the_numpy_model():
    # Same weights, same arithmetic: the graph builder is checked apart from the quantisation.
    graph = OnnxMiniLM(quantise=False)
    assert np.allclose(graph(TEXTS), MiniLM()(TEXTS), atol=1e-4)


def _inner_means(model: MiniLM, text: str) -> list[np.ndarray]:
    """The numpy model's layers' token states, each layer's averaged without its first and last token."""
    from orchestrator.engine.runtime.minilm import _norm

    ids = np.array(model.tokenizer.encode(text).ids)
    w = model.weights
    x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][: len(ids)]
         + w["embeddings.token_type_embeddings.weight"][0])
    x = _norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    means = []
    for layer in model.layers:
        x = model._layer(x, layer)
        means.append(x[1:-1].mean(axis=0) / np.linalg.norm(x[1:-1].mean(axis=0)))
    return means


def test_the_float_graphs_inner_means_leave_out_cls_and_sep_and_an_empty_text_gets_its_vector():
    graph, model = OnnxMiniLM(quantise=False), MiniLM()
    vectors, inner = graph.with_layer(TEXTS)
    for text, found in zip(TEXTS, inner, strict=True):
        means = _inner_means(model, text)
        assert np.allclose(found, [means[i] for i in READOUT_LAYERS], atol=1e-4)
    vectors, inner = graph.with_layer([""])  # [CLS] [SEP] only: nothing of its own to average
    assert np.allclose(inner[0], vectors[0]) and np.isfinite(inner).all()


def test_the_default_embedder_is_the_int8_one_and_numpy_without_onnxruntime(monkeypatch):
    assert isinstance(semantic.default_embedder(), OnnxMiniLM)
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "onnxruntime" else real(name, *a))
    assert isinstance(semantic.default_embedder(), MiniLM)


def test_one_run_gives_the_sentence_vector_and_the_inner_means_and_the_cache_keeps_all(monkeypatch):
    embedder = onnx_embedder()
    runs: list[int] = []
    real = embedder.session

    class Counting:
        def run(self, *args, **kwargs):
            runs.append(1)
            return real.run(*args, **kwargs)

    monkeypatch.setattr(embedder, "session", Counting())
    texts = ["a phrase seen only by this test", "and another one, also new"]
    vectors, inner = embedder.with_layer(texts)
    assert len(runs) == 2 and vectors.shape == (2, 384) and inner.shape == (2, len(READOUT_LAYERS), 384)
    assert np.allclose(np.linalg.norm(inner, axis=2), 1.0, atol=1e-5)
    # other states than the sentence vector's: layer 5's without [CLS] and [SEP] close to it, layer 3's not
    similar = np.einsum("td,tkd->tk", vectors, inner)
    assert (similar < 0.999).all() and (similar[:, READOUT_LAYERS.index(3)] < 0.99).all()
    assert all(embedder.cache._vectors[t].shape == (1 + len(READOUT_LAYERS), 384) for t in texts)
    assert np.array_equal(embedder(texts), vectors) and np.array_equal(embedder.with_layer(texts[::-1])[1], inner[::-1])
    assert len(runs) == 2  # neither output embeds a phrase again
