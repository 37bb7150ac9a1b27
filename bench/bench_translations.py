"""What the parts' writers' translations cost a version's render, in process: three seats' parts
of each version of seeded matches (as ``games.published`` renders them), with the writers'
translations kept per language (``games.translations.kept_translations``, as the site renders)
and with Django's ``gettext`` at every call (``kept_translations`` replaced by a context that
does nothing), taking turns in the same process.

    .venv/bin/python bench/bench_translations.py --versions 120 --rounds 7 [--language fr]

The tables are played and read first (a temporary SQLite file); then each round renders every
read version from its read (its memo emptied to what the publishing process keeps, as at a new
version), once each way. CPU milliseconds per version (process time), medians of the rounds.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_push import scratch_sqlite_site  # noqa: E402

SEATS = 3


def read_versions(slug: str, versions: int) -> list[tuple[Any, list[Any]]]:
    """(read, its seated users) of each version of seeded matches of ``slug``, each read after
    the previous one, until ``versions`` are read."""
    from django.contrib.auth import get_user_model

    from games import rendering, services
    from games.engines import get_engine
    from games.models import Match

    engine = get_engine(slug)
    rng = random.Random(1)
    reads: list[tuple[Any, list[Any]]] = []
    game = 0
    while len(reads) < versions:
        game += 1
        users = [get_user_model().objects.create_user(f"t{game}-{i}") for i in range(SEATS)]
        match = services.create_table(users[0], slug, seats=SEATS)
        Match.objects.filter(pk=match.pk).update(seed=f"bench-translations-{slug}-{game}")
        for user in users[1:]:
            services.join_table(user, match.pk)
        match.refresh_from_db()
        seated = {s.index: s.user for s in match.seats.select_related("user")}
        previous = rendering.load_table(match.pk)
        while match.is_playing and len(reads) < versions:
            seat = rng.choice(engine.to_move(match.state))
            match = services.play(
                match.pk, seated[seat], engine.random_move(match.state, seat, rng), match.version
            )
            snapshot = rendering.snapshot_of(match, previous)
            reads.append((snapshot, list(seated.values())))
            previous = snapshot
    return reads


def render_all(reads: list[tuple[Any, list[Any]]], language: str) -> float:
    """CPU milliseconds per version of every seat's parts of every read."""
    from django.utils import translation

    from games import rendering

    spent = 0.0
    for snapshot, users in reads:
        snapshot.memo = rendering.kept_memo(snapshot.memo)
        with translation.override(language):
            started = time.process_time()
            for user in users:
                rendering.table_parts(snapshot, user)
            spent += time.process_time() - started
    return 1000 * spent / len(reads)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--versions", type=int, default=120)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--language", default="en")
    parser.add_argument("--game", default="part-du-chef")
    args = parser.parse_args()
    with scratch_sqlite_site():
        from games import rendering

        reads = read_versions(args.game, args.versions)
        kept = rendering.kept_translations
        ways = {"kept per language": kept, "Django's gettext": contextlib.nullcontext}
        times: dict[str, list[float]] = {name: [] for name in ways}
        render_all(reads, args.language)  # warm up: catalogs, kept texts, caches
        for _ in range(args.rounds):
            for name, way in ways.items():
                rendering.kept_translations = way
                times[name].append(render_all(reads, args.language))
        rendering.kept_translations = kept
        medians = {name: statistics.median(values) for name, values in times.items()}
        new, old = medians["kept per language"], medians["Django's gettext"]
        print(
            f"{args.game}, {len(reads)} versions x {SEATS} seats, {args.language}, "
            f"{args.rounds} rounds (load average {os.getloadavg()[0]:.1f}): "
            f"Django's gettext {old:.3f} ms, kept per language {new:.3f} ms per version: "
            f"{new / old:.2f}x, {1000 * (old - new):.0f} us less"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
