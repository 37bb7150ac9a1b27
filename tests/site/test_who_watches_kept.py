"""Who watches a table, kept between moves by a process that hears its viewers come and go
(issue 10, ``games/published.py``): a process whose sockets are in a table's group hears every
viewer's ring, so it reads who watches (a ``MGET``) once, not at every move, and reads again
after a viewer came or went, after a ring that came during the read, and after
``WATCHING_KEPT_SECONDS``. A process that does not listen reads at every move, as before."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer

from games import limits, notify, published, services
from games.engines import get_engine
from tests.sockets import connected

from .factories import started_table
from .published_views import no_reads_left  # noqa: F401 (a fixture)
from .test_published_renders import counted_reads


def counted_watch_reads(monkeypatch) -> list[int]:
    """Every read of who watches a table from now on (still read)."""
    reads: list[int] = []
    real = limits.HeldCounts.read

    def counted(self):
        reads.append(1)
        return real(self)

    monkeypatch.setattr(limits.HeldCounts, "read", counted)
    return reads


def field_of(user, language: str = "en") -> str:
    return published.viewer_field(user.pk if user is not None else None, None, language)


def watched_by(match, users) -> list[str]:
    fields = [field_of(user) for user in users]
    for field in fields:
        published.start_watching(match.pk, field)
    return fields


def rendered_for(match) -> set[str]:
    parts = published.render_for_watchers(match)
    return set() if parts is None else set(parts["own"])


def played(match, users):
    """``match`` after the first legal move of the seat to move."""
    engine = get_engine(match.game)
    seat = engine.to_move(match.state)[0]
    move = next(iter(engine.legal(match.state, seat)))
    return services.play(match.pk, users[seat], move, match.version)


def a_table_listened_to(watching: int) -> tuple:
    """A started table, its first ``watching`` seats counted as watching, and this process
    listening to it (as when a socket of its own joined the table's group)."""
    match, users = started_table(players=3)
    watched_by(match, users[:watching])
    published.listen(match.pk)
    return match, users


# --- the kept state, on its own -------------------------------------------------------------------
@pytest.mark.django_db
def test_a_table_nobody_here_listens_to_is_read_at_every_version(monkeypatch):
    match, users = started_table(players=3)
    watched_by(match, users)
    reads = counted_watch_reads(monkeypatch)
    for _ in range(3):
        assert rendered_for(match) == {field_of(u) for u in users}
    assert len(reads) == 3


@pytest.mark.django_db
def test_a_table_this_process_listens_to_is_read_once_until_a_viewer_rings(monkeypatch):
    match, users = a_table_listened_to(2)
    reads = counted_watch_reads(monkeypatch)
    assert rendered_for(match) == {field_of(users[0]), field_of(users[1])}
    assert rendered_for(match) == {field_of(users[0]), field_of(users[1])}
    assert len(reads) == 1
    # A third viewer comes: counted first, then its ring; the next render reads and includes it.
    watched_by(match, users[2:])
    published.viewers_ring(match.pk)
    assert rendered_for(match) == {field_of(u) for u in users}
    assert len(reads) == 2
    # One goes: the same.
    published.stop_watching(match.pk, field_of(users[0]))
    published.viewers_ring(match.pk)
    assert rendered_for(match) == {field_of(users[1]), field_of(users[2])}
    assert len(reads) == 3


@pytest.mark.django_db
def test_a_ring_during_the_read_leaves_nothing_kept(monkeypatch):
    """The read may give the count from before a viewer came while its ring arrives meanwhile:
    what it read is not kept, so the next render reads again."""
    match, users = a_table_listened_to(1)
    reads: list[int] = []
    real = limits.HeldCounts.read

    def read_then_a_viewer_comes(self):
        counts = real(self)
        reads.append(1)
        if len(reads) == 1:
            watched_by(match, users[1:2])
            published.viewers_ring(match.pk)
        return counts

    monkeypatch.setattr(limits.HeldCounts, "read", read_then_a_viewer_comes)
    assert rendered_for(match) == {field_of(users[0])}
    assert rendered_for(match) == {field_of(users[0]), field_of(users[1])}
    assert len(reads) == 2


@pytest.mark.django_db
def test_what_was_kept_is_read_again_after_the_kept_seconds(monkeypatch):
    match, _users = a_table_listened_to(1)
    reads = counted_watch_reads(monkeypatch)
    now = [1000.0]
    monkeypatch.setattr(published.time, "monotonic", lambda: now[0])
    rendered_for(match)
    now[0] += published.WATCHING_KEPT_SECONDS - 1
    rendered_for(match)
    assert len(reads) == 1
    now[0] += 2
    rendered_for(match)
    assert len(reads) == 2


@pytest.mark.django_db
def test_a_process_that_stops_listening_reads_at_every_version_and_starts_anew(monkeypatch):
    match, _users = a_table_listened_to(1)
    published.listen(match.pk)  # two sockets' hubs (as in tests, one per event loop)
    reads = counted_watch_reads(monkeypatch)
    rendered_for(match)
    published.stop_listening(match.pk)
    rendered_for(match)
    assert len(reads) == 1
    published.stop_listening(match.pk)
    rendered_for(match)
    rendered_for(match)
    assert len(reads) == 3
    # Listening again does not take up what was kept before.
    published.listen(match.pk)
    rendered_for(match)
    assert len(reads) == 4


@pytest.mark.django_db
def test_a_process_s_own_ring_is_not_heard_twice_and_another_s_is():
    match, _users = started_table(players=3)
    published.listen(match.pk)
    group, message = published.viewers_ring(match.pk)
    assert group == notify.table_group(match.pk)
    before = published._generation(match.pk)
    published.heard_viewers_ring(match.pk, message)
    assert published._generation(match.pk) == before
    published.heard_viewers_ring(match.pk, {**message, "process": "another"})
    assert published._generation(match.pk) != before


# --- sockets ----------------------------------------------------------------------------------------
@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_the_seats_sockets_are_pushed_from_one_read_of_who_watches_and_a_newcomer_is_counted(
    monkeypatch,
):
    match, users = await sync_to_async(started_table)(players=3)
    seats = [(await connected(f"/ws/tables/{match.pk}/", user))[0] for user in users]
    reads, table_reads = counted_watch_reads(monkeypatch), counted_reads(monkeypatch)

    async def move_and_frames(sockets) -> int:
        nonlocal match
        match = await sync_to_async(played)(match, users)
        for socket in sockets:
            frame = await socket.receive_from(timeout=5)
            assert f'data-version="{match.version}"' in frame
        return match.version

    await move_and_frames(seats)
    await move_and_frames(seats)
    assert len(reads) == 1
    # A visitor comes: the next move reads who watches again and is rendered for it too, so
    # its socket reads no table of its own.
    visitor, _first = await connected(f"/ws/tables/{match.pk}/", None)
    table_reads.clear()  # its first frame's read
    await move_and_frames([*seats, visitor])
    assert len(reads) == 2
    assert table_reads == []
    # A seat goes: read again.
    await seats[0].disconnect()
    await move_and_frames([*seats[1:], visitor])
    assert len(reads) == 3
    for socket in [*seats[1:], visitor]:
        await socket.disconnect()
    assert published._generation(match.pk) is None


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_another_process_s_ring_makes_the_sockets_process_read_who_watches_again(
    monkeypatch,
):
    """A viewer who came on another process rings the table's group: within the next two moves
    (the ring may be heard before or after the first one's render) who watches is read once."""
    match, users = await sync_to_async(started_table)(players=3)
    seats = [(await connected(f"/ws/tables/{match.pk}/", user))[0] for user in users]

    async def move_and_frames() -> None:
        nonlocal match
        match = await sync_to_async(played)(match, users)
        for socket in seats:
            await socket.receive_from(timeout=5)

    await move_and_frames()
    reads = counted_watch_reads(monkeypatch)
    await move_and_frames()
    assert reads == []
    await get_channel_layer().group_send(
        notify.table_group(match.pk), {"type": "table.viewers", "process": "another"}
    )
    await move_and_frames()
    await move_and_frames()
    assert len(reads) == 1
    for socket in seats:
        await socket.disconnect()
