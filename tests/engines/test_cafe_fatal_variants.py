"""The level 3 variants' benchmark (``bench/bench_cafe_fatal_variants.py``) plays
``bench/bots.py``'s games, its playout policies play legal placements only, and its fit finds
the weights that drew the choices it is given."""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

import pytest

# bench/bots.py imports its neighbours as top-level modules, as it does when run as a script.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from bench.bench_cafe_fatal_variants import (
    FEATURES,
    FITTED,
    budget_share_halving,
    denial_policy,
    features,
    first_cut,
    fit_logit,
    fitted_policy,
    keep_bonus,
    keep_policy,
    keep_worth_bonus,
    play,
    risk_judge,
    softmax_policy,
    value_candidates,
    variant,
)
from bench.bots import Pairing, play_one
from games.engines import cafe_fatal_bot, search
from games.engines.cafe_fatal import ENGINE
from games.engines.search import budget
from tests.engines.cafe_fatal_states import decisions, self_play


def test_main_variant_plays_the_games_of_the_bots_benchmark():
    seed = 1
    with budget(iterations=20):
        pairing = Pairing(3, 2)
        play_one(ENGINE, 3, seed % 3, pairing, seed)
        rollout, candidates = variant("main")
        outcome, margin = play(seed, rollout, candidates, [])
    expected = "W" if pairing.wins else "T" if pairing.shared else "L"
    assert (outcome, margin) == (expected, pairing.margins[0])


@pytest.mark.parametrize(
    "policy",
    [softmax_policy(1.0), fitted_policy(), keep_policy(0.2), denial_policy(1.0)],
    # Names, not the functions' addresses: every xdist worker must collect the same ids.
    ids=["softmax", "fitted", "keep", "denial"],
)
def test_playout_policies_place_only_legal_placements(policy):
    rng = random.Random(3)
    for state, seat in decisions(40, seed=7):
        move = policy(state, seat, rng)
        ENGINE.check(state, seat, move)


def test_features_name_every_placement_in_level_1s_order():
    state, seat = decisions(1, seed=7)[0]
    rows = features(state, seat)
    assert len(rows) == len(ENGINE.placements(state, seat))
    assert all(len(row) == len(FEATURES) == len(FITTED) for _, row in rows)
    scores = [row[0] for _, row in rows]
    assert scores == sorted(scores, reverse=True)


def test_fit_logit_recovers_the_weights_that_drew_the_choices():
    rng = random.Random(11)
    true = [1.5, -0.8]
    decisions = []
    for _ in range(600):
        xs = [[rng.gauss(0, 1), rng.gauss(0, 1)] for _ in range(4)]
        weights = [math.exp(sum(w * x for w, x in zip(true, row, strict=True))) for row in xs]
        pick = rng.choices(range(4), weights)[0]
        decisions.append((xs, [1.0 if k == pick else 0.0 for k in range(4)]))
    fitted = fit_logit(decisions)
    assert fitted == pytest.approx(true, abs=0.25)


def test_a_denial_policy_denies_more_and_leaves_level_1_as_it_was():
    """With a larger share of what it takes from a table's leader, level 1 picks another
    placement in some positions; afterwards level 1's own share is back."""
    from games.engines import cafe_fatal_bot

    before = cafe_fatal_bot.DENIAL_SHARE
    differ = 0
    for state, seat in decisions(60, seed=11):
        plain = cafe_fatal_bot.placement(state, seat, random.Random(0))
        denying = denial_policy(5.0)(state, seat, random.Random(0))
        differ += plain != denying
    assert differ > 0
    assert before == cafe_fatal_bot.DENIAL_SHARE


def test_a_risk_judge_is_the_margins_sign_within_one_and_the_result_once_over():
    """``risk:S``: tanh of the margin over the best other seat's prospect, so it keeps the
    margin's order and sign within (-1, 1), and a game over is 1 won outright, 0 tied first,
    -1 lost."""
    from games.engines import cafe_fatal_bot

    judge = risk_judge(4.0)
    for state, seat in decisions(30, seed=11):
        worth = [cafe_fatal_bot.prospect(h) for h in state["held"]]
        margin = worth[seat] - max(w for other, w in enumerate(worth) if other != seat)
        value = judge(state, seat)
        assert -1 < value < 1
        assert math.copysign(1, value) == math.copysign(1, margin) or margin == 0
    finished = next(after for _s, _m, after in self_play(11) if ENGINE.is_over(after))
    ranks = ENGINE.result(finished).ranks
    winner = ranks.index(1)
    assert ranks.count(1) == 1  # this seed's first game has one winner
    assert judge(finished, winner) == 1.0
    assert all(judge(finished, seat) == -1.0 for seat in range(3) if seat != winner)


def test_a_keep_bonus_is_level_3s_reward_plus_the_bonus_for_each_die_the_candidate_kept():
    """``keep:B``: the same round played out on the same luck, judged as level 3 judges it,
    plus B points for every die the seat still holds after the candidate placement."""
    from games.engines import cafe_fatal_bot

    rollout = keep_bonus(2.5)
    seen_kept = set()
    for state, seat in decisions(20, seed=5):
        for _score, move in cafe_fatal_bot.placement_scores(state, seat)[:3]:
            after = ENGINE.advance(state, seat, move)
            kept = after["remaining"][seat]
            seen_kept.add(kept)
            plain = cafe_fatal_bot._round_reward(after, seat, random.Random(9))
            assert rollout(after, seat, random.Random(9)) == plain + 2.5 * kept
    assert len(seen_kept) > 1  # candidates that keep different numbers of dice were judged


def test_a_keep_worth_bonus_counts_each_kept_die_at_level_1s_worth_of_a_die_there():
    """``keepv:F``: level 3's reward plus F times level 1's worth of a die kept back
    (``_TableJudge.die_value``, the tables as the candidate left them) for each die kept."""
    from games.engines import cafe_fatal_bot

    rollout = keep_worth_bonus(3.0)
    worths = set()
    for state, seat in decisions(20, seed=5):
        for _score, move in cafe_fatal_bot.placement_scores(state, seat)[:3]:
            after = ENGINE.advance(state, seat, move)
            die = cafe_fatal_bot._TableJudge(after, seat).die_value
            worths.add(die)
            plain = cafe_fatal_bot._round_reward(after, seat, random.Random(9))
            expected = plain + 3.0 * die * after["remaining"][seat]
            assert rollout(after, seat, random.Random(9)) == pytest.approx(expected)
    assert len(worths) > 1  # the bonus follows the position


def playouts_by_candidate(count: int, iterations: int) -> list[int]:
    """How many playouts each of ``count`` candidates gets from the search with the
    ``budget-cuts`` variant's halvings."""
    seen = [0] * count

    def rollout(state, seat, rng):
        seen[state["m"]] += 1
        return rng.random()

    with first_cut("budget-cuts"):
        search.search_move(
            lambda rng: {},
            lambda world, move: {**world, **move},
            [{"m": k} for k in range(count)],
            0,
            rollout,
            random.Random(4),
            search.Budget(iterations=iterations),
        )
    return sorted(seen)


def test_budget_cuts_halve_five_candidates_once_half_the_playouts_are_spent():
    # 4,000 playouts: 2,000 over the five (400 worlds each), then 1,000 more worlds for two.
    assert playouts_by_candidate(5, 4000) == [400, 400, 400, 1400, 1400]


def test_budget_cuts_split_a_race_that_halves_twice_in_three():
    # Ten candidates halve to five, then two: 100 worlds for ten, 200 more for five, 500 for two.
    assert playouts_by_candidate(10, 3000) == [100] * 5 + [300] * 3 + [800] * 2


def test_budget_cuts_never_halve_before_the_first_cut():
    # Half of 100 playouts is 10 worlds of five; the race waits for 16, then two get 10 more.
    assert playouts_by_candidate(5, 100) == [16, 16, 16, 26, 26]


def test_the_budget_cuts_variant_searches_with_them_only_inside_its_block():
    kept = search.halving_due
    with first_cut("budget-cuts"):
        assert search.halving_due is budget_share_halving
    assert search.halving_due is kept


def test_value_candidates_race_each_value_rolled_at_its_best_table_first():
    for state, seat in decisions(40, seed=8):
        ranked = [move for _, move in cafe_fatal_bot.placement_scores(state, seat)]
        chosen = value_candidates(state, seat, 5)
        values = list(dict.fromkeys(move["place"]["value"] for move in ranked))
        firsts = [next(m for m in ranked if m["place"]["value"] == v) for v in values]
        assert chosen[: len(firsts)] == firsts[:5]
        assert len(chosen) == min(5, len(ranked)) and all(move in ranked for move in chosen)
        assert len({(m["place"]["value"], m["place"]["table"]) for m in chosen}) == len(chosen)
