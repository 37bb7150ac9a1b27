"""How sockets end and recover (WebsocketCommunicator on the real routes): every way a socket
closes ends its background tasks and leaves its group; refusals use close codes the server
library accepts; one client holds a bounded number of sockets; an update whose doorbell was lost
still reaches the page."""

from __future__ import annotations

import asyncio
import contextlib
import json

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels_redis.pubsub import RedisPubSubChannelLayer
from django.db import OperationalError
from django.test import Client

from games import consumers, limits, notify, services
from games.engines import get_engine
from tests.sockets import communicator, connected

from .factories import make_user, started_table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


def rechecks() -> list[asyncio.Task]:
    """The re-check tasks still alive in this event loop (the table hub's, a socket's)."""
    return [
        task
        for task in asyncio.all_tasks()
        if "every_few_seconds" in task.get_coro().__qualname__ and not task.done()
    ]


async def members(group: str) -> set:
    """The channels in ``group``, read from the layer itself (in memory, the Pub/Sub layer's
    subscriptions of this event loop, or the core Redis layer's sorted set)."""
    layer = get_channel_layer()
    if isinstance(layer, RedisPubSubChannelLayer):
        here = layer._get_layer()
        return set(here.groups.get(here._get_group_channel_name(group), set()))
    if hasattr(layer, "groups"):
        return set(layer.groups.get(group, {}))
    redis = layer.connection(layer.consistent_hash(group))
    return set(await redis.zrange(layer._group_key(group), 0, -1))


async def close_frame(socket) -> dict:
    """The close frame the consumer sends (frames sent before it are skipped)."""
    while True:
        output = await socket.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            return output


async def client_disconnects(socket) -> int | None:
    await socket.disconnect()
    return None


async def frame_too_big(socket) -> int | None:
    await socket.send_to(text_data="x" * (consumers.MAX_FRAME_BYTES + 1))
    closing = await close_frame(socket)
    await socket.disconnect()  # as the server does once it has closed the connection
    return closing["code"]


async def flood(socket) -> int | None:
    for _ in range(consumers.RATE_MAX_FRAMES + 1):
        await socket.send_to(text_data=json.dumps({"type": "sync"}))
    closing = await close_frame(socket)
    await socket.disconnect()  # as the server does once it has closed the connection
    return closing["code"]


async def consumer_crashes(socket) -> int | None:
    await socket.send_to(text_data=json.dumps({"type": "crash"}))
    with pytest.raises(RuntimeError):
        while True:
            await socket.receive_output(timeout=5)
    return None


async def server_cancels(socket) -> int | None:
    socket.future.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await socket.future
    return None


WAYS = {
    "the client disconnects": client_disconnects,
    "a frame too big": frame_too_big,
    "a flood of frames": flood,
    "the consumer crashes": consumer_crashes,
    "the server cancels it": server_cancels,
}


@pytest.mark.parametrize("way", list(WAYS))
async def test_every_way_a_socket_closes_ends_its_tasks_and_leaves_its_group(way, monkeypatch):
    async def crash_on_request(self, message):
        if message.get("type") == "crash":
            raise RuntimeError("a bug in a handler")

    monkeypatch.setattr(consumers.TableConsumer, "handle", crash_on_request)
    user = await sync_to_async(make_user)()
    match, _ = await sync_to_async(started_table)(players=2)
    group = notify.table_group(match.pk)
    socket, _ = await connected(f"/ws/tables/{match.pk}/", user)
    assert len(rechecks()) == 1 and len(await members(group)) == 1
    assert limits.held("socket", f"user:{user.pk}") == 1

    code = await WAYS[way](socket)

    assert rechecks() == []
    assert consumers.table_hub().watches == {}
    assert await members(group) == set()
    assert limits.held("socket", f"user:{user.pk}") == 0
    if code is not None:
        # The server library accepts 1000 and 3000-4999 only: 1008 and 1009 made the app die.
        assert 4000 <= code <= 4999


async def test_the_refusals_use_codes_the_server_library_accepts():
    for code in (
        consumers.CLOSE_POLICY_VIOLATION,
        consumers.CLOSE_TOO_BIG,
        consumers.CLOSE_FORBIDDEN,
        consumers.CLOSE_NOT_FOUND,
        consumers.CLOSE_TOO_MANY_SOCKETS,
    ):
        assert 4000 <= code <= 4999


async def test_a_frame_nested_two_thousand_deep_is_refused_and_the_socket_lives_on():
    match, _ = await sync_to_async(started_table)(players=2)
    socket, _ = await connected(f"/ws/tables/{match.pk}/")
    deep = "[" * 2000 + "]" * 2000
    assert len(deep) <= consumers.MAX_FRAME_BYTES
    await socket.send_to(text_data=deep)
    assert "socket-error" in await socket.receive_from(timeout=5)
    await socket.send_to(text_data='{"n": ' + "9" * 4000 + "}")
    assert "socket-error" in await socket.receive_from(timeout=5)
    await socket.send_to(text_data=json.dumps({"type": "sync"}))
    assert f'data-version="{match.version}"' in await socket.receive_from(timeout=5)
    await socket.disconnect()


async def test_one_client_holds_only_so_many_sockets(monkeypatch):
    monkeypatch.setattr(consumers, "SOCKETS_PER_CLIENT", 2)
    user = await sync_to_async(make_user)()
    match, _ = await sync_to_async(started_table)(players=2)
    path = f"/ws/tables/{match.pk}/"
    first, _ = await connected(path, user)
    second, _ = await connected("/ws/lobby/", user)
    refused = communicator(path, user)
    ok, code = await refused.connect()
    assert not ok and code == consumers.CLOSE_TOO_MANY_SOCKETS
    # Another client is counted on its own.
    other, _ = await connected(path, await sync_to_async(make_user)())
    await other.disconnect()
    # A socket closed gives its place back.
    await first.disconnect()
    again, _ = await connected(path, user)
    await again.disconnect()
    await second.disconnect()
    assert limits.held("socket", f"user:{user.pk}") == 0


# --- a push that never came (issue 11, item 15) ------------------------------------------------
def silence_doorbells(monkeypatch) -> None:
    monkeypatch.setattr(notify, "ring", lambda *args, **kwargs: None)


async def test_a_change_between_the_page_and_its_socket_reaches_the_socket(monkeypatch):
    """The page is rendered at version V; a move is made (its doorbell lost) before the page's
    socket joins the table's group: the socket's first frame is the new version."""
    silence_doorbells(monkeypatch)
    match, users = await sync_to_async(started_table)(players=2)
    page = await sync_to_async(Client().get)(f"/tables/{match.pk}/")
    assert f'data-version="{match.version}"' in page.content.decode()
    chef = get_engine(match.game).to_move(match.state)[0]
    await sync_to_async(services.play)(match.pk, users[chef], {"cut": [0, 6]}, match.version)
    socket, frame = await connected(f"/ws/tables/{match.pk}/")
    assert f'data-version="{match.version + 1}"' in frame
    await socket.disconnect()


async def test_the_recheck_survives_a_failure_and_still_brings_a_lost_update(monkeypatch):
    """The socket's re-check is what brings an update whose doorbell was lost; a database error
    in one of its rounds must not end it."""
    monkeypatch.setattr(consumers, "poll_seconds", lambda: 0.05)
    silence_doorbells(monkeypatch)
    failures = []
    real = consumers.current_versions

    def fails_once(match_ids):
        if not failures:
            failures.append(True)
            raise OperationalError("the database is away for a moment")
        return real(match_ids)

    monkeypatch.setattr(consumers, "current_versions", fails_once)
    match, users = await sync_to_async(started_table)(players=2)
    socket, _ = await connected(f"/ws/tables/{match.pk}/")
    while not failures:
        await asyncio.sleep(0.01)
    chef = get_engine(match.game).to_move(match.state)[0]
    await sync_to_async(services.play)(match.pk, users[chef], {"cut": [0, 6]}, match.version)
    frame = await socket.receive_from(timeout=5)
    assert f'data-version="{match.version + 1}"' in frame
    await socket.disconnect()
