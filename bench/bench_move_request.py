"""A move's API requests, in process: milliseconds and queries of the mover's ``GET`` of the table
and of the ``POST`` of the move, beside a trivial view, on 3-player La Part du Chef tables played
with API tokens (what ``bench/live.py`` sends, without daphne and sockets in the way).

Run: ``.venv/bin/python bench/bench_move_request.py`` (half a minute). With ``DATABASE_URL`` set
it runs on PostgreSQL, in a fresh database that it drops afterwards (SQLite otherwise);
``REDIS_URL`` puts the rate limits in Redis as on the live site. ``--profile`` prints where the
POST's CPU time goes (cProfile, cumulative). Medians of wall time and of this process's CPU time
(what a daphne process would spend; the database's own CPU is not in it). ``--endings N`` then
times the ``POST`` of N moves that end a match, friendly and ranked (new tables opened as the
matches end), beside the other moves of the same matches, and lists the queries of one more.
Without daphne the doorbell is rung before the answer, through ``async_to_sync``: in every
``POST`` timed here alike.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# The load generator's way of choosing a move from the table the mover sees.
from bench.live import choose_move  # noqa: E402

MOVES = 300
SEATS = 3
GAME = "part-du-chef"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=MOVES)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--queries", action="store_true", help="print the SQL of one move")
    parser.add_argument(
        "--endings", type=int, default=0, help="time N moves that end a match, in each mode"
    )
    args = parser.parse_args()
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith("postgres"):
        from tests.live_server import scratch_postgres

        with scratch_postgres(url, "pdc_bench_move") as scratch:
            os.environ["DATABASE_URL"] = scratch
            return run(args)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["SQLITE_PATH"] = str(Path(tmp) / "bench.sqlite3")
        return run(args)


def run(args: argparse.Namespace) -> int:
    table = warm_table()
    times: dict[str, list[float]] = {"trivial": [], "get": [], "post": []}
    cpu_times: dict[str, list[float]] = {"trivial": [], "get": [], "post": []}
    queries: dict[str, list[int]] = {"trivial": [], "get": [], "post": []}
    for _ in range(args.moves):
        table.timed(times, cpu_times, queries)
    print(f"{args.moves} moves, {connection_vendor()}, load average {os.getloadavg()[0]:.1f}")
    floor = statistics.median(times["trivial"])
    cpu_floor = statistics.median(cpu_times["trivial"])
    print(
        f"{'':34} {'median':>9} {'ratio':>7} {'CPU':>9} {'ratio':>7} {'queries (median, max)':>22}"
    )
    labels = {
        "trivial": "trivial view (GET /api/games)",
        "get": "GET /api/tables/<id> (the mover)",
        "post": "POST /api/tables/<id>/moves",
    }
    for key, label in labels.items():
        median, cpu = statistics.median(times[key]), statistics.median(cpu_times[key])
        counts = queries[key]
        print(
            f"{label:34} {median:6.2f} ms {median / floor:6.1f}x {cpu:6.2f} ms"
            f" {cpu / cpu_floor:6.1f}x {statistics.median(counts):>14.0f}, {max(counts)}"
        )
    if args.queries:
        print_queries(table)
    if args.profile:
        profile(table)
    for mode in ("friendly", "ranked") if args.endings else ():
        print_endings(Table(table.client, table.tokens, mode), args.endings)
    return 0


def print_endings(table: Table, endings: int) -> None:
    """Medians of the ``POST`` of ``endings`` moves that end a match and of the other moves of
    the same matches, then the queries of one more ending move."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    times: dict[bool, list[float]] = {False: [], True: []}
    cpu_times: dict[bool, list[float]] = {False: [], True: []}
    while len(times[True]) <= endings:
        token = table.next_mover()
        _status, table.data = table.call(f"/api/tables/{table.id}", token)
        counting = len(times[True]) == endings
        with CaptureQueriesContext(connection) if counting else contextlib.nullcontext() as got:
            started, cpu = time.perf_counter(), time.process_time()
            table.post(token)
            wall, spent = time.perf_counter() - started, time.process_time() - cpu
        ended = table.data.get("status") != "playing"
        if counting and ended:
            break
        if not counting:
            times[ended].append(wall * 1000)
            cpu_times[ended].append(spent * 1000)
    for ended, label in ((False, "other moves"), (True, "the move that ends it")):
        print(
            f"{table.mode} match, {label}: {len(times[ended])} POSTs, median"
            f" {statistics.median(times[ended]):.2f} ms, CPU {statistics.median(cpu_times[ended]):.2f} ms"
        )
    print(f"{table.mode} match, the move that ends it: {len(got.captured_queries)} queries")
    for query in got.captured_queries:
        print("  ", query["sql"][:160])


def warm_table() -> Table:
    """Django set up on this database (migrated, the cache cleared), a table of ``SEATS`` players
    opened through the site's handler and 20 moves played on it to warm up."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pdc_site.settings")
    os.environ["DJANGO_DEBUG"] = "0"
    import django

    django.setup()
    from django.core.cache import cache
    from django.core.management import call_command
    from django.test import Client

    from games import api, ratelimit

    call_command("migrate", verbosity=0)
    cache.clear()
    # Three players move here as fast as they can: the limits are raised, not skipped, so that
    # every request still counts its hits in the cache as on the site.
    ratelimit.MOVES_PER_WINDOW = api.CALLS_PER_WINDOW = (10**9, 60)
    client = Client(HTTP_HOST="localhost")
    # Views as the site's handler calls them under daphne (request_threads.OneHopHandler: an
    # async view's synchronous twin, in the request's thread).
    client.handler = site_client_handler()
    table = Table(client, make_tokens(SEATS))
    table.open()
    for _ in range(20):
        table.move()
    return table


def site_client_handler() -> Any:
    from django.test.client import ClientHandler

    from pdc_site.request_threads import SyncTwins

    class Handler(SyncTwins, ClientHandler):
        pass

    return Handler(enforce_csrf_checks=False)


def connection_vendor() -> str:
    from django.db import connection

    return connection.vendor


def make_tokens(count: int) -> list[str]:
    from django.contrib.auth import get_user_model

    from players.models import ApiToken

    user_model = get_user_model()
    return [
        ApiToken.issue(user_model.objects.create(username=f"bench{i}"), "bench")[1]
        for i in range(count)
    ]


class Table:
    """A table the bench players play through the API, opening a new one when a match ends."""

    def __init__(self, client: Any, tokens: list[str], mode: str = "friendly") -> None:
        self.client = client
        self.tokens = tokens
        self.mode = mode
        #: The table as the last answer showed it (none yet: the first mover opens one).
        self.data: dict[str, Any] = {}
        self.rng = random.Random(1)

    def call(self, path: str, token: str, body: Any = None) -> tuple[int, dict]:
        headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
        if body is None:
            response = self.client.get(path, **headers)
        else:
            response = self.client.post(path, body, content_type="application/json", **headers)
        return response.status_code, response.json()

    def open(self) -> None:
        status, data = self.call(
            "/api/tables", self.tokens[0], {"game": GAME, "seats": SEATS, "mode": self.mode}
        )
        assert status == 201, data
        self.id = data["id"]
        for token in self.tokens[1:]:
            status, data = self.call(f"/api/tables/{self.id}/join", token, {})
            assert status == 200, data
        self.by_seat = {}
        for token in self.tokens:
            _status, mine = self.call(f"/api/tables/{self.id}", token)
            self.by_seat[mine["you"]] = token
        self.data = mine

    def next_mover(self) -> str | None:
        if self.data.get("status") != "playing" or not self.data.get("to_move"):
            self.open()
        return self.by_seat[self.data["to_move"][0]]

    def move(self) -> None:
        token = self.next_mover()
        _status, self.data = self.call(f"/api/tables/{self.id}", token)
        self.post(token)

    def post(self, token: str) -> None:
        body = {"version": self.data["version"], "move": choose_move(self.data, self.rng)}
        status, data = self.call(f"/api/tables/{self.id}/moves", token, body)
        assert status == 200, data
        self.data = data

    def timed(
        self,
        times: dict[str, list[float]],
        cpu_times: dict[str, list[float]],
        queries: dict[str, list[int]],
    ) -> None:
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        token = self.next_mover()
        steps = {
            "trivial": lambda: self.client.get("/api/games"),
            "get": lambda: setattr(self, "data", self.call(f"/api/tables/{self.id}", token)[1]),
            "post": lambda: self.post(token),
        }
        for key, step in steps.items():
            started, cpu = time.perf_counter(), time.process_time()
            step()
            times[key].append((time.perf_counter() - started) * 1000)
            cpu_times[key].append((time.process_time() - cpu) * 1000)
        # Counted on the next move's requests, apart from the timing (capturing costs time).
        token = self.next_mover()
        for key in ("get", "post"):
            with CaptureQueriesContext(connection) as captured:
                if key == "get":
                    self.data = self.call(f"/api/tables/{self.id}", token)[1]
                else:
                    self.post(token)
            queries[key].append(len(captured.captured_queries))
        queries["trivial"].append(0)


def print_queries(table: Table) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    token = table.next_mover()
    with CaptureQueriesContext(connection) as get:
        _status, table.data = table.call(f"/api/tables/{table.id}", token)
    with CaptureQueriesContext(connection) as post:
        table.post(token)
    for label, captured in (("GET", get), ("POST", post)):
        print(f"-- {label}: {len(captured.captured_queries)} queries")
        for query in captured.captured_queries:
            print("  ", query["sql"][:160])


def profile(table: Table) -> None:
    import cProfile
    import pstats

    # CPU time, not wall time: on a shared machine the wall clock counts other people's work.
    profiler = cProfile.Profile(time.process_time)
    for _ in range(100):
        token = table.next_mover()
        _status, table.data = table.call(f"/api/tables/{table.id}", token)
        profiler.enable()
        table.post(token)
        profiler.disable()
    stats = pstats.Stats(profiler)
    if os.environ.get("PROFILE_FILE"):
        stats.dump_stats(os.environ["PROFILE_FILE"])
    stats.sort_stats("cumulative").print_stats(45)


if __name__ == "__main__":
    sys.exit(main())
