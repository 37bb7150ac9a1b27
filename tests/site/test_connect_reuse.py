"""What a socket's connect costs. A table's sockets connecting one after another (its players', as a match starts) share one
read of the table (``TableHub.fresh``): a socket that connects to a running table still as the
last read found it (``rendering.still_current``: the same version, deadline and seed) gets its
first frame from that read, shared parts and all, with one small query; any change since, even a
deadline moved without a new version, is read in full as before."""

from __future__ import annotations

import asyncio
import random
import re
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone, translation

from games import chat, consumers, limits, published, rendering
from games.models import Match
from tests.sockets import connected, counted_hops, first_arguments

from .factories import play_one_move, started_table

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def no_recheck_meanwhile(monkeypatch):
    """The hub's re-check of lost doorbells reads a table that is behind as a doorbell would: on
    a slow machine it could run between a move and its push and add a read these tests count."""
    monkeypatch.setattr(consumers, "poll_seconds", lambda: 3600.0)


def read_alone(match_id: int, user) -> str:
    """The first frame a socket of ``user`` gets from a read of its own."""
    with translation.override("en"):
        parts = rendering.table_parts(rendering.load_table(match_id), user)
    return "\n".join(parts.values())


#: The timer counts the seconds left at the moment of the render.
TIMER = re.compile(r'<div id="table-timer".*?</div>\n', re.S)


@pytest.mark.asyncio
async def test_the_players_sockets_share_the_first_one_s_read_of_an_unchanged_table(monkeypatch):
    match, users = await sync_to_async(started_table)(players=3)
    reads, checks = (
        first_arguments(monkeypatch, rendering, "load_table"),
        first_arguments(monkeypatch, rendering, "still_current"),
    )
    frames, sockets = [], []
    for user in users:
        socket, frame = await connected(f"/ws/tables/{match.pk}/", user)
        sockets.append(socket)
        frames.append(frame)
    assert reads == [match.pk]  # the first socket's read only
    assert len(checks) == 2 and all(s.version == match.version for s in checks)
    for user, frame in zip(users, frames, strict=True):
        alone = await sync_to_async(read_alone)(match.pk, user)
        assert TIMER.sub("", frame) == TIMER.sub("", alone)
    assert len(set(frames)) == 3  # each seat its own parts
    for socket in sockets:
        await socket.disconnect()


@pytest.mark.asyncio
async def test_a_socket_connecting_after_a_change_reads_the_table_again(monkeypatch):
    match, users = await sync_to_async(started_table)(players=3)
    first, _ = await connected(f"/ws/tables/{match.pk}/", users[0])
    reads = first_arguments(monkeypatch, rendering, "load_table")
    match = await sync_to_async(play_one_move)(match, users, random.Random(3))
    await first.receive_from(timeout=5)  # the move's push
    second, frame = await connected(f"/ws/tables/{match.pk}/", users[1])
    assert reads == [match.pk]
    assert f'data-version="{match.version}"' in frame
    # A deadline moved without a new version (a worker's job) is a change too.
    later = timezone.now() + timedelta(hours=5)
    await sync_to_async(Match.objects.filter(pk=match.pk).update)(deadline=later)
    third, frame = await connected(f"/ws/tables/{match.pk}/", users[2])
    assert reads == [match.pk, match.pk]
    assert later.isoformat() in frame
    for socket in (first, second, third):
        await socket.disconnect()


def test_an_open_or_finished_table_is_never_taken_as_unchanged():
    match, _users = started_table(players=3)
    snapshot = rendering.load_table(match.pk)
    assert rendering.still_current(snapshot)
    for status in (Match.Status.OPEN, Match.Status.FINISHED):
        Match.objects.filter(pk=match.pk).update(status=status)
        assert not rendering.still_current(rendering.load_table(match.pk))
    other = Match.objects.filter(pk=match.pk)
    other.update(status=Match.Status.PLAYING, seed="another table with the same id")
    assert not rendering.still_current(snapshot)


@pytest.mark.asyncio
async def test_a_socket_that_asks_for_the_whole_table_again_gets_it_from_the_unchanged_read(
    monkeypatch,
):
    match, users = await sync_to_async(started_table)(players=3)
    socket, first = await connected(f"/ws/tables/{match.pk}/", users[0])
    reads = first_arguments(monkeypatch, rendering, "load_table")
    await socket.send_json_to({"type": "sync"})
    again = await socket.receive_from(timeout=5)
    assert reads == []
    assert TIMER.sub("", again) == TIMER.sub("", first)
    await socket.disconnect()
    assert consumers.table_hub().watches == {}


@pytest.mark.asyncio
async def test_sockets_connecting_at_once_wait_for_the_first_read_and_take_it(monkeypatch):
    """Three players' pages opened together: their first reads do not run side by side (each
    a read of its own), they run one after another and the later two take the first one's."""
    match, users = await sync_to_async(started_table)(players=3)
    reads, checks = (
        first_arguments(monkeypatch, rendering, "load_table"),
        first_arguments(monkeypatch, rendering, "still_current"),
    )
    opened = await asyncio.gather(*(connected(f"/ws/tables/{match.pk}/", u) for u in users))
    assert reads == [match.pk]
    assert len(checks) == 2
    for user, (_socket, frame) in zip(users, opened, strict=True):
        alone = await sync_to_async(read_alone)(match.pk, user)
        assert TIMER.sub("", frame) == TIMER.sub("", alone)
    for socket, _frame in opened:
        await socket.disconnect()


def test_a_socket_connecting_to_a_table_without_chat_learns_it_in_the_trip_that_reads_the_table():
    """Nearly every table's chat is empty when a socket connects: one query in the trip that
    reads the table says so (the chat's own render read the table first: two, in a trip of its
    own). With a line, the trip says so and the chat's own render follows."""
    match, users = started_table(players=3)
    with CaptureQueriesContext(connection) as queries:
        snapshot, _rendered, chatting = consumers.fresh_read(match.pk, [], None)
    assert snapshot.version == match.version and chatting is False
    chat_queries = [q for q in queries.captured_queries if "games_chatmessage" in q["sql"]]
    assert len(chat_queries) == 1
    assert consumers.fresh_read(10**9, [], None) == (None, {}, False)  # no table
    chat.post(users[1], match.pk, "good luck")
    assert consumers.fresh_read(match.pk, [], snapshot)[2] is True
    assert consumers.read_alone(match.pk)[1] is True
    assert consumers.read_alone(10**9) == (None, False)


@pytest.mark.asyncio
async def test_a_socket_connecting_to_a_table_with_chat_takes_one_more_trip_for_its_lines(
    monkeypatch,
):
    match, users = await sync_to_async(started_table)(players=3)
    await sync_to_async(chat.post)(users[1], match.pk, "good luck")
    hops = counted_hops(monkeypatch)
    socket, _frame = await connected(f"/ws/tables/{match.pk}/", users[0])
    lines = await socket.receive_from(timeout=5)
    assert "good luck" in lines
    names = [getattr(f, "__name__", repr(f)) for f in hops]
    assert names == ["admission", "fresh_read", "rendered_in"]
    await socket.disconnect()


@pytest.mark.asyncio
async def test_a_socket_s_connect_and_release_take_one_trip_to_a_thread_for_its_counts(
    monkeypatch,
):
    """Letting a socket in (may it watch, its place in its client's cap, its viewer counted
    among the table's watchers) is one trip; giving its counts back is one trip."""
    match, users = await sync_to_async(started_table)(players=3)
    hops = counted_hops(monkeypatch)
    socket, _frame = await connected(f"/ws/tables/{match.pk}/", users[0])
    names = [getattr(f, "__name__", repr(f)) for f in hops]
    # The read, and whether the chat has a line: a table without chat needs no other trip.
    assert names == ["admission", "fresh_read"]
    field = published.viewer_field(users[0].pk, None, "en")
    assert limits.held(published.VIEWER_KIND, f"{match.pk}|{field}") == 1
    assert limits.held("socket", f"user:{users[0].pk}") == 1
    hops.clear()
    await socket.disconnect()
    # Channels' own hop on a disconnect (``aclose_old_connections``) is not the site's. Its
    # test communicator stands ``no_op`` in for ``close_old_connections`` only while it sends
    # or receives, so the hop carries either name by when the consumer got to it.
    released = [getattr(f, "__name__", repr(f)) for f in hops]
    channels_own = ("no_op", "close_old_connections")
    assert [name for name in released if name not in channels_own] == ["give_back"]

    assert limits.held(published.VIEWER_KIND, f"{match.pk}|{field}") == 0
    assert limits.held("socket", f"user:{users[0].pk}") == 0
