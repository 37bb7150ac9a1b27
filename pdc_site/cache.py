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
_CLIENTS: dict[int, Any] = {}


class SharedRedisClient(RedisCacheClient):
    """One connection pool and one ``redis.Redis`` object per Redis server and process.

    Under ASGI Django makes a cache object per request (``caches`` is context-local), and each made
    a pool of its own: every request opened a new Redis connection (and looked redis-py's version
    up for it), a tenth of a busy daphne's CPU. And Django's client makes a new ``redis.Redis``
    object for every command, about as costly as the command itself (a rate-limited API request
    ran nine). ``redis.Redis`` is safe to share between threads: each command borrows a pooled
    connection."""

    def _get_connection_pool(self, write: bool) -> Any:
        url = self._servers[self._get_connection_pool_index(write)]
        with _POOLS_LOCK:
            if url not in _POOLS:
                _POOLS[url] = self._pool_class.from_url(url, **self._pool_options)
            return _POOLS[url]

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        pool = self._get_connection_pool(write)
        client = _CLIENTS.get(id(pool))
        if client is None:
            client = _CLIENTS.setdefault(id(pool), self._client(connection_pool=pool))
        return client


def _away(operation: str, error: RedisError) -> None:
    logger.warning("the cache is away (%s): %s skipped", error, operation)


#: KEYS[1]: the counter to count a hit in (ARGV[1]: its lifetime in seconds if new); KEYS[2…]:
#: the counters to sum after it. Counters are plain integers, as Django's cache stores them.
COUNT_HIT = """
redis.call('SET', KEYS[1], 0, 'EX', ARGV[1], 'NX')
redis.call('INCR', KEYS[1])
local total = 0
for i = 2, #KEYS do
  total = total + (tonumber(redis.call('GET', KEYS[i])) or 0)
end
return total
"""


#: A request's limits in one script (``ForgivingRedisCache.check``). A counter is the slots of a
#: sliding window: keys ``prefix .. n`` for n from ``first`` to ``first + slots - 1`` (the current
#: one last), built here rather than sent one by one (sending forty keys cost more than the
#: script). ARGV: the counter to read (prefix, first, slots, limit; no prefix: none); a key to
#: read (or ""); whether its value must be the next argument for any hit to be counted ("1"/"0");
#: that value; how many counters to count a hit in, then for each: prefix, first, slots, limit,
#: the current slot's lifetime if new. The answer: {the read counter at its limit (1/0), the key's
#: value (or ""), the position of the counter that refused its hit (its hit given back, the ones
#: after it not counted), or the number of counters when none refused, or -1 when nothing was
#: counted}. (The keys are not declared in KEYS: this needs one Redis server, not a cluster.)
CHECK = """
local function total(prefix, first, slots)
  local sum = 0
  for n = first, first + slots - 1 do
    sum = sum + (tonumber(redis.call('GET', prefix .. string.format('%d', n))) or 0)
  end
  return sum
end
local read_prefix, read_first = ARGV[1], tonumber(ARGV[2])
local read_slots, read_limit = tonumber(ARGV[3]), tonumber(ARGV[4])
local other, compare, expected = ARGV[5], ARGV[6] == '1', ARGV[7]
local counters = tonumber(ARGV[8])
local value = ''
if other ~= '' then
  value = redis.call('GET', other) or ''
end
if read_prefix ~= '' and total(read_prefix, read_first, read_slots) >= read_limit then
  return {1, value, -1}
end
if compare and (value == '' or value ~= expected) then
  return {0, value, -1}
end
local a = 9
for c = 1, counters do
  local prefix, first, slots = ARGV[a], tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  local limit, lifetime = tonumber(ARGV[a + 3]), ARGV[a + 4]
  a = a + 5
  local current = prefix .. string.format('%d', first + slots - 1)
  redis.call('SET', current, 0, 'EX', lifetime, 'NX')
  redis.call('INCR', current)
  if total(prefix, first, slots) > limit then
    redis.call('DECR', current)
    return {0, value, c - 1}
  end
end
return {0, value, counters}
"""

#: KEYS[1]: a count of what one client holds (``games.limits``); ARGV[1]: the most it may hold;
#: ARGV[2]: its lifetime in seconds after this change. One more is counted unless that makes more
#: than the most, and the count lives ARGV[2] seconds from now either way. The answer: 1 when it
#: was counted, 0 when refused (nothing counted).
TAKE_HELD = """
local held = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
if held > tonumber(ARGV[1]) then
  redis.call('DECR', KEYS[1])
  return 0
end
return 1
"""

#: KEYS[1]: a counter; ARGV[1]: what to add to it. Django's ``incr`` of a key that exists (nil for
#: one that does not, which Django refuses), in one command where it sent two.
INCR_EXISTING = """
if redis.call('EXISTS', KEYS[1]) == 0 then
  return false
end
return redis.call('INCRBY', KEYS[1], ARGV[1])
"""

#: A counter for ``check``: (key prefix, first slot, slots, limit, lifetime of a new slot).
Counter = tuple[str, int, int, int, int]


class ForgivingRedisCache(RedisCache):
    def __init__(self, server: Any, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = SharedRedisClient

    def validate_key(self, key: str) -> None:
        """Nothing to check: a Redis key may hold any byte, at any length the site uses. Django's
        check warns about keys that memcached would refuse, on every key of every call (a
        regular expression through a lazy object per key): an ``MGET`` of a table's watchers'
        counts (``games.limits.held_many``) spent a quarter of its time on it. The embedded
        default (``LocMemCache``, the tests without Redis) still warns, so such a key is still
        seen before it reaches a cache that would refuse it."""

    def count_hit(self, key: str, window: list[str], timeout: int) -> int:
        """Count one hit in the counter ``key`` (made with ``timeout`` seconds to live if new)
        and answer the sum of the counters ``window`` after it: one script, so one command and
        one answer (and a counter is never made without its lifetime). 0 while Redis is away:
        limits pause then."""
        keys = [self.make_and_validate_key(key), *(self.make_and_validate_key(k) for k in window)]
        try:
            return int(self._count_hit_script()(keys=keys, args=[timeout]))
        except RedisError as error:
            _away("count_hit", error)
            return 0

    def take_held(self, key: str, cap: int, seconds: int) -> bool:
        """Count one more in the count ``key`` unless it would pass ``cap``, the count living
        ``seconds`` from now (``limits.take``): one round trip where ``add``, ``incr`` and
        ``touch`` took three. True while Redis is away: nothing is refused then."""
        try:
            taken = self._script("_take_held", TAKE_HELD)(
                keys=[self.make_and_validate_key(key)], args=[cap, seconds]
            )
        except RedisError as error:
            _away("take_held", error)
            return True
        return bool(int(taken))

    def _count_hit_script(self) -> Any:
        return self._script("_count_hit", COUNT_HIT)

    def _script(self, name: str, source: str) -> Any:
        script = vars(self).get(name)
        if script is None:
            client = self._cache.get_client(None, write=True)
            script = self.__dict__[name] = client.register_script(source)
        return script

    def check(
        self,
        read: tuple[str, int, int, int],
        other: str,
        expected: Any,
        counters: list[Counter],
    ) -> tuple[bool, Any, int | None, bool]:
        """One round trip for a request's limits (``ratelimit.check``): whether the counter
        ``read`` (key prefix, first slot, slots, limit) is at its limit; the value of the key
        ``other``; and, only if that value is ``expected`` and the counter is not at its limit, a
        hit counted in each of ``counters`` in turn, up to the first that refuses it (its hit
        given back). Answers (at the limit, the value or None, the position of the counter that
        refused or None, whether the hits were counted). While Redis is away: (False, None, None,
        False), as the separate reads and counts would have found."""
        prefix, first, slots, limit = read
        head = [self.make_key(prefix), first, slots, limit, self.make_key(other), 1]
        head.append(self._cache._serializer.dumps(expected))
        answer = self._run_check("check", head, counters)
        if answer is None:
            return False, None, None, False
        full, value, refused = answer
        found = self._cache._serializer.loads(value) if value else None
        return bool(full), found, *self._refused(refused, counters)

    def count_hits(self, counters: list[Counter]) -> int | None:
        """A hit counted in each of ``counters`` in turn (as ``count_hit``), up to the first that
        refuses it (its hit given back): its position, or None when none did (also while Redis is
        away: limits pause then). One round trip."""
        answer = self._run_check("count_hits", ["", 0, 0, 0, "", 0, ""], counters)
        if answer is None:
            return None
        return self._refused(answer[2], counters)[0]

    def _run_check(self, operation: str, head: list[Any], counters: list[Counter]) -> Any:
        args = [*head, len(counters)]
        for prefix, first, slots, limit, lifetime in counters:
            # The key of slot n is the cache's key for ``prefix`` + n (its default key function).
            args.extend((self.make_key(prefix), first, slots, limit, lifetime))
        try:
            return self._script("_check", CHECK)(keys=[], args=args)
        except RedisError as error:
            _away(operation, error)
            return None

    @staticmethod
    def _refused(answer: Any, counters: list) -> tuple[int | None, bool]:
        """(the position of the counter that refused, or None; whether hits were counted)."""
        position = int(answer)
        return (position if 0 <= position < len(counters) else None), position >= 0

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

    def get_made_many(self, made: list[str], operation: str = "get_many") -> list[Any]:
        """The values of keys already made (``make_and_validate_key``), in their order, None for
        a missing one: ``get_many`` for a caller that keeps its keys made. While Redis is away,
        all None, as a miss."""
        try:
            values = self._cache.get_client(None).mget(made)
        except RedisError as error:
            _away(operation, error)
            return [None] * len(made)
        loads = self._cache._serializer.loads
        return [None if value is None else loads(value) for value in values]

    def has_key(self, key: str, version: Any = None) -> bool:
        try:
            return super().has_key(key, version)
        except RedisError as error:
            _away("has_key", error)
            return False

    def incr(self, key: str, delta: int = 1, version: Any = None) -> int:
        """Django's ``incr`` (and so ``decr``: a count given back) in one round trip where it
        took two (``EXISTS``, then ``INCRBY``): ValueError for a missing key, as Django's."""
        made = self.make_and_validate_key(key, version=version)
        try:
            value = self._script("_incr_existing", INCR_EXISTING)(keys=[made], args=[delta])
        except RedisError as error:
            _away("incr", error)
            raise ValueError(f"Key '{key}' cannot be read now.") from None
        if value is None:
            raise ValueError(f"Key '{made}' not found.")
        return value

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
