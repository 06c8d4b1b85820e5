"""Sentence vectors kept by phrase, so that an unchanged phrase is never embedded twice.

A catalog is refitted on every edit; its phrases come back whole each time. The cache this replaces
held 4,096 vectors and dropped the oldest first, so a catalog of more phrases evicted its own phrases
while it was being embedded and re-embedded all of them at every edit (17.6 s of CPU for one edit at
7,650 phrases). Here the least recently used go first, and never one of the batch being embedded:
a batch larger than the capacity is kept whole, so the next fit of the same catalog embeds only what
changed, whatever its size. Messages come one at a time and take their turn in the same order.
An entry is whatever one encoding gives: the int8 MiniLM keeps its sentence vector and its readout's
two inner means together, one [3, 384] array, so none is ever computed again without the others.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable

import numpy as np

CAPACITY = 32_768  # entries: about 50 MB of 384-float vectors, 150 MB of the int8 MiniLM's triples


class VectorCache:
    def __init__(self, capacity: int = CAPACITY):
        self.capacity = capacity
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def vectors(self, texts: list[str], encode: Callable[[str], np.ndarray]) -> list[np.ndarray]:
        """Each text's vector, encoding only those not kept (outside the lock: a long fit must not hold
        up another thread's message)."""
        with self._lock:
            found = {t: self._vectors[t] for t in dict.fromkeys(texts) if t in self._vectors}
            for text in found:
                self._vectors.move_to_end(text)
        missing = {t: encode(t) for t in dict.fromkeys(texts) if t not in found}
        if missing:
            with self._lock:
                for text, vector in missing.items():
                    self._vectors[text] = vector
                    self._vectors.move_to_end(text)
                # The batch is the most recent: trimming down to its size never touches it.
                keep = max(self.capacity, len(found) + len(missing))
                while len(self._vectors) > keep:
                    self._vectors.popitem(last=False)
        return [found.get(t) if t in found else missing[t] for t in texts]

    # The dict-like calls the benchmarks use to time a message as new.
    def clear(self) -> None:
        with self._lock:
            self._vectors.clear()

    def pop(self, text: str, default: np.ndarray | None = None) -> np.ndarray | None:
        with self._lock:
            return self._vectors.pop(text, default)

    def __contains__(self, text: object) -> bool:
        return text in self._vectors

    def __len__(self) -> int:
        return len(self._vectors)


_per_embedder: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_per_embedder_lock = threading.Lock()


def once_per_embedder(embedder: object, name: str, compute: Callable[[], np.ndarray]) -> np.ndarray:
    """What `compute` gives for this embedder, worked out at its first call only (under a lock: the warm-up
    and a first message may ask at once) and kept as long as the embedder lives. For the vectors every
    catalog's fit needs whatever the catalog: worked out at each fit, they could also push a large
    catalog's own phrases out of the embedder's cache."""
    with _per_embedder_lock:
        kept = _per_embedder.setdefault(embedder, {})
        if name not in kept:
            kept[name] = compute()
        return kept[name]
