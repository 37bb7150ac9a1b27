"""A move on the process's last save of its table (``services._play_on_kept``,
``rows.save_if_unchanged``): on PostgreSQL, a table whose last move this process saved takes its
next move without reading the match first, in one statement that takes effect only if the match,
its seats and their players are still exactly what was saved. Whatever changed them elsewhere, in
any process, sends the move the locked way, which settles it as before: nothing written elsewhere
is overwritten, no move is lost or doubled, and a refusal says what the table is now."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import services
from games.engines import get_engine
from games.models import Match, Move, Seat

from .factories import started_table
from .test_concurrency import submit_concurrently

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="row versions (xmin)"),
]


def _move_and_statements(match: Match, users: list, seed: int) -> tuple[Match, list[str]]:
    """A random legal move of the player to move, and the statements ``services.play`` sent."""
    engine = get_engine(match.game)
    user = _mover(match, users)
    move = engine.random_move(match.state, engine.to_move(match.state)[0], random.Random(seed))
    with CaptureQueriesContext(connection) as captured:
        played = services.play(match.pk, user, move, match.version)
    return played, [query["sql"] for query in captured.captured_queries]


def _read_locked(statements: list[str]) -> bool:
    return any("FOR UPDATE" in sql for sql in statements)


def _saved_moves(match: Match) -> list[int]:
    return list(
        Move.objects.filter(match=match).order_by("number").values_list("number", flat=True)
    )


def _mover(match: Match, users: list):
    seat = get_engine(match.game).to_move(match.state)[0]
    return next(u for u in users if match.seats.get(index=seat).user_id == u.pk)


def test_the_next_move_of_a_table_this_process_saved_reads_nothing_first(rung):
    match, users = started_table()
    first, statements = _move_and_statements(match, users, 1)
    assert _read_locked(statements)  # the table's first move here: the locked read
    rung.clear()
    second, statements = _move_and_statements(first, users, 2)
    assert not _read_locked(statements)
    assert len(statements) == 1  # the match's update and the moves' insert, one statement
    saved = Match.objects.get(pk=match.pk)
    assert saved.version == second.version == first.version + 1
    assert saved.state == second.state
    assert _saved_moves(match) == list(range(len(second.state["log"])))
    assert rung == [(match.pk, second.version)]


def test_a_match_changed_elsewhere_is_not_overwritten(rung):
    match, users = started_table()
    first, _ = _move_and_statements(match, users, 1)
    # Another process's change of a column the move does not touch.
    Match.objects.filter(pk=match.pk).update(job_failures=2)
    second, statements = _move_and_statements(first, users, 2)
    assert _read_locked(statements)
    saved = Match.objects.get(pk=match.pk)
    assert saved.job_failures == 2
    assert saved.version == first.version + 1
    assert _saved_moves(match) == list(range(len(second.state["log"])))


def test_a_seat_changed_elsewhere_is_read_again(rung):
    match, users = started_table()
    first, _ = _move_and_statements(match, users, 1)
    mover = get_engine(first.game).to_move(first.state)[0]
    Seat.objects.filter(match=match, index=mover).update(timeouts_in_row=2)
    _, statements = _move_and_statements(first, users, 2)
    assert _read_locked(statements)
    # Read again, the seat's timeouts went back to zero with the move, as ever.
    assert Seat.objects.get(match=match, index=mover).timeouts_in_row == 0


def test_a_player_changed_elsewhere_is_read_again(rung):
    match, users = started_table()
    first, _ = _move_and_statements(match, users, 1)
    get_user_model().objects.filter(pk=users[2].pk).update(first_name="Renamed")
    second, statements = _move_and_statements(first, users, 2)
    assert _read_locked(statements)
    assert {seat.user.first_name for seat in second.seats.all()} >= {"Renamed"}


def test_a_move_made_elsewhere_meanwhile_is_settled_on_the_locked_read(rung):
    match, users = started_table()
    first, _ = _move_and_statements(match, users, 1)
    mover = _mover(first, users)
    # The worker (another process) plays the turn for that seat when its time is up.
    Match.objects.filter(pk=match.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert services.play_for_timeouts(match.pk)
    after_worker = Match.objects.get(pk=match.pk)
    moves = _saved_moves(match)
    rung.clear()
    engine = get_engine(first.game)
    stale_move = engine.random_move(first.state, engine.to_move(first.state)[0], random.Random(3))
    # What this process saved last still shows the player to move at the version they send.
    with pytest.raises((services.Conflict, services.NotAllowed)):
        services.play(match.pk, mover, stale_move, first.version)
    assert Match.objects.get(pk=match.pk).version == after_worker.version
    assert _saved_moves(match) == moves
    assert rung == []


def test_a_refused_move_on_the_kept_save_changes_nothing(rung):
    match, users = started_table()
    first, _ = _move_and_statements(match, users, 1)
    rung.clear()
    with pytest.raises(services.BadRequest):
        services.play(match.pk, _mover(first, users), {"nonsense": True}, first.version)
    assert Match.objects.get(pk=match.pk).version == first.version
    assert _saved_moves(match) == list(range(len(first.state["log"])))
    assert rung == []


def test_every_move_but_a_tables_first_and_its_last_reads_nothing_first(rung):
    match, users = started_table(game="cafe-fatal")
    rng_seed = 0
    locked = []
    while match.is_playing:
        match, statements = _move_and_statements(match, users, rng_seed)
        locked.append(_read_locked(statements))
        rng_seed += 1
    assert len(locked) > 10
    # The end writes the seats' ranks and the ratings: the locked way, as every end.
    assert locked[0] and locked[-1] and not any(locked[1:-1])
    saved = Match.objects.get(pk=match.pk)
    assert saved.status == Match.Status.FINISHED
    assert sorted(Seat.objects.filter(match=match).values_list("rank", flat=True))[0] == 1
    assert _saved_moves(match) == list(range(len(saved.state["log"])))


def test_copies_of_a_move_sent_at_once_on_the_kept_save_are_accepted_exactly_once(rung):
    match, users = started_table()
    first, _ = _move_and_statements(match, users, 1)
    engine = get_engine(first.game)
    move = engine.random_move(first.state, engine.to_move(first.state)[0], random.Random(2))
    moves_before = _saved_moves(match)
    # Each copy finds the same kept save; the database lets one write through.
    outcomes = submit_concurrently(first, _mover(first, users), move, copies=4)
    assert outcomes.count("accepted") == 1
    assert set(outcomes) - {"accepted"} <= {"NotAllowed", "Conflict"}
    saved = Match.objects.get(pk=match.pk)
    assert saved.version == first.version + 1
    assert _saved_moves(match) == list(range(len(saved.state["log"])))
    assert len(_saved_moves(match)) > len(moves_before)
