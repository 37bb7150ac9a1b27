"""Rankings speed with 100 000 players: median milliseconds per request of the rankings page (first
page, page 1000, a search, friends only), the rankings API and a profile, beside a trivial view,
with each one's ratio to the trivial view and its number of queries; and the CPU each request
costs this process and the PostgreSQL server, with their ratio to the trivial view's (under load
every round trip waits its turn, which flattens the ratios of wall times; CPU is what a quiet
machine would wait for).

Run: ``.venv/bin/python bench/bench_rankings.py`` (about a minute). It seeds a temporary SQLite
file once with ``seed_demo`` and reuses it on later runs; with ``DATABASE_URL`` set it also runs on
PostgreSQL, in a fresh database that it drops afterwards. ``--players N`` changes the size.
``DATABASE_URL=… bench_rankings.py --child`` measures on that database (seeded on the first run,
reused after), so that two checkouts can take turns on the same data.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

REPEAT = 41
WARM_UP = 3
FRIENDS = 150


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        run_cases(args.players)
        return 0
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    # Named by size so that a run with another --players does not reuse the wrong file.
    env["SQLITE_PATH"] = str(
        Path(tempfile.gettempdir()) / f"pdc-bench-rankings-{args.players}.sqlite3"
    )
    failed = run_child("SQLite", env, args.players)
    if os.environ.get("DATABASE_URL"):
        failed |= run_on_postgres(os.environ["DATABASE_URL"], args.players)
    return failed


def run_child(label: str, env: dict[str, str], players: int) -> int:
    print(f"-- {label}", flush=True)
    command = [sys.executable, __file__, "--child", "--players", str(players)]
    return subprocess.call(command, env=env, cwd=ROOT)


def run_on_postgres(url: str, players: int) -> int:
    from tests.live_server import scratch_postgres

    with scratch_postgres(url, "pdc_rankings_bench") as scratch:
        return run_child("PostgreSQL", {**os.environ, "DATABASE_URL": scratch}, players)


def run_cases(players: int) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pdc_site.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from ratings.models import Rating

    call_command("migrate", verbosity=0)
    if Rating.objects.count() < players:
        started = time.perf_counter()
        call_command("seed_demo", players=players, matches=300, verbosity=0)
        if connection.vendor == "postgresql":
            # A live database is vacuumed by autovacuum; without it PostgreSQL cannot answer
            # from the indexes alone (its visibility map is empty after a bulk load).
            with connection.cursor() as cursor:
                # The bulk load left one ladder-bucket row per rating, folded at its end into a
                # few thousand: give the table back the room, as a live site that folds every few
                # hundred changes never needs.
                cursor.execute("VACUUM FULL ratings_ladderbucket")
                cursor.execute("VACUUM FULL ratings_ladderchange")
                cursor.execute("VACUUM ANALYZE")
        print(f"seeded {players} players in {time.perf_counter() - started:.1f} s", flush=True)
    else:
        print(f"reusing the {players}-player database", flush=True)

    viewer, busy = bench_users()
    # A real host name rather than setup_test_environment(), whose template instrumentation
    # would slow every page down.
    client = Client(HTTP_HOST="localhost")
    client.force_login(viewer)
    cases = {
        "trivial view (/api/games)": "/api/games",
        "rankings, first page": "/rankings/part-du-chef/",
        "rankings, page 1000": "/rankings/part-du-chef/?page=1000",
        # Another page every time: none was read before in the ladder's state (no cache helps).
        "rankings, page 1000+, never read": "/rankings/part-du-chef/?page={fresh}",
        "rankings, search 'basil_chef'": "/rankings/part-du-chef/?q=basil_chef",
        "rankings, search 'zzz' (nobody)": "/rankings/part-du-chef/?q=zzz",
        "rankings, search 'a', page 500": "/rankings/part-du-chef/?q=a&page=500",
        "rankings, friends only": "/rankings/part-du-chef/?friends=1",
        "API rankings, page 1000": "/api/rankings/part-du-chef?page=1000",
        "profile of a busy player": f"/players/{busy}/",
    }
    spent = medians(client, list(cases.values()))
    floor = spent[cases["trivial view (/api/games)"]]
    print(
        f"{'':36} {'median':>9} {'ratio':>6} {'CPU':>8} {'ratio':>6} {'PG CPU':>8}"
        f" {'all CPU':>7} {'queries':>7}"
    )
    for label, path in cases.items():
        cost = spent[path]
        queries = query_count(client, fresh(path))
        print(
            f"{label:36} {cost.wall:6.2f} ms {cost.wall / floor.wall:5.1f}x"
            f" {cost.cpu:5.2f} ms {cost.cpu / floor.cpu:5.1f}x {cost.database:5.2f} ms"
            f" {cost.all_cpu / floor.all_cpu:6.1f}x {queries:7d}",
            flush=True,
        )
    print(
        "median: wall time; CPU: this process's CPU (time.process_time); PG CPU: the database"
        " server's CPU for the request (PostgreSQL's backend, from /proc); all CPU: both, as a"
        " ratio to the trivial view's",
        flush=True,
    )


def bench_users() -> tuple[Any, str]:
    """A viewer with friends spread over the ladder, and the player with the most rated matches."""
    from django.contrib.auth import get_user_model
    from django.db.models import Count
    from django.utils import timezone

    from players.models import Friendship
    from ratings.models import Rating, RatingChange

    user_model = get_user_model()
    viewer, created = user_model.objects.get_or_create(username="bench_viewer")
    if created:
        step = max(1, Rating.objects.filter(game="part-du-chef").count() // FRIENDS)
        friend_ids = (
            Rating.objects.filter(game="part-du-chef")
            .order_by("-value")
            .values_list("user_id", flat=True)[::step][:FRIENDS]
        )
        now = timezone.now()
        Friendship.objects.bulk_create(
            Friendship(from_user=viewer, to_user_id=friend, accepted_at=now)
            for friend in friend_ids
        )
    busy = (
        RatingChange.objects.values("user__username")
        .annotate(n=Count("id"))
        .order_by("-n")
        .values_list("user__username", flat=True)
        .first()
    )
    return viewer, busy or "bench_viewer"


_fresh_pages = itertools.count(1000)


def fresh(path: str) -> str:
    """The path, with ``{fresh}`` replaced by a page number not asked for before."""
    return path.format(fresh=next(_fresh_pages)) if "{fresh}" in path else path


@dataclass(frozen=True)
class Cost:
    """Medians of one request: wall milliseconds, this process's CPU milliseconds and the
    database server's CPU milliseconds for it (0 on SQLite, which runs inside this process)."""

    wall: float
    cpu: float
    database: float

    @property
    def all_cpu(self) -> float:
        return self.cpu + self.database


def medians(client: Any, paths: list[str]) -> dict[str, Cost]:
    """Medians per path. The paths take turns, request by request, so that the load of a shared
    machine weighs on each of them alike and their ratios hold. Under load every round trip
    waits for the CPU, which flattens the wall ratios; the CPU spent is what a quiet machine
    would wait for."""
    for path in paths:
        for _ in range(WARM_UP):
            assert client.get(fresh(path)).status_code == 200, path
    backend = database_cpu_reader()
    walls: dict[str, list[float]] = {path: [] for path in paths}
    cpus: dict[str, list[float]] = {path: [] for path in paths}
    databases: dict[str, list[float]] = {path: [] for path in paths}
    for _ in range(REPEAT):
        for path in paths:
            database_before = backend()
            cpu_before = time.process_time()
            started = time.perf_counter()
            client.get(fresh(path))
            walls[path].append((time.perf_counter() - started) * 1000)
            cpus[path].append((time.process_time() - cpu_before) * 1000)
            databases[path].append((backend() - database_before) * 1000)
    return {
        path: Cost(
            statistics.median(walls[path]),
            statistics.median(cpus[path]),
            statistics.median(databases[path]),
        )
        for path in paths
    }


def database_cpu_reader() -> Callable[[], float]:
    """Seconds of CPU the database server has spent for this benchmark so far: the run time of
    the PostgreSQL backends connected to its database (the pool's few connections take turns),
    from /proc (nanoseconds, unlike the ticks of /proc/PID/stat), when the server runs on this
    machine; always 0 otherwise. Read after the warm-up, when the pool holds its connections."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return lambda: 0.0
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
            " AND backend_type = 'client backend'"
        )
        paths = [Path(f"/proc/{pid}/schedstat") for (pid,) in cursor.fetchall()]
    if not all(path.exists() for path in paths):
        print("(the database server runs elsewhere: its CPU is not measured)", flush=True)
        return lambda: 0.0

    def read() -> float:
        return sum(int(path.read_text().split()[0]) for path in paths) / 1e9

    return read


def query_count(client: Any, path: str) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        client.get(path)
    return len(captured.captured_queries)


if __name__ == "__main__":
    sys.exit(main())
