"""Several workers at once (threads calling the jobs together on the same due work, PostgreSQL):
nothing is done twice and nothing is lost."""

from __future__ import annotations

import itertools
import threading
import time
from collections import Counter
from collections.abc import Callable
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from arena import jobs, schedule
from arena.models import ArenaMatch, Entry, Tournament, Trophy
from games.models import Match, Seat
from tests.services_required import require_postgres

from .builders import (
    assert_points_add_up,
    end_arena_now,
    live_tables,
    play_tables,
    running_arena,
)

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def together(function: Callable[[], int], copies: int = 2) -> list[int]:
    """Run ``function`` in ``copies`` threads released at the same instant; their answers."""
    barrier = threading.Barrier(copies)
    answers: list[int] = []
    failures: list[BaseException] = []

    def run() -> None:
        barrier.wait()
        try:
            answers.append(function())
        except BaseException as failure:  # the test must show anything a worker would log
            failures.append(failure)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(copies)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures
    return answers


def test_two_workers_create_each_scheduled_arena_once():
    require_postgres()
    planned = schedule.plan(jobs.game_slots(), timezone.now())
    answers = together(jobs.create_scheduled_arenas, copies=3)
    assert sum(answers) == len(planned)
    keys = Counter(Tournament.objects.values_list("schedule_key", flat=True))
    assert len(keys) == len(planned) and set(keys.values()) == {1}


def test_two_workers_start_each_arena_once():
    require_postgres()
    for _ in range(5):
        jobs.services.create_tournament(None, "part-du-chef")
    assert sum(together(jobs.start_due_arenas)) == 5
    assert Tournament.objects.filter(status=Tournament.Status.RUNNING).count() == 5


def test_two_workers_seat_each_waiting_player_exactly_once():
    require_postgres()
    arenas = [running_arena(players=9, seats=3)[0] for _ in range(4)]
    assert sum(together(jobs.seat_waiting_players)) == 12
    seats = Counter(Seat.objects.values_list("user_id", flat=True))
    entries = Entry.objects.filter(tournament__in=arenas)
    assert {e.user_id for e in entries} == set(seats) and set(seats.values()) == {1}
    for arena in arenas:
        numbers = ArenaMatch.objects.filter(tournament=arena).values_list("number", flat=True)
        assert sorted(numbers) == [1, 2, 3]
        assert all(e.table_id for e in entries.filter(tournament=arena))


def test_two_workers_end_each_arena_once_with_one_set_of_trophies():
    require_postgres()
    arenas = []
    for _ in range(3):
        arena, _users = running_arena(players=3, seats=3)
        jobs.seat_tournament(arena.pk)
        play_tables(arena)
        end_arena_now(arena)
        arenas.append(arena)
    assert sum(together(jobs.finish_ended_arenas)) == 3
    for arena in arenas:
        places = Trophy.objects.filter(tournament=arena).values_list("place", flat=True)
        assert sorted(places) == [1, 2, 3]


def test_workers_running_all_the_time_while_matches_end_lose_and_double_nothing(settings):
    """Two worker threads run the arena jobs in a loop while this thread plays the tables: the
    receiver adding points and the seating rounds race on the same entries."""
    require_postgres()
    settings.ARENA_MAX_WAIT_SECONDS = 0.3
    arena, _users = running_arena(players=12, seats=3)
    ends_at = timezone.now() + timedelta(seconds=4)
    Tournament.objects.filter(pk=arena.pk).update(ends_at=ends_at)
    stop = threading.Event()

    def work() -> int:
        rounds = 0
        while not stop.is_set():
            rounds += jobs.seat_waiting_players() + jobs.finish_ended_arenas()
            time.sleep(0.02)
        return rounds

    answers: list[int] = []
    runner = threading.Thread(target=lambda: answers.extend(together(work)))
    runner.start()
    try:
        seed = 0
        while timezone.now() < ends_at:
            seed += 1
            if not play_tables(arena, seed=seed * 10):
                time.sleep(0.05)
        settle = time.monotonic() + 10
        while time.monotonic() < settle:
            play_tables(arena, seed=999)
            arena.refresh_from_db()
            if arena.status == Tournament.Status.FINISHED:
                break
            time.sleep(0.05)
    finally:
        stop.set()
        runner.join()
    assert arena.status == Tournament.Status.FINISHED
    assert not live_tables(arena)
    assert ArenaMatch.objects.filter(tournament=arena).count() > 4  # several rounds were seated
    assert_points_add_up(arena)
    assert_one_table_at_a_time(arena)
    assert Trophy.objects.filter(tournament=arena).count() == 3
    late = ArenaMatch.objects.filter(tournament=arena, created_at__gte=arena.ends_at)
    assert not late.exists()
    assert sum(e.matches for e in Entry.objects.filter(tournament=arena)) == 3 * (
        ArenaMatch.objects.filter(tournament=arena, match__status=Match.Status.FINISHED).count()
    )


def assert_one_table_at_a_time(arena: Tournament) -> None:
    """No player was ever seated at two of the arena's tables at once."""
    spans: dict[int, list] = {}
    for seat in Seat.objects.filter(match__arena__tournament=arena).select_related("match"):
        end = seat.match.finished_at or timezone.now() + timedelta(days=1)
        spans.setdefault(seat.user_id, []).append((seat.match.started_at, end))
    for user_spans in spans.values():
        user_spans.sort()
        for (_, end), (start, _) in itertools.pairwise(user_spans):
            assert end <= start
