"""The process that made a change renders it without reading its moves back (issue 10): the
moves a change wrote are kept on its match as a read of them gives them, and a read after an
earlier read of the table takes them from there, with one query fewer; when they do not follow
the earlier read, the moves are read as before."""

from __future__ import annotations

import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import rendering, services
from games.models import Move

from .factories import play_one_move, started_table


def _move_reads(captured: CaptureQueriesContext) -> int:
    table = Move._meta.db_table
    return sum(1 for q in captured.captured_queries if f'FROM "{table}"' in q["sql"])


@pytest.mark.django_db
@pytest.mark.parametrize("game", ["part-du-chef", "pizza-party", "cafe-fatal"])
def test_a_change_is_rendered_from_the_moves_it_wrote_as_a_read_gives_them(game):
    """Every move of a seeded match: the read after the previous one, from the moves the change
    wrote, has the rows a read of the whole table has, and reads no move."""
    match, users = started_table(game, players=3)
    rng = random.Random(7)
    previous = rendering.load_table(match.pk)
    for _ in range(12):
        if not match.is_playing:
            break
        match = play_one_move(match, users, rng)
        assert services.saved_move_rows(match), "the change kept the moves it wrote"
        with CaptureQueriesContext(connection) as captured:
            snapshot = rendering.snapshot_of(match, previous)
        assert _move_reads(captured) == 0
        assert snapshot.rows == rendering.load_table(match.pk).rows
        previous = snapshot


@pytest.mark.django_db
def test_moves_that_do_not_follow_the_earlier_read_are_read():
    """An earlier read two changes old (another process made the change between): the moves
    the last change wrote do not follow it, so the moves since are read."""
    match, users = started_table("part-du-chef", players=3)
    rng = random.Random(3)
    previous = rendering.load_table(match.pk)
    match = play_one_move(match, users, rng)
    match = play_one_move(match, users, rng)
    with CaptureQueriesContext(connection) as captured:
        snapshot = rendering.snapshot_of(match, previous)
    assert _move_reads(captured) == 1
    assert snapshot.rows == rendering.load_table(match.pk).rows


@pytest.mark.django_db
def test_a_match_read_from_the_database_has_no_saved_moves():
    match, _users = started_table("part-du-chef", players=3)
    assert services.saved_move_rows(match) == []
    assert rendering.load_table(match.pk).rows == rendering._move_rows(match)
