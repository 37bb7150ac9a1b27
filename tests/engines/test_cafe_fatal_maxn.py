"""The max^n variant of Café Fatal's level 3 (``bench/bench_cafe_fatal_variants.py``, stop 27):
its reward vector is level 3's reward seat by seat, it picks among level 1's best 5, and it plays
legal, seeded (reproducible) games."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from bench.bench_cafe_fatal_variants import (
    MaxnNode,
    decider,
    level2_rewards,
    maxn_iteration,
    play,
    round_end_rewards,
    variant,
)
from games.engines import cafe_fatal_bot
from games.engines.cafe_fatal import ENGINE
from games.engines.search import budget
from tests.engines.cafe_fatal_states import decisions, self_play


def _round_ends(count: int) -> list[tuple[dict, list[int]]]:
    """Seeded states at a round's end (or the game's), with the scores the round started from."""
    out = []
    before = None
    for state, _mover, after in self_play(5):
        if state["phase"] == "serve" or before is None:
            before = state["scores"]
        if after["phase"] in ("serve", "over") and state["phase"] == "place":
            out.append((after, before))
            if len(out) == count:
                return out
    return out


def test_round_end_rewards_are_level_3s_reward_seat_by_seat():
    ends = _round_ends(40)
    assert any(ENGINE.is_over(state) for state, _ in ends)
    for state, before in ends:
        vector = round_end_rewards(state, before)
        assert vector == [cafe_fatal_bot.round_end_reward(state, s) for s in range(3)]


def test_level2_rewards_give_the_others_their_round_margin():
    for state, before in _round_ends(10):
        vector = level2_rewards(1)(state, before)
        gains = [a - b for a, b in zip(state["scores"], before, strict=True)]
        assert vector[1] == cafe_fatal_bot.round_end_reward(state, 1)
        assert vector[0] == gains[0] - (gains[1] + gains[2]) / 2
        assert vector[2] == gains[2] - (gains[0] + gains[1]) / 2


def test_the_tree_counts_every_playout_at_the_root():
    state, seat = decisions(1, seed=7)[0]
    moves = [move for _, move in cafe_fatal_bot.placement_scores(state, seat)[:5]]
    root = MaxnNode()
    rng = random.Random(1)
    for _ in range(60):
        maxn_iteration(root, state, seat, moves, 3, 5.0, round_end_rewards, rng)
    visits, _ = root.stats[seat]
    assert sum(visits) == 60
    assert all(visits)
    # Below the root the other seats' choices are in the tree too.
    assert any(s != seat for child in root.children.values() for s in child.stats)


@pytest.mark.parametrize(
    "name", ["maxn:3:5", "maxn-visits:3:5", "maxn-l2:3:5", "maxn-sh:3:5", "maxn-sh-l2:3:5:4"]
)
def test_maxn_picks_among_level_1s_best_five(name):
    decide = decider(name)
    rng = random.Random(2)
    with budget(iterations=30):
        for state, seat in decisions(8, seed=7):
            view = ENGINE.view(state, seat)
            move = decide(view, ENGINE.sample_state(view, rng), rng)
            best = [m for _, m in cafe_fatal_bot.placement_scores(state, seat)[:5]]
            assert move in best


def test_maxn_plays_legal_seeded_games():
    # ``play`` applies every move with ``ENGINE.apply``, which checks it: a finished game is legal.
    rollout, candidates = variant("maxn:3:5")
    with budget(iterations=20):
        first = play(4, rollout, candidates, [], decider("maxn:3:5"))
        again = play(4, rollout, candidates, [], decider("maxn:3:5"))
    assert first == again
    assert first[0] in "WTL"


def test_progressive_widening_plays_level_1s_best_until_the_node_has_visits():
    node = MaxnNode()
    picks = []
    for _ in range(12):
        arm = node.select(0, 3, 5.0, widen=4)
        picks.append(arm)
        node.update(0, arm, [1.0, 0.0, 0.0])
    assert picks[:4] == [0, 0, 0, 0]
    assert picks[4] == 1
    assert picks[8] == 2
