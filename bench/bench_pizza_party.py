"""Pizza Party engine speed: random games per second, bot moves per second, replay time.

Run: ``.venv/bin/python bench/bench_pizza_party.py`` (one line per figure; about 10 seconds).
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engines.pizza_party import ENGINE
from games.engines.records import export_record, replay

State = dict[str, Any]


def random_game(n: int, seed: int) -> State:
    rng = random.Random(seed)
    state = ENGINE.new_game(n)
    while not ENGINE.is_over(state):
        seat = rng.choice(ENGINE.to_move(state))
        move = ENGINE.random_step(state, seat, rng)
        state = ENGINE.apply(state, seat, move)
    return state


def games_per_second(n: int, budget: float) -> float:
    start = time.perf_counter()
    games = 0
    while time.perf_counter() - start < budget:
        random_game(n, games)
        games += 1
    return games / (time.perf_counter() - start)


def bot_moves_per_second(level: int, budget: float) -> float:
    """Time only the bot's decisions (from the seat's view, which the site builds anyway), in
    three-player games against random players."""
    spent = 0.0
    moves = 0
    seed = 0
    while spent < budget:
        rng = random.Random(seed)
        state = ENGINE.new_game(3)
        while not ENGINE.is_over(state):
            seat = rng.choice(ENGINE.to_move(state))
            if seat == seed % 3:
                view = ENGINE.view(state, seat)
                tick = time.perf_counter()
                move = ENGINE.bot_move(view, rng, level)
                spent += time.perf_counter() - tick
                moves += 1
            else:
                move = ENGINE.random_move(state, seat, rng)
            state = ENGINE.apply(state, seat, move)
        seed += 1
    return moves / spent


def replay_seconds(n: int, repeats: int = 50) -> tuple[float, int]:
    """Mean time to replay one finished record, and its length in moves."""
    record = export_record(ENGINE, random_game(n, 7), ["ann", "bob", "cat"][:n])
    start = time.perf_counter()
    for _ in range(repeats):
        replay(record)
    return (time.perf_counter() - start) / repeats, len(record["moves"])


def main() -> None:
    print(f"random games per second, 3 players: {games_per_second(3, 2.0):.0f}")
    print(f"random games per second, duel: {games_per_second(2, 2.0):.0f}")
    print(f"bot moves per second (basic): {bot_moves_per_second(1, 2.0):.0f}")
    print(f"bot moves per second (strong): {bot_moves_per_second(2, 2.0):.0f}")
    for n in (3, 2):
        seconds, length = replay_seconds(n)
        label = "3 players" if n == 3 else "duel"
        print(f"replay of a {length}-move record ({label}): {seconds * 1000:.2f} ms")


if __name__ == "__main__":
    main()
