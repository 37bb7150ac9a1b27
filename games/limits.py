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
    # A count that expired meanwhile has nothing left to give back.
    with contextlib.suppress(ValueError):
        cache.decr(_key(kind, holder))


def held(kind: str, holder: str) -> int:
    """How many ``kind`` the holder holds now (for tests and diagnostics)."""
    return int(cache.get(_key(kind, holder)) or 0)


def held_many(kind: str, holders: list[str]) -> dict[str, int]:
    """How many ``kind`` each of these holders holds now, in one read of the cache (holders that
    hold none are left out)."""
    keys = {_key(kind, holder): holder for holder in holders}
    found = cache.get_many(list(keys))
    return {keys[key]: int(count) for key, count in found.items() if int(count or 0) > 0}
