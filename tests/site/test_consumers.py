"""The live sockets (WebsocketCommunicator): who may listen, what they receive, and limits."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from games import consumers, services
from games.engines import get_engine
from games.models import Match, Move
from tests.sockets import communicator, connected

from .factories import make_user, started_table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def test_a_spectator_gets_the_whole_table_on_connect():
    match, _ = await sync_to_async(started_table)(players=3)
    socket, frame = await connected(f"/ws/tables/{match.pk}/")
    assert 'hx-swap-oob="true"' in frame
    assert f'data-version="{match.version}"' in frame
    await socket.disconnect()


async def test_every_change_rings_the_table_and_each_socket_renders_its_own_view():
    match, users = await sync_to_async(started_table)(players=3)
    engine = get_engine(match.game)
    chef = engine.to_move(match.state)[0]
    sockets = []
    for user in [*users, None]:
        socket, _ = await connected(f"/ws/tables/{match.pk}/", user)
        sockets.append(socket)
    await sync_to_async(services.play)(match.pk, users[chef], {"cut": [0, 4, 8]}, match.version)
    frames = [await s.receive_from(timeout=5) for s in sockets]
    for frame in frames:
        assert f'data-version="{match.version + 1}"' in frame
        assert match.seed not in frame
    # Each socket rendered its own seat's view: no two players got the same frame.
    assert len(set(frames[:3])) == 3
    for socket in sockets:
        await socket.disconnect()


def redeal_upcoming_pizzas(match: Match) -> None:
    """Change every pizza still to come (their order and their slices), in the snapshot, the
    deal in its log and the deal's Move row: nothing a player is shown may change."""
    state = match.state
    upcoming = state["pizzas"][1:]
    redealt = [list(reversed(pizza)) for pizza in reversed(upcoming)]
    assert redealt != upcoming
    state["pizzas"][1:] = redealt
    deal = state["log"][0][1]["deal"]
    deal["pizzas"][1:] = redealt
    Match.objects.filter(pk=match.pk).update(state=state)
    Move.objects.filter(match=match, number=0).update(payload={"deal": deal})


async def test_no_frame_depends_on_the_pizzas_still_to_come():
    match, users = await sync_to_async(started_table)(players=3)
    engine = get_engine(match.game)
    chef = engine.to_move(match.state)[0]
    match = await sync_to_async(services.play)(
        match.pk, users[chef], {"cut": [0, 4, 8]}, match.version
    )

    async def frames() -> list[str]:
        seen = []
        for user in [*users, None]:
            socket, frame = await connected(f"/ws/tables/{match.pk}/", user)
            await socket.disconnect()
            seen.append(frame)
        return seen

    before = await frames()
    await sync_to_async(redeal_upcoming_pizzas)(match)
    assert await frames() == before


async def test_a_private_table_refuses_strangers_like_a_missing_one_and_admits_players_and_invitees():
    owner = await sync_to_async(make_user)()
    stranger = await sync_to_async(make_user)()
    match = await sync_to_async(services.create_table)(owner, "part-du-chef", seats=2, private=True)
    refused = communicator(f"/ws/tables/{match.pk}/", stranger)
    ok, code = await refused.connect()
    assert not ok and code == consumers.CLOSE_NOT_FOUND
    socket, _ = await connected(f"/ws/tables/{match.pk}/", owner)
    await socket.disconnect()
    socket, _ = await connected(f"/ws/tables/{match.pk}/?invite={match.invite_code}", stranger)
    await socket.disconnect()


async def test_a_missing_table_is_refused():
    socket = communicator("/ws/tables/999999/")
    ok, code = await socket.connect()
    assert not ok and code == consumers.CLOSE_NOT_FOUND


async def test_a_client_that_saw_a_gap_asks_for_the_whole_table():
    match, _ = await sync_to_async(started_table)(players=2)
    socket, _ = await connected(f"/ws/tables/{match.pk}/")
    await socket.send_to(text_data=json.dumps({"type": "sync"}))
    frame = await socket.receive_from(timeout=5)
    assert f'data-version="{match.version}"' in frame
    await socket.disconnect()


async def test_a_malformed_message_gets_an_error_and_changes_nothing():
    match, _ = await sync_to_async(started_table)(players=2)
    before = match.version
    socket, _ = await connected(f"/ws/tables/{match.pk}/")
    await socket.send_to(text_data="not json")
    frame = await socket.receive_from(timeout=5)
    assert "socket-error" in frame
    await socket.send_to(text_data=json.dumps({"type": "cut", "cut": [0, 6]}))
    assert "socket-error" in await socket.receive_from(timeout=5)
    await sync_to_async(match.refresh_from_db)()
    assert match.version == before
    await socket.disconnect()


async def test_an_oversized_frame_closes_the_socket():
    match, _ = await sync_to_async(started_table)(players=2)
    socket, _ = await connected(f"/ws/tables/{match.pk}/")
    await socket.send_to(text_data="x" * (consumers.MAX_FRAME_BYTES + 1))
    closed = await socket.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": consumers.CLOSE_TOO_BIG}


async def test_a_flood_of_messages_closes_the_socket():
    match, _ = await sync_to_async(started_table)(players=2)
    socket, _ = await connected(f"/ws/tables/{match.pk}/")
    for _ in range(consumers.RATE_MAX_FRAMES + 1):
        await socket.send_to(text_data=json.dumps({"type": "sync"}))
    outputs = []
    while True:
        output = await socket.receive_output(timeout=5)
        outputs.append(output)
        if output["type"] == "websocket.close":
            break
    assert outputs[-1]["code"] == consumers.CLOSE_POLICY_VIOLATION


async def test_sockets_from_another_origin_are_refused():
    from pdc_site.asgi import application

    match, _ = await sync_to_async(started_table)(players=2)
    socket = WebsocketCommunicator(
        application, f"/ws/tables/{match.pk}/", headers=[(b"origin", b"http://evil.example")]
    )
    ok, _ = await socket.connect()
    assert not ok
    good = WebsocketCommunicator(
        application,
        f"/ws/tables/{match.pk}/",
        headers=[(b"origin", b"http://localhost"), (b"host", b"localhost")],
    )
    ok, _ = await good.connect()
    assert ok
    await good.disconnect()


async def test_the_lobby_socket_is_rung_when_a_table_opens():
    socket, first = await connected("/ws/lobby/")
    owner = await sync_to_async(make_user)("lobbyist")
    await sync_to_async(services.create_table)(owner, "part-du-chef", seats=3)
    frame = await socket.receive_from(timeout=5)
    assert "lobbyist" in frame and "lobbyist" not in first
    await socket.disconnect()


async def test_a_change_whose_doorbell_was_lost_still_reaches_the_socket(monkeypatch):
    from games import notify

    monkeypatch.setattr(consumers, "poll_seconds", lambda: 0.2)
    monkeypatch.setattr(notify, "ring", lambda *args, **kwargs: None)
    match, users = await sync_to_async(started_table)(players=2)
    chef = get_engine(match.game).to_move(match.state)[0]
    socket, _ = await connected(f"/ws/tables/{match.pk}/")
    await sync_to_async(services.play)(match.pk, users[chef], {"cut": [0, 6]}, match.version)
    frame = await socket.receive_from(timeout=5)
    assert f'data-version="{match.version + 1}"' in frame
    await socket.disconnect()


async def test_the_socket_speaks_the_language_of_its_page():
    assert consumers.socket_language({"cookies": {"django_language": "fr"}}) == "fr"
    de = {"headers": [(b"accept-language", b"de-DE,de;q=0.9,en;q=0.5")]}
    assert consumers.socket_language(de) == "de"
    assert consumers.socket_language({"headers": [(b"accept-language", b"ja")]}) == "en"
    assert consumers.socket_language({}) == "en"


async def test_fragments_are_rendered_in_the_socket_language(monkeypatch):
    from django.utils import translation

    monkeypatch.setattr(
        consumers.rendering, "render_socket_error", lambda text: translation.get_language()
    )
    match, _ = await sync_to_async(started_table)(players=2)
    socket = communicator(f"/ws/tables/{match.pk}/")
    socket.scope["cookies"] = {"django_language": "it"}
    ok, _ = await socket.connect()
    assert ok
    await socket.receive_from(timeout=5)
    await socket.send_to(text_data="not json")
    assert await socket.receive_from(timeout=5) == "it"
    await socket.disconnect()
