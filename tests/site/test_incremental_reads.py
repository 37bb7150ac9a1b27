"""A socket's process reads a table again after each move (issue 10): after an earlier read it
reads only the moves made since, keeps the invitations of a table that had started and its
links. Every viewer must get from such a read exactly what a read from scratch gives them."""

from __future__ import annotations

import random

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import translation

from games import rendering

from .factories import play_one_move, started_table

pytestmark = pytest.mark.django_db


def without_timer(parts: dict[str, str]) -> dict[str, str]:
    return {part: html for part, html in parts.items() if part != "timer"}


@pytest.mark.parametrize("game", ["part-du-chef", "cafe-fatal", "pizza-party"])
def test_a_read_after_an_earlier_one_shows_every_viewer_what_a_fresh_read_shows(game):
    match, users = started_table(game)
    rng = random.Random(7)
    earlier = rendering.load_table(match.pk)
    for _ in range(4):
        match = play_one_move(match, users, rng)
        after = rendering.load_table(match.pk, earlier)
        fresh = rendering.load_table(match.pk)
        assert after.version == fresh.version
        assert after.rows == fresh.rows
        with translation.override("en"):
            for viewer in [*users, AnonymousUser()]:
                assert without_timer(rendering.table_parts(after, viewer)) == without_timer(
                    rendering.table_parts(fresh, viewer)
                )
        earlier = after


def test_a_read_after_an_earlier_one_skips_the_invitations_of_a_started_table():
    match, users = started_table()
    earlier = rendering.load_table(match.pk)
    match = play_one_move(match, users, random.Random(1))
    with CaptureQueriesContext(connection) as fresh_read:
        rendering.load_table(match.pk)
    with CaptureQueriesContext(connection) as later_read:
        rendering.load_table(match.pk, earlier)
    assert len(later_read.captured_queries) == len(fresh_read.captured_queries) - 1


def test_an_earlier_read_of_another_table_is_ignored():
    match, _users = started_table()
    other, other_users = started_table()
    play_one_move(other, other_users, random.Random(2))
    of_other = rendering.load_table(other.pk)
    assert of_other.rows
    assert rendering.load_table(match.pk, of_other).rows == rendering.load_table(match.pk).rows
