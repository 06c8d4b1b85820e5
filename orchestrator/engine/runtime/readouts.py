"""The linear readouts that reorder an intent ranking (`semantic.SemanticClassifier`): a multinomial
logistic regression fitted on a catalog's phrases, over their sentence vectors (`readout_input`: or the
inner means the embedder gives instead) or over their character n-grams (`Lexicon`).

Pure numpy, deterministic and bounded in time: a fixed number of Nesterov steps from zero, whatever the
catalog. scipy's sparse rows only for the n-grams, imported where a lexical readout is fitted.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from scipy import sparse  # imported where a lexical readout is fitted: 0.1 s that other processes skip

READOUT_SCALE = 20.0  # cosine-scale vectors stretched so that a linear readout can be confident
READOUT_L2 = 1e-4
READOUT_STEPS = 100  # Nesterov steps: 0.4 s of CPU for Banking77 at 10 examples; 400 gained 0.1 point on its validation
# The lexical readout's character n-grams of these lengths, their unit TF-IDF vector stretched by LEXICAL_SCALE.
LEXICAL_GRAMS = (3, 5)
LEXICAL_SCALE = 10.0


def readout_input(vectors: np.ndarray, inner: np.ndarray | None) -> np.ndarray:
    """What the vector readout reads: the sentence vectors alone, or, where the embedder gives them, their
    inner means ([texts, k, dim], unit vectors) side by side, stretched back to unit length (each counts
    1/sqrt k)."""
    if inner is None:
        return vectors
    joined = inner.reshape(len(inner), -1)
    return joined / np.linalg.norm(joined, axis=1, keepdims=True)


def fit_readout(matrix: np.ndarray | sparse.csr_matrix, owners: np.ndarray, weights: np.ndarray, intents: int,
                steps: int = READOUT_STEPS, scale: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A multinomial logistic regression from the phrases' vectors (scaled by `scale`, by default
    `READOUT_SCALE`) to their intents, each phrase counted by its weight, L2-penalised; Nesterov's
    accelerated gradient from zero, a fixed number of steps (deterministic, and bounded in time whatever
    the catalog). `matrix` dense (sentence vectors), or sparse (a `Lexicon`'s rows): then in float32,
    since its weights (n-grams x intents: 6,500 x 77 for Banking77 at 10 examples) and their updates,
    made in place, are most of the cost."""
    lexical = not isinstance(matrix, np.ndarray)
    dtype = np.float32 if lexical else np.float64
    x = matrix.astype(dtype) * (READOUT_SCALE if scale is None else scale)
    xt = x.T.tocsr() if lexical else x.T
    target = np.eye(intents, dtype=dtype)[owners]
    share = (weights.astype(np.float64) / weights.sum()).astype(dtype)
    w, b = np.zeros((x.shape[1], intents), dtype), np.zeros(intents, dtype)
    vw, vb = np.zeros_like(w), np.zeros_like(b)
    for _ in range(steps):
        lw, lb = w + 0.9 * vw, b + 0.9 * vb
        z = x @ lw + lb
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        g = (p - target) * share[:, None]
        lw *= READOUT_L2
        lw += xt @ g
        vw *= 0.9
        vw -= lw
        vb = 0.9 * vb - g.sum(axis=0)
        w += vw
        b = b + vb
    return w.astype(np.float32), b.astype(np.float32)


def log_softmax(logits: np.ndarray) -> np.ndarray:
    logits = logits - logits.max()
    return logits - np.log(np.exp(logits).sum())


def _grams(text: str) -> list[str]:
    """The character n-grams (`LEXICAL_GRAMS`) of each word with a space either side, so that a word's
    start and end are grams of their own; a word shorter than n gives itself once."""
    low, high = LEXICAL_GRAMS
    grams = []
    for word in text.split():
        padded = f" {word} "
        for n in range(low, high + 1):
            grams += [padded[i:i + n] for i in range(max(1, len(padded) - n + 1))]
    return grams


class Lexicon:
    """The catalog's character n-grams (`_grams`), each weighted by its inverse document frequency over
    the catalog's phrases: a text as a sparse unit vector of (1 + log count) x idf over the n-grams the
    catalog has (the others could carry no weight in a readout fitted on the catalog)."""

    def __init__(self, phrases: Sequence[str]):
        counts = Counter(gram for phrase in phrases for gram in set(_grams(phrase)))
        self.index = {gram: i for i, gram in enumerate(counts)}
        n = len(phrases)
        self.idf = np.array([math.log((1 + n) / (1 + c)) + 1 for c in counts.values()], dtype=np.float64)

    def vector(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """The columns and values of `text`'s unit vector."""
        counts = Counter(i for gram in _grams(text) if (i := self.index.get(gram)) is not None)
        columns = np.fromiter(counts, dtype=np.int64, count=len(counts))
        values = (1 + np.log(np.fromiter(counts.values(), dtype=np.float64, count=len(counts)))) * self.idf[columns]
        norm = np.linalg.norm(values)
        return columns, values / norm if norm else values

    def matrix(self, texts: Sequence[str]) -> sparse.csr_matrix:
        from scipy import sparse

        rows = [self.vector(text) for text in texts]
        starts = np.cumsum([0, *(len(columns) for columns, _ in rows)])
        columns = np.concatenate([c for c, _ in rows]) if rows else np.zeros(0, np.int64)
        values = np.concatenate([v for _, v in rows]) if rows else np.zeros(0)
        return sparse.csr_matrix((values, columns, starts), shape=(len(texts), len(self.index)))
