"""A move's parts for its watchers rendered while its commit is on its way (issue 10,
``rows.save_and_commit``'s ``while_committing``, ``published.render_ahead``): on PostgreSQL the
render overlaps the commit instead of following it. What it rendered is rung and kept only once
the commit is known; it never queries the connection that commits; and whatever goes wrong in it,
the move is committed and rung as before."""

from __future__ import annotations

import logging
import random

import pytest
from django.db import IntegrityError, connection
from psycopg.pq import PipelineStatus

from games import notify, published, services
from games.models import Match, Move

from .factories import play_one_move, started_table
from .published_views import alone, carried, no_reads_left  # noqa: F401 (a fixture)

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="a psycopg pipeline"),
]


@pytest.fixture
def sent(monkeypatch) -> list[dict]:
    """The tables' doorbells sent (outside a request they ring at once, after the commit)."""
    messages: list[dict] = []
    monkeypatch.setattr(
        notify,
        "send",
        lambda group, message: messages.append(message) if group.startswith("table-") else None,
    )
    return messages


@pytest.fixture
def renders(monkeypatch) -> list[PipelineStatus]:
    """Each render for the watchers, as whether its connection was still in the commit's
    pipeline (ON: the ``COMMIT`` sent, its answer not read yet)."""
    seen: list[PipelineStatus] = []
    real = published.render_for_watchers

    def recorded(match):
        seen.append(connection.connection.pgconn.pipeline_status)
        return real(match)

    monkeypatch.setattr(published, "render_for_watchers", recorded)
    return seen


@pytest.fixture
def watched_table():
    """A started table whose three seats watch it in English, with a read of it kept (as the
    seats' sockets leave one when they connect)."""
    match, users = started_table(players=3)
    fields = [published.viewer_field(user.pk, None, "en") for user in users]
    for field in fields:
        published.start_watching(match.pk, field)
    published.render_for_watchers(Match.objects.get(pk=match.pk))
    yield match, users
    for field in fields:
        published.stop_watching(match.pk, field)


def test_the_watchers_parts_are_rendered_while_the_commit_is_on_its_way(
    watched_table, renders, sent
):
    match, users = watched_table
    played = play_one_move(match, users, random.Random(4))
    assert renders == [PipelineStatus.ON]  # once, inside the commit's round trip
    (message,) = sent
    assert message["version"] == played.version
    for user in users:
        assert carried(message, user, None, "en") == alone(match.pk, user, None, "en")
    assert published._reads[match.pk].version == played.version


def test_a_render_that_needs_a_query_is_made_after_the_commit_instead(watched_table, renders, sent):
    match, users = watched_table
    published._reads.clear()  # no read kept: the render would read the invitations
    played = play_one_move(match, users, random.Random(4))
    assert renders == [PipelineStatus.ON, PipelineStatus.OFF]
    (message,) = sent
    for user in users:
        assert carried(message, user, None, "en") == alone(match.pk, user, None, "en")
    assert published._reads[match.pk].version == played.version


def test_a_commit_that_fails_rings_and_keeps_nothing_rendered_ahead(
    watched_table, renders, sent, monkeypatch
):
    match, users = watched_table
    kept = published._reads[match.pk]
    real = services._run_automatic_moves

    def then_a_dangling_move(*args, **kwargs):
        real(*args, **kwargs)
        # Its match's key is checked at the commit (Django's keys are deferred on PostgreSQL):
        # the move's statements succeed and its COMMIT fails.
        Move.objects.create(match_id=10**9, number=0, seat=0, payload={})

    monkeypatch.setattr(services, "_run_automatic_moves", then_a_dangling_move)
    with pytest.raises(IntegrityError):
        play_one_move(match, users, random.Random(4))
    assert renders == [PipelineStatus.ON]  # rendered while the commit was on its way
    assert sent == []
    assert published._reads[match.pk] is kept
    assert Match.objects.get(pk=match.pk).version == match.version


def test_work_while_committing_that_fails_leaves_the_move_committed_and_rung(
    watched_table, sent, monkeypatch, caplog
):
    match, users = watched_table

    def broken(self) -> None:
        raise RuntimeError("broken")

    monkeypatch.setattr(notify.RenderAhead, "__call__", broken)
    with caplog.at_level(logging.ERROR, logger="games.rows"):
        played = play_one_move(match, users, random.Random(4))
    assert "the work while a transaction committed failed" in caplog.text
    assert Match.objects.get(pk=match.pk).version == played.version == match.version + 1
    (message,) = sent
    for user in users:
        assert carried(message, user, None, "en") == alone(match.pk, user, None, "en")
