"""The channel layer: channels-redis's Pub/Sub layer, with each ``PUBLISH`` sent on its own.

channels-redis 4.3 sends a group's message under the same lock per Redis server (one per event
loop) as its subscriptions, and holds it for the whole round trip: every doorbell of a process
waited for the doorbells before it to be answered by Redis, one at a time, and for every socket
that was joining or leaving a group. At 300 tables on a loaded machine a move's doorbell waited
there for seconds (``bench/live.py --watch``: from the watchers' render to the publish, 1.4 s at
p50 with the machine at load 20–23; 2.5 ms, and 50 ms for the slowest 1 %, without the lock at
load 14–16). ``PUBLISH`` needs no subscription, so it goes out on a connection of the layer's pool
without the lock; subscriptions keep it.
"""

from __future__ import annotations

from channels_redis.pubsub import RedisPubSubChannelLayer


class PubSubChannelLayer(RedisPubSubChannelLayer):
    async def group_send(self, group: str, message: dict) -> None:
        """Publish ``message`` to ``group``, not waiting for the layer's other commands. Two
        doorbells of one table sent at once may reach Redis in either order: a socket pushes
        a newer version in full (a gap) and ignores an older one, as with any late doorbell."""
        layer = self._get_layer()
        channel = layer._get_group_channel_name(group)
        shard = layer._get_shard(channel)
        shard._ensure_redis()  # no await before it is used: no other task sees it half made
        await shard._redis.publish(channel, self.serialize(message))
