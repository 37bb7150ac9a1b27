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


def sockets_of(layer: PubSubChannelLayer, group: str, count: int) -> list[str]:
    """``count`` sockets of this loop's layer in ``group``, joined without Redis."""
    here = layer._get_layer()
    channels = [f"test.socket-{uuid.uuid4().hex}" for _ in range(count)]
    for channel in channels:
        here.channels[channel] = asyncio.Queue()
    here.groups[here._get_group_channel_name(group)] = set(channels)
    return channels


def queued(layer: PubSubChannelLayer, channel: str) -> list[dict]:
    """What waits in ``channel``'s queue, unpacked, emptying it."""
    queue = layer._get_layer().channels[channel]
    return [layer.deserialize(queue.get_nowait()) for _ in range(queue.qsize())]


@pytest.mark.asyncio
async def test_a_group_s_message_is_queued_for_the_sockets_of_its_own_process_before_redis(
    monkeypatch,
):
    """From the loop and from a thread: every socket of the group in this process has the message
    once it is sent, however slow Redis is to send it back (here it never does)."""
    layer = a_layer()
    shard, _channel = published_to(layer, "table-11")
    sent: list[bytes] = []

    async def publish(name: str, data: bytes) -> int:
        sent.append(data)
        return 1

    class Client:  # the thread's synchronous client
        def __init__(self, host: dict) -> None:
            pass

        def publish(self, name: str, data: bytes) -> int:
            sent.append(data)
            return 1

    monkeypatch.setattr(shard._redis, "publish", publish)
    monkeypatch.setattr(layer, "_client", Client)
    sockets = sockets_of(layer, "table-11", 3)
    outsider = sockets_of(layer, "table-12", 1)[0]
    await layer.group_send("table-11", {"type": "t", "version": 1})
    assert [queued(layer, s) for s in sockets] == [[{"type": "t", "version": 1}]] * 3

    thread = threading.Thread(target=layer.publish_now, args=("table-11", {"type": "t", "v": 2}))
    thread.start()
    await asyncio.get_running_loop().run_in_executor(None, thread.join)
    await asyncio.sleep(0)  # the loop runs what the thread handed it
    assert [queued(layer, s) for s in sockets] == [[{"type": "t", "v": 2}]] * 3
    assert queued(layer, outsider) == []
    assert [layer.deserialize(data) for data in sent] == [
        {"type": "t", "version": 1},
        {"type": "t", "v": 2},
    ]


@pytest.mark.asyncio
async def test_a_process_drops_its_own_group_message_coming_back_from_redis_and_keeps_others():
    layer, other = a_layer(), a_layer()
    sockets = sockets_of(layer, "table-13", 2)
    here = layer._get_layer()
    group_channel = here._get_group_channel_name("table-13")
    shard = here._get_shard(group_channel)
    for data in (
        layer.tagged({"type": "t", "from": "here"}),
        other.tagged({"type": "t", "from": "another process"}),
        layer.serialize({"type": "t", "from": "untagged"}),
    ):
        shard._receive_message({"channel": group_channel, "data": data})
    assert [queued(layer, s) for s in sockets] == [
        [{"type": "t", "from": "another process"}, {"type": "t", "from": "untagged"}]
    ] * 2


@pytest.mark.redis
@pytest.mark.asyncio
async def test_every_socket_gets_a_group_s_message_once_from_its_own_process_or_another():
    """Two processes' layers on one Redis: a socket of the first gets the first's message (queued
    at once; its echo dropped) and the second's (through Redis), each once and in order."""
    url = require_redis()
    prefix = f"test-{uuid.uuid4().hex}"
    here = PubSubChannelLayer(hosts=[{"address": url}], prefix=prefix)
    elsewhere = PubSubChannelLayer(hosts=[{"address": url}], prefix=prefix)
    try:
        channel = await here.new_channel()
        await here.group_add("table-14", channel)
        group_channel = here._get_layer()._get_group_channel_name("table-14")

        def publish_from_both() -> None:
            with redis.Redis.from_url(url) as client:
                for _ in range(10_000):  # until Redis counts the loop's SUBSCRIBE
                    if dict(client.pubsub_numsub(group_channel)).get(group_channel.encode()):
                        break
            here.publish_now("table-14", {"type": "t", "n": 1})
            elsewhere.publish_now("table-14", {"type": "t", "n": 2})
            here.publish_now("table-14", {"type": "t", "n": 3})
            elsewhere.publish_now("table-14", {"type": "t", "n": 4})

        sender = threading.Thread(target=publish_from_both)
        sender.start()
        await asyncio.get_running_loop().run_in_executor(None, sender.join)
        received = [
            (await asyncio.wait_for(here.receive(channel), DEADLOCK_GUARD))["n"] for _ in range(4)
        ]
        # Own messages come first (queued at once), the other process's in its order.
        assert sorted(received) == [1, 2, 3, 4]
        assert [n for n in received if n % 2] == [1, 3]
        assert [n for n in received if not n % 2] == [2, 4]
        # The echoes of 1 and 3 came back before 4 did (Redis keeps one publisher's order):
        # had they been queued, they would be here now.
        assert here._get_layer().channels[channel].qsize() == 0
        await here.group_discard("table-14", channel)
    finally:
        await here.flush()
        await elsewhere.flush()
