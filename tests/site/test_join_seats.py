"""Joining a table reads its seats once, with the match's lock, and keeps them as they change
(``services.join_table``, ``rows.keep_seats``): the seat taken, and the numbers drawn when the
last seat starts the match. What the join leaves on the match is what a read of it gives."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import rendering, services
from games.models import Match, Seat

from .factories import make_user

pytestmark = pytest.mark.django_db


def seat_reads(captured: CaptureQueriesContext) -> list[str]:
    """The statements that read seats on their own (not joined to their match's locked read)."""
    return [
        q["sql"]
        for q in captured.captured_queries
        if q["sql"].upper().startswith("SELECT") and 'FROM "games_seat"' in q["sql"]
    ]


def seats_as_read(match: Match) -> list[tuple[int, int | None, str]]:
    return [(s.index, s.user_id, s.display_name) for s in match.seats.all()]


def test_a_join_that_starts_the_match_reads_no_seat_on_its_own():
    """The seats were read four times after the locked read of the match (who sits, the free
    seats, whether the table is full, a bot's turn): now the locked read brings them."""
    host, second, third = make_user(), make_user(), make_user()
    table = services.create_table(host, "part-du-chef", seats=3)
    services.join_table(second, table.pk)
    with CaptureQueriesContext(connection) as captured:
        joined = services.join_table(third, table.pk)
    assert seat_reads(captured) == []
    assert joined.is_playing


def test_the_seats_a_join_keeps_are_those_a_read_gives_in_its_order():
    """After the draw of the seats' order the kept seats are numbered and ordered as in the
    database, each with its player: what the watchers' render and the answer read."""
    host, second, third = make_user(), make_user(), make_user()
    table = services.create_table(host, "part-du-chef", seats=3)
    first_join = services.join_table(second, table.pk)
    assert seats_as_read(first_join) == seats_as_read(services.read_table(table.pk))
    joined = services.join_table(third, table.pk)
    kept = seats_as_read(joined)
    assert kept == seats_as_read(services.read_table(table.pk))
    assert [index for index, _user, _name in kept] == [0, 1, 2]
    assert {user for _index, user, _name in kept} == {host.pk, second.pk, third.pk}
    with CaptureQueriesContext(connection) as captured:
        seats = rendering.seats_of(joined)
    assert len(captured.captured_queries) == 0
    assert [s.user_id for s in seats] == [s.user_id for s in Seat.objects.filter(match=joined)]


def test_a_join_refused_changes_nothing():
    """Already seated, or a full table: refused as before, no seat added."""
    host, second, third, late = make_user(), make_user(), make_user(), make_user()
    table = services.create_table(host, "part-du-chef", seats=3)
    services.join_table(second, table.pk)
    with pytest.raises(services.Conflict):
        services.join_table(second, table.pk)
    services.join_table(third, table.pk)
    with pytest.raises(services.Conflict):
        services.join_table(late, table.pk)
    assert Seat.objects.filter(match=table).count() == 3
