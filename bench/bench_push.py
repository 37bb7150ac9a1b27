"""What one move's pushes cost a process: the read of the table and the fragments of its three
seat sockets (shared parts once, each seat's own parts), as ``games.consumers`` does them, in
CPU milliseconds per move, beside the floor of rendering one empty fragment. Then what a version
costs every process together: sockets that read and render for themselves (on one process, and
spread over two as ``bench/live.py --processes 2`` spreads them) against one render published
with the doorbell (``games.published``, its message packed and unpacked as the channel layer
does).

Run: ``.venv/bin/python bench/bench_push.py`` (a few seconds, on a temporary SQLite file), or
``--profile`` for the functions where the time goes (cProfile, cumulative). ``--game`` picks the
game (``all`` for each in turn); ``--parts`` adds what each part costs and the rendering alone
(the pushes less the read). ``--published N`` measures instead what ``games.published`` spends
rendering three seats' parts of each of N versions, each read after the previous one as the
publishing process reads it (CPU milliseconds per version: median, fastest and 90th percentile).
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import os
import pstats
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

REPEAT = 40
WARM_UP = 5
SEATS = 3


def cpu_ms(work, repeat: int | None = None) -> float:
    """Median CPU milliseconds (of this process) of ``work()``; the fastest run is kept in
    ``BEST`` (on a loaded machine the median moves with the neighbours, the fastest less)."""
    for _ in range(WARM_UP):
        work()
    times = []
    for _ in range(REPEAT if repeat is None else repeat):
        start = time.process_time()
        work()
        times.append(1000 * (time.process_time() - start))
    BEST[work.__name__] = min(times)
    return statistics.median(times)


BEST: dict[str, float] = {}


@contextlib.contextmanager
def scratch_sqlite_site() -> Iterator[None]:
    """Django set up on a migrated SQLite file of its own (no PostgreSQL, no Redis), removed
    afterwards: what the rendering benches measure without a server's noise."""
    with tempfile.TemporaryDirectory() as folder:
        os.environ["SQLITE_PATH"] = str(Path(folder) / "bench.sqlite3")
        os.environ.pop("DATABASE_URL", None)
        os.environ.pop("REDIS_URL", None)
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pdc_site.settings")
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        yield


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--moves", type=int, default=6, help="moves played before measuring")
    parser.add_argument(
        "--game", default="part-du-chef", help="a game's slug, or 'all' for each in turn"
    )
    parser.add_argument("--parts", action="store_true", help="also the CPU of each part")
    parser.add_argument("--repeat", type=int, default=REPEAT, help="measured runs of each")
    parser.add_argument(
        "--published", type=int, default=0, help="versions to render as games.published does"
    )
    parser.add_argument(
        "--best-of",
        type=int,
        default=1,
        help="with --published: render each version this many times (each on a read of its "
        "own) and keep the fastest; prints the sum over the versions too",
    )
    args = parser.parse_args(argv)
    globals()["REPEAT"] = args.repeat
    with scratch_sqlite_site():
        from games.engines import all_engines

        slugs = [e.slug for e in all_engines()] if args.game == "all" else [args.game]
        for index, slug in enumerate(slugs):
            if args.published:
                measure_published(slug, index, args.published, args.profile, args.best_of)
            else:
                measure_game(slug, index, args)
    return 0


def measure_game(slug: str, index: int, args: argparse.Namespace) -> None:
    """Plays ``args.moves`` seeded random moves of ``slug`` at a new table of three, then
    measures one move's pushes (and, with ``args.parts``, each part's rendering)."""
    from django.contrib.auth import get_user_model
    from django.template.loader import render_to_string
    from django.utils import translation

    from games import rendering, services
    from games.engines import get_engine
    from games.models import Match

    users = [get_user_model().objects.create_user(f"p{index}-{i}") for i in range(SEATS)]
    match = services.create_table(users[0], slug, seats=SEATS)
    # A fixed secret seed: the same deal and seats in every run, so runs compare.
    Match.objects.filter(pk=match.pk).update(seed=f"bench-push-{slug}")
    for user in users[1:]:
        services.join_table(user, match.pk)
    match.refresh_from_db()
    engine = get_engine(match.game)
    rng = random.Random(1)
    seated = {s.index: s.user for s in match.seats.select_related("user")}
    for _ in range(args.moves):
        seat = rng.choice(engine.to_move(match.state))
        match = services.play(
            match.pk, seated[seat], engine.random_move(match.state, seat, rng), match.version
        )

    def one_move() -> int:
        """A fresh read (a new version) and every seat's fragments, as the sockets do."""
        snapshot = rendering.load_table(match.pk)
        size = 0
        for user in seated.values():
            parts = rendering.table_parts(snapshot, user)
            size += sum(len(html) for html in parts.values())
        return size

    def load_only() -> None:
        rendering.load_table(match.pk)

    def floor() -> None:
        render_to_string("games/partials/errors.html#socket_error", {"text": "x", "oob": True})

    with translation.override("en"):
        size = one_move()
        push = cpu_ms(one_move)
        load = cpu_ms(load_only)
        bare = cpu_ms(floor)
        print(
            f"{slug}: one move's pushes ({SEATS} seats): {push:.2f} ms CPU "
            f"(read {load:.2f} ms, rendering {push - load:.2f} ms), "
            f"{size / 1024:.1f} KB of fragments in all; "
            f"floor (one tiny fragment) {bare:.3f} ms → {push / bare:.0f}× floor"
        )
        best_push, best_load = BEST["one_move"], BEST["load_only"]
        print(
            f"{slug}: fastest of {REPEAT}: {best_push:.2f} ms (read {best_load:.2f} ms, "
            f"rendering {best_push - best_load:.2f} ms)"
        )
        print_every_process_together(match, seated, slug)
        if args.parts:
            print_parts(match.pk, list(seated.values()))
        if args.profile:
            profile = cProfile.Profile()
            profile.enable()
            for _ in range(REPEAT):
                one_move()
            profile.disable()
            pstats.Stats(profile).sort_stats("cumulative").print_stats(45)
            pstats.Stats(profile).sort_stats("tottime").print_stats(30)


def measure_published(
    slug: str, index: int, versions: int, profile: bool = False, best_of: int = 1
) -> None:
    """CPU of rendering three seats' parts of each version of seeded matches of ``slug``, as
    ``published.render_for_watchers`` renders them: the table read after its previous read (not
    counted: the read is ``one move's pushes`` above), every seat in English. A match that ends
    is followed by a new one until ``versions`` versions are measured. With ``best_of`` > 1
    each version is rendered that many times, each on a read of its own after the previous
    version's (the sentences of moves, kept from read to read, are written by the first), and
    the fastest is kept: the sum over the versions moves less with the machine's load than a
    median of single renders."""
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import translation

    from games import rendering, services
    from games.engines import get_engine
    from games.models import Match

    engine = get_engine(slug)
    rng = random.Random(index)
    times: list[float] = []
    queries = 0
    profiler = cProfile.Profile()
    # Each seat's parts of the version before, to count the bytes a push repeats.
    sent: dict[int, dict[str, str]] = {}
    total_bytes = same_bytes = 0
    game_number = 0
    while len(times) < versions + WARM_UP:
        game_number += 1
        users = [
            get_user_model().objects.create_user(f"r{index}-{game_number}-{i}")
            for i in range(SEATS)
        ]
        match = services.create_table(users[0], slug, seats=SEATS)
        Match.objects.filter(pk=match.pk).update(seed=f"bench-published-{slug}-{game_number}")
        for user in users[1:]:
            services.join_table(user, match.pk)
        match.refresh_from_db()
        seated = {s.index: s.user for s in match.seats.select_related("user")}
        previous = rendering.load_table(match.pk)
        sent.clear()
        while match.is_playing and len(times) < versions + WARM_UP:
            seat = rng.choice(engine.to_move(match.state))
            move = engine.random_move(match.state, seat, rng)
            match = services.play(match.pk, seated[seat], move, match.version)
            fastest = None
            for _ in range(best_of):
                snapshot = rendering.snapshot_of(match, previous)
                with CaptureQueriesContext(connection) as captured, translation.override("en"):
                    start = time.process_time()
                    if profile:
                        profiler.enable()
                    rendered = {
                        user.pk: rendering.table_parts(snapshot, user) for user in seated.values()
                    }
                    profiler.disable()
                    took = 1000 * (time.process_time() - start)
                fastest = took if fastest is None else min(fastest, took)
            times.append(fastest)
            for pk, parts in rendered.items():
                before = sent.get(pk, {})
                sizes = {part: len(html.encode()) for part, html in parts.items()}
                total_bytes += sum(sizes.values())
                same_bytes += sum(n for part, n in sizes.items() if before.get(part) == parts[part])
                sent[pk] = parts
            queries += len(captured.captured_queries)
            if os.environ.get("BENCH_SQL"):
                print([q["sql"][:90] for q in captured.captured_queries])
            # What the publishing process keeps for the next read (main before kept_memo kept
            # only the links).
            keep = getattr(rendering, "kept_memo", None)
            snapshot.memo = (
                keep(snapshot.memo)
                if keep
                else {k: v for k, v in snapshot.memo.items() if k[0] == "links"}
            )
            previous = snapshot
    times = times[WARM_UP:]
    ninetieth = sorted(times)[int(0.9 * len(times))]
    print(
        f"{slug}: published render, {SEATS} seats, {len(times)} versions of {game_number} "
        f"matches: median {statistics.median(times):.2f} ms CPU, fastest {min(times):.2f}, "
        f"90th percentile {ninetieth:.2f}; {queries / (len(times) + WARM_UP):.1f} queries per "
        "version"
    )
    if best_of > 1:
        print(
            f"{slug}: the fastest of {best_of} renders of each version, summed over the "
            f"{len(times)} versions: {sum(times):.1f} ms CPU"
        )
    print(
        f"{slug}: {total_bytes / 1024 / (len(times) + WARM_UP):.1f} KB of parts per version for "
        f"{SEATS} seats, {100 * same_bytes / max(1, total_bytes):.0f}% of them in parts that "
        "are the same as the seat's at the version before"
    )
    if profile:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)


def print_every_process_together(match, seated: dict, slug: str) -> None:
    """What a version costs every process together: sockets that read and render for themselves
    (on one process, and spread over two as ``bench/live.py --processes 2`` spreads them)
    against one render where the move is made, published with the doorbell."""
    import msgpack

    from games import published, rendering

    last = {"read": rendering.load_table(match.pk)}

    def sockets_of_one_process(viewers: list) -> None:
        """A process's sockets without publishing: a read after its last one, the shared parts
        once and each seat's own."""
        snapshot = rendering.load_table(match.pk, last["read"])
        for user in viewers:
            rendering.table_parts(snapshot, user)

    def before_one_process() -> None:
        sockets_of_one_process(list(seated.values()))

    def before_two_processes() -> None:
        # The bench's spread: two seats' sockets on one process, the third on the other.
        viewers = list(seated.values())
        sockets_of_one_process(viewers[:2])
        sockets_of_one_process(viewers[2:])

    for user in seated.values():
        published.start_watching(match.pk, published.viewer_field(user.pk, None, "en"))
    fields = [published.viewer_field(user.pk, None, "en") for user in seated.values()]

    def published_move() -> int:
        """The process that made the change renders every watcher's parts once; the channel
        layer packs the doorbell once and unpacks it in each process; each socket picks its
        own parts."""
        message = {"type": "table.changed", "version": match.version}
        message["parts"] = published.render_for_watchers(match)
        packed = msgpack.packb(message, use_bin_type=True)
        received = msgpack.unpackb(packed, raw=False)
        for field in fields:
            published.parts_of(received, field, None, "en")
        return len(packed)

    message_size = published_move()
    rounds = [
        (cpu_ms(before_one_process), cpu_ms(before_two_processes), cpu_ms(published_move))
        for _ in range(3)
    ]
    one, two, once = (statistics.median(r[i] for r in rounds) for i in range(3))
    print(
        f"{slug}: per version, every process together: sockets reading and rendering for "
        f"themselves {one:.2f} ms on one process, {two:.2f} ms on two; rendered once "
        f"and published {once:.2f} ms ({two / once:.2f}× less than two processes), "
        f"a doorbell of {message_size / 1024:.1f} KB"
    )


def print_parts(match_id: int, seated: list) -> None:
    """CPU of the contexts (spectator's, then a seat's, on a snapshot whose shared memo is
    built) and of each part's template, rendered from the first seat's context."""
    from games import rendering

    snapshot = rendering.load_table(match_id)
    rendering.table_parts(snapshot, None)
    spectator = cpu_ms(lambda: rendering.table_context(snapshot.match, None, snapshot=snapshot))
    seat = cpu_ms(lambda: rendering.table_context(snapshot.match, seated[0], snapshot=snapshot))
    print(f"  contexts: spectator {spectator:.3f} ms, a seat {seat:.3f} ms")
    context = rendering.table_context(snapshot.match, seated[0], snapshot=snapshot)
    for part in rendering.TABLE_PARTS:
        ms = cpu_ms(lambda part=part: rendering._render_parts(context, {part}))
        shared = " (shared)" if part in rendering.SHARED_PARTS else ""
        print(f"  {part}{shared}: {ms:.3f} ms")


if __name__ == "__main__":
    sys.exit(main())
