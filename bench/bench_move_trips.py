"""A move's round trips: the ``POST`` of a move in process on PostgreSQL, its insert, update and
``COMMIT`` sent in one round trip (``games.rows.save_and_commit``) or, taking turns move by move
in the same run, one after the other as before (the check that allows one trip answers False).
Prints the medians per move of this process's CPU (what a daphne process spends), of the
PostgreSQL backends' CPU (from /proc) and of the wall time, for both ways and their ratio.

Run: ``DATABASE_URL=postgres://… .venv/bin/python bench/bench_move_trips.py [--moves 600]``
(a fresh database, dropped afterwards; ``REDIS_URL`` puts the rate limits in Redis as on the
site). Moves that end a match are left out (they write ratings too).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_move_request import Table, warm_table  # noqa: E402
from bench.bench_rankings import database_cpu_reader  # noqa: E402

MODES = ("one trip", "one by one")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=600)
    args = parser.parse_args()
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        print("needs DATABASE_URL (PostgreSQL)")
        return 2
    from urllib.parse import urlsplit

    from tests.live_server import scratch_postgres

    prefix = f"{urlsplit(url).path.lstrip('/') or 'pdc'}_trips"
    with scratch_postgres(url, prefix) as scratch:
        os.environ["DATABASE_URL"] = scratch
        return run(args.moves)


def run(moves: int) -> int:
    table = warm_table()
    from games import rows

    allowed = rows.commits_with_last_write
    database = database_cpu_reader()
    samples: dict[str, list[tuple[float, float, float]]] = {mode: [] for mode in MODES}
    for number in range(moves):
        mode = MODES[number % 2]
        rows.commits_with_last_write = allowed if mode == MODES[0] else (lambda alias: False)
        sample = timed_post(table, database)
        if sample is not None:
            samples[mode].append(sample)
    rows.commits_with_last_write = allowed
    print_results(samples)
    return 0


def timed_post(table: Table, database: Any) -> tuple[float, float, float] | None:
    """(wall, this process's CPU, the database's CPU) of one move's POST, in ms; None for a
    move that ended the match."""
    token = table.next_mover()
    _status, table.data = table.call(f"/api/tables/{table.id}", token)
    before_database, before_cpu = database(), time.process_time()
    started = time.perf_counter()
    table.post(token)
    wall = (time.perf_counter() - started) * 1000
    cpu = (time.process_time() - before_cpu) * 1000
    spent = (database() - before_database) * 1000
    return None if table.data.get("status") != "playing" else (wall, cpu, spent)


def print_results(samples: dict[str, list[tuple[float, float, float]]]) -> None:
    medians = {
        mode: [statistics.median(values) for values in zip(*found, strict=True)]
        for mode, found in samples.items()
    }
    print(f"load average {os.getloadavg()[0]:.1f}; medians per move's POST")
    print(f"{'':12} {'moves':>6} {'wall':>9} {'CPU here':>9} {'PostgreSQL':>11}")
    for mode, (wall, cpu, spent) in medians.items():
        print(f"{mode:12} {len(samples[mode]):6d} {wall:6.2f} ms {cpu:6.2f} ms {spent:8.3f} ms")
    one, apart = medians[MODES[0]], medians[MODES[1]]
    print(
        f"{'ratio':12} {'':6} {one[0] / apart[0]:8.2f}x {one[1] / apart[1]:8.2f}x"
        f" {one[2] / apart[2]:10.2f}x"
    )


if __name__ == "__main__":
    sys.exit(main())
