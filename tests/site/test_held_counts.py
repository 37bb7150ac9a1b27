"""What one client holds at once (games.limits: sockets, long polls, a table's watchers), counted
on Redis in one round trip (pdc_site.cache.TAKE_HELD) with the answers of the cache-generic way
(add, incr, touch: three)."""

from __future__ import annotations

import uuid

import pytest
import redis
from django.core.cache.backends.locmem import LocMemCache

from games import limits
from pdc_site.cache import ForgivingRedisCache
from tests.services_required import require_redis


def use_cache(monkeypatch, backend) -> None:
    """Make ``backend`` the cache ``games.limits`` counts in."""
    monkeypatch.setattr(limits, "cache", backend)
    monkeypatch.setattr(limits, "caches", {"default": backend})


@pytest.fixture
def redis_cache(monkeypatch):
    url = require_redis()
    backend = ForgivingRedisCache(url, {"KEY_PREFIX": f"test-held-{uuid.uuid4().hex[:8]}"})
    use_cache(monkeypatch, backend)
    return backend


def a_client_comes_and_goes() -> list:
    """Takes and gives back of a client with a cap of 3: what each answered, and the count."""
    seen = []
    for _ in range(5):
        seen.append(limits.take("socket", "user:1", 3, 60))
    seen.append(limits.held("socket", "user:1"))
    limits.give_back("socket", "user:1")
    seen.append(limits.take("socket", "user:1", 3, 60))
    seen.append(limits.take("socket", "user:1", 3, 60))
    seen.append(limits.held("socket", "user:1"))
    for _ in range(3):
        limits.give_back("socket", "user:1")
    seen.append(limits.held("socket", "user:1"))
    seen.append(limits.take("socket", "user:2", 1, 60))
    return seen


@pytest.mark.redis
def test_redis_answers_as_the_generic_cache_does(redis_cache, monkeypatch):
    on_redis = a_client_comes_and_goes()
    use_cache(monkeypatch, LocMemCache(f"held-{uuid.uuid4().hex}", {}))
    assert on_redis == a_client_comes_and_goes()
    assert on_redis == [True, True, True, False, False, 3, True, False, 3, 0, True]


@pytest.mark.redis
def test_one_take_is_one_round_trip_and_renews_the_count_s_lifetime(redis_cache, monkeypatch):
    commands = []
    execute = redis.Redis.execute_command

    def counted(self, *args, **kwargs):
        commands.append(args[0])
        return execute(self, *args, **kwargs)

    assert limits.take("poll", "ip:1", 2, 30)
    with monkeypatch.context() as patched:
        patched.setattr(redis.Redis, "execute_command", counted)
        assert limits.take("poll", "ip:1", 2, 90)
        assert not limits.take("poll", "ip:1", 2, 90)  # refused: nothing counted, lifetime renewed
    assert len(commands) == 2, commands
    client = redis_cache._cache.get_client(write=True)
    assert 80 < client.ttl(redis_cache.make_key("held:poll:ip:1")) <= 90
    assert limits.held("poll", "ip:1") == 2


def test_nothing_is_refused_while_redis_is_away(monkeypatch):
    from socket import socket

    with socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    away = ForgivingRedisCache(f"redis://127.0.0.1:{port}/0", {})
    use_cache(monkeypatch, away)
    assert all(limits.take("socket", "user:1", 1, 60) for _ in range(3))
