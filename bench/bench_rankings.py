"""Rankings speed with 100 000 players: median milliseconds per request of the rankings page (first
page, page 1000, a search, friends only), the rankings API and a profile, beside a trivial view,
with each one's ratio to the trivial view and its number of queries.

Run: ``.venv/bin/python bench/bench_rankings.py`` (about a minute). It seeds a temporary SQLite
file once with ``seed_demo`` and reuses it on later runs; with ``DATABASE_URL`` set it also runs on
PostgreSQL, in a fresh database that it drops afterwards. ``--players N`` changes the size.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
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

    with scratch_postgres(url, "pdc_bench_rankings") as scratch:
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
        "rankings, search 'basil_chef'": "/rankings/part-du-chef/?q=basil_chef",
        "rankings, search 'zzz' (nobody)": "/rankings/part-du-chef/?q=zzz",
        "rankings, search 'a', page 500": "/rankings/part-du-chef/?q=a&page=500",
        "rankings, friends only": "/rankings/part-du-chef/?friends=1",
        "API rankings, page 1000": "/api/rankings/part-du-chef?page=1000",
        "profile of a busy player": f"/players/{busy}/",
    }
    times = medians_ms(client, list(cases.values()))
    floor = times[cases["trivial view (/api/games)"]]
    print(f"{'':36} {'median':>9} {'ratio':>7} {'queries':>8}")
    for label, path in cases.items():
        ratio = times[path] / floor
        queries = query_count(client, path)
        print(f"{label:36} {times[path]:6.1f} ms {ratio:6.1f}x {queries:8d}", flush=True)


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


def medians_ms(client: Any, paths: list[str]) -> dict[str, float]:
    """Median milliseconds per path. The paths take turns, request by request, so that the load
    of a shared machine weighs on each of them alike and their ratios hold."""
    for path in paths:
        for _ in range(WARM_UP):
            assert client.get(path).status_code == 200, path
    times: dict[str, list[float]] = {path: [] for path in paths}
    for _ in range(REPEAT):
        for path in paths:
            started = time.perf_counter()
            client.get(path)
            times[path].append((time.perf_counter() - started) * 1000)
    return {path: statistics.median(spent) for path, spent in times.items()}


def query_count(client: Any, path: str) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        client.get(path)
    return len(captured.captured_queries)


if __name__ == "__main__":
    sys.exit(main())
