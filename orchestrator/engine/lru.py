"""A thread-safe LRU map with hit counts, for what is costly to build and never changes under its key.

One for every cache of the project: plans by (goal, state) in the planner, and on the Django side specs,
planners and editor previews by content. A key must say everything the value depends on, so answering
from memory is exact.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class Lru(Generic[V]):
    def __init__(self, size: int):
        self.size = size
        self.hits = 0
        self.misses = 0
        self._items: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, key: Hashable, value: V) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def get_or_build(self, key: Hashable, build: Callable[[], V]) -> V:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                self.hits += 1
                return self._items[key]
            self.misses += 1
        value = build()  # outside the lock: a search or a grounding takes a while, other threads go on
        self.put(key, value)
        return value

    def __len__(self) -> int:
        return len(self._items)
