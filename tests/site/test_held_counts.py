"""What one client holds at once (games.limits: sockets, long polls, a table's watchers), counted
on Redis in one round trip (pdc_site.cache.TAKE_HELD) with the answers of the cache-generic way
(add, incr, touch: three)."""

from __future__ import annotations

import uuid

import pytest
from django.core.cache.backends.locmem import LocMemCache

from games import limits
from pdc_site.cache import ForgivingRedisCache
from tests.redis_commands import redis_commands
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
    assert limits.take("poll", "ip:1", 2, 30)
    with monkeypatch.context() as patched:
        commands = redis_commands(patched)
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


def counted_key_making(monkeypatch, backend) -> list:
    made = []
    make = type(backend).make_and_validate_key

    def counting(self, key, version=None):
        made.append(key)
        return make(self, key, version)

    monkeypatch.setattr(type(backend), "make_and_validate_key", counting)
    return made


@pytest.mark.redis
def test_held_counts_read_what_get_many_reads_and_make_the_cache_s_keys_once(
    redis_cache, monkeypatch
):
    """A table's viewers are read at every version: their keys are made the first time only,
    and the counts are the cache's own (``get_many``), holders holding none left out."""
    limits.take("table-viewer", "7|1||en", 10, 60)
    limits.take("table-viewer", "7|1||en", 10, 60)
    limits.take("table-viewer", "7|||fr", 10, 60)
    limits.take("table-viewer", "7|2||de", 10, 60)
    limits.give_back("table-viewer", "7|2||de")  # held, then given back: 0, left out
    holders = ["7|1||en", "7|||fr", "7|2||de", "7|3||it"]
    expected = {"7|1||en": 2, "7|||fr": 1}
    assert limits.held_many("table-viewer", holders) == expected
    counts = limits.HeldCounts("table-viewer", holders)
    made = counted_key_making(monkeypatch, redis_cache)
    assert counts.read() == expected
    assert len(made) == len(holders)
    assert counts.read() == expected
    assert counts.read() == expected
    assert len(made) == len(holders)  # the later reads made no key


@pytest.mark.redis
def test_held_counts_make_their_keys_again_when_the_cache_s_prefix_changes(redis_cache):
    counts = limits.HeldCounts("table-viewer", ["8|||en"])
    limits.take("table-viewer", "8|||en", 10, 60)
    assert counts.read() == {"8|||en": 1}
    redis_cache.key_prefix = f"{redis_cache.key_prefix}-other"
    assert counts.read() == {}  # the other prefix's key, not the one made first
    limits.take("table-viewer", "8|||en", 10, 60)
    limits.take("table-viewer", "8|||en", 10, 60)
    assert counts.read() == {"8|||en": 2}


def test_held_counts_read_nobody_while_redis_is_away(monkeypatch):
    from socket import socket

    with socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    use_cache(monkeypatch, ForgivingRedisCache(f"redis://127.0.0.1:{port}/0", {}))
    assert limits.HeldCounts("table-viewer", ["9|||en"]).read() == {}


def test_held_counts_on_the_generic_cache(monkeypatch):
    use_cache(monkeypatch, LocMemCache(f"held-{uuid.uuid4().hex}", {}))
    limits.take("table-viewer", "9|||en", 10, 60)
    counts = limits.HeldCounts("table-viewer", ["9|||en", "9|||fr"])
    assert counts.read() == {"9|||en": 1}


@pytest.mark.redis
def test_a_give_back_is_one_round_trip_and_makes_no_count_that_expired(redis_cache, monkeypatch):
    limits.take("socket", "user:5", 3, 60)
    limits.take("socket", "user:5", 3, 60)
    with monkeypatch.context() as patched:
        commands = redis_commands(patched)
        limits.give_back("socket", "user:5")
    assert len(commands) == 1, commands
    assert limits.held("socket", "user:5") == 1
    limits.give_back("socket", "user:5")
    limits.give_back("socket", "user:6")  # expired (or never held): not made again
    assert limits.held("socket", "user:5") == 0
    client = redis_cache._cache.get_client(write=True)
    assert not client.exists(redis_cache.make_key("held:socket:user:6"))
    assert limits.take("socket", "user:6", 1, 60)
    assert not limits.take("socket", "user:6", 1, 60)


def test_a_give_back_while_redis_is_away_is_skipped(monkeypatch):
    from socket import socket

    with socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    use_cache(monkeypatch, ForgivingRedisCache(f"redis://127.0.0.1:{port}/0", {}))
    limits.give_back("socket", "user:1")  # no exception: logged and skipped
