"""A table's life in the site's daphne, step by step: the process's CPU for each thing that
``bench/live.py``'s players do around their moves, and the same for a bare Channels socket.

At saturation (``bench/live.py --mode saturation``) a match ends every 22 moves or so, and the
live client then checks it (the final table and each seat's record), closes its three sockets,
opens a new table, joins it twice, looks at it three times and opens three sockets again: how
much of the daphne's CPU a move (``D``) that costs is what this bench says, step by step, with the
moves themselves beside it. The floor's daphne (``bench/floor_asgi.py``) opens and closes three
sockets a table in the same run, for what a socket costs with nothing of the site in it.

Each step is taken for every table in turn (``--tables``, 40), so that its CPU (``/proc``, in
ticks of 10 ms) is summed over many; what an idle daphne spends meanwhile (measured first, per
second) is taken off. ``--rounds`` repeats it all on new tables; the median of each step is
printed last.

    DATABASE_URL=postgres://… REDIS_URL=redis://… .venv/bin/python bench/bench_table_life.py
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import live  # noqa: E402
from bench.wire import Client, opened_client  # noqa: E402

#: The site's steps, in the order a table lives them, and the floor's.
SITE_STEPS = (
    "open the table (POST)",
    "two joins",
    "three looks (GET)",
    "three sockets opened, first frames",
    "the moves, pushes included",
    "the end checked: the table (GET)",
    "the end checked: three records (GET)",
    "three sockets closed",
)
MOVES = "the moves, pushes included"
SOCKETS_OPENED, SOCKETS_CLOSED = SITE_STEPS[3], SITE_STEPS[7]
FLOOR_OPEN, FLOOR_CLOSE = "floor: three sockets opened", "floor: three sockets closed"
#: How long a daphne is left after a batch, so that the work a batch set going is counted in it.
SETTLE_SECONDS = 0.3


@dataclass
class Spent:
    """The CPU each step took in a round (seconds, idle taken off), and how often it ran."""

    seconds: dict[str, float] = field(default_factory=dict)
    tables: int = 0
    moves: int = 0

    def per_table_ms(self, step: str) -> float:
        return 1000 * self.seconds[step] / self.tables

    def per_move_ms(self) -> float:
        return 1000 * self.seconds[MOVES] / max(1, self.moves)

    def around_moves_ms(self) -> float:
        """Everything but the moves, per table: what the end of a match and the next table cost."""
        return sum(self.per_table_ms(s) for s in SITE_STEPS if s != MOVES)

    def moves_a_match(self) -> float:
        return self.moves / self.tables


class Meter:
    """A daphne's CPU over a batch, less what it spends idle in the same wall time."""

    def __init__(
        self,
        pid: int,
        idle_per_second: float,
        cpu: Callable[[int], float] = live.cpu_seconds,
        wall: Callable[[], float] = time.monotonic,
    ) -> None:
        self.pid, self.idle_per_second = pid, idle_per_second
        self.cpu, self.wall = cpu, wall

    async def batch(self, work: Callable[[], Awaitable[None]]) -> float:
        started, cpu = self.wall(), self.cpu(self.pid)
        await work()
        await asyncio.sleep(SETTLE_SECONDS)
        wall = self.wall() - started
        return max(0.0, self.cpu(self.pid) - cpu - self.idle_per_second * wall)


async def idle_rate(pid: int, seconds: float = 3.0) -> float:
    """CPU seconds a second of the daphne with nothing to do (its periodic checks)."""
    cpu = live.cpu_seconds(pid)
    await asyncio.sleep(seconds)
    return (live.cpu_seconds(pid) - cpu) / seconds


async def each(tables: list, step: Callable) -> None:
    for table in tables:
        await step(table)


async def closes(table: live.SiteTable | live.FloorTable) -> None:
    for watcher in table.watchers:
        await live.close_socket(watcher)


async def site_round(
    http: Client, base: str, meter: Meter, players: list[live.Player], seed: int
) -> Spent:
    tables = [
        live.SiteTable(base, players[live.SEATS * i : live.SEATS * (i + 1)])
        for i in range(len(players) // live.SEATS)
    ]
    tally = live.Tally()

    async def moves() -> None:
        # A move of each table in turn, as the closed loop spreads them, to every match's end.
        rng, playing = random.Random(seed), list(tables)
        while playing:
            playing = [table for table in playing if await table.play(http, rng, tally)]

    problems: list[str] = []

    async def records(table: live.SiteTable) -> None:
        problems.extend(await table.check_records(http))

    def sockets(table: live.SiteTable) -> Awaitable[None]:
        return table.open_sockets(http, [base], 0)

    # The live client's own steps (``live.SiteTable``), each taken apart.
    calls = (
        lambda t: t.create(http),
        lambda t: t.join_others(http),
        lambda t: t.look(http),
        sockets,
        None,
        lambda t: t.final_version(http),
        records,
        closes,
    )
    steps = dict(zip(SITE_STEPS, calls, strict=True))
    spent = Spent(tables=len(tables))
    for name, step in steps.items():
        work = moves if step is None else (lambda step=step: each(tables, step))
        spent.seconds[name] = await meter.batch(work)
    if tally.errors or tally.missing or problems:
        raise RuntimeError(f"errors {dict(tally.errors)}, missing {tally.missing}, {problems[:3]}")
    spent.moves = tally.moves
    return spent


async def floor_round(http: Client, base: str, meter: Meter, tables: int, first: int) -> Spent:
    floors = [live.FloorTable(base, number) for number in range(first, first + tables)]

    spent = Spent(tables=tables)
    spent.seconds[FLOOR_OPEN] = await meter.batch(
        lambda: each(floors, lambda t: t.open(http, [base], 0))
    )
    spent.seconds[FLOOR_CLOSE] = await meter.batch(lambda: each(floors, closes))
    return spent


def describe(site: Spent, floor: Spent) -> list[str]:
    """One round's lines: each step's CPU a table and, spread over the match's moves, a move."""
    per_match = site.moves_a_match()
    lines = [f"{'step':42}{'a table':>12}{'a move':>10}"]
    for step in SITE_STEPS:
        if step == MOVES:
            lines.append(f"{step:42}{'':>12}{site.per_move_ms():>8.2f} ms")
        else:
            each_ms = site.per_table_ms(step)
            lines.append(f"{step:42}{each_ms:>9.1f} ms{each_ms / per_match:>8.2f} ms")
    around = site.around_moves_ms()
    lines.append(f"{'all but the moves':42}{around:>9.1f} ms{around / per_match:>8.2f} ms")
    for step in (FLOOR_OPEN, FLOOR_CLOSE):
        lines.append(f"{step:42}{floor.per_table_ms(step):>9.1f} ms")
    sockets = site.per_table_ms(SOCKETS_OPENED) + site.per_table_ms(SOCKETS_CLOSED)
    bare = floor.per_table_ms(FLOOR_OPEN) + floor.per_table_ms(FLOOR_CLOSE)
    lines.append(
        f"three sockets opened and closed: the site {sockets:.1f} ms, the floor {bare:.1f} ms "
        f"({sockets / bare:.1f}×)"
        if bare
        else "three sockets opened and closed: the floor's too cheap to measure"
    )
    lines.append(f"{site.moves} moves, {per_match:.1f} a match")
    return lines


def medians(rounds: list[tuple[Spent, Spent]]) -> tuple[Spent, Spent]:
    """Each step's median over the rounds, a table or a move (the rounds' tables and moves
    added up)."""
    site = Spent(tables=sum(s.tables for s, _f in rounds), moves=sum(s.moves for s, _f in rounds))
    floor = Spent(tables=sum(f.tables for _s, f in rounds))
    for step in SITE_STEPS:
        scale = site.moves if step == MOVES else site.tables
        shares = [s.seconds[step] / (s.moves if step == MOVES else s.tables) for s, _f in rounds]
        site.seconds[step] = statistics.median(shares) * scale
    for step in (FLOOR_OPEN, FLOOR_CLOSE):
        shares = [f.seconds[step] / f.tables for _s, f in rounds]
        floor.seconds[step] = statistics.median(shares) * floor.tables
    return site, floor


async def measure(
    args: argparse.Namespace, site_web: tuple, floor_web: tuple, players: list[list[live.Player]]
) -> None:
    (site_base, site_pid), (floor_base, floor_pid) = site_web, floor_web
    site_meter = Meter(site_pid, await idle_rate(site_pid))
    floor_meter = Meter(floor_pid, await idle_rate(floor_pid))
    rounds = []
    async with opened_client("wire") as http:
        for number, theirs in enumerate(players):
            site = await site_round(http, site_base, site_meter, theirs, args.seed + number)
            floor = await floor_round(http, floor_base, floor_meter, args.tables, number * 10**6)
            rounds.append((site, floor))
            print(f"\n== round {number + 1} of {args.rounds}, {args.tables} tables", flush=True)
            print("\n".join(describe(site, floor)), flush=True)
    if len(rounds) > 1:
        print(f"\n== medians of {len(rounds)} rounds")
        print("\n".join(describe(*medians(rounds))))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        site = live.LiveSite(
            Path(tmp), {"PDC_WORKER_TICK": "1.0", **live.players_limits("saturation")}
        )
        try:
            site_web = live.start_daphne(
                site, "pdc_site.asgi:application", True, live.core_of(0, True)
            )
            floor_web = live.start_daphne(
                site, "bench.floor_asgi:application", True, live.core_of(0, True)
            )
            site.start_worker()
            live.prepare_django(site)
            backend = "PostgreSQL" if "postgres" in site.env.get("DATABASE_URL", "") else "SQLite"
            layer = "Redis" if site.env.get("REDIS_URL") else "in-memory layer"
            print(f"a table's life in the site's daphne ({backend} + {layer}), CPU per step")
            # Each round's tables are new, and so are their players (made here, off the loop).
            players = [
                live.create_players(live.SEATS * args.tables, f"life{number}-")
                for number in range(args.rounds)
            ]
            asyncio.run(measure(args, site_web, floor_web, players))
        finally:
            site.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
