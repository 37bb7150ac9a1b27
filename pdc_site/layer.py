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
"""

from __future__ import annotations

from typing import Any

from channels_redis.pubsub import RedisPubSubChannelLayer


class PubSubChannelLayer(RedisPubSubChannelLayer):
    #: The last message unpacked: (its bytes, what they unpacked to). Holding the bytes keeps
    #: their identity from being reused by another message.
    _unpacked: tuple[bytes, dict[str, Any]] | None = None

    def deserialize(self, message: bytes) -> dict[str, Any]:
        """``message`` unpacked, once for every socket it was queued for: the other sockets of
        its group take a copy of the first one's result when they receive the same bytes
        object. A copy of the message's top level each (a consumer may add to the dict it was
        given); what it holds is shared and only read (``published.parts_of``)."""
        unpacked = self._unpacked
        if unpacked is None or unpacked[0] is not message:
            unpacked = (message, super().deserialize(message))
            self._unpacked = unpacked
        return dict(unpacked[1])

    async def group_send(self, group: str, message: dict) -> None:
        """Publish ``message`` to ``group``, not waiting for the layer's other commands. Two
        doorbells of one table sent at once may reach Redis in either order: a socket pushes
        a newer version in full (a gap) and ignores an older one, as with any late doorbell."""
        layer = self._get_layer()
        channel = layer._get_group_channel_name(group)
        shard = layer._get_shard(channel)
        shard._ensure_redis()  # no await before it is used: no other task sees it half made
        await shard._redis.publish(channel, self.serialize(message))
