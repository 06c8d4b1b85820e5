"""A bounded memory of optimal plans, so that a planning state seen before is not searched again.

A plan depends only on the compiled catalog (fixed per `Planner`), the goal and the planning state,
all immutable and hashable; the same key always gets the same optimal plan, so answering from
memory is exact. Simulated conversations revisit the same few states thousands of times (every
user who gives an email first reaches the same state), and chat sessions do too.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class PlanCache(Generic[V]):
    """A thread-safe LRU map from (goal, state) to a planning result, with hit counts."""

    def __init__(self, size: int = 4096):
        self.size = size
        self.hits = 0
        self.misses = 0
        self._items: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()

    def get_or_compute(self, key: Hashable, compute: Callable[[], V]) -> V:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                self.hits += 1
                return self._items[key]
            self.misses += 1
        value = compute()  # outside the lock: a search takes milliseconds, other threads go on
        with self._lock:
            self._items[key] = value
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value

    def __len__(self) -> int:
        return len(self._items)
