"""A change's writes of several seats in one statement built once (games/rows.save_rows): the
seats' numbers drawn when a match starts, their scores and ranks when it ends. They write what
the ORM's ``save(update_fields=…)`` writes, and a receiver of the seats' save still hears of it."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.models.signals import post_save
from django.test.utils import CaptureQueriesContext

from games import rows, services
from games.models import Seat

from .factories import make_user, play_to_the_end, started_table

pytestmark = pytest.mark.django_db


def seat_values(seat: Seat) -> dict:
    return {f.attname: getattr(seat, f.attname) for f in Seat._meta.concrete_fields}


def seat_updates(captured: CaptureQueriesContext) -> list[str]:
    """The statements that wrote seats (several seats' rows written by one statement are logged
    once, as "3 times: UPDATE …")."""
    return [q["sql"] for q in captured.captured_queries if 'UPDATE "games_seat"' in q["sql"]]


def test_saving_seats_writes_what_save_writes():
    match, _users = started_table(players=3)
    by_rows = list(Seat.objects.filter(match=match))
    by_orm = list(Seat.objects.filter(match=match))
    for seats in (by_rows, by_orm):
        for seat in seats:
            seat.score, seat.rank = -3 + seat.index, 3 - seat.index
            seat.timeouts_in_row = 2  # not among the fields written: stays as it was
    rows.save_rows(by_rows, ["score", "rank"])
    written_by_rows = [seat_values(s) for s in Seat.objects.filter(match=match)]
    for seat in by_orm:
        seat.save(update_fields=["score", "rank"])
    assert written_by_rows == [seat_values(s) for s in Seat.objects.filter(match=match)]
    assert [s["score"] for s in written_by_rows] == [-3, -2, -1]
    assert {s["timeouts_in_row"] for s in written_by_rows} == {0}


def test_the_end_of_a_match_writes_its_seats_results_in_one_statement():
    """Three statements on main (one ``save`` per seat); the scores are the engine's."""
    match, users = started_table(players=3)
    match = play_to_the_end(match, users, seed=4)
    assert match.status == match.Status.FINISHED
    Seat.objects.filter(match=match).update(score=None, rank=None)
    match = services.read_table(match.pk)
    engine = services.engine_for(match)
    with CaptureQueriesContext(connection) as captured:
        services._record_result(match, engine)
    assert len(seat_updates(captured)) == 1
    seats = list(Seat.objects.filter(match=match))
    result = engine.result(match.state)
    assert [s.score for s in seats] == [result.scores[s.index] for s in seats]
    assert sorted(s.rank for s in seats) == sorted(s.rank for s in match.seats.all())
    assert all(s.rank is not None for s in seats)


def test_a_receiver_of_the_seats_save_still_hears_of_each_seat():
    match, _users = started_table(players=3)
    seats = list(Seat.objects.filter(match=match))
    heard: list[tuple[int, frozenset]] = []

    def receiver(instance, update_fields, **kwargs):
        heard.append((instance.pk, update_fields))

    post_save.connect(receiver, sender=Seat)
    try:
        rows.save_rows(seats, ["score", "rank"])
        rows.save_rows(seats, ["index"], signals=False)  # as bulk_update: none
    finally:
        post_save.disconnect(receiver, sender=Seat)
    assert heard == [(s.pk, frozenset({"score", "rank"})) for s in seats]


def test_the_seats_drawn_at_the_start_are_numbered_without_a_gap():
    """The draw numbers the seats 0, 1, 2 in the order the match's seed gives (one statement
    for the new numbers after everyone stepped aside)."""
    host, second, third = make_user(), make_user(), make_user()
    table = services.create_table(host, "part-du-chef", seats=3)
    services.join_table(second, table.pk)
    with CaptureQueriesContext(connection) as captured:
        services.join_table(third, table.pk)
    seats = list(Seat.objects.filter(match=table))
    assert [s.index for s in seats] == [0, 1, 2]
    assert {s.user_id for s in seats} == {host.pk, second.pk, third.pk}
    assert len(seat_updates(captured)) == 2  # aside, then the new numbers
