"""A move's ``POST`` (and the mover's ``GET`` of the table before it) through the site's ASGI
application, in process: CPU milliseconds per move, with Django's stock ASGI handler and with the
site's (``OneHopHandler``, one hop to the request's thread), taking turns. Unlike ``bench_move_request.py`` (Django's test client) it pays what a
daphne process pays apart from HTTP itself: the request's thread hops, its signals, its pooled
database connection, and the doorbell rung on a running event loop.

    DATABASE_URL=postgres://… REDIS_URL=redis://… .venv/bin/python bench/bench_move_asgi.py

It needs PostgreSQL (a fresh database, dropped afterwards); ``REDIS_URL`` puts the rate limits
and the doorbell in Redis as on the live site. ``--profile`` prints where the site's handler
spends its CPU (cProfile with each thread's CPU time, in the event loop's thread and in the request's thread, together).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MOVES = 60
ROUNDS = 2


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=MOVES, help="moves per round and handler")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    from tests.live_server import migrated_scratch_postgres

    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        print("set DATABASE_URL to a PostgreSQL server")
        return 1
    with migrated_scratch_postgres(url, "pdc_bench_asgi"):
        if args.profile:
            asyncio.run(profile(args.moves))
        else:
            asyncio.run(measure(args.moves, args.rounds))
    return 0


class Players:
    """Three players at a table, and the next move's path, token and body (made outside the
    timing); a new table when a match ends."""

    def __init__(self) -> None:
        from django.contrib.auth import get_user_model

        from games import api, ratelimit
        from games.engines import get_engine
        from players.models import ApiToken

        # They move as fast as they can: the limits are raised, still counted in the cache.
        ratelimit.MOVES_PER_WINDOW = api.CALLS_PER_WINDOW = (10**9, 60)
        user_model = get_user_model()
        self.users = [user_model.objects.create(username=f"asgi{i}") for i in range(3)]
        self.tokens = {u.pk: ApiToken.issue(u, "bench")[1] for u in self.users}
        self.engine = get_engine("part-du-chef")
        self.rng = random.Random(1)
        self.match = self.new_table()

    def new_table(self) -> Any:
        from games import services
        from games.models import Match

        match = services.create_table(self.users[0], "part-du-chef", seats=3)
        for user in self.users[1:]:
            services.join_table(user, match.pk)
        return Match.objects.get(pk=match.pk)

    def next_move(self) -> tuple[str, str, bytes]:
        from django.db import connection

        from games.models import Match

        match = Match.objects.get(pk=self.match.pk)
        if not match.is_playing:
            match = self.new_table()
        self.match = match
        seat = self.engine.to_move(match.state)[0]
        user_id = match.seats.get(index=seat).user_id
        move = self.engine.random_move(match.state, seat, self.rng)
        body = json.dumps({"version": match.version, "move": move}).encode()
        connection.close()
        return f"/api/tables/{match.pk}/moves", self.tokens[user_id], body


async def asgi_request(
    app: Any,
    method: str,
    path: str,
    headers: list[tuple[bytes, bytes]],
    body: bytes,
    disconnect_after_answer: bool = False,
) -> tuple[int, bytes]:
    """One HTTP request to ``app`` as daphne hands it over (the body in one message, a client
    that never hangs up): the answer's status and body. ``disconnect_after_answer``: the
    connection tells the application its client is gone once the answer is sent, as daphne does
    when a request ends (``http.disconnect``)."""
    sent: list[dict] = []
    received = False
    answered = asyncio.Event()

    async def receive() -> dict:
        nonlocal received
        if not received:
            received = True
            return {"type": "http.request", "body": body, "more_body": False}
        if disconnect_after_answer:
            await answered.wait()
        else:
            await asyncio.sleep(3600)  # no disconnect
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)
        if message["type"] == "http.response.body" and not message.get("more_body"):
            answered.set()

    scope = {
        "type": "http",
        "http_version": "1.1",
        "method": method,
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "scheme": "http",
        "headers": [(b"host", b"localhost"), *headers],
        "client": ("127.0.0.1", 1234),
        "server": ("localhost", 80),
        "asgi": {"version": "3.0"},
    }
    await app(scope, receive, send)
    return sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:])


async def post(app: Any, path: str, token: str, body: bytes, method: str = "POST") -> int:
    headers = [
        (b"content-type", b"application/json"),
        (b"authorization", f"Bearer {token}".encode()),
    ]
    status, _answer = await asgi_request(app, method, path, headers, body)
    return status


async def measure(moves: int, rounds: int) -> None:
    from asgiref.sync import sync_to_async
    from django.core.asgi import get_asgi_application

    from pdc_site import request_threads

    players = await sync_to_async(Players)()
    apps = {"Django's ASGI handler": request_threads.RequestThreads(get_asgi_application())}
    # Absent from older code, which this benchmark also measures (copied into its checkout).
    one_hop = getattr(request_threads, "OneHopHandler", None)
    if one_hop is not None:
        apps["OneHopHandler (the site's)"] = request_threads.RequestThreads(one_hop())
    for _ in range(rounds):
        for name, app in apps.items():
            spent = looked = 0.0
            for _ in range(moves):
                path, token, body = await sync_to_async(players.next_move)()
                started = time.process_time()
                status = await post(app, path.removesuffix("/moves"), token, b"", "GET")
                looked += time.process_time() - started
                assert status == 200, status
                started = time.process_time()
                status = await post(app, path, token, body)
                spent += time.process_time() - started
                assert status == 200, status
            print(
                f"{name:28} POST /api/tables/<id>/moves: {1000 * spent / moves:6.2f} ms CPU, "
                f"the mover's GET before it {1000 * looked / moves:6.2f} ms "
                f"(load average {os.getloadavg()[0]:.1f})",
                flush=True,
            )


async def profile(moves: int) -> None:
    """The site's handler under cProfile (CPU time): the event loop's thread and the request's
    thread each have a profiler (one profiles one thread), merged when printed."""
    import pstats

    from asgiref.sync import sync_to_async

    from pdc_site import request_threads

    players = await sync_to_async(Players)()
    handler = request_threads.OneHopHandler()
    in_thread = cProfile.Profile(time.thread_time)
    respond = handler.get_response

    def get_response(request: Any) -> Any:
        in_thread.enable()
        try:
            return respond(request)
        finally:
            in_thread.disable()

    handler.get_response = get_response
    app = request_threads.RequestThreads(handler)
    for _ in range(10):  # warm up, unprofiled
        in_thread.disable()
        await post(app, *await sync_to_async(players.next_move)())
    in_thread = cProfile.Profile(time.thread_time)
    in_loop = cProfile.Profile(time.thread_time)
    for _ in range(moves):
        path, token, body = await sync_to_async(players.next_move)()
        in_loop.enable()
        await post(app, path, token, body)
        in_loop.disable()
    stats = pstats.Stats(in_loop).add(in_thread)
    stats.sort_stats("cumulative").print_stats(60)
    if os.environ.get("PROFILE_FILE"):
        stats.dump_stats(os.environ["PROFILE_FILE"])


if __name__ == "__main__":
    sys.exit(main())
