"""La Part du Chef engine speed: random games, bot moves and record replay."""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engines import CHANCE
from games.engines.part_du_chef import ENGINE
from games.engines.records import export_record, replay


def random_game(seed: int, n: int) -> dict:
    rng = random.Random(seed)
    state = ENGINE.new_game(n)
    while not ENGINE.is_over(state):
        seat = ENGINE.to_move(state)[0]
        move = (
            ENGINE.sample_chance(state, rng)
            if seat == CHANCE
            else ENGINE.random_move(state, seat, rng)
        )
        state = ENGINE.apply(state, seat, move)
    return state


def games_per_second(n: int, seconds: float = 2.0) -> float:
    start, games = time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        random_game(games, n)
        games += 1
    return games / (time.perf_counter() - start)


def bot_moves_per_second(level: int, seconds: float = 3.0) -> float:
    rng = random.Random(level)
    moves, spent, seed = 0, 0.0, 0
    while spent < seconds:
        state = ENGINE.new_game(3)
        while not ENGINE.is_over(state) and spent < seconds:
            seat = ENGINE.to_move(state)[0]
            if seat == CHANCE:
                state = ENGINE.apply(state, seat, ENGINE.sample_chance(state, rng))
                continue
            # The site builds the seat's view anyway; the bot's thinking starts from it.
            view = ENGINE.view(state, seat)
            start = time.perf_counter()
            move = ENGINE.bot_move(view, rng, level)
            spent += time.perf_counter() - start
            moves += 1
            state = ENGINE.apply(state, seat, move)
        seed += 1
    return moves / spent


def replay_milliseconds(n: int, repeats: int = 200) -> float:
    record = export_record(ENGINE, random_game(7, n), [f"p{i}" for i in range(n)])
    start = time.perf_counter()
    for _ in range(repeats):
        replay(record)
    return 1000 * (time.perf_counter() - start) / repeats


def main() -> None:
    print(f"random full games per second, 3 players: {games_per_second(3):8.1f}")
    print(f"random full games per second, 5 players: {games_per_second(5):8.1f}")
    print(f"bot moves per second, level 1 (3 players): {bot_moves_per_second(1):8.1f}")
    print(f"bot moves per second, level 2 (3 players): {bot_moves_per_second(2):8.2f}")
    print(f"replay of a 3-player record: {replay_milliseconds(3):6.2f} ms")
    print(f"replay of a 5-player record: {replay_milliseconds(5):6.2f} ms")


if __name__ == "__main__":
    main()
