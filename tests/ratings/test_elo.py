"""The Elo arithmetic of spec/ratings.md."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratings.elo import expected, k_factor, outcome, rating_deltas


def test_the_worked_example_of_the_spec():
    deltas = rating_deltas([1600, 1500, 1500, 1400], [1, 2, 3, 4], [30, 30, 30, 30])
    assert [round(d, 2) for d in deltas] == [11.52, 6.00, -6.00, -11.52]


@pytest.mark.parametrize(
    "rated_before, base", [(0, 60), (9, 60), (10, 40), (19, 40), (20, 20), (500, 20)]
)
def test_k_steps_down_after_10_and_20_rated_matches(rated_before, base):
    assert k_factor(rated_before, 2) == base


@pytest.mark.parametrize("n, scale", [(2, 1.0), (3, 0.75), (4, 0.6), (5, 0.5)])
def test_k_is_scaled_by_3_over_n_plus_1(n, scale):
    assert k_factor(25, n) == pytest.approx(20 * scale)


def test_two_equal_players_move_by_half_k():
    assert rating_deltas([1500, 1500], [1, 2], [0, 0]) == [30.0, -30.0]


def test_a_shared_rank_between_equals_changes_nothing():
    assert rating_deltas([1500, 1500, 1500], [1, 1, 1], [0, 0, 0]) == [0.0, 0.0, 0.0]


def test_a_tie_pulls_ratings_together():
    high, low = rating_deltas([1700, 1500], [1, 1], [30, 30])
    assert high < 0 < low
    assert high == pytest.approx(-low)


def test_three_players_with_a_shared_second_place():
    deltas = rating_deltas([1500, 1500, 1500], [1, 2, 2], [0, 0, 0])
    # K = 60 × 0.75 = 45; winner: 2 × (1 − ½); the others: (0 − ½) + (½ − ½).
    assert deltas == pytest.approx([45.0, -22.5, -22.5])


def test_five_players_with_different_k():
    deltas = rating_deltas([1500] * 5, [1, 2, 3, 4, 5], [0, 12, 25, 0, 0])
    assert deltas[0] == pytest.approx(60 * 0.5 * 2)  # 4 wins − 4 × ½ expected
    assert deltas[1] == pytest.approx(40 * 0.5 * 1)
    assert deltas[2] == pytest.approx(0.0)
    assert deltas[4] == pytest.approx(-60)


def test_outcomes_and_expectations():
    assert (outcome(1, 2), outcome(2, 2), outcome(3, 2)) == (1.0, 0.5, 0.0)
    assert expected(1500, 1500) == 0.5
    assert expected(1900, 1500) == pytest.approx(1 / 1.1)


@given(
    st.lists(st.floats(800, 2800), min_size=2, max_size=5).flatmap(
        lambda r: st.tuples(
            st.just(r),
            st.lists(st.integers(1, len(r)), min_size=len(r), max_size=len(r)),
        )
    )
)
def test_with_equal_k_the_changes_sum_to_zero(ratings_and_ranks):
    ratings, ranks = ratings_and_ranks
    assert sum(rating_deltas(ratings, ranks, [30] * len(ratings))) == pytest.approx(0, abs=1e-9)
