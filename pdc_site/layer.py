"""The channel layer: channels-redis's Pub/Sub layer, with each ``PUBLISH`` sent on its own.

channels-redis 4.3 sends a group's message under the same lock per Redis server (one per event
loop) as its subscriptions, and holds it for the whole round trip: every doorbell of a process
waited for the doorbells before it to be answered by Redis, one at a time, and for every socket
that was joining or leaving a group. At 300 tables on a loaded machine a move's doorbell waited
there for seconds (``bench/live.py --watch``: from the watchers' render to the publish, 1.4 s at
p50 with the machine at load 20–23; 2.5 ms, and 50 ms for the slowest 1 %, without the lock at
load 14–16). ``PUBLISH`` needs no subscription, so it goes out on a connection of the layer's pool
without the lock; subscriptions keep it.

A group's message reaches a process once and is queued for each of its sockets in the group (the
same bytes object in every queue); channels-redis unpacked it once per socket, and a move's
doorbell with its rendered parts is 20–30 KB (three seats: three unpacks of it per move on one
process). It is unpacked once per process now (``deserialize``).

A move's doorbell is rendered in its request's thread after the answer (``games.published``), and
``publish_now`` sends it from there, on a connection of a synchronous pool of the process's own:
handing it to the event loop to publish took one more wake-up of the loop and a turn of it per
move, and at 300 tables the slowest 1 % of the pushes waited behind the loop's other work
(``bench/live.py --tables 300``: the push's p99 23.1, 26.5 and 23.2 ms against 27.0, 35.5 and
28.8 ms from the loop, taking turns). Both ways name the group's channel and pick its Redis
server as channels-redis does, so every process's subscription hears either.

A group's message is queued for the sockets of its own process at once, before it is published
(``_queue_here``), not when Redis sends it back: the sockets of the process that made a move no
longer wait for Redis, which shares its core with PostgreSQL and the load generator, to be
scheduled. The other processes hear it from Redis as before. The message goes out tagged with
its process (``_origin``), and the process drops its own echo (``_EchoFreeShard``), so each socket
gets it once.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from typing import Any

import redis
import redis.sentinel
from channels_redis.pubsub import (
    RedisPubSubChannelLayer,
    RedisPubSubLoopLayer,
    RedisSingleShardConnection,
)

#: The first byte of a message tagged with the process that sent it: a byte msgpack never uses,
#: so an untagged message (a ``send`` to one channel) is told apart by its first byte.
TAG = b"\xc1"
#: A tag: ``TAG`` and eight random bytes, one per process's layer.
TAG_LENGTH = 9


class PubSubChannelLayer(RedisPubSubChannelLayer):
    #: The last message unpacked: (its bytes, what they unpacked to). Holding the bytes keeps
    #: their identity from being reused by another message.
    _unpacked: tuple[bytes, dict[str, Any]] | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # A loop layer made only to name channels and pick their shard as every process's loop
        # layer does: it connects to nothing.
        self._naming = RedisPubSubLoopLayer(*self._args, channel_layer=self, **self._kwargs)
        self._clients: dict[int, redis.Redis] = {}
        self._clients_lock = threading.Lock()
        self._origin = TAG + os.urandom(TAG_LENGTH - len(TAG))

    def _get_layer(self) -> RedisPubSubLoopLayer:
        """The running loop's layer, whose shards drop the echo of this process's own group
        messages (already queued here)."""
        layer = self._layers.get(asyncio.get_running_loop())
        if layer is None:
            layer = super()._get_layer()
            layer._shards = [_EchoFreeShard(shard.host, layer) for shard in layer._shards]
        return layer

    def deserialize(self, message: bytes) -> dict[str, Any]:
        """``message`` unpacked, once for every socket it was queued for: the other sockets of
        its group take a copy of the first one's result when they receive the same bytes
        object. A copy of the message's top level each (a consumer may add to the dict it was
        given); what it holds is shared and only read (``published.parts_of``)."""
        unpacked = self._unpacked
        if unpacked is None or unpacked[0] is not message:
            packed = message[TAG_LENGTH:] if message[:1] == TAG else message
            unpacked = (message, super().deserialize(packed))
            self._unpacked = unpacked
        return dict(unpacked[1])

    def tagged(self, message: dict) -> bytes:
        """``message`` packed for a group, tagged with this process."""
        return self._origin + self.serialize(message)

    async def group_send(self, group: str, message: dict) -> None:
        """Publish ``message`` to ``group``, not waiting for the layer's other commands. Two
        doorbells of one table sent at once may reach Redis in either order: a socket pushes
        a newer version in full (a gap) and ignores an older one, as with any late doorbell."""
        layer = self._get_layer()
        channel = layer._get_group_channel_name(group)
        data = self.tagged(message)
        self._queue_here(channel, data)
        shard = layer._get_shard(channel)
        shard._ensure_redis()  # no await before it is used: no other task sees it half made
        await shard._redis.publish(channel, data)

    def publish_now(self, group: str, message: dict) -> None:
        """``group_send`` from a thread, without the event loop: one ``PUBLISH`` on a connection
        of the process's synchronous pool for the group's Redis server. Raises what redis-py
        raises when Redis is away."""
        self.publish_delivered(*self.deliver_here(group, message))

    def deliver_here(self, group: str, message: dict) -> tuple[str, bytes]:
        """The first half of ``publish_now``: ``message`` queued for the sockets of ``group`` in
        this process; what ``publish_delivered`` then sends to the other processes."""
        channel = self._naming._get_group_channel_name(group)
        data = self.tagged(message)
        self._queue_here(channel, data)
        return channel, data

    def publish_delivered(self, channel: str, data: bytes) -> None:
        """The second half of ``publish_now``: a message ``deliver_here`` queued in this process,
        published to the others (this process drops its echo)."""
        self._client(self._naming._get_shard(channel).host).publish(channel, data)

    def _queue_here(self, group_channel: str, data: bytes) -> None:
        """Queue ``data`` for the sockets of ``group_channel`` in this process: on every event
        loop that has a layer, the running one at once, the others through their own thread."""
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:  # a request's thread, the worker
            running = None
        for loop, layer in list(self._layers.items()):
            if loop is running:
                _queue_for_group(layer, group_channel, data)
                continue
            with contextlib.suppress(RuntimeError):  # a closed loop: none of its sockets is left
                loop.call_soon_threadsafe(_queue_for_group, layer, group_channel, data)

    def _client(self, host: dict[str, Any]) -> redis.Redis:
        """The synchronous client of ``host`` (one pool per server and process, shared by the
        request threads: redis-py's clients are thread-safe)."""
        key = id(host)
        client = self._clients.get(key)
        if client is None:
            with self._clients_lock:
                client = self._clients.get(key)
                if client is None:
                    client = self._clients[key] = redis.Redis(connection_pool=_sync_pool(host))
        return client


def _queue_for_group(layer: RedisPubSubLoopLayer, group_channel: str, data: bytes) -> None:
    """Queue ``data`` for each socket of the group that this loop's layer holds, as the group's
    shard queues a message from Redis (channels-redis's own ``_receive_message``, without
    ``_EchoFreeShard``'s check, which would drop it)."""
    RedisSingleShardConnection._receive_message(
        layer._get_shard(group_channel), {"channel": group_channel, "data": data}
    )


class _EchoFreeShard(RedisSingleShardConnection):
    """A shard's subscription that ignores the group messages its own process sent (each was
    queued here when it was sent)."""

    def _receive_message(self, message: dict | None) -> None:
        if message is not None and message["data"].startswith(
            self.channel_layer.channel_layer._origin
        ):
            return
        super()._receive_message(message)


def _sync_pool(host: dict[str, Any]) -> redis.ConnectionPool:
    """channels-redis's ``create_pool`` for a host, synchronous: an address, a Sentinel's
    master, or the pool's keyword arguments."""
    options = dict(host)
    address = options.pop("address", None)
    if address is not None:
        return redis.ConnectionPool.from_url(address, **options)
    master = options.pop("master_name", None)
    if master is not None:
        sentinel = redis.sentinel.Sentinel(
            options.pop("sentinels"), sentinel_kwargs=options.pop("sentinel_kwargs", None)
        )
        return redis.sentinel.SentinelConnectionPool(master, sentinel, **options)
    return redis.ConnectionPool(**options)
