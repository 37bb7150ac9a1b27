"""Arena pairing speed: one seating round for 100, 1 000 and 10 000 waiting players.

Run: ``.venv/bin/python bench/bench_pairing.py`` (one line per size; a few seconds). The players
have varied points, ratings and waits, and come from tables of their own last round, so the
rematch-avoiding swaps have work to do (the slow path).
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.pairing import Waiting, pair

SIZES = (100, 1_000, 10_000)
SEATS = 3
REPEATS = 5


def waiting_players(count: int, seats: int, rng: random.Random) -> list[Waiting]:
    """Players just back from tables of ``seats`` that were formed by standing (as the arena
    forms them), so the natural groups of the next round are full of old pairs."""
    standing = sorted(
        ((rng.randrange(0, 60), rng.gauss(1500, 200), i) for i in range(count)), reverse=True
    )
    players = [i for _, _, i in standing]
    last = {}
    for start in range(0, count, seats):
        table = frozenset(players[start : start + seats])
        last.update(dict.fromkeys(table, table))
    return [
        Waiting(
            player=i,
            points=points,
            rating=rating,
            waited=rng.uniform(0, 30),
            last_table=last[i],
        )
        for points, rating, i in standing
    ]


def time_round(count: int) -> tuple[float, int]:
    """Median seconds of one pairing round, and the tables it opens."""
    rng = random.Random(count)
    players = waiting_players(count, SEATS, rng)
    times, tables = [], 0
    for _ in range(REPEATS):
        started = time.perf_counter()
        tables = len(pair(players, SEATS))
        times.append(time.perf_counter() - started)
    return statistics.median(times), tables


def main() -> None:
    for count in SIZES:
        seconds, tables = time_round(count)
        print(
            f"pairing {count:>6} waiting players, tables of {SEATS}: "
            f"{seconds * 1000:8.1f} ms per round ({tables} tables)",
            flush=True,
        )


if __name__ == "__main__":
    main()
