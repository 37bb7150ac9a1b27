"""Rate limits kept in the cache (Redis when configured, so every process shares them), and who a
caller is when they have no account: their address.

A limit of N hits per W seconds is a sliding window cut into ``SLOTS`` slots of W/SLOTS seconds.
A hit is let through while the hits counted in its slot and the ``SLOTS`` slots before it stay
within N. Any W seconds lie inside those SLOTS + 1 slots, so no W seconds ever see more than N hits,
at a boundary or anywhere else (a fixed window lets 2N through around its boundary). A caller who
keeps hitting steadily gets SLOTS / (SLOTS + 1) of N per W.

A hit is counted first and the sum read after, so two processes counting at once can both be
refused but never both let through past the limit; a refused hit is given back, so a caller who
keeps knocking while refused does not stay refused for longer.
"""

from __future__ import annotations

import contextlib
import ipaddress
import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache as memoise
from typing import Any

from django.conf import settings
from django.core.cache import cache, caches

from pdc_site.cache import ForgivingRedisCache

#: A player may make 30 moves per 10 seconds (``MOVES_PER_TEN_SECONDS``), whether through the
#: pages or the API.
MOVES_PER_WINDOW = (settings.MOVES_PER_TEN_SECONDS, 10)
SLOTS = 10


def clock() -> float:
    """Seconds since the epoch: shared by every process (tests replace it to move time on)."""
    return time.time()


def allow_move(user_id: int) -> bool:
    return allow(*move_limit(user_id))


def move_limit(user_id: int) -> tuple[str, int, float]:
    """The key, limit and window of a player's moves (``allow_move``)."""
    limit, window = MOVES_PER_WINDOW
    return f"moves:{user_id}", limit, window


def allow(key: str, limit: int, window_seconds: float) -> bool:
    """Count one hit for ``key``; False (and nothing counted) once it would make more than
    ``limit`` hits in ``window_seconds``."""
    return take(key, limit, window_seconds) is not None


def take(key: str, limit: int, window_seconds: float) -> str | None:
    """Like ``allow``, but the hit can be given back (``give_back`` with the returned ticket):
    for attempts that count only when they fail, such as logins."""
    slots = _slot_keys(key, window_seconds)
    current = slots[-1]
    if _count_hit(current, slots, _lifetime(window_seconds)) > limit:
        give_back(current)
        return None
    return current


def _count_hit(current: str, slots: list[str], lifetime: int) -> int:
    """Count a hit in the slot ``current``; the hits in ``slots`` (it among them) after it."""
    backend = caches["default"]
    if isinstance(backend, ForgivingRedisCache):
        return backend.count_hit(current, slots, lifetime)  # one round trip to Redis
    if not cache.add(current, 1, timeout=lifetime):
        try:
            cache.incr(current)
        except ValueError:  # the slot expired between add and incr
            cache.add(current, 1, timeout=lifetime)
    return _total(slots)


def give_back(ticket: str) -> None:
    """Uncount the hit ``take`` counted (in the slot it was counted in)."""
    # A slot that has expired no longer counts anyway.
    with contextlib.suppress(ValueError):
        cache.decr(ticket)


def full(key: str, limit: int, window_seconds: float) -> bool:
    """Whether ``key`` has had ``limit`` hits in the last ``window_seconds`` (counting nothing)."""
    return _total(_slot_keys(key, window_seconds)) >= limit


def full_reading(key: str, limit: int, window_seconds: float, other: str) -> tuple[bool, Any]:
    """``full(key, …)`` and the cache's value for the key ``other`` (None when it has none),
    read together in one round trip."""
    slots = _slot_keys(key, window_seconds)
    found = cache.get_many([*slots, other])
    value = found.pop(other, None)
    return sum(found.values()) >= limit, value


@dataclass(frozen=True)
class Limit:
    """``limit`` hits of ``key`` per ``window`` seconds (what ``allow`` takes)."""

    key: str
    limit: int
    window: float


@dataclass(frozen=True)
class Reading:
    """What ``check`` found: whether the read counter is at its limit, the other key's value,
    and whether the hits were counted, and then which limit refused its hit (None: none did)."""

    full: bool
    value: Any
    counted: bool
    refused: int | None = None


def check(read: Limit, other: str, expected: Any, hits: Sequence[Limit] = ()) -> Reading:
    """``full(read…)`` and the cache's value for ``other``, and, only if that value is
    ``expected`` (and ``read`` is not full), a hit counted for each of ``hits`` in turn as
    ``allow`` counts it, up to the first that refuses it. One round trip to Redis for what would
    be one to three: a request's token check (``read``: its address's unknown tokens; ``other``:
    the tokens' generation) and its rate limits, when the token is one the process remembers."""
    backend = caches["default"]
    if isinstance(backend, ForgivingRedisCache):
        prefix, first, slots = _slot_span(read.key, read.window)
        full_now, value, refused, counted = backend.check(
            (prefix, first, slots, read.limit), other, expected, _counters(hits)
        )
        return Reading(full_now, value, counted, refused)
    full_now, value = full_reading(read.key, read.limit, read.window, other)
    if full_now or value is None or value != expected:
        return Reading(full_now, value, counted=False)
    return Reading(full_now, value, counted=True, refused=first_refused(hits))


def first_refused(hits: Sequence[Limit]) -> int | None:
    """Count a hit for each limit in turn (``allow``) up to the first that refuses it: its
    position, or None when all let theirs through (one round trip to Redis for them all)."""
    backend = caches["default"]
    if isinstance(backend, ForgivingRedisCache):
        return backend.count_hits(_counters(hits))
    for position, hit in enumerate(hits):
        if not allow(hit.key, hit.limit, hit.window):
            return position
    return None


def _counters(hits: Sequence[Limit]) -> list[tuple[str, int, int, int, int]]:
    return [(*_slot_span(hit.key, hit.window), hit.limit, _lifetime(hit.window)) for hit in hits]


def _slot_span(key: str, window_seconds: float) -> tuple[str, int, int]:
    """``_slot_keys`` as (the keys' common prefix, the oldest slot's number, how many slots):
    slot n's key is the prefix followed by n."""
    now = _slot_number(window_seconds)
    return f"rl:{key}:{window_seconds}:", now - SLOTS, SLOTS + 1


def seconds_until_free(key: str, limit: int, window_seconds: float) -> float:
    """How long until ``key`` may hit again: when enough of its oldest slots have left the
    window (0 when it may hit now)."""
    slots = _slot_keys(key, window_seconds)
    counts = cache.get_many(slots)
    excess = sum(counts.values()) - limit + 1
    slot_seconds = window_seconds / SLOTS
    first = _slot_number(window_seconds) - SLOTS
    for leaving, slot in enumerate([*slots, None]):
        if excess <= 0:
            # Once the ``leaving`` oldest slots have left the window, the key may hit again.
            return max(0.0, (first + leaving) * slot_seconds + window_seconds - clock())
        excess -= counts.get(slot, 0)
    return window_seconds


def _slot_number(window_seconds: float) -> int:
    return math.floor(clock() / (window_seconds / SLOTS))


def _slot_keys(key: str, window_seconds: float) -> list[str]:
    """The cache keys of the window's slots, oldest first, the current slot last."""
    prefix, first, slots = _slot_span(key, window_seconds)
    return [f"{prefix}{n}" for n in range(first, first + slots)]


def _total(slots: Iterable[str]) -> int:
    return sum(cache.get_many(list(slots)).values())


def _lifetime(window_seconds: float) -> int:
    # A slot is read until SLOTS + 1 slot lengths after it opened; the cache may forget it then.
    return math.ceil(window_seconds * (SLOTS + 1) / SLOTS) + 1


# --- who is calling -----------------------------------------------------------------------------
@memoise
def _networks(proxies: tuple[str, ...]) -> tuple[Any, ...]:
    return tuple(ipaddress.ip_network(p.strip(), strict=False) for p in proxies if p.strip())


def _trusted(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in _networks(tuple(settings.TRUSTED_PROXIES)))


def client_address_of(peer: str, forwarded_for: str | None) -> str:
    """The caller's address: the peer, unless the peer is a trusted proxy, in which case the
    ``X-Forwarded-For`` chain is read from the right (each proxy appends the address it saw) up
    to the first address that is not a trusted proxy. Entries further left were written by the
    client and prove nothing."""
    address = peer
    if not forwarded_for or not _trusted(peer):
        return address
    for hop in reversed([h.strip() for h in forwarded_for.split(",")]):
        try:
            ipaddress.ip_address(hop)
        except ValueError:
            return address  # not an address: what the nearest proxy saw is all we know
        address = hop
        if not _trusted(hop):
            return address
    return address


def client_address(request: Any) -> str:
    """The address of an HTTP request's caller (see ``client_address_of``)."""
    return client_address_of(
        request.META.get("REMOTE_ADDR") or "?", request.META.get("HTTP_X_FORWARDED_FOR")
    )
