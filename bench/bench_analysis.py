"""The analysis after the game: wall time per match against ``ANALYSIS_SECONDS_PER_MATCH``.

For a few seeded matches of each game (every seat played by level 1, the pizzas and dice drawn
from the seed), the decisions are judged as the worker judges them (``games.analysis``: the
setting split evenly over the decisions, each judged from its seat's view by
``engines.analysis.judge_decision``). Printed per game: the decisions per match and the time per
match as a ratio of the setting (median and max), beside the floor, replaying the match's moves
with ``apply`` (what the job does besides judging), measured in the same run. Pure: no database.

Run: ``.venv/bin/python bench/bench_analysis.py [--seconds S] [--matches N]``.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engines import CHANCE, Engine
from games.engines import analysis as judge
from games.engines.registry import get_engine
from games.engines.search import Budget

TABLES = (("part-du-chef", 3), ("cafe-fatal", 3), ("pizza-party", 3))


def seeded_match(engine: Engine, n: int, seed: int) -> list[tuple[int, dict]]:
    """(seat, move) of a whole match: level 1 for every seat, chance from the seed."""
    rng = random.Random(seed)
    state = engine.new_game(n)
    moves = []
    while not engine.is_over(state):
        seat = engine.to_move(state)[0]
        if seat == CHANCE:
            move = engine.sample_chance(state, rng)
        else:
            move = engine.bot_move(engine.view(state, seat), rng, 1)
        moves.append((seat, move))
        state = engine.apply(state, seat, move)
    return moves


def decisions(engine: Engine, n: int, moves: list[tuple[int, dict]]) -> list[tuple]:
    state = engine.new_game(n)
    found = []
    for seat, move in moves:
        if seat != CHANCE and len(list(itertools.islice(engine.legal(state, seat), 2))) > 1:
            found.append((state, seat, move))
        state = engine.apply(state, seat, move)
    return found


def replay_seconds(engine: Engine, n: int, moves: list[tuple[int, dict]]) -> float:
    started = time.perf_counter()
    decisions(engine, n, moves)
    return time.perf_counter() - started


def analysis_seconds(engine: Engine, n: int, moves: list, seconds: float) -> tuple[int, float]:
    started = time.perf_counter()
    found = decisions(engine, n, moves)
    share = Budget(seconds / max(1, len(found)))
    for number, (state, seat, move) in enumerate(found):
        judge.judge_decision(engine, engine.view(state, seat), move, share, random.Random(number))
    return len(found), time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="the setting per match")
    parser.add_argument("--matches", type=int, default=3, help="seeded matches per game")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}; setting: {args.seconds:g} s a match")
    print("| table | matches | decisions | analysis / setting, median | max | floor (replay) ms |")
    print("|---|---|---|---|---|---|")
    for slug, n in TABLES:
        engine = get_engine(slug)
        ratios, counts, floors = [], [], []
        for seed in range(args.matches):
            moves = seeded_match(engine, n, seed)
            floors.append(replay_seconds(engine, n, moves))
            count, spent = analysis_seconds(engine, n, moves, args.seconds)
            counts.append(count)
            ratios.append(spent / args.seconds)
        print(
            f"| {slug} {n}p | {args.matches} | {statistics.median(counts):g} "
            f"| {statistics.median(ratios):.3f} | {max(ratios):.3f} "
            f"| {1000 * statistics.median(floors):.1f} |"
        )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
