"""Settings of the linear readout (`runtime/semantic.py`), compared on VALIDATION splits only.

`CONCERTO_BENCH_DATA=... python -m bench.nlu_readout [--shots 10] [--messages 2000]`: for each public
benchmark (`bench/nlu_public.py`), k examples per intent from the train split, then top-1 on at most
`--messages` validation messages (CLINC150's validation split, in scope; for Banking77 and HWU64, train
messages outside the k examples) for each candidate below. The test split is never read here.

Each message is embedded once, as the classifier embeds it (spelling repaired, normalised) and, for
the test-time-augmentation candidate, also as raw lower-cased text; the ranking rule is the one
`SemanticClassifier.rank` applies (pooled score / temperature + the readout's log-probability).
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from orchestrator.engine.runtime import semantic
from orchestrator.engine.runtime.intents import request_text
from orchestrator.engine.runtime.semantic import Embedder, SemanticClassifier
from orchestrator.engine.runtime.text import normalise

from . import nlu_public

# name: (steps, L2, scale, rank temperature, centre the vectors on the phrases' mean, query augmentation)
CANDIDATES = {
    "shipped (100, 1e-4, 20, 0.05)": (100, 1e-4, 20.0, 0.05, False, False),
    "rank temperature 0.2": (100, 1e-4, 20.0, 0.2, False, False),
    "L2 1e-3, temperature 0.2": (100, 1e-3, 20.0, 0.2, False, False),
    "200 steps, L2 1e-3, temperature 0.2": (200, 1e-3, 20.0, 0.2, False, False),
    "scale 10, temperature 0.2": (100, 1e-4, 10.0, 0.2, False, False),
    "centred, 200 steps, L2 1e-3, temperature 0.2": (200, 1e-3, 20.0, 0.2, True, False),
    "query: repaired and raw text averaged": (100, 1e-4, 20.0, 0.05, False, True),
    "readout only (no pooled score)": (100, 1e-4, 20.0, 1e9, False, False),
}


def _embed(classifier: SemanticClassifier, texts: list[str]) -> np.ndarray:
    return np.vstack([classifier.embed(texts[i:i + 64]) for i in range(0, len(texts), 64)])


def sweep(name: str, k: int, messages: int, embedder: Embedder | None = None) -> None:
    root = nlu_public.data_root()
    load, files = nlu_public.LOADERS[name]
    if root is None or not all((root / f).exists() for f in files):
        print(f"{name}: skipped, no data under ${nlu_public.ENV}")
        return
    benchmark = load(root)
    examples, rest = nlu_public.sample(benchmark, k)
    cases = [(t, i) for t, i in (benchmark.validation or rest) if i is not None]
    cases = random.Random(7).sample(cases, min(messages, len(cases)))
    classifier = SemanticClassifier(embedder)
    classifier.fit(examples, {intent: [intent.replace("_", " ")] for intent in examples})
    texts = [request_text(t) for t, _ in cases]
    repaired = _embed(classifier, [classifier.repair(normalise(t)) for t in texts])
    raw = _embed(classifier, [t.lower() for t in texts])
    truth = np.array([classifier.intents.index(i) for _, i in cases])
    m, owners, weights = classifier.matrix, classifier.owners, classifier.weights
    saved = semantic.READOUT_L2, semantic.READOUT_SCALE
    try:
        for label, (steps, l2, scale, temperature, centre, augment) in CANDIDATES.items():
            semantic.READOUT_L2, semantic.READOUT_SCALE = l2, scale
            mean = (m * weights[:, None]).sum(0) / weights.sum() if centre else 0.0
            began = time.process_time()
            w, b = semantic.fit_readout(m - mean, owners, weights, len(classifier.intents), steps)
            fit_s = time.process_time() - began
            queries = repaired
            if augment:
                queries = repaired + raw
                queries /= np.linalg.norm(queries, axis=1, keepdims=True)
            pooled = np.array([classifier._scores((m @ q) * weights)[0] for q in queries])
            z = ((queries - mean) * scale) @ w + b
            z -= z.max(axis=1, keepdims=True)
            logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
            top1 = float(((pooled / temperature + logp).argmax(axis=1) == truth).mean())
            print(f"| {name} | {k} | {len(cases)} | {label} | {top1:.1%} | {fit_s:.2f} |")
    finally:
        semantic.READOUT_L2, semantic.READOUT_SCALE = saved


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--benchmark", action="append", choices=tuple(nlu_public.LOADERS))
    parser.add_argument("--shots", type=int, default=10)
    parser.add_argument("--messages", type=int, default=2000)
    options = parser.parse_args(argv)
    print("| benchmark | k | validation messages | readout | top-1 | fit CPU s |")
    print("| --- | ---: | ---: | --- | ---: | ---: |")
    for name in options.benchmark or tuple(nlu_public.LOADERS):
        sweep(name, options.shots, options.messages)


if __name__ == "__main__":
    main()
