"""Rankings speed with 100 000 players: every page issue 10 names (the ladder's page 1 and page
1000, a name search, "a" page 500, friends only, the API's page 1000, the busiest player's
profile), each read first (just after a rating of the ladder moved, so nothing kept answers it
as it was: the page is read afresh, or carried forward by the changes since when they tell,
``ladder.carried_page``) and kept (read again), each request just after one of a trivial view. It prints the wall and CPU
medians and p95 of each and their ratios to the trivial view's, and its queries; CPU is this
process's plus the PostgreSQL server's for the request (under load every round trip waits its
turn, which flattens the ratios of wall times; CPU is what a quiet machine would wait for).

Run: ``.venv/bin/python bench/bench_rankings.py`` (a few minutes). It seeds a temporary SQLite
file once with ``seed_demo`` and reuses it on later runs; with ``DATABASE_URL`` set it also runs on
PostgreSQL, in a fresh database that it drops afterwards. ``--players N`` changes the size.
``DATABASE_URL=… bench_rankings.py --child`` measures on that database (seeded on the first run,
reused after); ``DATABASE_URL=… bench_rankings.py --against ../other-checkout`` measures this
checkout and the other in turns on that database.
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

#: The checkout measured: this one, or another one's (``--against``).
ROOT = Path(os.environ.get("PDC_BENCH_ROOT") or Path(__file__).resolve().parents[1])
sys.path.insert(0, str(ROOT))

REPEAT = 41
WARM_UP = 3
FRIENDS = 150


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--against",
        metavar="CHECKOUT",
        help="on DATABASE_URL's database (seeded once, kept), measure this checkout and the other"
        " one in turns, --turns times each",
    )
    parser.add_argument("--turns", type=int, default=2)
    args = parser.parse_args()
    if args.child:
        run_cases(args.players)
        return 0
    if args.against:
        return take_turns(Path(args.against).resolve(), args.turns, args.players)
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


def take_turns(other: Path, turns: int, players: int) -> int:
    """This checkout and ``other`` measured one after the other on the same database, so that
    both meet the same minutes of a shared machine's load."""
    failed = 0
    for turn in range(turns):
        for root in (Path(__file__).resolve().parents[1], other):
            python = root / ".venv" / "bin" / "python"
            print(f"-- turn {turn + 1}: {root.name} ({git_head(root)})", flush=True)
            command = [str(python), __file__, "--child", "--players", str(players)]
            env = {**os.environ, "PDC_BENCH_ROOT": str(root)}
            failed |= subprocess.call(command, env=env, cwd=root)
    return failed


def git_head(root: Path) -> str:
    command = ["git", "-C", str(root), "rev-parse", "--short", "HEAD"]
    return subprocess.run(command, capture_output=True, text=True).stdout.strip()


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
    # The API's limit per caller (300 calls a minute) would refuse the trivial view within the
    # run; the limit is still counted, as for any caller.
    import games.api

    games.api.CALLS_PER_WINDOW = (10**9, 60)
    # A real host name rather than setup_test_environment(), whose template instrumentation
    # would slow every page down.
    client = Client(HTTP_HOST="localhost")
    client.force_login(viewer)
    changes = LadderChanger()
    cases = {label: path.format(busy=busy) for label, path in CASES.items()}
    results = measure(client, cases, changes)
    print_results(results, client, cases)


#: The pages issue 10 names (``{busy}``: the player with the most rated matches).
CASES: dict[str, str] = {
    "rankings, page 1": "/rankings/part-du-chef/",
    "rankings, page 1000": "/rankings/part-du-chef/?page=1000",
    "search 'basil_chef'": "/rankings/part-du-chef/?q=basil_chef",
    "search 'a', page 500": "/rankings/part-du-chef/?q=a&page=500",
    "friends only": "/rankings/part-du-chef/?friends=1",
    "API rankings, page 1000": "/api/rankings/part-du-chef?page=1000",
    "profile of the busiest player": "/players/{busy}/",
}
TRIVIAL = "/api/games"
#: Pages whose first read also finds their drawings forgotten, as after the player's next rated
#: match: the profile kept its drawn charts and recent matches in the cache (Redis when set)
#: before c273253, and keeps them in the process since (``ratings.charts.DRAWN``).
FORGETS_CACHE = {"profile of the busiest player"}
#: first: the ladder changed (one rating moved, as a rated match moves it) just before the
#: request, so nothing read before answers it; kept: the same page again, the ladder unchanged.
MODES = ("first", "kept")


class LadderChanger:
    """Moves one rating of the benchmark's ladder by 12.5 points, as a rated match would,
    outside the timed requests; folds the ladder's rows now and then as the worker does."""

    def __init__(self) -> None:
        from ratings.models import Rating

        ids = Rating.objects.filter(game="part-du-chef").values_list("id", flat=True)
        self.ids = list(ids[:100_000:97])
        self.done = 0

    def change(self) -> None:
        from django.db import connection

        rating_id = self.ids[self.done % len(self.ids)]
        step = 12.5 if self.done % 2 == 0 else -12.5
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE ratings_rating SET value = value + %s WHERE id = %s", [step, rating_id]
            )
        self.done += 1
        if self.done % 100 == 0:
            from ratings import buckets

            buckets.fold("part-du-chef")


@dataclass
class Samples:
    """Per request: wall milliseconds, and CPU milliseconds (this process's and the database
    server's together, then the database server's alone)."""

    wall: list[float]
    cpu: list[float]
    database: list[float]

    def add(self, wall: float, cpu: float, database: float) -> None:
        self.wall.append(wall)
        self.cpu.append(cpu)
        self.database.append(database)


def measure(
    client: Any, cases: dict[str, str], changes: LadderChanger
) -> dict[tuple[str, str], tuple[Samples, Samples]]:
    """For every case and mode, (the case's samples, the trivial view's samples taken just
    before each of them): each request of a page follows one of the trivial view, so that the
    load of a shared machine weighs on both alike. Each page is read first just after a change
    of the ladder, then again (kept); the order of the cases turns every round."""
    from django.core.cache import cache

    for path in cases.values():
        for _ in range(WARM_UP):
            assert client.get(path).status_code == 200, path
        assert client.get(TRIVIAL).status_code == 200
    clock = request_clock(client)
    results = {
        (label, mode): (Samples([], [], []), Samples([], [], []))
        for label in cases
        for mode in MODES
    }
    labels = list(cases)
    for round_ in range(REPEAT):
        shift = round_ % len(labels)
        for label, mode in itertools.product(labels[shift:] + labels[:shift], MODES):
            page, trivial = results[(label, mode)]
            if mode == "first":
                changes.change()
            trivial.add(*clock(TRIVIAL))
            if mode == "first" and label in FORGETS_CACHE:
                # What the profile drew before (charts, recent matches) forgotten too.
                forget_drawings(cache)
            page.add(*clock(cases[label]))
    return results


def forget_drawings(cache: Any) -> None:
    """Empty the cache and, in a checkout that keeps the profile's drawings in the process, those
    too."""
    from ratings import charts

    cache.clear()
    drawn = getattr(charts, "DRAWN", None)
    if drawn is not None:
        drawn.clear()


def request_clock(client: Any) -> Callable[[str], tuple[float, float, float]]:
    """A function that requests a path and says its wall and CPU milliseconds (this process's
    and the database server's together, and the database server's alone)."""
    backend = database_cpu_reader()

    def clock(path: str) -> tuple[float, float]:
        database_before = backend()
        cpu_before = time.process_time()
        started = time.perf_counter()
        response = client.get(path)
        wall = (time.perf_counter() - started) * 1000
        database = (backend() - database_before) * 1000
        cpu = (time.process_time() - cpu_before) * 1000 + database
        assert response.status_code == 200, path
        return wall, cpu, database

    return clock


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def print_results(
    results: dict[tuple[str, str], tuple[Samples, Samples]], client: Any, cases: dict[str, str]
) -> None:
    print(
        f"{'page':32} {'read':5} {'wall p50':>9} {'p95':>7} {'ratio':>5} {'p95':>5}"
        f" {'CPU p50':>8} {'p95':>7} {'ratio':>5} {'p95':>5} {'PG p50':>7} {'queries':>7}"
    )
    worst = 0.0
    for (label, mode), (page, trivial) in results.items():
        ratios = []
        figures = []
        for kind in ("wall", "cpu"):
            mine, floor = getattr(page, kind), getattr(trivial, kind)
            p50, p95 = statistics.median(mine), percentile(mine, 0.95)
            ratios += [p50 / statistics.median(floor), p95 / percentile(floor, 0.95)]
            figures += [p50, p95]
        worst = max(worst, ratios[2])
        queries = query_count(client, cases[label])
        print(
            f"{label:32} {mode:5} {figures[0]:6.2f} ms {figures[1]:7.2f} {ratios[0]:4.1f}x"
            f" {ratios[1]:4.1f}x {figures[2]:5.2f} ms {figures[3]:7.2f} {ratios[2]:4.1f}x"
            f" {ratios[3]:4.1f}x {statistics.median(page.database):7.2f} {queries:7d}",
            flush=True,
        )
    trivial_walls = [wall for _page, trivial in results.values() for wall in trivial.wall]
    trivial_cpus = [cpu for _page, trivial in results.values() for cpu in trivial.cpu]
    print(
        f"trivial view ({TRIVIAL}): wall p50 {statistics.median(trivial_walls):.2f} ms,"
        f" CPU p50 {statistics.median(trivial_cpus):.2f} ms; worst CPU ratio (p50)"
        f" {worst:.2f}x; load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    print(
        "ratio: to the trivial view requested just before each request (same run, interleaved);"
        " CPU: this process's CPU (time.process_time) plus the database server's for the"
        " request (PostgreSQL's backend, from /proc); first: the first read after one rating"
        " of the ladder moved; kept: read again, the ladder unchanged",
        flush=True,
    )


def bench_users() -> tuple[Any, str]:
    """A viewer with friends spread over the ladder, and the player with the most rated
    matches."""
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
        .order_by("-n", "user__username")
        .values_list("user__username", flat=True)
        .first()
    )
    return viewer, busy or "bench_viewer"


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
