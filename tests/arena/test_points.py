"""Points through the ``match_ended`` receiver, with ranks chosen by the test: the fire streak,
abandoning, shared places and performances, written once per match."""

from __future__ import annotations

import pytest

from arena.models import ArenaMatch, ArenaResult, Entry

from .builders import finish_with_ranks, open_table, running_arena

pytestmark = pytest.mark.django_db

#: Ranks of a three-player table, the watched player's first.
RESULTS = {"W": [1, 2, 3], "L": [3, 1, 2], "2": [2, 1, 3], "D": [1, 1, 3], "A": [3, 1, 2]}


def play_sequence(tokens: str) -> tuple[list[int], Entry]:
    tournament, users = running_arena(players=3, seats=3)
    ann = users[0]
    points = []
    for token in tokens.split():
        table = open_table(tournament, users)
        abandoned = [token == "A", False, False]
        finish_with_ranks(table, users, RESULTS[token], abandoned)
        points.append(ArenaResult.objects.get(table=table, entry__user=ann).points)
        if token == "A":
            Entry.objects.filter(user=ann).update(paused=False)
    return points, Entry.objects.get(tournament=tournament, user=ann)


@pytest.mark.parametrize(
    ("tokens", "points"),
    [
        ("W W W L", [4, 4, 8, 0]),
        ("W W 2 W", [4, 4, 4, 4]),
        ("W W W D W", [4, 4, 8, 6, 4]),
        ("W W A W", [4, 4, 0, 4]),
    ],
)
def test_points_are_doubled_after_two_outright_wins_until_a_match_is_not_won(tokens, points):
    scored, entry = play_sequence(tokens)
    assert scored == points
    assert entry.points == sum(points)
    assert entry.matches == len(points)


def test_the_fire_shows_in_the_standings_and_goes_out():
    _, entry = play_sequence("W W")
    assert entry.on_fire and entry.fire_streak == 2
    _, entry = play_sequence("W W L")
    assert not entry.on_fire


def test_an_abandoner_scores_nothing_is_paused_and_the_others_score_as_ranked():
    tournament, users = running_arena(players=3, seats=3)
    table = open_table(tournament, users)
    finish_with_ranks(table, users, [3, 1, 2], [True, False, False])
    entries = {e.user_id: e for e in Entry.objects.filter(tournament=tournament)}
    assert [entries[u.pk].points for u in users] == [0, 4, 2]
    assert entries[users[0].pk].paused and entries[users[0].pk].waiting_since is None
    assert not entries[users[1].pk].paused and entries[users[1].pk].waiting_since is not None


def test_performance_uses_the_ratings_from_the_moment_of_seating():
    tournament, users = running_arena(players=3, seats=3)
    table = open_table(tournament, users)
    ArenaMatch.objects.filter(pk=table.pk).update(
        ratings={str(users[0].pk): 1500, str(users[1].pk): 1700, str(users[2].pk): 1300}
    )
    finish_with_ranks(table, users, [1, 2, 3])
    entry = Entry.objects.get(user=users[0])
    assert entry.opponents == 2
    assert entry.performance == ((1700 + 400) + (1300 + 400)) / 2


def test_a_table_is_scored_once():
    tournament, users = running_arena(players=3, seats=3)
    table = open_table(tournament, users)
    finish_with_ranks(table, users, [1, 2, 3])
    finish_with_ranks(table, users, [1, 2, 3])
    assert ArenaResult.objects.filter(table=table).count() == 3
    assert Entry.objects.get(user=users[0]).points == 4
    assert ArenaMatch.objects.get(pk=table.pk).scored
