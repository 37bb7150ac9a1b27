"""An arena's life through the worker's jobs and real matches: created, started, players seated,
matches played to the end, points added (doubled on fire), the end, the trophies."""

from __future__ import annotations

import random
from collections import Counter
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from arena import jobs, schedule, services
from arena.models import ArenaMatch, ArenaResult, Entry, Tournament, Trophy
from arena.scoring import base_points
from games import worker as games_worker
from games.engines import get_engine
from games.models import Match, Seat
from games.services import match_ended
from players import presence
from ratings.models import RatingChange
from tests.site.factories import make_user, play_one_move, play_to_the_end, started_table

from .builders import (
    assert_points_add_up,
    end_arena_now,
    live_tables,
    play_tables,
    players_of,
    running_arena,
    wait_longer,
)

pytestmark = pytest.mark.django_db


def seated_counts(tournament: Tournament) -> Counter:
    return Counter(
        Seat.objects.filter(match__arena__tournament=tournament).values_list("user_id", flat=True)
    )


def test_the_schedule_creates_the_coming_arenas_once():
    planned = schedule.plan(jobs.game_slots(), timezone.now())
    assert jobs.create_scheduled_arenas() == len(planned) > 0
    assert jobs.create_scheduled_arenas() == 0
    keys = list(Tournament.objects.values_list("schedule_key", flat=True))
    assert sorted(keys) == sorted(o.key for o in planned)
    daily = Tournament.objects.filter(schedule_key__startswith="daily:").first()
    if daily is not None:
        assert daily.ends_at - daily.starts_at == timedelta(hours=2)
    assert all(t.status == Tournament.Status.SCHEDULED for t in Tournament.objects.all())


def test_the_schedule_can_be_switched_off(settings):
    settings.ARENA_SCHEDULE = False
    assert jobs.create_scheduled_arenas() == 0
    assert not Tournament.objects.exists()


def test_an_arena_starts_at_its_time_and_not_before():
    tournament = services.create_tournament(
        make_user(), "part-du-chef", starts_at=timezone.now() + timedelta(minutes=5)
    )
    assert jobs.start_due_arenas() == 0
    Tournament.objects.filter(pk=tournament.pk).update(
        starts_at=timezone.now() - timedelta(seconds=1)
    )
    assert jobs.start_due_arenas() == 1
    assert jobs.start_due_arenas() == 0
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING


def test_an_arena_from_its_start_to_its_trophies():
    tournament, users = running_arena(players=6, seats=3)
    # One player arrives on fire (as if from two wins): their first match counts double.
    hot = users[0]
    Entry.objects.filter(tournament=tournament, user=hot).update(fire_streak=2)
    streaks = {hot.pk: 2}

    # Round 1: everyone is seated once, at two tables of three.
    assert jobs.seat_waiting_players() == 2
    assert jobs.seat_waiting_players() == 0  # everyone is playing
    assert seated_counts(tournament) == Counter({u.pk: 1 for u in users})
    assert play_tables(tournament, seed=1) == 2
    assert_points_add_up(tournament, streaks)
    assert all(e.matches == 1 for e in Entry.objects.filter(tournament=tournament))
    hot_result = ArenaResult.objects.get(entry__user=hot)
    hot_ranks = [s.rank for s in hot_result.table.match.seats.all()]
    assert hot_result.doubled
    assert hot_result.points == 2 * base_points(hot_ranks, hot_ranks.index(hot_result.rank))
    # Arena matches are ranked: the ratings receiver rated them.
    assert RatingChange.objects.filter(match__arena__tournament=tournament).count() == 6

    # Round 2: two new tables, everyone seated once more.
    assert jobs.seat_waiting_players() == 2
    play_tables(tournament, seed=2)
    assert seated_counts(tournament) == Counter({u.pk: 2 for u in users})

    # Round 3 starts; the end comes while one of its tables still plays.
    assert jobs.seat_waiting_players() == 2
    first, second = live_tables(tournament)
    play_to_the_end(first.match, players_of(first), 3)
    end_arena_now(tournament)
    wait_longer(tournament, 60)
    assert jobs.seat_waiting_players() == 0  # no new table after the end
    assert jobs.finish_ended_arenas() == 0  # a match is still being played
    play_to_the_end(second.match, players_of(second), 4)  # it is played out and counts
    assert jobs.finish_ended_arenas() == 1
    assert jobs.finish_ended_arenas() == 0

    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert_points_add_up(tournament, streaks)
    podium = [s.user_id for s in services.standings(tournament)[:3]]
    trophies = Trophy.objects.filter(tournament=tournament).order_by("place")
    assert [(t.place, t.user_id) for t in trophies] == list(zip([1, 2, 3], podium, strict=True))
    assert ArenaMatch.objects.filter(tournament=tournament).count() == 6
    assert ArenaResult.objects.filter(table__tournament=tournament).count() == 18


def test_standings_break_equal_points_by_performance():
    tournament, users = running_arena(players=3, seats=3)
    Entry.objects.filter(user=users[0]).update(points=10, performance_sum=1600, opponents=1)
    Entry.objects.filter(user=users[1]).update(points=10, performance_sum=1800, opponents=1)
    Entry.objects.filter(user=users[2]).update(points=12)
    rows = services.standings(tournament)
    assert [r.user_id for r in rows] == [users[2].pk, users[1].pk, users[0].pk]
    assert [r.rank for r in rows] == [1, 2, 3]


def test_the_table_that_just_played_waits_for_others_but_not_beyond_the_bound():
    tournament, _users = running_arena(players=3, seats=3)
    assert jobs.seat_waiting_players() == 1
    play_tables(tournament)
    assert jobs.seat_waiting_players() == 0  # the same three: they wait for fresh opponents
    latecomer = make_user()
    services.join(latecomer, tournament.pk)
    assert jobs.seat_waiting_players() == 1
    (table,) = live_tables(tournament)
    assert latecomer in players_of(table)
    # The one left out is seated with the others as soon as the bound is reached.
    play_tables(tournament)
    wait_longer(tournament, services.max_wait_seconds())
    assert jobs.seat_waiting_players() == 1


def test_a_paused_player_is_not_seated_until_they_resume():
    tournament, users = running_arena(players=4, seats=2)
    services.pause(users[0], tournament.pk)
    assert jobs.seat_waiting_players() == 1
    assert seated_counts(tournament)[users[0].pk] == 0
    services.resume(users[0], tournament.pk)
    assert jobs.seat_waiting_players() == 1
    assert seated_counts(tournament)[users[0].pk] == 1


def test_joining_again_resumes_and_a_pause_lets_the_current_match_finish():
    tournament, users = running_arena(players=2, seats=2)
    assert jobs.seat_waiting_players() == 1
    services.pause(users[0], tournament.pk)
    play_tables(tournament)
    entry = Entry.objects.get(user=users[0])
    assert entry.matches == 1 and entry.paused and entry.waiting_since is None
    services.join(users[0], tournament.pk)
    assert not Entry.objects.get(user=users[0]).paused


def test_withdrawing_before_the_start_removes_the_entry_and_after_keeps_the_points():
    tournament = services.create_tournament(
        make_user(), "part-du-chef", seats=2, starts_at=timezone.now() + timedelta(minutes=5)
    )
    early, stays, other = make_user(), make_user(), make_user()
    for user in (early, stays, other):
        services.join(user, tournament.pk)
    assert services.withdraw(early, tournament.pk) is None
    assert not Entry.objects.filter(user=early).exists()
    Tournament.objects.filter(pk=tournament.pk).update(starts_at=timezone.now())
    jobs.start_due_arenas()
    assert jobs.seat_waiting_players() == 1
    play_tables(tournament)
    points = Entry.objects.get(user=stays).points
    services.withdraw(stays, tournament.pk)
    entry = Entry.objects.get(user=stays)
    assert entry.withdrawn and entry.points == points
    assert [s.player for s in services.standings(tournament)].count(stays.username) == 1
    wait_longer(tournament, 60)
    assert jobs.seat_waiting_players() == 0
    services.join(stays, tournament.pk)
    assert jobs.seat_waiting_players() == 1


def test_a_player_who_abandons_scores_nothing_and_is_paused():
    tournament, users = running_arena(players=2, seats=2, turn_seconds=30)
    jobs.seat_waiting_players()
    (table,) = live_tables(tournament)
    match = play_one_move(table.match, users, random.Random(1))  # the match has begun
    engine = get_engine(match.game)
    sleeper_seat = engine.to_move(match.state)[0]
    sleeper = match.seats.get(index=sleeper_seat).user
    rng = random.Random(2)
    while match.is_playing:
        if sleeper_seat in engine.to_move(match.state):
            Match.objects.filter(pk=match.pk).update(deadline=timezone.now() - timedelta(seconds=1))
            games_worker.play_expired_turns()
            match.refresh_from_db()
        else:
            match = play_one_move(match, users, rng)
    entry = Entry.objects.get(user=sleeper)
    other = Entry.objects.exclude(user=sleeper).get(tournament=tournament)
    assert entry.points == 0 and entry.paused and entry.fire_streak == 0
    assert other.points == 2 and not other.paused
    assert ArenaResult.objects.get(entry=entry).abandoned


def there_to_play(users: list) -> None:
    """The players have an arena page or a table open (tests/arena/test_away_players.py: an
    absent player who was to move is paused instead of freed)."""
    for user in users:
        presence.heartbeat(user.pk, at_play=True)


def test_an_aborted_table_scores_nothing_and_frees_its_players(settings):
    settings.ARENA_MAX_WAIT_SECONDS = 0
    tournament, users = running_arena(players=2, seats=2)
    there_to_play(users)
    jobs.seat_waiting_players()
    (table,) = live_tables(tournament)
    Match.objects.filter(pk=table.match_id).update(deadline=timezone.now() - timedelta(seconds=1))
    games_worker.play_expired_turns()  # nobody moved: the ranked match is aborted
    table.match.refresh_from_db()
    assert table.match.status == Match.Status.ABORTED
    assert not ArenaResult.objects.exists()
    assert jobs.seat_waiting_players() == 1
    assert all(e.points == 0 and e.matches == 0 for e in Entry.objects.all())


def test_an_aborted_table_frees_its_players_at_once_and_rings_the_arena(monkeypatch):
    """The arena listens for the end of its matches, aborted ones too: the players wait again
    (their clocks start) in the transaction that aborts the match, not at the next seating
    round, and the arena's page is rung."""
    rung = []
    monkeypatch.setattr(services, "changed", rung.append)
    tournament, users = running_arena(players=3, seats=3)
    there_to_play(users)
    jobs.seat_waiting_players()
    (table,) = live_tables(tournament)
    rung.clear()
    assert all(e.waiting_since is None for e in Entry.objects.filter(tournament=tournament))
    Match.objects.filter(pk=table.match_id).update(deadline=timezone.now() - timedelta(seconds=1))
    games_worker.play_expired_turns()
    assert Match.objects.get(pk=table.match_id).status == Match.Status.ABORTED
    assert all(e.waiting_since is not None for e in Entry.objects.filter(tournament=tournament))
    assert rung == [tournament.pk]


def test_a_paused_player_is_not_freed_by_an_aborted_table(monkeypatch):
    tournament, users = running_arena(players=3, seats=3)
    there_to_play(users)
    jobs.seat_waiting_players()
    (table,) = live_tables(tournament)
    services.pause(users[0], tournament.pk)
    Match.objects.filter(pk=table.match_id).update(deadline=timezone.now() - timedelta(seconds=1))
    games_worker.play_expired_turns()
    assert Entry.objects.get(user=users[0]).waiting_since is None
    assert Entry.objects.get(user=users[1]).waiting_since is not None


def test_a_player_in_two_arenas_plays_one_arena_match_at_a_time():
    first, users = running_arena(players=2, seats=2)
    second, _others = running_arena(players=1, seats=2)
    services.join(users[0], second.pk)
    assert jobs.seat_tournament(first.pk) == 1
    assert jobs.seat_tournament(second.pk) == 0
    play_tables(first)
    assert jobs.seat_tournament(second.pk) == 1


def test_points_are_added_once_even_if_the_signal_came_twice():
    tournament, _users = running_arena(players=3, seats=3)
    jobs.seat_waiting_players()
    play_tables(tournament)
    (table,) = ArenaMatch.objects.filter(tournament=tournament)
    before = {e.pk: e.points for e in Entry.objects.all()}
    with transaction.atomic():
        match_ended.send(sender=Match, match=Match.objects.get(pk=table.match_id))
    assert {e.pk: e.points for e in Entry.objects.all()} == before
    assert ArenaResult.objects.count() == 3


def test_an_arena_table_s_end_writes_its_players_entries_in_one_statement():
    """The entries of a finished arena table, scored as each player's results say, in one
    statement; and who moved is read as a few (seat, by a bot) pairs, not one row per move."""
    tournament, _users = running_arena(players=3, seats=3)
    jobs.seat_waiting_players()
    (table,) = live_tables(tournament)
    match, users, rng = table.match, players_of(table), random.Random(0)
    while True:
        with CaptureQueriesContext(connection) as captured:
            match = play_one_move(match, users, rng)
        if not match.is_playing:
            break
    sql = [q["sql"] for q in captured.captured_queries]
    assert len([q for q in sql if 'UPDATE "arena_entry"' in q]) == 1
    assert any('FROM "games_move"' in q and "DISTINCT" in q for q in sql)
    for entry in Entry.objects.filter(tournament=tournament):
        results = ArenaResult.objects.filter(entry=entry)
        assert (entry.points, entry.matches) == (sum(r.points for r in results), 1)
        assert entry.opponents == 2


def test_matches_outside_arenas_are_left_alone():
    match, users = started_table(players=2, mode="ranked")
    play_to_the_end(match, users)
    assert not ArenaResult.objects.exists()


def test_what_pages_read_the_current_table_the_listing_and_the_trophies():
    tournament, users = running_arena(players=3, seats=3)
    assert services.current_table_for(users[0], tournament) is None
    jobs.seat_waiting_players()
    (table,) = live_tables(tournament)
    assert services.current_table_for(users[0], tournament) == table.match
    assert services.current_table_for(make_user(), tournament) is None
    play_tables(tournament)
    assert services.current_table_for(users[0], tournament) is None
    private = services.create_tournament(users[1], "cafe-fatal", private=True)
    assert private not in services.listing(None)["upcoming"] + services.listing(None)["running"]
    assert private in services.listing(users[1])["running"] + services.listing(users[1])["upcoming"]
    end_arena_now(tournament)
    jobs.finish_ended_arenas()
    assert services.listing(None)["recent"] == [tournament]
    winners = {t.user_id for t in Trophy.objects.filter(tournament=tournament)}
    assert winners == {u.pk for u in users}
    assert [t.tournament for t in services.trophies_for(users[2])] == [tournament]


def test_one_broken_arena_does_not_keep_the_others_from_being_seated(caplog):
    broken, _ = running_arena(players=2, seats=2)
    Tournament.objects.filter(pk=broken.pk).update(options={"no-such-option": 1})
    healthy, _ = running_arena(players=2, seats=2)
    assert jobs.seat_waiting_players() == 1
    assert live_tables(healthy) and not live_tables(broken)
    assert "failed for arena" in caplog.text
