"""The worker against 1 000 ranked tables whose turns all expire at once: how long the real worker
process (``manage.py worker``) takes to play every one of them, beside a floor measured in the
same run on the same tables: one transaction per table that only locks its row and moves its
version on (the least an isolated job can do).

Run: ``.venv/bin/python bench/bench_worker.py`` (about a minute). With ``DATABASE_URL`` set it runs
on PostgreSQL, in a fresh database that it drops afterwards; without it, on a temporary SQLite
file (one job at a time there). ``--tables N`` changes the size. ``REDIS_URL`` is used for the
doorbells when set.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: Distinct games played a little way in, then copied to make the tables.
ORIGINALS = 20
PLAYERS = 3
TURN_SECONDS = 120
#: The worker must have played them all within this many seconds to keep up.
MINUTE = 60.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return run_case(args.tables)
    url = os.environ.get("DATABASE_URL")
    if not url:
        with tempfile.TemporaryDirectory() as directory:
            env = {**os.environ, "SQLITE_PATH": str(Path(directory) / "worker.sqlite3")}
            return run_child("SQLite", env, args.tables)
    return run_on_postgres(url, args.tables)


def run_child(label: str, env: dict[str, str], tables: int) -> int:
    print(f"-- {label}", flush=True)
    command = [sys.executable, __file__, "--child", "--tables", str(tables)]
    return subprocess.call(command, env=env, cwd=ROOT)


def run_on_postgres(url: str, tables: int) -> int:
    from tests.live_server import scratch_postgres

    with scratch_postgres(url, "pdc_bench_worker") as scratch:
        return run_child("PostgreSQL", {**os.environ, "DATABASE_URL": scratch}, tables)


def run_case(tables: int) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pdc_site.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    ids = make_tables(tables)
    print(f"{len(ids)} ranked tables of {PLAYERS} made in {time.perf_counter() - started:.1f} s")
    floor = floor_seconds(ids)
    spent, played = worker_seconds(ids)
    print(f"{'floor (lock and bump each table)':40} {floor:7.2f} s")
    print(
        f"{'worker (play every expired turn)':40} {spent:7.2f} s  {spent / floor:5.1f}x the floor"
        f"  {played / spent:6.0f} tables/s"
    )
    kept_up = played == len(ids) and spent <= MINUTE
    print(
        f"{played}/{len(ids)} tables played; keeps up with a minute: {'yes' if kept_up else 'NO'}"
    )
    return 0 if played == len(ids) else 1


def make_tables(count: int) -> list[int]:
    """``ORIGINALS`` ranked tables played a few moves in through the services, each copied until
    there are ``count``: copies share their players, which the worker does not mind."""
    from django.contrib.auth import get_user_model

    from games import services
    from games.engines import get_engine
    from games.models import Match, Seat

    rng = random.Random(1)
    user_model = get_user_model()
    originals = []
    for n in range(ORIGINALS):
        users = [user_model.objects.create_user(f"w{n}_{i}") for i in range(PLAYERS)]
        match = services.create_table(
            users[0], "part-du-chef", mode="ranked", seats=PLAYERS, turn_seconds=TURN_SECONDS
        )
        for user in users[1:]:
            services.join_table(user, match.pk)
        engine = get_engine("part-du-chef")
        for _ in range(rng.randint(1, 8)):
            match.refresh_from_db()
            if not match.is_playing:
                break
            seat = engine.to_move(match.state)[0]
            player = match.seats.get(index=seat).user
            services.play(
                match.pk, player, engine.random_move(match.state, seat, rng), match.version
            )
        match.refresh_from_db()
        if match.is_playing:
            originals.append(match)
    copies = []
    for i in range(count - len(originals)):
        original = originals[i % len(originals)]
        copy = Match.objects.get(pk=original.pk)
        copy.pk = None
        copy.invite_code = f"bench{i}"
        copies.append(copy)
    # Both databases give bulk-created rows their ids back.
    Match.objects.bulk_create(copies, batch_size=200)
    seats_of = {m.pk: list(m.seats.all()) for m in originals}
    Seat.objects.bulk_create(
        (
            Seat(match=copy, index=seat.index, user_id=seat.user_id, joined_at=seat.joined_at)
            for i, copy in enumerate(copies)
            for seat in seats_of[originals[i % len(originals)].pk]
        ),
        batch_size=1000,
    )
    return [m.pk for m in originals] + [c.pk for c in copies]


def expire_all(ids: list[int]) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from games.models import Match

    Match.objects.filter(pk__in=ids).update(deadline=timezone.now() - timedelta(seconds=1))


def floor_seconds(ids: list[int]) -> float:
    """Each table in a transaction of its own: lock it (skipping a locked one, as the worker does)
    and move its version on. Versions are put back afterwards."""
    from django.db import transaction
    from django.db.models import F

    from games.models import Match

    started = time.perf_counter()
    for match_id in ids:
        with transaction.atomic():
            match = Match.objects.select_for_update(skip_locked=True).filter(pk=match_id).first()
            if match is not None:
                Match.objects.filter(pk=match_id).update(version=F("version") + 1)
    spent = time.perf_counter() - started
    Match.objects.filter(pk__in=ids).update(version=F("version") - 1)
    return spent


def worker_seconds(ids: list[int]) -> tuple[float, int]:
    """Start the worker, wait until it idles, expire every table's turn at once, and time how
    long until every table has been played (its version moved on)."""
    from django.db import connection

    from games.models import Match

    versions = dict(Match.objects.filter(pk__in=ids).values_list("pk", "version"))
    connection.close()
    env = {**os.environ, "PDC_WORKER_TICK": "1.0"}
    worker = subprocess.Popen(
        [sys.executable, "manage.py", "worker"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert "worker started" in (worker.stdout.readline() if worker.stdout else "")
        expire_all(ids)
        started = time.perf_counter()
        played = 0
        while time.perf_counter() - started < 10 * MINUTE:
            now = dict(Match.objects.filter(pk__in=ids).values_list("pk", "version"))
            played = sum(now[pk] > versions[pk] for pk in ids)
            if played == len(ids):
                break
            time.sleep(0.05)
        return time.perf_counter() - started, played
    finally:
        worker.terminate()
        worker.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
