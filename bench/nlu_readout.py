"""Settings of the linear readouts (`runtime/readouts.py`), compared on VALIDATION splits only.

`CONCERTO_BENCH_DATA=... python -m bench.nlu_readout [--shots 10] [--messages 2000] [--only TEXT]
[--seed N]`: for each public benchmark (`bench/nlu_public.py`), k examples per intent from the train
split (`--seed`: another draw of them than the public table's), then top-1 on at most `--messages`
validation messages (CLINC150's validation split, in scope; for Banking77 and HWU64, train messages
outside the k examples) for each candidate below (`--only`: those whose name contains TEXT, besides the
first one). The test split is never read here. 2,000 messages leave about 0.8 points of noise between
candidates: `--messages 6000` and a few seeds tell a change of a few tenths from luck.

Each message is embedded once, as the classifier embeds it (spelling repaired, normalised) and, for
the test-time-augmentation candidate, also as raw lower-cased text; the ranking rule is the one
`SemanticClassifier.rank` applies (pooled score / temperature + the readout's log-probability).

The lexical candidates read the text's own word and/or character n-grams (TF-IDF over the catalog's
phrases, L2-normalised, times `weight`), either beside the scaled sentence vector in one logistic
regression, fitted as `fit_readout` fits the vector alone ("joint"), or in a second logistic regression
of their own whose log-probability is added to the ranking times `expert` ("expert"). The lexical
readout shipped (`readouts.Lexicon`) is "lexical expert x0.5, chars 3-5"; this module fits it in float64
(the runtime in float32, faster), so its fit CPU here is an upper bound. With the vector readout reading
the means of layers 5 and 3 without [CLS] and [SEP] instead of the sentence vector
(`minilm_onnx.READOUT_LAYERS`, `readouts.readout_input`), the shipped whole is "pools: inner means of
layers 5 and 3 (no sentence vector), lexical expert x0.5, chars 3-5 (shipped)"; the first row,
"runtime", is `SemanticClassifier.rank` itself (default embedder only), which should agree with it.

That last step's figures (top-1, Banking77 / CLINC150 / HWU64, layer 3's mean beside the sentence
vector -> the inner means; `--only inner --only "shipped before inner"`): 2,000 messages, 85.4 / 93.2 /
84.4 -> 85.1 / 93.3 / 84.8%; 6,000 messages (3,000 for CLINC150), 84.4 / 92.9 / 83.8 -> 84.4 / 93.0 /
84.2%; the same with `--seed 1, 2, 3`: 84.5 / 92.2 / 83.8 -> 84.7 / 92.2 / 84.2%, 84.8 / 91.8 / 82.9 ->
84.6 / 91.8 / 83.5%, 84.3 / 93.2 / 84.2 -> 84.4 / 93.3 / 84.5%; at 5 examples, 81.3 / 89.3 / 79.1 ->
81.3 / 89.3 / 79.5%. Layer 3's inner mean beside the sentence vector, alone, gained nothing.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

from orchestrator.engine.runtime import readouts, semantic
from orchestrator.engine.runtime.intents import request_text
from orchestrator.engine.runtime.semantic import Embedder, SemanticClassifier
from orchestrator.engine.runtime.text import normalise

from . import nlu_public


@dataclass(frozen=True)
class Lexical:
    words: int = 2  # word n-grams of 1..words words (0: none)
    chars: tuple[int, int] | None = None  # character n-grams of each word padded with spaces (sklearn's char_wb)
    weight: float = 10.0  # the length of the lexical vector beside the sentence vector's (the readout's scale)
    l2: float | None = None  # the lexical weights' penalty (None: the readout's)
    sublinear: bool = True  # tf as 1 + log(count)
    drop_filler: bool = False  # FILLER words left out of the unigrams
    steps: int | None = None  # the expert's steps (None: the readout's)
    min_df: int = 1  # n-grams in fewer of the catalog's phrases are left out
    expert: float | None = None  # None: one readout over [vector | n-grams]; else a readout of its own over
    # the n-grams alone, whose log-probability is added to the ranking times this


@dataclass(frozen=True)
class Candidate:
    steps: int = readouts.READOUT_STEPS
    l2: float = 1e-4
    scale: float = 20.0
    temperature: float = 0.05  # the pooled score's, in ranking
    centre: bool = False  # the vectors centred on the phrases' mean
    augment: bool = False  # the query embedded as repaired and raw text, averaged
    lexical: Lexical | None = None
    # more of MiniLM's token states beside the sentence vector in the readout, each pooled to a unit vector:
    # "layer3" the mean of layer 3's (of 0-5; the sentence vector is layer 5's), "max" layer 5's maximum,
    # "inner3" layer 3's mean without the [CLS] and [SEP] tokens; the readout's input [vector | pools]
    # stretched to length `scale` as a whole
    pools: tuple[str, ...] = ()
    vector: bool = True  # the sentence vector in the readout's input (False: the pools alone)


CANDIDATES = {
    "vector readout alone (100, 1e-4, 20, 0.05), shipped before the lexical readout": Candidate(),
    "rank temperature 0.2": Candidate(temperature=0.2),
    "L2 1e-3, temperature 0.2": Candidate(l2=1e-3, temperature=0.2),
    "200 steps, L2 1e-3, temperature 0.2": Candidate(200, 1e-3, temperature=0.2),
    "scale 10, temperature 0.2": Candidate(scale=10.0, temperature=0.2),
    "centred, 200 steps, L2 1e-3, temperature 0.2": Candidate(200, 1e-3, temperature=0.2, centre=True),
    "query: repaired and raw text averaged": Candidate(augment=True),
    "readout only (no pooled score)": Candidate(temperature=1e9),
    **{f"lexical joint, words 1-2, weight {w:g}": Candidate(lexical=Lexical(weight=w)) for w in (5, 10, 20)},
    "lexical joint, words 1, weight 10": Candidate(lexical=Lexical(words=1)),
    **{f"lexical joint, chars 3-5, weight {w:g}": Candidate(lexical=Lexical(words=0, chars=(3, 5), weight=w))
       for w in (5, 10, 20)},
    "lexical joint, words 1-2 + chars 3-5, weight 10": Candidate(lexical=Lexical(chars=(3, 5))),
    **{f"lexical expert x{e:g}, words 1-2": Candidate(lexical=Lexical(expert=e)) for e in (0.5, 1.0)},
    **{f"lexical expert x{e:g}, chars 3-5{' (shipped before layer 3)' if e == 0.5 else ''}":
       Candidate(lexical=Lexical(words=0, chars=(3, 5), expert=e)) for e in (0.3, 0.5, 0.7, 1.0)},
    "lexical expert x0.5, chars 2-5": Candidate(lexical=Lexical(words=0, chars=(2, 5), expert=0.5)),
    "lexical expert x0.5, chars 3-4": Candidate(lexical=Lexical(words=0, chars=(3, 4), expert=0.5)),
    "lexical expert x0.5, chars 4": Candidate(lexical=Lexical(words=0, chars=(4, 4), expert=0.5)),
    "lexical expert x0.5, words 1-2 + chars 3-5": Candidate(lexical=Lexical(chars=(3, 5), expert=0.5)),
    "lexical expert x0.5, chars 3-5, weight 20": Candidate(lexical=Lexical(words=0, chars=(3, 5), weight=20,
                                                                           expert=0.5)),
    "lexical expert x0.5, chars 3-5, 50 steps": Candidate(lexical=Lexical(words=0, chars=(3, 5), expert=0.5,
                                                                          steps=50)),
    "pools: + max of layer 5, x0.5": Candidate(pools=("max/2",)),
    **{f"pools: + mean of layer {i}": Candidate(pools=(f"layer{i}",)) for i in (2, 3, 4)},
    "pools: + mean of layer 3, lexical expert x0.5, chars 3-5 (shipped before inner means)": Candidate(
        pools=("layer3",), lexical=Lexical(words=0, chars=(3, 5), expert=0.5)),
    "pools: + inner mean of layer 3, lexical expert x0.5, chars 3-5": Candidate(
        pools=("inner3",), lexical=Lexical(words=0, chars=(3, 5), expert=0.5)),
    "pools: inner means of layers 5 and 3 (no sentence vector), lexical expert x0.5, chars 3-5 (shipped)":
        Candidate(pools=("inner5", "inner3"), vector=False, lexical=Lexical(words=0, chars=(3, 5), expert=0.5)),
}


@dataclass
class Lexicon:
    """A TF-IDF vocabulary of n-grams from the catalog's phrases: each text -> one sparse unit row."""

    settings: Lexical
    index: dict[str, int] = field(default_factory=dict)
    idf: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def grams(self, text: str) -> list[str]:
        s = self.settings
        words = text.split()
        found = [w for w in words if not (s.drop_filler and w in semantic.FILLER)] if s.words else []
        for n in range(2, s.words + 1):
            found += [" ".join(words[i:i + n]) for i in range(len(words) - n + 1)]
        if s.chars:
            low, high = s.chars
            for word in words:
                padded = f" {word} "
                for n in range(low, high + 1):
                    found += ["#" + padded[i:i + n] for i in range(max(1, len(padded) - n + 1))]
        return found

    def fit(self, texts: list[str]) -> Lexicon:
        df: Counter[str] = Counter()
        for text in texts:
            df.update(set(self.grams(text)))
        kept = [g for g, n in df.items() if n >= self.settings.min_df]
        self.index = {g: i for i, g in enumerate(kept)}
        self.idf = np.array([math.log((1 + len(texts)) / (1 + df[g])) + 1 for g in kept])
        return self

    def rows(self, texts: list[str]) -> sparse.csr_matrix:
        indptr, indices, values = [0], [], []
        for text in texts:
            counts = Counter(g for g in self.grams(text) if g in self.index)
            cols = [self.index[g] for g in counts]
            tf = np.array(list(counts.values()), dtype=float)
            v = (1 + np.log(tf) if self.settings.sublinear else tf) * self.idf[cols] if cols else np.zeros(0)
            norm = np.linalg.norm(v)
            indices += cols
            values += list(v / norm) if norm else []
            indptr.append(len(indices))
        return sparse.csr_matrix((np.array(values), np.array(indices, dtype=np.int64), np.array(indptr)),
                                 shape=(len(texts), len(self.index)))


def fit_hybrid(dense: np.ndarray, lexical: sparse.csr_matrix, owners: np.ndarray, weights: np.ndarray,
               intents: int, steps: int, l2: float, l2_lexical: float):
    """`readouts.fit_readout` over [dense | lexical] (both already scaled), the lexical part sparse."""
    x, xt = dense.astype(np.float64), lexical.T.tocsr()
    target = np.eye(intents)[owners]
    share = weights.astype(np.float64) / weights.sum()
    w, u, b = np.zeros((x.shape[1], intents)), np.zeros((lexical.shape[1], intents)), np.zeros(intents)
    vw, vu, vb = np.zeros_like(w), np.zeros_like(u), np.zeros_like(b)
    for _ in range(steps):
        lw, lu, lb = w + 0.9 * vw, u + 0.9 * vu, b + 0.9 * vb
        z = x @ lw + lexical @ lu + lb
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        g = (p - target) * share[:, None]
        vw, vu, vb = 0.9 * vw - (x.T @ g + l2 * lw), 0.9 * vu - (xt @ g + l2_lexical * lu), 0.9 * vb - g.sum(axis=0)
        w, u, b = w + vw, u + vu, b + vb
    return w, u, b


def _log_softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


class Pools:
    """MiniLM in int8 (`minilm_onnx.py`'s graph) with more outputs: the mean of each layer's token states
    and the maximum of the last layer's, each as a unit vector, by name ("layer0".."layer5", "max"), and
    the graph's own inner means (`minilm_onnx.READOUT_LAYERS`: "inner5", "inner3", without [CLS] and [SEP])."""

    def __init__(self):
        import zipfile

        from onnx import TensorProto, helper
        from safetensors.numpy import load
        from tokenizers import Tokenizer

        from orchestrator.engine.runtime.minilm import LAYERS, _model_zip
        from orchestrator.engine.runtime.minilm_onnx import DIM, READOUT_LAYERS, build_graph, session

        with zipfile.ZipFile(_model_zip()) as bundle:
            model = build_graph(load(bundle.read("model.safetensors")), inner_layers=READOUT_LAYERS)
            self.tokenizer = Tokenizer.from_str(bundle.read("tokenizer.json").decode())
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=128)
        self.names = [f"layer{i}" for i in range(LAYERS - 1)] + ["max"]
        for name in self.names:
            source = f"l{LAYERS - 1}_x2" if name == "max" else f"l{name[5:]}_x2"
            op = "ReduceMax" if name == "max" else "ReduceMean"
            model.graph.node.append(helper.make_node(op, [source], [name], name="pool_" + name, axes=[0], keepdims=0))
            model.graph.output.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, [DIM]))
        # the graph's own outputs: the sentence vector, the inner means
        self.names = ["layer5", *(f"inner{i}" for i in READOUT_LAYERS), *self.names]
        self.session = session(model.SerializeToString())

    def __call__(self, texts: list[str]) -> dict[str, np.ndarray]:
        rows = [self.session.run(None, {"ids": np.array(self.tokenizer.encode(t).ids, dtype=np.int64)})
                for t in texts]
        return {name: np.array([r[i] / np.linalg.norm(r[i]) for r in rows], np.float32)
                for i, name in enumerate(self.names)}


def _pooled(vectors: np.ndarray, pools: dict[str, np.ndarray], names: tuple[str, ...], vector: bool = True
            ) -> np.ndarray:
    """[vector | pools] (or the pools alone) at unit length as a whole; "name/2" counts a pool half."""
    parts = [vectors] if vector else []
    parts += [pools[n.split("/")[0]] / (2.0 if n.endswith("/2") else 1.0) for n in names]
    joined = np.hstack(parts)
    return joined / np.linalg.norm(joined, axis=1, keepdims=True)


def _embed(classifier: SemanticClassifier, texts: list[str]) -> np.ndarray:
    return np.vstack([classifier.embed(texts[i:i + 64]) for i in range(0, len(texts), 64)])


def sweep(name: str, k: int, messages: int, candidates: dict[str, Candidate] | None = None,
          embedder: Embedder | None = None, seed: int = nlu_public.SEED) -> None:
    """Each candidate's top-1; those reading MiniLM's token states (`pools`) only with the default embedder."""
    candidates = CANDIDATES if candidates is None else candidates
    root = nlu_public.data_root()
    load, files = nlu_public.LOADERS[name]
    if root is None or not all((root / f).exists() for f in files):
        print(f"{name}: skipped, no data under ${nlu_public.ENV}")
        return
    benchmark = load(root)
    examples, rest = nlu_public.sample(benchmark, k, seed)
    cases = [(t, i) for t, i in (benchmark.validation or rest) if i is not None]
    cases = random.Random(7).sample(cases, min(messages, len(cases)))
    classifier = SemanticClassifier(embedder)
    classifier.fit(examples, {intent: [intent.replace("_", " ")] for intent in examples})
    texts = [request_text(t) for t, _ in cases]
    queried = [classifier.repair(normalise(t)) for t in texts]
    repaired = _embed(classifier, queried)
    raw = _embed(classifier, [t.lower() for t in texts]) if any(c.augment for c in candidates.values()) else None
    truth = np.array([classifier.intents.index(i) for _, i in cases])
    if embedder is None and any(c.pools for c in candidates.values()):
        pools = Pools()
        phrase_pools, message_pools = pools(classifier.embedded), pools(queried)
    m, owners, weights = classifier.matrix, classifier.owners, classifier.weights
    intents = len(classifier.intents)
    if embedder is None:  # the runtime's own ranking, readouts and all (the messages' vectors are cached)
        top1 = float(np.mean([classifier.rank(t)[0].intent == i for t, (_, i) in zip(texts, cases, strict=True)]))
        print(f"| {name} | {k} | {len(cases)} | runtime: SemanticClassifier.rank | {top1:.1%} | |", flush=True)
    pooled_by = {}
    saved = readouts.READOUT_L2, readouts.READOUT_SCALE
    try:
        for label, c in candidates.items():
            if c.pools and embedder is not None:
                print(f"| {name} | {k} | {len(cases)} | {label} | skipped: MiniLM's token states only | |")
                continue
            readouts.READOUT_L2, readouts.READOUT_SCALE = c.l2, c.scale
            queries = repaired
            if c.augment:
                queries = repaired + raw
                queries /= np.linalg.norm(queries, axis=1, keepdims=True)
            inputs = m
            if c.pools:  # the pooled score stays on the sentence vector
                inputs = _pooled(m, phrase_pools, c.pools, c.vector)
                queries = _pooled(repaired, message_pools, c.pools, c.vector)
            mean = (inputs * weights[:, None]).sum(0) / weights.sum() if c.centre else 0.0
            began = time.process_time()
            lexical = c.lexical
            if lexical is not None:
                lexicon = Lexicon(lexical).fit(classifier.embedded)
                phrases, messages = (lexicon.rows(t) * lexical.weight for t in (classifier.embedded, queried))
                lw = lexical.l2 if lexical.l2 is not None else c.l2
            if lexical is not None and lexical.expert is None:
                w, u, b = fit_hybrid((inputs - mean) * c.scale, phrases, owners, weights, intents, c.steps, c.l2, lw)
                fit_s = time.process_time() - began
                z = ((queries - mean) * c.scale) @ w + messages @ u + b
            else:
                w, b = readouts.fit_readout(inputs - mean, owners, weights, intents, c.steps)
                z = ((queries - mean) * c.scale) @ w + b
                if lexical is not None:
                    _, u, b2 = fit_hybrid(np.zeros((len(owners), 0)), phrases, owners, weights, intents,
                                          lexical.steps or c.steps, c.l2, lw)
                    expert = _log_softmax(messages @ u + b2)
                fit_s = time.process_time() - began
            key = c.augment
            if key not in pooled_by:
                scored = repaired + raw if c.augment else repaired
                scored = scored / np.linalg.norm(scored, axis=1, keepdims=True)
                pooled_by[key] = np.array([classifier._scores((m @ q) * weights)[0] for q in scored])
            order = pooled_by[key] / c.temperature + _log_softmax(z)
            if lexical is not None and lexical.expert is not None:
                order += lexical.expert * expert
            top1 = float((order.argmax(axis=1) == truth).mean())
            print(f"| {name} | {k} | {len(cases)} | {label} | {top1:.1%} | {fit_s:.2f} |", flush=True)
    finally:
        readouts.READOUT_L2, readouts.READOUT_SCALE = saved


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--benchmark", action="append", choices=tuple(nlu_public.LOADERS))
    parser.add_argument("--shots", type=int, default=10)
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--only", action="append", help="candidates whose name contains this (and the shipped one)")
    parser.add_argument("--seed", type=int, default=nlu_public.SEED, help="another draw of the k examples")
    options = parser.parse_args(argv)
    shipped = next(iter(CANDIDATES))
    candidates = {n: c for n, c in CANDIDATES.items()
                  if not options.only or n == shipped or any(o in n for o in options.only)}
    print("| benchmark | k | validation messages | readout | top-1 | fit CPU s |")
    print("| --- | ---: | ---: | --- | ---: | ---: |")
    for name in options.benchmark or tuple(nlu_public.LOADERS):
        sweep(name, options.shots, options.messages, candidates, seed=options.seed)


if __name__ == "__main__":
    main()
