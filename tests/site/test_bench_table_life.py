"""``bench/bench_table_life.py``: each step's CPU a table, spread over the match's moves; the
moves a move each; an idle daphne's own CPU taken off a batch; the medians step by step."""

from __future__ import annotations

import asyncio

import pytest

from bench import bench_table_life as life


def a_round(scale: float = 1.0, moves: int = 88) -> life.Spent:
    """Four tables of 22 moves each; every step but the moves 40 ms a table times ``scale``."""
    spent = life.Spent(tables=4, moves=moves)
    for step in life.SITE_STEPS:
        spent.seconds[step] = 0.160 * scale
    spent.seconds[life.MOVES] = 0.008 * moves * scale
    return spent


def floor_round(open_ms: float = 6.0, close_ms: float = 2.0) -> life.Spent:
    spent = life.Spent(tables=4)
    spent.seconds[life.FLOOR_OPEN] = open_ms * 4 / 1000
    spent.seconds[life.FLOOR_CLOSE] = close_ms * 4 / 1000
    return spent


def test_a_step_is_its_cpu_a_table_and_that_spread_over_the_matchs_moves():
    site = a_round()
    assert site.moves_a_match() == 22
    assert site.per_table_ms("two joins") == pytest.approx(40.0)
    # Seven steps of 40 ms a table besides the moves; the moves 8 ms each.
    assert site.around_moves_ms() == pytest.approx(280.0)
    assert site.per_move_ms() == pytest.approx(8.0)
    lines = life.describe(site, floor_round())
    joins = next(line for line in lines if line.startswith("two joins"))
    assert joins.split()[-4:] == ["40.0", "ms", "1.82", "ms"]  # 40 / 22
    around = next(line for line in lines if line.startswith("all but the moves"))
    assert around.split()[-4:] == ["280.0", "ms", "12.73", "ms"]  # 280 / 22
    moves = next(line for line in lines if line.startswith(life.MOVES))
    assert moves.split()[-2:] == ["8.00", "ms"]


def test_the_sockets_of_the_site_are_set_against_the_floors():
    lines = life.describe(a_round(), floor_round(open_ms=6.0, close_ms=2.0))
    # Opened 40 ms and closed 40 ms a table on the site; 6 + 2 on the floor: 10 times.
    assert "three sockets opened and closed: the site 80.0 ms, the floor 8.0 ms (10.0×)" in lines


def test_the_medians_are_taken_step_by_step_a_table_and_a_move():
    rounds = [(a_round(1.0), floor_round(6.0)), (a_round(3.0), floor_round(9.0))]
    rounds.append((a_round(2.0, moves=80), floor_round(7.0)))
    site, floor = life.medians(rounds)
    assert site.per_table_ms("two joins") == pytest.approx(80.0)
    # The moves' median is a move's: 8, 24 and 16 ms a move.
    assert site.per_move_ms() == pytest.approx(16.0)
    assert floor.per_table_ms(life.FLOOR_OPEN) == pytest.approx(7.0)
    # The rounds' tables and moves added up: 12 tables, 88 + 88 + 80 moves.
    assert (site.tables, site.moves, floor.tables) == (12, 256, 12)


def test_a_batch_counts_the_daphnes_cpu_less_what_it_spends_idle(monkeypatch):
    readings, clock = iter([10.0, 10.5]), iter([100.0, 102.0])
    monkeypatch.setattr(life, "SETTLE_SECONDS", 0.0)
    done = []

    async def work() -> None:
        done.append(True)

    # 0.5 s of CPU over 2 s of wall time, 0.05 s a second of it idle.
    meter = life.Meter(1, 0.05, cpu=lambda pid: next(readings), wall=lambda: next(clock))
    spent = asyncio.run(meter.batch(work))
    assert done == [True] and spent == pytest.approx(0.4)
