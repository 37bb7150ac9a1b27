"""The worker: bots play for players whose time is up, three timeouts in a row abandon the match,
a ranked match whose first move never comes is aborted; safe with several workers at once."""

from __future__ import annotations

import random
import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from games import services, worker
from games.engines import get_engine
from games.models import Match, Move

from ..services_required import require_postgres
from .factories import make_user, play_one_move, started_table

pytestmark = pytest.mark.django_db


def expire(match: Match) -> None:
    Match.objects.filter(pk=match.pk).update(deadline=timezone.now() - timedelta(seconds=1))


def test_nothing_happens_before_the_deadline():
    match, _ = started_table(players=3, mode="ranked")
    assert worker.play_expired_turns() == 0
    assert Match.objects.get(pk=match.pk).version == match.version


def test_a_ranked_match_whose_first_move_never_comes_is_aborted():
    match, _ = started_table(players=3, mode="ranked")
    expire(match)
    assert worker.play_expired_turns() == 1
    match.refresh_from_db()
    assert match.status == Match.Status.ABORTED
    assert all(s.rank is None for s in match.seats.all())


def test_when_time_is_up_the_bot_plays_for_the_seat_and_counts_a_timeout():
    match, users = started_table(players=3, mode="ranked")
    match = play_one_move(match, users, random.Random(1))  # the cut: the match has begun
    engine = get_engine(match.game)
    late = engine.to_move(match.state)[0]
    expire(match)
    assert worker.play_expired_turns() == 1
    match.refresh_from_db()
    assert engine.to_move(match.state)[0] != late
    seat = match.seats.get(index=late)
    assert seat.timeouts_in_row == 1 and not seat.abandoned
    assert Move.objects.filter(match=match, seat=late, by_bot=True).count() == 1
    assert match.deadline > timezone.now()


def test_a_move_in_time_resets_the_timeout_count():
    match, users = started_table(players=2, mode="ranked")
    match = play_one_move(match, users, random.Random(1))
    engine = get_engine(match.game)
    late = engine.to_move(match.state)[0]
    expire(match)
    worker.play_expired_turns()
    match.refresh_from_db()
    # The late player's next turn comes; this time they play.
    while late not in engine.to_move(match.state):
        match = play_one_move(match, users, random.Random(2))
    match = play_one_move(match, users, random.Random(3))
    assert match.seats.get(index=late).timeouts_in_row == 0


def test_three_timeouts_in_a_row_abandon_the_match_and_the_bot_plays_on_to_the_end():
    match, users = started_table(players=3, mode="ranked")
    match = play_one_move(match, users, random.Random(1))
    engine = get_engine(match.game)
    rng = random.Random(5)
    sleeper = engine.to_move(match.state)[0]
    while match.is_playing:
        if sleeper in engine.to_move(match.state):
            expire(match)
            worker.play_expired_turns()
            match.refresh_from_db()
        else:
            match = play_one_move(match, users, rng)
    seat = match.seats.get(index=sleeper)
    assert seat.abandoned
    assert seat.rank == 3
    assert Move.objects.filter(match=match, seat=sleeper, by_bot=True).count() >= 3


def test_the_worker_command_runs_once():
    from django.core.management import call_command

    match, _ = started_table(players=3, mode="ranked")
    expire(match)
    call_command("worker", "--once")
    assert Match.objects.get(pk=match.pk).status == Match.Status.ABORTED


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_workers_at_once_play_each_expired_turn_exactly_once():
    require_postgres()
    matches = []
    for _ in range(6):
        match, users = started_table(players=3, mode="ranked")
        matches.append(play_one_move(match, users, random.Random(1)))
    for match in matches:
        expire(match)
    barrier = threading.Barrier(2)
    done = []

    def run() -> None:
        barrier.wait()
        try:
            done.append(worker.play_expired_turns())
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(done) == 6
    for match in matches:
        assert Move.objects.filter(match=match, by_bot=True).count() == 1
        assert Match.objects.get(pk=match.pk).version == match.version + 1


def test_friendly_tables_without_a_timer_never_time_out():
    owner = make_user()
    match = services.create_table(owner, "part-du-chef", seats=2)
    services.join_table(make_user(), match.pk)
    match.refresh_from_db()
    assert match.deadline is None


# --- a failing table -----------------------------------------------------------------------------
def poisoned_pizza_party(monkeypatch) -> Match:
    """A ranked Pizza Party table whose bot crashes (as its ``TypeError`` once did)."""
    match, users = started_table(game="pizza-party", players=3, mode="ranked")
    match = play_one_move(match, users, random.Random(1))
    engine = get_engine("pizza-party")

    def crashes(*args, **kwargs):
        raise TypeError("bot_move() takes no level")

    monkeypatch.setattr(type(engine), "bot_move", crashes)
    return match


def test_a_failing_table_does_not_stop_the_healthy_ones_in_the_same_tick(monkeypatch, caplog):
    poisoned = poisoned_pizza_party(monkeypatch)
    healthy = []
    for seed in (1, 2):
        match, users = started_table(players=3, mode="ranked")
        healthy.append(play_one_move(match, users, random.Random(seed)))
    for match in [poisoned, *healthy]:
        expire(match)
    # The poisoned table is first in line: it used to end the tick for everyone behind it.
    assert poisoned.pk < min(m.pk for m in healthy)
    assert worker.play_expired_turns() == 2
    for match in healthy:
        assert Move.objects.filter(match=match, by_bot=True).count() == 1
        assert Match.objects.get(pk=match.pk).version == match.version + 1
    assert not Move.objects.filter(match=poisoned, by_bot=True).exists()
    failed = Match.objects.get(pk=poisoned.pk)
    assert failed.status == Match.Status.PLAYING and failed.job_failures == 1
    assert f"the timeout of table {poisoned.pk} failed" in caplog.text


def test_a_failing_table_is_retried_later_and_later_then_called_off(monkeypatch):
    now = timezone.now()
    monkeypatch.setattr(services.timezone, "now", lambda: now)
    match = poisoned_pizza_party(monkeypatch)
    pauses = []
    for _ in range(services.JOB_TRIES - 1):
        expire(match)
        worker.play_expired_turns()
        failed = Match.objects.get(pk=match.pk)
        assert failed.status == Match.Status.PLAYING
        pauses.append((failed.deadline - now).total_seconds())
        # Not due again before its pause is over.
        assert worker.play_expired_turns() == 0
    assert pauses == [2, 4, 8, 16]
    expire(match)
    worker.play_expired_turns()
    match.refresh_from_db()
    assert match.status == Match.Status.ABORTED
    assert match.end_reason == Match.EndReason.FAILED
    assert match.job_failures == services.JOB_TRIES


def test_a_table_that_recovers_starts_counting_its_failures_again(monkeypatch):
    match, users = started_table(players=3, mode="ranked")
    match = play_one_move(match, users, random.Random(1))
    Match.objects.filter(pk=match.pk).update(job_failures=services.JOB_TRIES - 1)
    expire(match)
    assert worker.play_expired_turns() == 1
    assert Match.objects.get(pk=match.pk).job_failures == 0


# --- many tables due at once ---------------------------------------------------------------------
def test_every_due_table_is_played_in_one_round_batch_after_batch():
    matches = []
    for seed in range(3):
        match, users = started_table(players=3, mode="ranked")
        matches.append(play_one_move(match, users, random.Random(seed)))
    for match in matches:
        expire(match)
    # Batches of one: the round goes on to the next batch rather than waiting for the next tick.
    assert worker.play_expired_turns(limit=1) == 3
    for match in matches:
        assert Match.objects.get(pk=match.pk).version == match.version + 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_tables_played_at_once_each_keep_their_own_transaction(monkeypatch):
    require_postgres()
    poisoned = poisoned_pizza_party(monkeypatch)
    healthy = []
    for seed in range(7):
        match, users = started_table(players=3, mode="ranked")
        healthy.append(play_one_move(match, users, random.Random(seed)))
    for match in [poisoned, *healthy]:
        expire(match)
    threads = set()
    play = worker.play_expired_turn

    def play_and_note_the_thread(match_id: int) -> int:
        threads.add(threading.get_ident())
        return play(match_id)

    monkeypatch.setattr(worker, "play_expired_turn", play_and_note_the_thread)
    assert worker.play_expired_turns() == len(healthy)
    assert len(threads) > 1
    for match in healthy:
        assert Move.objects.filter(match=match, by_bot=True).count() == 1
        assert Match.objects.get(pk=match.pk).version == match.version + 1
    # The failing table rolled back its own job only, and counted the failure.
    assert not Move.objects.filter(match=poisoned, by_bot=True).exists()
    assert Match.objects.get(pk=poisoned.pk).job_failures == 1
