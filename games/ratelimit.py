"""Fixed-window rate limits kept in the cache (Redis when configured, so every process shares them)."""

from __future__ import annotations

import time

from django.core.cache import cache

#: A player may make 30 moves per 10 seconds, whether through the pages or the API.
MOVES_PER_WINDOW = (30, 10)


def allow_move(user_id: int) -> bool:
    limit, window = MOVES_PER_WINDOW
    return allow(f"moves:{user_id}", limit, window)


def allow(key: str, limit: int, window_seconds: int) -> bool:
    """Count one hit for ``key``; False once it has had ``limit`` hits in the current window."""
    window = int(time.time() // window_seconds)
    bucket = f"rl:{key}:{window}"
    if cache.add(bucket, 1, timeout=window_seconds + 1):
        return True
    try:
        hits = cache.incr(bucket)
    except ValueError:  # the bucket expired between add and incr
        cache.add(bucket, 1, timeout=window_seconds + 1)
        return True
    return hits <= limit
