"""``bench/live.py --level3-tables``: how much CPU the level-3 bots got for each move beside the
measured tables. A search's budget is CPU time with a cap on the wall clock, so the tables' load
shows as later moves, then past the cap as fewer seconds of thought."""

from __future__ import annotations

import pytest

from bench.live import Phase, Tally, thought_per_bot_move


def phase(name: str, seconds: float, worker_cpu: float) -> Phase:
    return Phase(name, Tally(), seconds, {"daphne 1": 30.0, "worker": worker_cpu}, [])


def test_the_bots_thought_is_the_workers_cpu_beyond_what_it_spends_without_them():
    # Without the bots the worker spends 1.2 s in 60 s; beside them 31.2 s in 60 s for 40 bot
    # moves: 30 s of thought, 0.75 s a move.
    without, beside = phase("site", 60.0, 1.2), phase("site + level 3", 60.0, 31.2)
    assert thought_per_bot_move(without, beside, 40) == pytest.approx(0.75)


def test_the_workers_own_share_is_scaled_to_the_length_of_the_phase_beside_the_bots():
    # 1.2 s in 60 s alone is 1.5 s in 75 s: 31.5 - 1.5 = 30 s for 60 moves.
    without, beside = phase("site", 60.0, 1.2), phase("site + level 3", 75.0, 31.5)
    assert thought_per_bot_move(without, beside, 60) == pytest.approx(0.5)


def test_a_phase_where_the_bots_made_no_move_gives_no_figure():
    without, beside = phase("site", 60.0, 1.2), phase("site + level 3", 60.0, 1.3)
    assert thought_per_bot_move(without, beside, 0) is None


def test_a_worker_that_spent_less_beside_the_bots_gives_no_negative_thought():
    without, beside = phase("site", 60.0, 2.0), phase("site + level 3", 60.0, 1.0)
    assert thought_per_bot_move(without, beside, 10) == 0.0
