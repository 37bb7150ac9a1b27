"""Level 3 (issue 13): the search over re-dealt worlds. Its budget, its reproducibility and, on
small seeded samples, its strength (thresholds just below the counts these seeds give)."""

from __future__ import annotations

import random

import pytest

from games.engines import CHANCE, search
from games.engines.cafe_fatal import ENGINE as CAFE_FATAL
from games.engines.part_du_chef import ENGINE as PART_DU_CHEF
from games.engines.pizza_party import ENGINE as PIZZA_PARTY

from .bots import bot, duel_score, firsts, hero_first_ranks, level_against, play_game

ENGINES = (PART_DU_CHEF, CAFE_FATAL, PIZZA_PARTY)


class FakeClock:
    """A clock that moves ``step`` seconds each time it is read."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def count_playouts(
    seconds: float, clock_step: float, monkeypatch, cpu_step: float | None = None
) -> int:
    """The playouts of a search of four candidates whose wall clock moves ``clock_step`` a
    reading; with ``cpu_step``, its budget counts the thread's CPU, whose clock moves so."""
    monkeypatch.setattr(search.time, "perf_counter", FakeClock(clock_step))
    if cpu_step is not None:
        monkeypatch.setattr(search.time, "thread_time", FakeClock(cpu_step))
    playouts = []

    def rollout(state, seat, rng):
        playouts.append(state)
        return rng.random()

    search.search_move(
        lambda rng: {"x": rng.random()},
        lambda world, move: world,
        [{"m": k} for k in range(4)],
        0,
        rollout,
        random.Random(1),
        search.Budget(seconds=seconds, on_cpu=cpu_step is not None),
    )
    return len(playouts)


def test_a_timed_search_stops_at_the_first_world_past_its_budget(monkeypatch):
    # The clock moves 1/8 s per reading: the deadline is read at 1/8 (so it is 9/8), the first
    # world starts unasked, the next ones at readings 2/8 … 8/8 (7 more), and the reading at
    # 9/8 stops: 8 worlds, each met by the four candidates (no halving before 16 worlds).
    assert count_playouts(1.0, 0.125, monkeypatch) == 8 * 4


def test_the_weaker_half_drops_out_when_the_worlds_double(monkeypatch):
    # 40 worlds at 1/64 s a reading: four candidates meet worlds 1 to 16, two the other 24.
    assert count_playouts(40 / 64, 1 / 64, monkeypatch) == 16 * 4 + 24 * 2


def test_a_search_out_of_time_still_weighs_every_candidate_once(monkeypatch):
    assert count_playouts(0.001, 10.0, monkeypatch) == 4


def test_a_search_on_cpu_time_thinks_longer_when_its_core_is_shared(monkeypatch):
    # The wall clock moves 1/8 s a reading, the thread's CPU 3/32 s (it gets three quarters of
    # its core). The CPU deadline is 3/32 + 1 = 35/32: readings 2 … 11 (3/16 … 33/32) let worlds
    # 2 to 11 start, reading 12 (36/32) stops: 11 worlds, where a second of wall time gives 8.
    assert count_playouts(1.0, 0.125, monkeypatch, cpu_step=3 / 32) == 11 * 4


def test_a_search_on_cpu_time_stops_at_its_wall_cap_however_little_cpu_it_got(monkeypatch):
    # A thread that gets a sixteenth of its core would need 16 s for its second of CPU; the wall
    # deadline is 1/8 + WALL_CAP = 15/8, so readings 2 … 14 let worlds 2 to 14 start and reading
    # 15 (15/8) stops: 14 worlds, the move well within twice its budget.
    assert search.WALL_CAP == 1.75
    assert count_playouts(1.0, 0.125, monkeypatch, cpu_step=1 / 128) == 14 * 4


def test_an_iteration_budget_counts_playouts():
    seen = []
    search.search_move(
        lambda rng: {},
        lambda world, move: world,
        [{"m": k} for k in range(3)],
        0,
        lambda state, seat, rng: seen.append(1) or 0.0,
        random.Random(2),
        search.Budget(iterations=10),
    )
    # A world is never cut short: after 3 worlds of 3 candidates (9 playouts, fewer than 10) a
    # fourth is played whole.
    assert len(seen) == 12


def test_the_candidate_with_the_best_playouts_is_played():
    # Candidate 2's playouts always end best; the others' are noise below it.
    move = search.search_move(
        lambda rng: {},
        lambda world, move: {**world, **move},
        [{"m": k} for k in range(5)],
        0,
        lambda state, seat, rng: 1.0 if state["m"] == 2 else rng.random() * 0.9,
        random.Random(3),
        search.Budget(iterations=200),
    )
    assert move == {"m": 2}


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.slug)
def test_level_3_plays_whole_games_with_the_same_move_for_the_same_seed(engine):
    with search.budget(iterations=8):
        state = play_game(engine, [bot(engine, 3), bot(engine, 1)], seed=5)
        assert engine.is_over(state)
        rng = random.Random(6)
        state = engine.new_game(2)
        while CHANCE in engine.to_move(state):
            state = engine.apply(state, CHANCE, engine.sample_chance(state, rng))
        seat = engine.to_move(state)[0]
        view = engine.view(state, seat)
        first = engine.bot_move(view, random.Random(7), 3)
        assert engine.bot_move(view, random.Random(7), 3) == first


# --- strength, on small seeded samples -----------------------------------------------------------
def test_part_du_chef_level_3_beats_level_1_head_to_head():
    with search.budget(iterations=40):
        ranks = hero_first_ranks(PART_DU_CHEF, level_against(PART_DU_CHEF, 3, 1), 2, 8)
    above, below = duel_score(ranks)
    # Measured: level 3 (40 playouts a move) ahead in 7 of 8 duels, behind in 1.
    assert above >= 6 and below <= 2


def test_part_du_chef_level_3_beats_two_level_2_bots():
    with search.budget(iterations=100):
        ranks = hero_first_ranks(PART_DU_CHEF, level_against(PART_DU_CHEF, 3, 2), 3, 12)
    # Measured: first in 7 of 12 games (a third would be even: 4).
    assert firsts(ranks) >= 6


def test_part_du_chef_level_3_beats_level_2_head_to_head():
    with search.budget(iterations=100):
        ranks = hero_first_ranks(PART_DU_CHEF, level_against(PART_DU_CHEF, 3, 2), 2, 12)
    above, below = duel_score(ranks)
    # Measured: level 3 (100 playouts a move) ahead in 9 of 12 duels, behind in 2.
    assert above >= 8 and below <= 3


def test_cafe_fatal_level_3_beats_two_level_1_bots():
    with search.budget(iterations=40):
        ranks = hero_first_ranks(CAFE_FATAL, level_against(CAFE_FATAL, 3, 1), 3, 6)
    # Measured: first in 4 of 6 games (a third would be even).
    assert firsts(ranks) >= 4


def test_cafe_fatal_level_3_holds_its_own_against_two_level_2_bots():
    # 40 playouts a move are fewer than level 2's 60: at this budget level 3 only matches it
    # (bench/bots.py measures it at the budgets the site gives).
    with search.budget(iterations=40):
        ranks = hero_first_ranks(CAFE_FATAL, level_against(CAFE_FATAL, 3, 2), 3, 15)
    # Measured: first in 5 of 15 games (a third would be even).
    assert firsts(ranks) >= 5


def test_pizza_party_level_3_beats_two_level_2_bots():
    with search.budget(iterations=24):
        ranks = hero_first_ranks(PIZZA_PARTY, level_against(PIZZA_PARTY, 3, 2), 3, 12)
    # Measured: first in 12 of 12 games (a third would be even).
    assert firsts(ranks) >= 11


def test_pizza_party_level_3_beats_level_2_in_duels():
    with search.budget(iterations=24):
        ranks = hero_first_ranks(PIZZA_PARTY, level_against(PIZZA_PARTY, 3, 2), 2, 16)
    above, below = duel_score(ranks)
    # Measured: level 3 (24 playouts a move) ahead in 14 of 16 duels, behind in 1 (11 and 5
    # against the level 2 that also placed for sensible players).
    assert above >= 13 and below <= 2
