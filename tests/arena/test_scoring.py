"""Scoring in a tiny notation: a player's results as tokens, for tables of ``n`` players —
W (first, alone), D (everyone shares first), L (last, alone), A (abandoned), k (k-th, alone),
k= (k-th, shared with the next seat) — and the points of each match."""

from __future__ import annotations

import pytest

from arena.scoring import (
    base_points,
    is_outright_win,
    performance,
    performance_terms,
    score,
    score_table,
    standing_key,
)


def ranks_for(token: str, n: int) -> list[int]:
    """The table's ranks with the player at seat 0."""
    if token == "W":
        return list(range(1, n + 1))
    if token in ("L", "A"):
        return [n, *range(1, n)]
    if token == "D":
        return [1] * n
    place = int(token.rstrip("="))
    others = [r for r in range(1, n + 1) if r != place]
    if token.endswith("="):
        others[others.index(place + 1)] = place  # one opponent shares the place
    return [place, *others]


def run(tokens: str, n: int = 3) -> list[int]:
    streak, points = 0, []
    for token in tokens.split():
        result = score(ranks_for(token, n), 0, streak, abandoned=token == "A")
        streak = result.streak
        points.append(result.points)
    return points


@pytest.mark.parametrize(
    ("ranks", "points"),
    [
        ([1, 2], [2, 0]),
        ([1, 1], [1, 1]),
        ([1, 2, 3], [4, 2, 0]),
        ([1, 1, 3], [3, 3, 0]),
        ([1, 2, 2], [4, 1, 1]),
        ([1, 1, 1], [2, 2, 2]),
        ([2, 1, 4, 3], [4, 6, 0, 2]),
        ([1, 2, 2, 4], [6, 3, 3, 0]),
        ([1, 2, 3, 4, 5], [8, 6, 4, 2, 0]),
    ],
)
def test_two_per_opponent_behind_and_one_per_opponent_level(ranks, points):
    assert [base_points(ranks, seat) for seat in range(len(ranks))] == points


def test_a_shared_first_place_is_not_an_outright_win():
    assert is_outright_win([1, 2, 3], 0)
    assert not is_outright_win([1, 1, 3], 0)
    assert not is_outright_win([2, 1, 3], 0)


@pytest.mark.parametrize(
    ("tokens", "points"),
    [
        ("W W W L", [4, 4, 8, 0]),
        ("W W W W 2 W", [4, 4, 8, 8, 4, 4]),
        ("W W 2 W", [4, 4, 4, 4]),  # the match that ends the streak is still doubled
        ("W D W W W", [4, 2, 4, 4, 8]),  # a shared first place breaks the streak
        ("W 1= W W", [4, 3, 4, 4]),
        ("W W A W W W", [4, 4, 0, 4, 4, 8]),  # an abandoner scores 0 and loses the fire
        ("L L L", [0, 0, 0]),
    ],
)
def test_on_fire_after_two_outright_wins_until_failing_to_win_outright(tokens, points):
    assert run(tokens) == points


def test_on_fire_in_two_player_and_five_player_tables():
    assert run("W W W W", n=2) == [2, 2, 4, 4]
    assert run("W W 2 3", n=5) == [8, 8, 12, 4]


def test_score_table_scores_every_seat_with_its_own_streak():
    scores = score_table([1, 2, 3], streaks=[2, 0, 5], abandoned=[False, False, True])
    assert [(s.points, s.doubled, s.streak) for s in scores] == [
        (8, True, 3),
        (2, False, 0),
        (0, False, 0),
    ]


def test_performance_is_the_opponents_rating_moved_400_by_each_result():
    ranks, ratings = [1, 2, 2], [1500.0, 1600.0, 1400.0]
    assert performance_terms(ranks, ratings, 0) == 2000 + 1800
    assert performance_terms(ranks, ratings, 1) == 1100 + 1400
    assert performance(2000 + 1800, 2) == 1900
    assert performance(0.0, 0) is None


def test_standings_order_points_then_performance_then_the_tiebreak():
    rows = {
        "ann": (10, 1500.0, 3),
        "bob": (10, 1700.0, 2),
        "cid": (12, None, 1),
        "dan": (0, None, 0),
    }
    ordered = sorted(rows, key=lambda n: standing_key(*rows[n]))
    assert ordered == ["cid", "bob", "ann", "dan"]
