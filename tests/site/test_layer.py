"""The site's channel layer (pdc_site/layer.py): a group's message is published without waiting
for the layer's other commands (no Redis server needed: the client's publish is stood in for),
and from a thread to the channel and server the event loop's layer would use (with Redis: heard
by a subscription made on the loop)."""

from __future__ import annotations

import asyncio
import threading
import uuid

import pytest
import redis

from pdc_site.layer import PubSubChannelLayer
from tests.services_required import require_redis

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


@pytest.mark.asyncio
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


@pytest.mark.asyncio
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


@pytest.mark.asyncio
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


@pytest.mark.asyncio
async def test_a_message_published_from_a_thread_goes_where_the_loop_would_publish_it(monkeypatch):
    """Every group's channel named and its server picked as the loop's layer does, over three
    servers (so a process publishing from a thread reaches the subscriptions of every other)."""
    hosts = [{"address": f"redis://127.0.0.1:1/{n}"} for n in range(3)]
    layer = PubSubChannelLayer(hosts=hosts, prefix="test")
    here = layer._get_layer()
    published: list[tuple[str, str, dict]] = []

    class Client:
        def __init__(self, host: dict) -> None:
            self.host = host

        def publish(self, channel: str, data: bytes) -> int:
            published.append((self.host["address"], channel, layer.deserialize(data)))
            return 1

    monkeypatch.setattr(layer, "_client", Client)
    groups = [f"table-{n}" for n in range(40)]
    for group in groups:
        layer.publish_now(group, {"type": "t", "group": group})
    expected = []
    for group in groups:
        channel = here._get_group_channel_name(group)
        expected.append(
            (here._get_shard(channel).host["address"], channel, {"type": "t", "group": group})
        )
    assert published == expected
    assert {address for address, _channel, _message in published} == {h["address"] for h in hosts}


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_message_published_from_a_thread_reaches_a_socket_subscribed_on_the_loop():
    url = require_redis()
    layer = PubSubChannelLayer(hosts=[{"address": url}], prefix=f"test-{uuid.uuid4().hex}")
    try:
        channel = await layer.new_channel()
        await layer.group_add("table-9", channel)
        message = {"type": "table.changed", "version": 7, "parts": {"own": {"a": {"x": "<p>"}}}}
        group_channel = layer._get_layer()._get_group_channel_name("table-9")

        def publish_once_subscribed() -> None:
            # The loop's SUBSCRIBE is sent, not yet known to be in force: wait until Redis counts it.
            with redis.Redis.from_url(url) as client:
                for _ in range(10_000):
                    if dict(client.pubsub_numsub(group_channel)).get(group_channel.encode()):
                        break
            layer.publish_now("table-9", message)

        sender = threading.Thread(target=publish_once_subscribed)
        sender.start()
        await asyncio.get_running_loop().run_in_executor(None, sender.join)
        assert await asyncio.wait_for(layer.receive(channel), DEADLOCK_GUARD) == message
        await layer.group_discard("table-9", channel)
    finally:
        await layer.flush()


@pytest.mark.redis
def test_a_doorbell_sent_outside_a_request_leaves_from_its_own_thread(monkeypatch):
    """The worker's and the services' ``notify.send`` with Redis: published from the calling
    thread, no event loop made or woken for it (``async_to_sync`` stood in for by a failure)."""
    from channels.layers import get_channel_layer

    from games import notify

    require_redis()
    assert isinstance(get_channel_layer(), PubSubChannelLayer)
    published: list[tuple[str, dict]] = []
    monkeypatch.setattr(
        PubSubChannelLayer, "publish_now", lambda self, g, m: published.append((g, m))
    )
    monkeypatch.setattr(notify, "async_to_sync", lambda *a: pytest.fail("through the loop"))
    notify.send(notify.user_group(5), {"type": "user.changed"})
    notify.ring(7, 3, lobby=True)
    assert published == [
        ("user-5", {"type": "user.changed"}),
        ("table-7", {"type": "table.changed", "match": 7, "version": 3}),
        ("lobby", {"type": "lobby.changed"}),
    ]
