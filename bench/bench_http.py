"""What one HTTP request costs a daphne process: CPU milliseconds per request, and requests per
second, for daphne's own HTTP path (the floor app's trivial endpoint, no Django), Django's
trivial view (``GET /api/games``), the mover's look at a table (``GET /api/tables/<id>``) and a
move (``POST /api/tables/<id>/moves``), each as fast as ``--clients`` callers get answers.

    .venv/bin/python bench/bench_http.py --seconds 10 --clients 8

It starts daphne itself (PostgreSQL and Redis when ``DATABASE_URL`` / ``REDIS_URL`` are set, as
``bench/live.py`` does); the load generator's CPU is printed too, since on two cores it competes
with the server.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import aiohttp  # noqa: E402

from bench.live import (  # noqa: E402
    GAME,
    SEATS,
    Player,
    choose_move,
    cpu_seconds,
    create_players,
    prepare_django,
    start_daphne,
)
from tests.live_server import LiveSite  # noqa: E402

Call = Callable[[aiohttp.ClientSession], Awaitable[int]]


class MoveLoop:
    """A table whose players move one after the other through the API, without sockets (a new
    table when a match ends)."""

    def __init__(self, base: str, players: list[Player], rng: random.Random) -> None:
        self.base, self.players, self.rng = base, players, rng
        self.data: dict = {}

    def headers(self, player: Player) -> dict[str, str]:
        return {"Authorization": f"Bearer {player.token}"}

    async def open(self, http: aiohttp.ClientSession) -> None:
        first, *others = self.players
        body = {"game": GAME, "seats": SEATS, "mode": "friendly"}
        async with http.post(
            f"{self.base}/api/tables", json=body, headers=self.headers(first)
        ) as response:
            self.id = (await response.json())["id"]
        for player in others:
            async with http.post(
                f"{self.base}/api/tables/{self.id}/join", json={}, headers=self.headers(player)
            ) as response:
                assert response.status == 200, await response.text()
        self.by_seat = {}
        for player in self.players:
            async with http.get(
                f"{self.base}/api/tables/{self.id}", headers=self.headers(player)
            ) as response:
                mine = await response.json()
            self.by_seat[mine["you"]] = player
        self.data = mine

    async def look(self, http: aiohttp.ClientSession) -> int:
        """The next mover's GET of the table."""
        if self.data.get("status") != "playing":
            await self.open(http)
        mover = self.by_seat[self.data["to_move"][0]]
        async with http.get(
            f"{self.base}/api/tables/{self.id}", headers=self.headers(mover)
        ) as response:
            self.data = await response.json()
            return response.status

    async def move(self, http: aiohttp.ClientSession) -> int:
        """The next mover's move, chosen from its GET (not timed)."""
        await self.look(http)
        mover = self.by_seat[self.data["to_move"][0]]
        body = {"version": self.data["version"], "move": choose_move(self.data, self.rng)}
        async with http.post(
            f"{self.base}/api/tables/{self.id}/moves", json=body, headers=self.headers(mover)
        ) as response:
            self.data = await response.json()
            return response.status


async def hammer(
    label: str, calls: list[Call], pid: int, seconds: float, per_call: int = 1
) -> tuple[str, float, float, float, int]:
    """Every caller repeats its call for ``seconds``: (label, requests/s, server CPU ms per
    request, load generator CPU ms per request, errors)."""
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
        for call in calls:  # warm up
            await call(http)
        done, errors = 0, 0
        loop = asyncio.get_running_loop()
        until = loop.time() + seconds
        server, generator = cpu_seconds(pid), time.process_time()
        started = time.monotonic()

        async def run(call: Call) -> None:
            nonlocal done, errors
            while loop.time() < until:
                status = await call(http)
                done += per_call
                errors += status >= 400

        await asyncio.gather(*(run(c) for c in calls))
        wall = time.monotonic() - started
        server = cpu_seconds(pid) - server
        generator = time.process_time() - generator
    return label, done / wall, 1000 * server / done, 1000 * generator / done, errors


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        site = LiveSite(Path(tmp), {})
        try:
            return run(site, args)
        finally:
            site.close()


def run(site: LiveSite, args: argparse.Namespace) -> int:
    floor_url, floor_pid = start_daphne(site, "bench.floor_asgi:application")
    site_url, site_pid = start_daphne(site, "pdc_site.asgi:application")
    prepare_django(site)
    players = create_players(SEATS * args.clients, "h")
    rows = asyncio.run(measure(args, floor_url, floor_pid, site_url, site_pid, players))
    print(
        f"\n== HTTP requests on one daphne process, {args.clients} callers, "
        f"{args.seconds:g} s each, load average {os.getloadavg()[0]:.1f}"
    )
    print(f"{'':44}{'req/s':>8}{'daphne CPU/req':>16}{'ratio':>7}{'generator CPU/req':>19}  errors")
    floor_ms = rows[0][2]
    failed = 0
    for label, rate, server_ms, generator_ms, errors in rows:
        print(
            f"{label:44}{rate:>8.0f}{server_ms:>13.2f} ms{server_ms / floor_ms:>6.1f}x"
            f"{generator_ms:>16.2f} ms  {errors:>6}"
        )
        failed |= bool(errors)
    post_ms = rows[3][2] - rows[2][2]
    print(
        f"so a move's POST alone: about {post_ms:.2f} ms of daphne CPU ({post_ms / floor_ms:.1f}x)"
    )
    return 1 if failed else 0


async def measure(
    args: argparse.Namespace,
    floor_url: str,
    floor_pid: int,
    site_url: str,
    site_pid: int,
    players: list[Player],
) -> list[tuple[str, float, float, float, int]]:
    async def ping(http: aiohttp.ClientSession) -> int:
        async with http.get(f"{floor_url}/ping") as response:
            await response.read()
            return response.status

    async def games(http: aiohttp.ClientSession) -> int:
        async with http.get(f"{site_url}/api/games") as response:
            await response.read()
            return response.status

    tables = [
        MoveLoop(site_url, players[SEATS * i : SEATS * i + SEATS], random.Random(i))
        for i in range(args.clients)
    ]
    async with aiohttp.ClientSession() as http:
        for table in tables:
            await table.open(http)
    rows = [
        await hammer(
            "floor app: GET /ping (daphne, no Django)",
            [ping] * args.clients,
            floor_pid,
            args.seconds,
        ),
        await hammer(
            "site: GET /api/games (trivial view)", [games] * args.clients, site_pid, args.seconds
        ),
        await hammer(
            "site: GET /api/tables/<id> (token)", [t.look for t in tables], site_pid, args.seconds
        ),
        await hammer(
            "site: a move's GET + POST (token), per move",
            [t.move for t in tables],
            site_pid,
            args.seconds,
            per_call=1,
        ),
    ]
    return rows


if __name__ == "__main__":
    sys.exit(main())
