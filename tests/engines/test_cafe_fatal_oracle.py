"""Stop 26's Café Fatal benchmarks: the oracle (``bench/cf_oracle.py``) judges a placement's round
exactly as level 3's search does before it plays on, and the new level 3 variants of
``bench/bench_cafe_fatal_variants.py`` differ from level 3 only where they say they do."""

from __future__ import annotations

import random
import sys
from pathlib import Path

# bench/bots.py imports its neighbours as top-level modules, as it does when run as a script.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from bench.bench_cafe_fatal_variants import first_cut, late_judge, leftover_judge
from bench.cf_oracle import judge
from games.engines import cafe_fatal_bot, search
from games.engines.cafe_fatal import ENGINE
from tests.engines.cafe_fatal_states import decisions, shared_rounds


def test_the_oracles_first_judgement_is_level_3s_own_reward():
    for k, (state, seat) in enumerate(decisions(12, seed=5)):
        move = cafe_fatal_bot.placement_scores(state, seat)[1][1]
        r1, _, win, margin = judge(state, seat, move, world_seed=k)
        after = ENGINE.advance(state, seat, move)
        assert r1 == cafe_fatal_bot._round_reward(after, seat, random.Random(k))
        assert win in (0.0, 0.5, 1.0)
        # A game won outright is won on points (or on loose pieces at equal points).
        assert win < 1.0 or margin >= 0


def test_the_new_variants_judge_as_level_3_where_they_change_nothing():
    same_late = late_judge(top=30, factor=1.0)
    same_left = leftover_judge(share=0.0, start=0.0)
    for state in shared_rounds(30, seed=5):
        expected = cafe_fatal_bot.round_end_reward(state, 0)
        assert same_late(state, 0) == expected
        assert same_left(state, 0) == expected


def test_the_first_cut_variant_sets_the_search_only_for_its_block():
    kept = search.FIRST_CUT
    with first_cut("cut:40"):
        assert search.FIRST_CUT == 40
    with first_cut("main"):
        assert kept == search.FIRST_CUT
    assert kept == search.FIRST_CUT
