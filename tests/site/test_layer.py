"""The site's channel layer (pdc_site/layer.py): a group's message is published without waiting
for the layer's other commands (no Redis server needed: the client's publish is stood in for)."""

from __future__ import annotations

import asyncio

import pytest

from pdc_site.layer import PubSubChannelLayer

pytestmark = pytest.mark.asyncio

#: A bound on a wait that only a broken ordering would reach (not a timing assert).
DEADLOCK_GUARD = 10


def a_layer() -> PubSubChannelLayer:
    # Nothing connects until a command is sent.
    return PubSubChannelLayer(hosts=[{"address": "redis://127.0.0.1:1/0"}], prefix="test")


def published_to(layer: PubSubChannelLayer, group: str) -> tuple:
    """The shard of ``group``, its client made, and its channel's name."""
    here = layer._get_layer()
    channel = here._get_group_channel_name(group)
    shard = here._get_shard(channel)
    shard._ensure_redis()
    return shard, channel


async def test_a_doorbell_does_not_wait_for_one_still_on_its_way(monkeypatch):
    layer = a_layer()
    shard, channel = published_to(layer, "table-1")
    first_on_its_way, release_first = asyncio.Event(), asyncio.Event()
    sent: list[tuple[str, dict]] = []

    async def publish(name: str, data: bytes) -> int:
        message = layer.deserialize(data)
        if message["version"] == 1:
            first_on_its_way.set()
            await release_first.wait()  # Redis slow to answer the first
        sent.append((name, message))
        return 1

    monkeypatch.setattr(shard._redis, "publish", publish)
    first = asyncio.ensure_future(layer.group_send("table-1", {"type": "t", "version": 1}))
    await asyncio.wait_for(first_on_its_way.wait(), DEADLOCK_GUARD)
    await asyncio.wait_for(layer.group_send("table-1", {"type": "t", "version": 2}), DEADLOCK_GUARD)
    release_first.set()
    await asyncio.wait_for(first, DEADLOCK_GUARD)
    assert [(name, m["version"]) for name, m in sent] == [(channel, 2), (channel, 1)]


async def test_a_doorbell_does_not_wait_for_a_socket_joining_a_group(monkeypatch):
    layer = a_layer()
    shard, _channel = published_to(layer, "table-2")
    sent: list[dict] = []

    async def publish(name: str, data: bytes) -> int:
        sent.append(layer.deserialize(data))
        return 1

    monkeypatch.setattr(shard._redis, "publish", publish)
    async with shard._lock:  # a subscription on its way holds the layer's lock
        await asyncio.wait_for(
            layer.group_send("table-2", {"type": "t", "version": 3}), DEADLOCK_GUARD
        )
    assert sent == [{"type": "t", "version": 3}]
