"""The arena page's socket (WebsocketCommunicator): who may listen, what it receives when the
arena rings, how bursts of rings are throttled, and the fragment that takes a seated player to
their table."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from types import SimpleNamespace

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from arena import consumers, services
from arena.models import Entry
from games import consumers as games_consumers
from games.consumers import CLOSE_NOT_FOUND
from tests.site.factories import make_user
from tests.sockets import communicator, connected

from .builders import open_table, running_arena

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def ring(tournament_id: int, times: int = 1) -> None:
    layer = get_channel_layer()
    for _ in range(times):
        await layer.group_send(
            services.arena_group(tournament_id), {"type": "arena.changed", "arena": tournament_id}
        )


async def test_a_visitor_gets_the_standings_fragment_on_connect():
    tournament, users = await sync_to_async(running_arena)(players=3)
    socket, frame = await connected(f"/ws/arenas/{tournament.pk}/")
    assert 'id="arena-standings"' in frame and 'hx-swap-oob="true"' in frame
    for user in users:
        assert f'data-player="{user.username}"' in frame
    assert 'data-status="running"' in frame
    # The socket never touches the page's error area (that is the forms' business).
    assert 'id="page-error"' not in frame
    await socket.disconnect()


async def test_a_ring_brings_the_new_standings():
    tournament, _ = await sync_to_async(running_arena)(players=3)
    socket, _ = await connected(f"/ws/arenas/{tournament.pk}/")
    newcomer = await sync_to_async(make_user)()
    await sync_to_async(services.join)(newcomer, tournament.pk)  # rings after its commit
    frame = await socket.receive_from(timeout=5)
    assert f'data-player="{newcomer.username}"' in frame
    assert 'data-players="4"' in frame
    await socket.disconnect()


async def test_each_socket_renders_its_own_users_view():
    tournament, users = await sync_to_async(running_arena)(players=3)
    player, _ = await connected(f"/ws/arenas/{tournament.pk}/", users[0])
    visitor, _ = await connected(f"/ws/arenas/{tournament.pk}/")
    await sync_to_async(services.pause)(users[0], tournament.pk)
    mine, theirs = await player.receive_from(timeout=5), await visitor.receive_from(timeout=5)
    assert 'data-state="paused"' in mine and 'data-testid="arena-resume"' in mine
    assert 'data-testid="arena-resume"' not in theirs and 'data-joined="false"' in theirs
    await player.disconnect()
    await visitor.disconnect()


class ConsumerClock:
    """The arena consumer's clock and its pauses, in the test's hands: a pause lasts until the
    test moves the clock past its end, so the throttle is checked exactly and without waiting."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.renders: list[float] = []
        self.pauses: list[tuple[float, asyncio.Future]] = []

    def monotonic(self) -> float:
        return self.now

    async def sleep(self, delay: float) -> None:
        if delay <= 0:
            return
        woken = asyncio.get_running_loop().create_future()
        self.pauses.append((self.now + delay, woken))
        await woken

    async def paused(self) -> None:
        """Until the consumer waits for its next render."""
        for _ in range(500):
            if self.pauses:
                return
            await asyncio.sleep(0.01)
        raise AssertionError("the consumer never paused")

    def advance(self, seconds: float) -> None:
        self.now += seconds
        for end, woken in list(self.pauses):
            if end <= self.now:
                self.pauses.remove((end, woken))
                woken.set_result(None)


@pytest.fixture
def clock(monkeypatch) -> ConsumerClock:
    clock = ConsumerClock()
    monkeypatch.setattr(consumers, "time", clock)
    # The consumer's asyncio, but for its pauses.
    paused_by_the_test = SimpleNamespace(
        sleep=clock.sleep, ensure_future=asyncio.ensure_future, wait=asyncio.wait
    )
    monkeypatch.setattr(consumers, "asyncio", paused_by_the_test)
    real_send = consumers.ArenaConsumer.send_arena

    async def send_arena(self):
        clock.renders.append(clock.now)
        await real_send(self)

    monkeypatch.setattr(consumers.ArenaConsumer, "send_arena", send_arena)
    return clock


async def frames_until(socket: WebsocketCommunicator, done: Callable[[str], bool]) -> list[str]:
    """The frames the socket receives until one satisfies ``done``."""
    frames = [await socket.receive_from(timeout=5)]
    while not done(frames[-1]):
        frames.append(await socket.receive_from(timeout=5))
    return frames


async def test_a_burst_of_rings_is_coalesced_into_at_most_one_render_a_second(clock):
    tournament, _ = await sync_to_async(running_arena)(players=3)
    socket, _ = await connected(f"/ws/arenas/{tournament.pk}/")
    clock.now += 0.2
    newcomers = [await sync_to_async(make_user)() for _ in range(3)]
    for newcomer in newcomers:
        await sync_to_async(services.join)(newcomer, tournament.pk)  # rings after its commit
    await ring(tournament.pk, times=60)
    await clock.paused()
    # The next render waits for the rest of the second since the one on connect.
    assert [end for end, _ in clock.pauses] == [1000.0 + consumers.THROTTLE_SECONDS]
    clock.advance(consumers.THROTTLE_SECONDS)
    # None lost: that render shows every newcomer.
    await frames_until(
        socket, lambda frame: all(f'data-player="{u.username}"' in frame for u in newcomers)
    )
    # Rings that came after it wait for the next second, in one render at most.
    clock.advance(consumers.THROTTLE_SECONDS)
    assert len(clock.renders) <= 3
    gaps = [b - a for a, b in itertools.pairwise(clock.renders)]
    assert all(gap >= consumers.THROTTLE_SECONDS for gap in gaps), gaps
    await socket.disconnect()


async def test_rings_during_a_render_are_not_lost(monkeypatch):
    tournament, _ = await sync_to_async(running_arena)(players=3)
    monkeypatch.setattr(consumers, "THROTTLE_SECONDS", 0.2)
    socket, _ = await connected(f"/ws/arenas/{tournament.pk}/")
    newcomers = [await sync_to_async(make_user)() for _ in range(3)]
    for user in newcomers:
        await sync_to_async(services.join)(user, tournament.pk)
    await frames_until(
        socket, lambda frame: all(f'data-player="{u.username}"' in frame for u in newcomers)
    )
    await socket.disconnect()


async def test_changes_without_a_ring_arrive_by_the_poll(monkeypatch):
    """The worker is another process: with the in-memory layer its doorbell never reaches
    this one, and the socket finds the change in the database."""
    monkeypatch.setattr(games_consumers, "poll_seconds", lambda: 0.2)
    tournament, users = await sync_to_async(running_arena)(players=3)
    socket, _ = await connected(f"/ws/arenas/{tournament.pk}/")
    await sync_to_async(Entry.objects.filter(tournament=tournament, user=users[2]).update)(points=6)
    frame = await socket.receive_from(timeout=5)
    assert f'data-player="{users[2].username}" data-points="6" data-rank="1"' in frame
    # Nothing changed since: the poll sends nothing more.
    assert await socket.receive_nothing(timeout=0.8)
    await socket.disconnect()


async def test_a_seated_player_is_sent_to_their_new_table(clock):
    tournament, users = await sync_to_async(running_arena)(players=3)
    socket, frame = await connected(f"/ws/arenas/{tournament.pk}/", users[0])
    assert 'hx-trigger="load"' not in frame
    table = await sync_to_async(open_table)(tournament, users)
    await ring(tournament.pk)  # as the seating round does after its commit
    await clock.paused()
    clock.advance(consumers.THROTTLE_SECONDS)
    frame = await socket.receive_from(timeout=5)
    assert 'id="arena-redirect"' in frame
    assert f'hx-get="/arenas/{tournament.pk}/table/"' in frame and 'hx-trigger="load"' in frame
    assert f'href="/tables/{table.match_id}/"' in frame
    # Once sent there, later renders do not send them again.
    await ring(tournament.pk)
    await clock.paused()
    clock.advance(consumers.THROTTLE_SECONDS)
    frame = await socket.receive_from(timeout=5)
    assert 'hx-trigger="load"' not in frame
    assert 'data-testid="current-table"' in frame
    await socket.disconnect()


async def test_a_page_that_shows_the_table_already_is_not_redirected():
    tournament, users = await sync_to_async(running_arena)(players=3)
    table = await sync_to_async(open_table)(tournament, users)
    path = f"/ws/arenas/{tournament.pk}/?table={table.match_id}"
    socket, frame = await connected(path, users[1])
    assert 'hx-trigger="load"' not in frame and 'data-testid="current-table"' in frame
    await socket.disconnect()
    socket, frame = await connected(f"/ws/arenas/{tournament.pk}/", users[1])
    assert 'hx-trigger="load"' in frame
    await socket.disconnect()


async def test_a_private_arena_refuses_strangers_like_a_missing_one_and_admits_players_and_invitees():
    owner, player, stranger = [await sync_to_async(make_user)() for _ in range(3)]
    private = await sync_to_async(services.create_tournament)(owner, "part-du-chef", private=True)
    await sync_to_async(services.join)(player, private.pk, private.invite_code)
    for user in (stranger, None):
        refused = communicator(f"/ws/arenas/{private.pk}/", user)
        ok, code = await refused.connect()
        assert not ok and code == CLOSE_NOT_FOUND
    for user, path in (
        (owner, f"/ws/arenas/{private.pk}/"),
        (player, f"/ws/arenas/{private.pk}/"),
        (stranger, f"/ws/arenas/{private.pk}/?invite={private.invite_code}"),
    ):
        socket, frame = await connected(path, user)
        assert 'id="arena-standings"' in frame
        await socket.disconnect()


async def test_a_missing_arena_is_refused():
    socket = communicator("/ws/arenas/999999/")
    ok, code = await socket.connect()
    assert not ok and code == CLOSE_NOT_FOUND


async def test_floods_and_unknown_messages_are_handled_like_other_sockets():
    tournament, _ = await sync_to_async(running_arena)(players=3)
    socket, _ = await connected(f"/ws/arenas/{tournament.pk}/")
    await socket.send_to(text_data='{"type": "dance"}')
    assert "Unknown message." in await socket.receive_from(timeout=5)
    await socket.send_to(text_data="x" * 5000)
    assert (await socket.receive_output(timeout=5))["type"] == "websocket.close"
    await socket.disconnect()
