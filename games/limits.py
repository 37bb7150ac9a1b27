"""Caps on what one client holds at once (long polls, sockets), counted in the cache so that
every process shares them (Redis when configured).

A count expires ``seconds`` after its last change: a process killed while its client held
something cannot lock that client out for longer. While the cache is away, nothing is refused.
"""

from __future__ import annotations

import contextlib

from django.core.cache import cache, caches

from pdc_site.cache import ForgivingRedisCache


def _key(kind: str, holder: str) -> str:
    return f"held:{kind}:{holder}"


def take(kind: str, holder: str, cap: int, seconds: int) -> bool:
    """Count one more ``kind`` held by ``holder``; False, counting nothing, if it already holds
    ``cap`` of them. Every ``take`` that answered True must be followed by ``give_back``."""
    key = _key(kind, holder)
    backend = caches["default"]
    if isinstance(backend, ForgivingRedisCache):
        return backend.take_held(key, cap, seconds)  # one round trip to Redis
    if cache.add(key, 1, timeout=seconds):
        return True
    try:
        held = cache.incr(key)
    except ValueError:  # expired between add and incr, or the cache is away
        cache.add(key, 1, timeout=seconds)
        return True
    cache.touch(key, seconds)
    if held > cap:
        give_back(kind, holder)
        return False
    return True


def give_back(kind: str, holder: str) -> None:
    # A count that expired meanwhile has nothing left to give back (on Redis one round trip:
    # ``ForgivingRedisCache.incr``).
    with contextlib.suppress(ValueError):
        cache.decr(_key(kind, holder))


def held(kind: str, holder: str) -> int:
    """How many ``kind`` the holder holds now (for tests and diagnostics)."""
    return int(cache.get(_key(kind, holder)) or 0)


def held_many(kind: str, holders: list[str]) -> dict[str, int]:
    """How many ``kind`` each of these holders holds now, in one read of the cache (holders that
    hold none are left out)."""
    return HeldCounts(kind, holders).read()


class HeldCounts:
    """The counts of a fixed list of holders of one kind, read again and again (a table's
    viewers, at every version of the table): ``read()`` is ``held_many``.

    On Redis the cache's keys are made once (Django's prefix and version of each of them, and
    its validation until ``ForgivingRedisCache.validate_key`` skipped it, cost more than the
    ``MGET`` itself: a table's 32 viewers took 1% of a busy daphne's CPU), with the holders'
    names, and read with ``ForgivingRedisCache.get_made_many``; they are made again only if the
    cache's key settings change. The same keys and values as ``cache.get_many``; while Redis is
    away nobody holds anything, as the cache's miss answers."""

    def __init__(self, kind: str, holders: list[str]) -> None:
        self.holders = list(holders)
        self.keys = [_key(kind, holder) for holder in self.holders]
        self._made: tuple[tuple, list[str]] | None = None

    def read(self) -> dict[str, int]:
        backend = caches["default"]
        if not isinstance(backend, ForgivingRedisCache):
            found = backend.get_many(self.keys)
            counts = [found.get(key) for key in self.keys]
        else:
            counts = backend.get_made_many(self._made_keys(backend), "held_many")
        return {
            holder: int(count)
            for holder, count in zip(self.holders, counts, strict=True)
            if int(count or 0) > 0
        }

    def _made_keys(self, backend: ForgivingRedisCache) -> list[str]:
        settings = (backend.key_prefix, backend.version, backend.key_func)
        if self._made is None or self._made[0] != settings:
            self._made = (settings, [backend.make_and_validate_key(key) for key in self.keys])
        return self._made[1]
