"""A read of a table made by the sockets of a process is offered to the publisher of that
process (``published.offer_read``, from ``consumers.load_and_render``): the first change of the
table published there reads and renders only what changed since, as every later change does,
instead of the whole table. What each viewer gets must stay exactly what a read of their own
gives them, and the two reads must not share what their renders write."""

from __future__ import annotations

import random

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import published, rendering
from tests.sockets import connected

from .factories import play_one_move, started_table
from .published_views import alone, carried, no_reads_left  # noqa: F401 (a fixture)
from .test_published_renders import doorbells


def publish_queries(monkeypatch) -> list[int]:
    """The queries each render for a doorbell sends from now on."""
    counts: list[int] = []
    real = published.render_for_watchers

    def counted(match):
        with CaptureQueriesContext(connection) as queries:
            parts = real(match)
        counts.append(len(queries))
        return parts

    monkeypatch.setattr(published, "render_for_watchers", counted)
    return counts


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_the_first_change_published_after_the_sockets_read_the_table_reads_nothing(
    monkeypatch,
):
    """The seats' and a visitor's sockets read the table as they connect; the first move's
    render for the doorbell then sends no query, and each viewer gets from it exactly what a
    read of their own gives them."""
    match, users = await sync_to_async(started_table)(players=3)
    viewers = [*users, AnonymousUser()]
    sockets = [(await connected(f"/ws/tables/{match.pk}/", user))[0] for user in viewers]
    sent, queries = doorbells(monkeypatch), publish_queries(monkeypatch)
    played = await sync_to_async(play_one_move)(match, users, random.Random(3))
    for socket in sockets:
        frame = await socket.receive_from(timeout=5)
        assert f'data-version="{played.version}"' in frame
        await socket.disconnect()
    assert queries == [0]
    (message,) = sent
    for user in viewers:
        got = carried(message, user, None, "en")
        assert got == await sync_to_async(alone)(played.pk, user, None, "en"), user


@pytest.mark.django_db(transaction=True)
def test_without_a_read_of_the_sockets_the_first_change_published_reads_the_table(
    monkeypatch,
):
    """The other way round, so that the test above can fail: no socket has read the table, and
    the render for the doorbell reads its moves and invitations."""
    match, users = started_table(players=3)
    published.start_watching(match.pk, published.viewer_field(users[0].pk, None, "en"))
    queries = publish_queries(monkeypatch)
    try:
        play_one_move(match, users, random.Random(3))
    finally:
        published.stop_watching(match.pk, published.viewer_field(users[0].pk, None, "en"))
    assert len(queries) == 1 and queries[0] >= 2


@pytest.mark.django_db
def test_a_read_offered_replaces_only_an_older_one():
    match, users = started_table(players=3)
    older = rendering.load_table(match.pk)
    newer_match = play_one_move(match, users, random.Random(3))
    newer = rendering.load_table(newer_match.pk)
    published.offer_read(newer)
    assert published._reads[match.pk].version == newer.version
    published.offer_read(older)
    assert published._reads[match.pk].version == newer.version
    published._reads.clear()
    published.offer_read(older)
    published.offer_read(newer)
    assert published._reads[match.pk].version == newer.version


@pytest.mark.django_db
def test_a_read_offered_is_a_copy_whose_renders_write_apart():
    """The publisher's renders fill their read's memo (the sentences of moves) in another thread
    than the sockets' renders: the copy's are its own, and so are its lists of moves."""
    match, users = started_table(players=3)
    match = play_one_move(match, users, random.Random(3))
    read = rendering.load_table(match.pk)
    rendering.table_parts(read, users[0])  # the sockets' render fills the read's memo
    published.offer_read(read)
    offered = published._reads[match.pk]
    assert offered is not read and offered.rows == read.rows and offered.rows is not read.rows
    texts = [key for key in read.memo if key[0] == "log texts"]
    assert texts
    for key in texts:
        assert offered.memo[key] == read.memo[key]
        assert offered.memo[key] is not read.memo[key]


@pytest.mark.django_db
def test_with_renders_not_published_nothing_is_kept(settings):
    settings.PUBLISH_RENDERS = False
    match, _users = started_table(players=3)
    published.offer_read(rendering.load_table(match.pk))
    assert match.pk not in published._reads
