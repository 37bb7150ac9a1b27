"""The Redis cache shares one connection pool per server in a process: under ASGI every request
gets a cache object of its own, and a pool per object meant a new Redis connection per request."""

from __future__ import annotations

from pdc_site.cache import ForgivingRedisCache


def test_two_cache_objects_of_one_server_share_their_connection_pool():
    # No connection is opened here: a pool connects on its first command.
    first = ForgivingRedisCache("redis://127.0.0.1:6379/10", {})
    second = ForgivingRedisCache("redis://127.0.0.1:6379/10", {})
    other = ForgivingRedisCache("redis://127.0.0.1:6379/11", {})
    pool = first._cache._get_connection_pool(write=False)
    assert second._cache._get_connection_pool(write=True) is pool
    assert other._cache._get_connection_pool(write=False) is not pool
