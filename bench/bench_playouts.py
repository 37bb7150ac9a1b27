"""Random playouts per second, the two ways an engine can be driven.

``apply`` is what the site does (every move checked, the log kept); ``advance`` is what a search
does with moves it drew itself (``Engine.advance``). Both play the same seeded games, so the ratio
between them is the speed-up the search gets.

Run: ``.venv/bin/python bench/bench_playouts.py [--seconds S]``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engines import CHANCE, Engine
from games.engines.registry import get_engine


def playout(engine: Engine, n: int, seed: int, step_name: str) -> dict:
    rng = random.Random(seed)
    state = engine.new_game(n)
    step = getattr(engine, step_name)
    while not engine.is_over(state):
        seat = rng.choice(engine.to_move(state))
        if seat == CHANCE:
            move = engine.sample_chance(state, rng)
        else:
            move = engine.random_move(state, seat, rng)
        state = step(state, seat, move)
    return state


def games_per_second(engine: Engine, n: int, step_name: str, seconds: float) -> float:
    start, games = time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        playout(engine, n, games, step_name)
        games += 1
    return games / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    for slug, n in (("part-du-chef", 3), ("cafe-fatal", 3), ("pizza-party", 3)):
        engine = get_engine(slug)
        checked = games_per_second(engine, n, "apply", args.seconds)
        lean = games_per_second(engine, n, "advance", args.seconds)
        print(
            f"{slug:13} {n}p random games/s: apply {checked:8.1f}  advance {lean:8.1f}"
            f"  ratio {lean / checked:4.2f}"
        )


if __name__ == "__main__":
    main()
