"""The site's cache on Redis, made to survive Redis going away.

The cache holds only what may be lost: rate-limit counters, presence, caps on what one client
holds at once. While Redis is away a read misses and a write is dropped (with a warning in the
log), so pages and the API keep answering (limits pause, everyone looks offline); it all comes
back with Redis. ``incr`` of a counter it cannot read raises ``ValueError``, as for a missing key.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

_POOLS: dict[str, Any] = {}
_POOLS_LOCK = threading.Lock()


class SharedPoolClient(RedisCacheClient):
    """One connection pool per Redis server and process. Under ASGI Django makes a cache object
    per request (``caches`` is context-local), and each made a pool of its own: every request
    opened a new Redis connection (and looked redis-py's version up for it), a tenth of a busy
    daphne's CPU. Connections now outlive requests."""

    def _get_connection_pool(self, write: bool) -> Any:
        url = self._servers[self._get_connection_pool_index(write)]
        with _POOLS_LOCK:
            if url not in _POOLS:
                _POOLS[url] = self._pool_class.from_url(url, **self._pool_options)
            return _POOLS[url]


def _away(operation: str, error: RedisError) -> None:
    logger.warning("the cache is away (%s): %s skipped", error, operation)


class ForgivingRedisCache(RedisCache):
    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = SharedPoolClient

    def add(
        self, key: str, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> bool:
        try:
            return super().add(key, value, timeout, version)
        except RedisError as error:
            _away("add", error)
            return False

    def get(self, key: str, default: Any = None, version: Any = None) -> Any:
        try:
            return super().get(key, default, version)
        except RedisError as error:
            _away("get", error)
            return default

    def set(
        self, key: str, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> None:
        try:
            super().set(key, value, timeout, version)
        except RedisError as error:
            _away("set", error)

    def touch(self, key: str, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> bool:
        try:
            return super().touch(key, timeout, version)
        except RedisError as error:
            _away("touch", error)
            return False

    def delete(self, key: str, version: Any = None) -> bool:
        try:
            return super().delete(key, version)
        except RedisError as error:
            _away("delete", error)
            return False

    def get_many(self, keys: Any, version: Any = None) -> dict[str, Any]:
        try:
            return super().get_many(keys, version)
        except RedisError as error:
            _away("get_many", error)
            return {}

    def has_key(self, key: str, version: Any = None) -> bool:
        try:
            return super().has_key(key, version)
        except RedisError as error:
            _away("has_key", error)
            return False

    def incr(self, key: str, delta: int = 1, version: Any = None) -> int:
        try:
            return super().incr(key, delta, version)
        except RedisError as error:
            _away("incr", error)
            raise ValueError(f"Key '{key}' cannot be read now.") from None

    def set_many(
        self, data: dict[str, Any], timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> list[str]:
        try:
            return super().set_many(data, timeout, version)
        except RedisError as error:
            _away("set_many", error)
            return list(data)

    def delete_many(self, keys: Any, version: Any = None) -> None:
        try:
            super().delete_many(keys, version)
        except RedisError as error:
            _away("delete_many", error)

    def clear(self) -> bool:
        try:
            return super().clear()
        except RedisError as error:
            _away("clear", error)
            return False
