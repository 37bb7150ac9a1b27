"""A socket's messages cost no trip to a thread of their own (games.consumers.RateLimitedConsumer
.dispatch): Channels hopped to the process's one shared thread before every message a socket
got, to close database connections that the site's sockets never open on the event loop."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from games import consumers, services
from games.engines import get_engine
from tests.sockets import connected, counted_hops

from .factories import started_table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def test_a_published_push_costs_the_seats_sockets_no_hop_to_a_thread(monkeypatch):
    match, users = await sync_to_async(started_table)(players=3)
    sockets = [(await connected(f"/ws/tables/{match.pk}/", user))[0] for user in users]
    hops = counted_hops(monkeypatch)
    chef = get_engine(match.game).to_move(match.state)[0]
    await sync_to_async(services.play)(match.pk, users[chef], {"cut": [0, 4, 8]}, match.version)
    for socket in sockets:
        frame = await socket.receive_from(timeout=5)
        assert f'data-version="{match.version + 1}"' in frame
    # The move itself (run here through sync_to_async) and the sockets' periodic re-check, should
    # it come round, are the only trips to a thread.
    others = [f for f in hops if f is not services.play and f.__name__ != "current_versions"]
    assert others == []
    for socket in sockets:
        await socket.disconnect()


async def test_a_frame_from_the_page_is_still_handled_and_answered(monkeypatch):
    match, users = await sync_to_async(started_table)(players=3)
    socket, _first = await connected(f"/ws/tables/{match.pk}/", users[0])
    await socket.send_json_to({"type": "sync"})
    whole = await socket.receive_from(timeout=5)
    assert f'data-version="{match.version}"' in whole
    await socket.send_json_to({"type": "no such thing"})
    assert "Unknown message" in await socket.receive_from(timeout=5)
    await socket.disconnect()


@pytest.mark.parametrize("kind", ["websocket.no_such_thing", "_websocket.receive", "__init__"])
async def test_a_message_without_a_handler_is_refused(kind):
    with pytest.raises(ValueError):
        await consumers.TableConsumer().dispatch({"type": kind})
