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
- ``write``: a move's writes and ``COMMIT`` in one round trip (``rows.save_and_commit``, after
  a locked read in a transaction): the insert and the update as two statements (main's code at
  5a8aeaa, kept below) or one. With it, PostgreSQL's CPU a call: its backend's, from ``/proc``
  (the server must run on this machine), in ``--calls`` large enough for its 10 ms ticks.
- ``hop``: one trip of a request's synchronous code to its thread and back, as a move's request
  takes (``sync_to_async`` in a ``ThreadSensitiveContext`` lent that thread).
- ``uses``: API tokens' last uses (stop 36), a call a use of another token: each written by
  itself as its request's job (main's way at 8df9ebe) or noted, the uses of a round written
  together in one statement (``players.auth._Uses``, as within ``TOKEN_USES_WRITE_SECONDS``).
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

PARTS = ("read", "hop", "write", "uses")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=400, help="calls per round and way")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--parts", default=",".join(PARTS), help=f"of {', '.join(PARTS)}")
    args = parser.parse_args()
    from tests.live_server import migrated_scratch_postgres

    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        print("set DATABASE_URL to a PostgreSQL server")
        return 1
    prefix = (url.rsplit("/", 1)[-1] or "pdc") + "_parts"
    with migrated_scratch_postgres(url, prefix):
        print(f"load average {os.getloadavg()[0]:.2f}", flush=True)
        for part in args.parts.split(","):
            before, after = PART_MAKERS[part]()
            compare(part, before, after, args.calls, args.rounds)
        print(f"load average {os.getloadavg()[0]:.2f}", flush=True)
    return 0


def compare(name: str, before: Callable, after: Callable, calls: int, rounds: int) -> None:
    found: dict[str, list[float]] = {"before": [], "after": []}
    server: dict[str, list[float]] = {"before": [], "after": []}
    ways = {"before": before, "after": after}
    for way in ways:  # warm up both
        ways[way](calls // 4)
    for round_ in range(rounds):
        order = ("before", "after") if round_ % 2 == 0 else ("after", "before")
        for way in order:
            backend = backend_cpu()
            found[way].append(1e6 * ways[way](calls) / calls)
            if backend is not None:
                server[way].append(1e6 * (backend_cpu() - backend) / calls)
    # A part that sends no statement (the hop) leaves the backend at 0: nothing to compare.
    if server["before"] and statistics.median(server["before"]) > 0:
        b, a = statistics.median(server["before"]), statistics.median(server["after"])
        print(
            f"{name:6}: PostgreSQL's backend before {b:8.1f} µs, after {a:8.1f} µs a call, "
            f"after / before {a / b:.3f}",
            flush=True,
        )
    b, a = statistics.median(found["before"]), statistics.median(found["after"])
    ratios = [x / y for x, y in zip(found["after"], found["before"], strict=True)]
    print(
        f"{name:6}: before {b:8.1f} µs, after {a:8.1f} µs a call, after / before {a / b:.3f} "
        f"(rounds {min(ratios):.3f}–{max(ratios):.3f})",
        flush=True,
    )


def backend_cpu() -> float | None:
    """CPU seconds of the PostgreSQL backend of this thread's connection, if it is open and
    the server runs here; else None."""
    from django.db import connection

    if connection.connection is None or connection.vendor != "postgresql":
        return None
    try:
        with open(f"/proc/{connection.connection.info.backend_pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


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


def write_part() -> tuple[Callable, Callable]:
    from django.db import transaction

    from games import rows
    from games.models import Move

    pk = a_started_match()
    numbers = iter(range(10_000, 10**9))

    def writes(calls: int) -> float:
        started = time.process_time()
        for _ in range(calls):
            with transaction.atomic():
                match = rows.match_with_seats(pk, lock=True)
                match.version += 1
                moves = [
                    Move(match=match, number=next(numbers), seat=0, payload={"cut": [1, 2]})
                    for _ in range(2)
                ]
                assert rows.save_and_commit(match, moves)
        return time.process_time() - started

    def before(calls: int) -> float:
        with patched(rows, "save_and_commit", mains_save_and_commit):
            return writes(calls)

    return before, writes


def mains_save_and_commit(match: Any, moves: Any) -> bool:
    """``rows.save_and_commit`` as main had it (5a8aeaa): the insert and the update as two
    statements."""
    from django.db import DatabaseError, router
    from django.db.models.signals import post_save, pre_save

    from games import rows
    from games.models import Match

    alias = router.db_for_write(Match, instance=match)
    if (
        match._state.adding
        or pre_save.has_listeners(Match)
        or post_save.has_listeners(Match)
        or not rows.commits_with_last_write(alias)
    ):
        return False
    connection, statements = rows._for(alias)
    raw = connection.connection
    update = [
        field.get_db_prep_save(field.pre_save(match, False), connection)
        for field in statements.update_fields
    ]
    update.append(match.pk)
    with rows._cursor(connection) as cursor, connection.wrap_database_errors:
        with raw.pipeline():
            if moves:
                cursor.execute(*rows._insert(statements, connection, moves))
            cursor.execute(statements.update_match, update)
            raw.cursor().execute("COMMIT", prepare=False)
        updated = cursor.rowcount
    if updated != 1:
        raise DatabaseError(f"match {match.pk} was not updated")
    rows._written(moves, alias)
    match._state.db = alias
    return True


def uses_part() -> tuple[Callable, Callable]:
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from players import auth
    from players.models import ApiToken

    tokens = [
        ApiToken.issue(get_user_model().objects.create_user(f"uses-{n}"), "bench")[0].pk
        for n in range(200)
    ]

    def before(calls: int) -> float:
        started = time.process_time()
        for n in range(calls):
            ApiToken.objects.filter(pk=tokens[n % len(tokens)]).update(last_used_at=timezone.now())
        return time.process_time() - started

    def after(calls: int) -> float:
        uses = auth._Uses()
        uses.written_at = time.monotonic() + 3600  # within the interval: every use kept
        started = time.process_time()
        for n in range(calls):
            uses.note(tokens[n % len(tokens)], timezone.now())
        auth._write_uses(uses.take())
        taken = time.process_time() - started
        uses.timer.cancel()
        return taken

    return before, after


PART_MAKERS: dict[str, Callable[[], tuple[Callable, Callable]]] = {
    "read": read_part,
    "hop": hop_part,
    "write": write_part,
    "uses": uses_part,
}


if __name__ == "__main__":
    sys.exit(main())
