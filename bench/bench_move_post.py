"""The request side of a move, as ``bench/live.py --mode saturation`` asks for it, in process:
CPU milliseconds per move of the site's ASGI application (``pdc_site.asgi.application``) for
the move's ``POST``, the mover's ``GET`` of the table when the last answer does not show enough
(as the live client decides), and a new table every time a match ends (its ``POST``, two joins,
three looks), with no socket open (the watchers' render and the pushes are not measured).

    DATABASE_URL=postgres://… REDIS_URL=redis://… .venv/bin/python bench/bench_move_post.py

``--compare DIR`` measures the code of the worktree ``DIR`` (main, say) and this one taking
turns, a process each round (each on a fresh database): the ratio this / DIR per round, with the
load average. ``--root DIR`` runs one round on the code of ``DIR`` (what ``--compare`` starts).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))

# This checkout's client, whichever checkout's site a round measures.
from bench.bench_move_asgi import asgi_request  # noqa: E402

MOVES = 400
GAME = "part-du-chef"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=MOVES, help="moves per round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per code (--compare)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--root", type=Path, default=HERE, help="the code to measure")
    parser.add_argument("--compare", type=Path, help="a worktree to take turns with")
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        print("set DATABASE_URL to a PostgreSQL server")
        return 1
    if args.compare:
        return compare(args)
    print(json.dumps(one_round(args.root, args.moves, args.seed)), flush=True)
    return 0


def compare(args: argparse.Namespace) -> int:
    """Rounds of the other worktree's code and this one's, taking turns (which goes first
    alternates too), each in a process of its own."""
    trees = {"base": args.compare.resolve(), "this": HERE}
    found: dict[str, list[dict[str, Any]]] = {"base": [], "this": []}
    for round_ in range(args.rounds):
        order = ("base", "this") if round_ % 2 == 0 else ("this", "base")
        for name in order:
            load = os.getloadavg()[0]
            done = subprocess.run(
                [
                    sys.executable,
                    str(Path(__file__).resolve()),
                    "--root",
                    str(trees[name]),
                    "--moves",
                    str(args.moves),
                    "--seed",
                    str(args.seed + round_),
                ],
                capture_output=True,
                text=True,
                check=True,
            )
            figures = json.loads(done.stdout.strip().splitlines()[-1])
            figures["load"] = load
            found[name].append(figures)
            print(f"round {round_ + 1} {name:4}: {describe(figures)}", flush=True)
        base, this = found["base"][-1], found["this"][-1]
        print(
            f"round {round_ + 1} this / base: per move {this['per_move'] / base['per_move']:.3f}, "
            f"POST {this['post'] / base['post']:.3f}",
            flush=True,
        )
    for key in ("per_move", "post", "look", "open"):
        b = statistics.median(f[key] for f in found["base"])
        t = statistics.median(f[key] for f in found["this"])
        ratios = [t_[key] / b_[key] for b_, t_ in zip(found["base"], found["this"], strict=True)]
        print(
            f"median {key:8}: base {b:6.3f} ms, this {t:6.3f} ms, this / base {t / b:.3f} "
            f"(rounds {', '.join(f'{r:.3f}' for r in ratios)})"
        )
    return 0


def describe(figures: dict[str, Any]) -> str:
    return (
        f"{figures['per_move']:6.3f} ms per move (POST {figures['post']:.3f} ms, "
        f"{figures['looks']} looks at {figures['look']:.3f} ms, {figures['opens']} tables "
        f"opened at {figures['open']:.3f} ms), load {figures['load']:.2f}"
    )


def one_round(root: Path, moves: int, seed: int) -> dict[str, Any]:
    sys.path.insert(0, str(root))
    from tests.live_server import scratch_postgres

    url = os.environ["DATABASE_URL"]
    prefix = (url.rsplit("/", 1)[-1] or "pdc") + "_post_bench"
    with scratch_postgres(url, prefix) as scratch:
        os.environ["DATABASE_URL"] = scratch
        os.environ["DJANGO_DEBUG"] = "0"
        os.environ.setdefault("REDIS_PREFIX", f"bench-post-{os.getpid()}")
        os.environ["DJANGO_SETTINGS_MODULE"] = "pdc_site.settings"
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        return asyncio.run(play(moves, seed))


class Caller:
    """The site's ASGI application called as daphne calls it, timed by the process's CPU."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.spent = {"post": 0.0, "look": 0.0, "open": 0.0}
        self.counts = {"post": 0, "look": 0, "open": 0}

    async def call(
        self, kind: str, method: str, path: str, token: str, body: Any = None
    ) -> tuple[int, dict]:
        raw = b"" if body is None else json.dumps(body).encode()
        headers = [(b"authorization", f"Bearer {token}".encode())]
        if body is not None:
            headers.append((b"content-type", b"application/json"))
        started = time.process_time()
        status, payload = await asgi_request(self.app, method, path, headers, raw)
        self.spent[kind] += time.process_time() - started
        self.counts[kind] += 1
        return status, json.loads(payload) if payload else {}


async def play(moves: int, seed: int) -> dict[str, Any]:
    from asgiref.sync import sync_to_async

    from pdc_site.asgi import application

    tokens = await sync_to_async(players)()
    caller = Caller(application)
    rng = random.Random(seed)
    played = 0
    # Warm up (statements prepared, caches filled), unmeasured.
    table = await open_table(caller, tokens)
    for _ in range(30):
        table = await next_move(caller, tokens, table, rng)
    caller.spent = dict.fromkeys(caller.spent, 0.0)
    caller.counts = dict.fromkeys(caller.counts, 0)
    while played < moves:
        table = await next_move(caller, tokens, table, rng)
        played += 1
    spent, counts = caller.spent, caller.counts
    return {
        "moves": played,
        "per_move": 1000 * sum(spent.values()) / played,
        "post": 1000 * spent["post"] / counts["post"],
        "looks": counts["look"],
        "look": 1000 * spent["look"] / max(1, counts["look"]),
        "opens": counts["open"] // 6,
        "open": 1000 * spent["open"] / max(1, counts["open"] // 6),
        "load": os.getloadavg()[0],
    }


def players() -> list[str]:
    from django.contrib.auth import get_user_model

    from games import api, ratelimit
    from players.models import ApiToken

    # They move as fast as they can: the limits are raised, still counted in the cache.
    ratelimit.MOVES_PER_WINDOW = api.CALLS_PER_WINDOW = (10**9, 60)
    user_model = get_user_model()
    users = [user_model.objects.create(username=f"post{i}") for i in range(3)]
    return [ApiToken.issue(u, "bench")[1] for u in users]


class Table:
    def __init__(self, id_: int, by_seat: dict[int, str], data: dict) -> None:
        self.id, self.by_seat, self.data = id_, by_seat, data


async def open_table(caller: Caller, tokens: list[str]) -> Table:
    """As the live client opens one: a POST, two joins, a look for each player."""
    first, *others = tokens
    status, data = await caller.call(
        "open", "POST", "/api/tables", first, {"game": GAME, "seats": 3, "mode": "friendly"}
    )
    assert status == 201, (status, data)
    id_ = data["id"]
    for token in others:
        status, data = await caller.call("open", "POST", f"/api/tables/{id_}/join", token, {})
        assert status == 200, (status, data)
    by_seat = {}
    for token in tokens:
        _status, data = await caller.call("open", "GET", f"/api/tables/{id_}", token)
        by_seat[data["you"]] = token
    return Table(id_, by_seat, data)


async def next_move(caller: Caller, tokens: list[str], table: Table, rng: random.Random) -> Table:
    """The table's next move as the live client makes it (a new table when the match is over)."""
    # The live client's own choices, from the checkout of this round (on ``sys.path`` first).
    from bench.live import choose_move, chosen_in_public

    if table.data.get("status") != "playing" or not table.data.get("to_move"):
        table = await open_table(caller, tokens)
    seat = table.data["to_move"][0]
    token = table.by_seat[seat]
    if table.data.get("you") != seat and not chosen_in_public(table.data):
        status, table.data = await caller.call("look", "GET", f"/api/tables/{table.id}", token)
        assert status == 200, status
    move = choose_move(table.data, rng)
    body = {"version": table.data["version"], "move": move}
    status, answer = await caller.call("post", "POST", f"/api/tables/{table.id}/moves", token, body)
    assert status == 200, (status, answer)
    table.data = answer
    return table


if __name__ == "__main__":
    sys.exit(main())
