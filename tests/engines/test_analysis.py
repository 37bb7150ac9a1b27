"""The analysis after the game, the pure part (games/engines/analysis.py): a decision beside the
move level 3 would have made from the same view, both played out on the same re-dealt worlds."""

from __future__ import annotations

import random

import pytest

from games.engines import CHANCE, Engine, all_engines
from games.engines import analysis as judge
from games.engines.base import competition_ranks
from games.engines.part_du_chef import ENGINE as PART_DU_CHEF
from games.engines.search import Budget

from .pdc_helpers import dealt, play
from .test_contract import bot_positions, by_slug

ENGINES = all_engines()
#: Search playouts, then worlds, per decision: enough for a clear blunder, quick in a test.
SMALL = Budget(iterations=16)


def a_round_with_one_rich_portion_and_one_burnt_slice() -> dict:
    """Two players; the chef (seat 0) has cut pizza 0 into twelve slices (all seven truffles,
    five végétariennes) and the lone burnt slice. Seat 1 chooses first."""
    pizza = ["T1*"] + ["T1"] * 6 + ["V1"] * 5 + ["B"]
    return play(dealt(2, pizza, first_chef=0), (0, {"cut": [0, 12]}))


def test_taking_the_burnt_slice_when_twelve_good_ones_are_there_is_a_blunder():
    """By the spec the rich portion is worth 12 slice points, the truffle majority (11) and
    likely the végétarienne one (9); the burnt slice is worth -3. Four pizzas of chance remain,
    so the game is not certain, but the loss in expected rank is near a whole place."""
    state = a_round_with_one_rich_portion_and_one_burnt_slice()
    view = PART_DU_CHEF.view(state, 1)
    judgement = judge.judge_decision(
        PART_DU_CHEF, view, {"take": 1, "eat": []}, SMALL, random.Random(1)
    )
    assert judgement.best["take"] == 0
    assert judgement.flag == "??"
    assert judgement.rank_loss >= 0.5
    assert judgement.score_loss >= 30
    assert judgement.worlds == SMALL.iterations


def test_eating_the_truffles_that_win_a_majority_at_a_table_of_three_is_a_blunder():
    """Seat 1 takes four of the seven truffles (the finisher among them): kept, they hold the
    Truffe majority (11) for certain, with a steal; eaten, they score 4 olives. Against players
    who keep what a majority needs (the analysis's playouts for this game) that costs nearly a
    place; random playouts, where every player eats half of what it takes, saw only a mistake
    (0.27, bench/bench_analysis_policy.py)."""
    pizza = ["T1*", "T1", "T1", "T1", "V1", "V1", "V1", "R2", "M2", "M2", "F1", "C", "B"]
    state = play(dealt(3, pizza, first_chef=0), (0, {"cut": [0, 4, 8]}))
    view = PART_DU_CHEF.view(state, 1)
    judgement = judge.judge_decision(
        PART_DU_CHEF, view, {"take": 0, "eat": [0, 1, 2, 3]}, SMALL, random.Random(2)
    )
    assert judgement.best["take"] == 0 and not set(judgement.best["eat"]) & {0, 1, 2, 3}
    assert judgement.flag == "??"
    assert judgement.rank_loss >= 0.8


def test_la_part_du_chef_playouts_end_with_the_engines_ranks_of_their_scores():
    state = a_round_with_one_rich_portion_and_one_burnt_slice()
    scores, ranks = PART_DU_CHEF.playout_outcome(state, random.Random(4))
    assert len(scores) == 2 and ranks == competition_ranks(scores)
    end = PART_DU_CHEF.played_out(state, random.Random(4))
    assert PART_DU_CHEF.playout_outcome(end, random.Random(4)) == (
        PART_DU_CHEF.result(end).scores,
        PART_DU_CHEF.result(end).ranks,
    )


def test_playing_level_3s_own_move_is_not_flagged():
    state = a_round_with_one_rich_portion_and_one_burnt_slice()
    view = PART_DU_CHEF.view(state, 1)
    best = judge.judge_decision(
        PART_DU_CHEF, view, {"take": 1, "eat": []}, SMALL, random.Random(1)
    ).best
    judgement = judge.judge_decision(PART_DU_CHEF, view, best, SMALL, random.Random(1))
    assert judgement.same and judgement.flag == "" and judgement.rank_loss == 0


def test_a_loss_within_the_noise_of_the_worlds_is_not_flagged():
    noisy = judge.Judgement(
        best={}, same=False, played_rank=2.0, best_rank=1.5, played_score=0, best_score=0,
        worlds=8, rank_loss_error=0.3,
    )  # fmt: skip
    clear = judge.Judgement(
        best={}, same=False, played_rank=2.0, best_rank=1.5, played_score=0, best_score=0,
        worlds=8, rank_loss_error=0.2,
    )  # fmt: skip
    assert noisy.flag == "" and clear.flag == "??"


@pytest.mark.parametrize("engine", ENGINES, ids=by_slug)
def test_the_analysis_of_a_decision_uses_only_what_its_seat_could_see(engine: Engine):
    """The honesty test: re-deal everything the seat could not see, and the same seed gives the
    same judgement (level 3's choice and both estimates), in every game."""
    redeal = random.Random(7)
    for state, seat in bot_positions(engine):
        played = engine.random_move(state, seat, random.Random(3))
        first = judge.judge_decision(
            engine, engine.view(state, seat), played, Budget(iterations=8), random.Random(9)
        )
        twin = engine.redeal_hidden(state, seat, redeal)
        again = judge.judge_decision(
            engine, engine.view(twin, seat), played, Budget(iterations=8), random.Random(9)
        )
        assert again == first
        assert first.worlds == 8


@pytest.mark.parametrize("engine", ENGINES, ids=by_slug)
def test_a_playout_ends_the_game_with_chance_drawn_and_every_seat_moving(engine: Engine):
    state = engine.new_game(engine.min_players, None)
    assert CHANCE in engine.to_move(state) or engine.to_move(state)
    end = engine.played_out(state, random.Random(5))
    assert engine.is_over(end)
    assert len(engine.result(end).ranks) == engine.min_players


def test_a_round_of_decisions_stops_on_an_engines_error_and_says_it_failed():
    state = a_round_with_one_rich_portion_and_one_burnt_slice()
    broken = judge.Decision(3, 1, state, {"take": 7}, random.Random(1))  # no portion 7
    judged = judge.judge_round(PART_DU_CHEF.slug, [broken], SMALL, seconds=60)
    assert judged.failed and judged.entries == []


def test_a_round_of_decisions_judges_in_order_and_leaves_the_rest_when_time_is_up():
    state = a_round_with_one_rich_portion_and_one_burnt_slice()
    decisions = [
        judge.Decision(number, 1, state, {"take": 0, "eat": []}, random.Random(number))
        for number in (2, 5)
    ]
    judged = judge.judge_round(PART_DU_CHEF.slug, decisions, SMALL, seconds=0)
    assert [entry["move"] for entry in judged.entries] == [2] and judged.next_move == 5
    judged = judge.judge_round(PART_DU_CHEF.slug, decisions, SMALL, seconds=3600)
    assert [entry["move"] for entry in judged.entries] == [2, 5] and judged.next_move is None
