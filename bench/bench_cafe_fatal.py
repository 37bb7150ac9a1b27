"""Café Fatal engine speed: random full games, bot moves and replaying a record.

Run as ``.venv/bin/python bench/bench_cafe_fatal.py``; each figure is measured for a fixed wall
time, so the whole script takes about 15 seconds.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

# Run from anywhere without installing the project.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engines import CHANCE
from games.engines.cafe_fatal import ENGINE
from games.engines.records import export_record, replay

Chooser = Callable[[dict, int, random.Random], dict]


def play(
    n: int, rng: random.Random, choose: Chooser, bot_level: int = 0
) -> tuple[dict, float, int]:
    """One game to the end; the final state, the time spent choosing seats' moves and how many.
    With a ``bot_level`` the bot of that level chooses from the seat's view (built untimed: the
    site builds it anyway), else ``choose`` from the state."""
    state = ENGINE.new_game(n)
    spent, chosen = 0.0, 0
    while not ENGINE.is_over(state):
        [seat] = ENGINE.to_move(state)
        if seat == CHANCE:
            move = ENGINE.sample_chance(state, rng)
        else:
            view = ENGINE.view(state, seat) if bot_level else None
            start = time.perf_counter()
            if view is not None:
                move = ENGINE.bot_move(view, rng, bot_level)
            else:
                move = choose(state, seat, rng)
            spent += time.perf_counter() - start
            chosen += 1
        state = ENGINE.apply(state, seat, move)
    return state, spent, chosen


def random_games_per_second(n: int, seconds: float = 3.0) -> float:
    rng = random.Random(n)
    start, games = time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        play(n, rng, ENGINE.random_move)
        games += 1
    return games / (time.perf_counter() - start)


def bot_moves_per_second(level: int, seconds: float) -> float:
    """Only the bot's thinking is timed; the games are 3-player games of bots of that level."""
    rng = random.Random(100 + level)
    spent, moves = 0.0, 0
    while spent < seconds:
        _, game_spent, game_moves = play(3, rng, ENGINE.random_move, bot_level=level)
        spent += game_spent
        moves += game_moves
    return moves / spent


def replay_milliseconds(n: int, repeats: int = 300) -> float:
    state, _, _ = play(n, random.Random(7), ENGINE.random_move)
    record = export_record(ENGINE, state, [f"p{i}" for i in range(n)])
    start = time.perf_counter()
    for _ in range(repeats):
        replay(record)
    return 1000 * (time.perf_counter() - start) / repeats


def main() -> None:
    print(f"random full games per second, 3 players: {random_games_per_second(3):8.1f}")
    print(f"random full games per second, 5 players: {random_games_per_second(5):8.1f}")
    print(f"bot moves per second, level 1 (3 players): {bot_moves_per_second(1, 2.0):8.1f}")
    print(f"bot moves per second, level 2 (3 players): {bot_moves_per_second(2, 3.0):8.2f}")
    print(f"replay of a 3-player record: {replay_milliseconds(3):6.2f} ms")
    print(f"replay of a 5-player record: {replay_milliseconds(5):6.2f} ms")


if __name__ == "__main__":
    main()
