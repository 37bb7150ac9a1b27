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


async def test_a_group_s_message_is_unpacked_once_for_all_of_its_sockets_in_a_process(monkeypatch):
    """The same bytes queued for three sockets: one unpack, three equal messages, each socket's
    its own dict (what one adds to it, the others do not see)."""
    layer = a_layer()
    here = layer._get_layer()
    channels = [f"test.socket{n}" for n in range(3)]
    for channel in channels:
        here.channels[channel] = asyncio.Queue()
    here.groups[here._get_group_channel_name("table-3")] = set(channels)
    unpacks = []
    unpack = layer._serializer.deserialize

    def counted(data: bytes) -> dict:
        unpacks.append(data)
        return unpack(data)

    monkeypatch.setattr(layer._serializer, "deserialize", counted)
    message = {"type": "table.changed", "version": 4, "parts": {"own": {"a": {"x": "<p>"}}}}
    data = layer.serialize(message)
    shard = here._get_shard(here._get_group_channel_name("table-3"))
    shard._receive_message({"channel": here._get_group_channel_name("table-3"), "data": data})
    received = [await here.receive(channel) for channel in channels]
    assert received == [message] * 3
    assert len(unpacks) == 1
    received[0]["seen"] = True
    assert "seen" not in received[1] and "seen" not in received[2]
    # Other bytes, even equal ones, are unpacked again.
    shard._receive_message({"channel": channels[0], "data": bytes(bytearray(data))})
    assert await here.receive(channels[0]) == message
    assert len(unpacks) == 2
