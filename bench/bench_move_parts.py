"""Pieces of a move's request, each timed two ways in one process, taking turns: what this
stop's changes are worth where live runs are too noisy to show a few percent.

    DATABASE_URL=postgres://… REDIS_URL=redis://… .venv/bin/python bench/bench_move_parts.py

Each part has a ``before`` (main's way) and an ``after`` (this code's), switched in place; a
round times ``--calls`` calls of one then of the other (which goes first alternates), and the
medians of ``--rounds`` rounds are printed with their ratio, after / before. CPU is the
process's (``time.process_time``: every thread's), in microseconds a call. It needs PostgreSQL
(a fresh database, dropped afterwards).

- ``read``: the locked read of a move (``rows.match_with_seats(…, lock=True)`` in a
  transaction): timestamps through Django's loader, or psycopg's where the zones agree.
- ``hop``: one trip of a request's synchronous code to its thread and back, as a move's request
  takes (``sync_to_async`` in a ``ThreadSensitiveContext`` lent that thread).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PARTS = ("read", "hop")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=400, help="calls per round and way")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--parts", default=",".join(PARTS), help=f"of {', '.join(PARTS)}")
    args = parser.parse_args()
    from tests.live_server import scratch_postgres

    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        print("set DATABASE_URL to a PostgreSQL server")
        return 1
    os.environ["DJANGO_DEBUG"] = "0"
    prefix = (url.rsplit("/", 1)[-1] or "pdc") + "_parts"
    with scratch_postgres(url, prefix) as scratch:
        os.environ["DATABASE_URL"] = scratch
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pdc_site.settings")
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        print(f"load average {os.getloadavg()[0]:.2f}", flush=True)
        for part in args.parts.split(","):
            before, after = PART_MAKERS[part]()
            compare(part, before, after, args.calls, args.rounds)
        print(f"load average {os.getloadavg()[0]:.2f}", flush=True)
    return 0


def compare(name: str, before: Callable, after: Callable, calls: int, rounds: int) -> None:
    found: dict[str, list[float]] = {"before": [], "after": []}
    ways = {"before": before, "after": after}
    for way in ways:  # warm up both
        ways[way](calls // 4)
    for round_ in range(rounds):
        order = ("before", "after") if round_ % 2 == 0 else ("after", "before")
        for way in order:
            found[way].append(1e6 * ways[way](calls) / calls)
    b, a = statistics.median(found["before"]), statistics.median(found["after"])
    ratios = [x / y for x, y in zip(found["after"], found["before"], strict=True)]
    print(
        f"{name:6}: before {b:8.1f} µs, after {a:8.1f} µs a call, after / before {a / b:.3f} "
        f"(rounds {min(ratios):.3f}–{max(ratios):.3f})",
        flush=True,
    )


@contextlib.contextmanager
def patched(target: Any, name: str, value: Any) -> Iterator[None]:
    old = getattr(target, name)
    setattr(target, name, value)
    try:
        yield
    finally:
        setattr(target, name, old)


def a_started_match() -> int:
    import random

    from tests.site.factories import play_one_move, started_table

    match, users = started_table()
    rng = random.Random(5)
    for _ in range(6):
        match = play_one_move(match, users, rng)
    return match.pk


def read_part() -> tuple[Callable, Callable]:
    from django.db import connection, transaction

    from games import rows

    pk = a_started_match()

    def reads(calls: int) -> float:
        started = time.process_time()
        for _ in range(calls):
            with transaction.atomic():
                rows.match_with_seats(pk, lock=True)
        return time.process_time() - started

    def before(calls: int) -> float:
        with patched(rows, "_session_zone_is_djangos", lambda connection, raw: False):
            return reads(calls)

    connection.ensure_connection()
    return before, reads


def hop_part() -> tuple[Callable, Callable]:
    from concurrent.futures import ThreadPoolExecutor

    from asgiref.sync import ThreadSensitiveContext, sync_to_async

    from pdc_site import request_threads

    def work() -> None:
        pass

    def hops_through(thread: Any) -> Callable[[int], float]:
        async def hops(calls: int) -> None:
            async with ThreadSensitiveContext(executor=thread):
                for _ in range(calls):
                    await sync_to_async(work, thread_sensitive=True)()

        def timed(calls: int) -> float:
            started = time.process_time()
            asyncio.run(hops(calls))
            return time.process_time() - started

        return timed

    stock = ThreadPoolExecutor(max_workers=1)
    stock.submit(int).result()
    lent = request_threads.RequestThreads(None).started_thread()
    return hops_through(stock), hops_through(lent)


PART_MAKERS: dict[str, Callable[[], tuple[Callable, Callable]]] = {
    "read": read_part,
    "hop": hop_part,
}


if __name__ == "__main__":
    sys.exit(main())
