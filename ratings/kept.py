"""What a process keeps in memory for its pages: one least-recently-read store, shared by the
process's threads, behind the ladder's kept pages, the players' kept standings and the
profile's drawings."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Iterable, Mapping
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class KeptInProcess(Generic[K, V]):
    """At most ``size`` values, the least recently read forgotten first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._kept: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            kept = self._kept.get(key)
            if kept is not None:
                self._kept.move_to_end(key)
            return kept

    def get_many(self, keys: Iterable[K]) -> dict[K, V]:
        with self._lock:
            found = {key: self._kept[key] for key in keys if key in self._kept}
            for key in found:
                self._kept.move_to_end(key)
            return found

    def put(self, key: K, value: V) -> None:
        self.set_many({key: value})

    def set_many(self, values: Mapping[K, V]) -> None:
        with self._lock:
            self._kept.update(values)
            for key in values:
                self._kept.move_to_end(key)
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()
