"""The Redis cache's ``incr`` and ``decr`` in one command (pdc_site.cache.INCR_EXISTING), where
Django's sent two (``EXISTS``, ``INCRBY``): the same answers and the same refusal of a missing
key, and a ValueError while Redis is away."""

from __future__ import annotations

import uuid

import pytest
from django.core.cache.backends.redis import RedisCache

from pdc_site.cache import ForgivingRedisCache
from tests.redis_commands import redis_commands
from tests.services_required import require_redis


def caches() -> tuple[ForgivingRedisCache, RedisCache]:
    url = require_redis()
    prefix = f"test-incr-{uuid.uuid4().hex[:8]}"
    return ForgivingRedisCache(url, {"KEY_PREFIX": prefix}), RedisCache(url, {"KEY_PREFIX": prefix})


def counts(cache) -> list:
    """What a run of increments and decrements answers (a refusal as its message's start)."""
    seen: list = []
    for step in (
        lambda: cache.add("count", 3, 60),
        lambda: cache.incr("count"),
        lambda: cache.incr("count", 5),
        lambda: cache.decr("count", 2),
        lambda: cache.get("count"),
        lambda: cache.incr("missing"),
        lambda: cache.decr("missing"),
        lambda: cache.get("missing"),
        lambda: cache.incr("count", version=2),
    ):
        try:
            seen.append(step())
        except ValueError as refused:
            seen.append(str(refused).split("'")[0])
    cache.delete("count")
    return seen


@pytest.mark.redis
def test_incr_answers_as_djangos_redis_cache_does():
    site, django = caches()
    assert counts(site) == counts(django)
    assert counts(site) == [True, 4, 9, 7, 7, "Key ", "Key ", None, "Key "]


@pytest.mark.redis
def test_an_incr_is_one_command(monkeypatch):
    site, _django = caches()
    site.add("count", 1, 60)
    commands = redis_commands(monkeypatch)
    assert site.incr("count") == 2
    assert site.decr("count") == 1
    with pytest.raises(ValueError):
        site.incr("missing")
    assert len(commands) == 3, commands


def test_an_incr_while_redis_is_away_is_a_value_error():
    site = ForgivingRedisCache("redis://127.0.0.1:1/0", {})
    with pytest.raises(ValueError, match="cannot be read now"):
        site.incr("count")
