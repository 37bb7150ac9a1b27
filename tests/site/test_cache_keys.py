"""The Redis cache checks no key for memcached (pdc_site.cache.ForgivingRedisCache.validate_key):
Redis takes any key, and the check cost every call a regular expression per key. The embedded
default's cache still warns about such keys."""

from __future__ import annotations

import uuid
import warnings

import pytest
from django.core.cache import CacheKeyWarning
from django.core.cache.backends import base
from django.core.cache.backends.locmem import LocMemCache

from pdc_site.cache import ForgivingRedisCache
from tests.services_required import require_redis


@pytest.fixture
def redis_cache():
    url = require_redis()
    return ForgivingRedisCache(url, {"KEY_PREFIX": f"test-keys-{uuid.uuid4().hex[:8]}"})


def keys_checked(monkeypatch) -> list[str]:
    """The keys Django's memcached check looks at from now on."""
    checked: list[str] = []
    check = base.memcache_key_warnings

    def noted(key):
        checked.append(key)
        return check(key)

    monkeypatch.setattr(base, "memcache_key_warnings", noted)
    return checked


@pytest.mark.redis
def test_the_redis_cache_reads_and_writes_without_checking_keys(redis_cache, monkeypatch):
    checked = keys_checked(monkeypatch)
    keys = [f"held:watch:user:{n}" for n in range(24)]
    redis_cache.set_many({key: n for n, key in enumerate(keys)}, 60)
    assert redis_cache.get_many(keys) == {key: n for n, key in enumerate(keys)}
    assert redis_cache.add("a key with spaces", 1, 60)
    assert redis_cache.incr("a key with spaces") == 2
    assert checked == []


@pytest.mark.redis
def test_a_key_memcached_would_refuse_is_kept_by_redis_without_a_warning(redis_cache):
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheKeyWarning)
        redis_cache.set("tab\\tand space " + "x" * 300, "kept", 60)
        assert redis_cache.get("tab\\tand space " + "x" * 300) == "kept"


def test_the_embedded_default_still_warns_about_such_a_key():
    cache = LocMemCache(f"keys-{uuid.uuid4().hex}", {})
    with pytest.warns(CacheKeyWarning):
        cache.set("a key with spaces", 1, 60)
