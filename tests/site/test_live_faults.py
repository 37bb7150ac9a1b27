"""The real site (daphne and the worker in processes of their own) under faults and abuse:
sockets cut off for abuse close with codes the server library accepts, waiting long polls hold
no more database connections than the pool, and Redis stops in the middle of a match and comes back."""

from __future__ import annotations

import json
import os
import socket as sockets
import subprocess
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests.live_server import LiveSite, call_api, free_port, wait_for_port
from tests.services_required import require_postgres

REDIS_SERVER = Path("/usr/bin/redis-server")

MAKE_PLAYERS = """
import json
from django.contrib.auth import get_user_model
from players.models import ApiToken
tokens = {}
for n in range(COUNT):
    user = get_user_model().objects.create_user(f"player{n}")
    tokens[user.username] = ApiToken.issue(user, "test")[1]
print(json.dumps(tokens))
"""


def make_players(site: LiveSite, count: int) -> dict[str, str]:
    """Players of the live site and their API tokens, by name."""
    output = site.manage("shell", "--no-imports", "-c", MAKE_PLAYERS.replace("COUNT", str(count)))
    return json.loads(output.strip().splitlines()[-1])


def started_table(base: str, tokens: dict[str, str], names: list[str]) -> dict:
    opening = {"game": "part-du-chef", "seats": len(names)}
    status, table = call_api(base, "/api/tables", tokens[names[0]], opening)
    assert status == 201, table
    for name in names[1:]:
        status, table = call_api(base, f"/api/tables/{table['id']}/join", tokens[name], {})
        assert status == 200, table
    assert table["status"] == "playing"
    return table


def play_one_move(base: str, tokens: dict[str, str], table: dict) -> dict:
    """The player to move plays a legal move (a cut, or the first portion)."""
    seat = table["to_move"][0]
    name = table["seats"][seat]["player"]
    _, table = call_api(base, f"/api/tables/{table['id']}", tokens[name])
    view = table["view"]
    if "legal" in table:
        move = table["legal"][0]
    elif view["phase"] == "cut":
        players = len(table["seats"])
        move = {"cut": [i * 12 // players for i in range(players)]}
    else:
        free = next(p["index"] for p in view["portions"] if p["taken_by"] is None)
        move = {"take": free, "eat": []}
    status, played = call_api(
        base,
        f"/api/tables/{table['id']}/moves",
        tokens[name],
        {"version": table["version"], "move": move},
    )
    assert status == 200, played
    return played


def socket_url(base: str, table: dict) -> str:
    return base.replace("http://", "ws://") + f"/ws/tables/{table['id']}/"


# --- sockets cut off for abuse ---------------------------------------------------------------------
def test_sockets_cut_off_for_abuse_close_with_codes_the_server_accepts(site):
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    from games import consumers

    base = site.start_web()
    tokens = make_players(site, 2)
    table = started_table(base, tokens, list(tokens))

    def closing_code(send: list[str]) -> int:
        with connect(socket_url(base, table), origin=base, open_timeout=10) as socket:
            socket.recv(timeout=10)
            with pytest.raises(ConnectionClosed) as closed:
                for frame in send:
                    socket.send(frame)
                while True:
                    socket.recv(timeout=10)
        return closed.value.rcvd.code

    too_big = "x" * (consumers.MAX_FRAME_BYTES + 1)
    assert closing_code([too_big]) == consumers.CLOSE_TOO_BIG
    flood = [json.dumps({"type": "sync"})] * (consumers.RATE_MAX_FRAMES + 1)
    assert closing_code(flood) == consumers.CLOSE_POLICY_VIOLATION
    # A frame nested 2,000 deep gets an error, and the socket lives on.
    with connect(socket_url(base, table), origin=base, open_timeout=10) as socket:
        socket.recv(timeout=10)
        socket.send("[" * 2000 + "]" * 2000)
        assert "socket-error" in socket.recv(timeout=10)
        socket.send(json.dumps({"type": "sync"}))
        assert f'data-version="{table["version"]}"' in socket.recv(timeout=10)
    log = site.log_text()
    assert "Exception inside application" not in log, log[-3000:]


# --- long polls and database connections -------------------------------------------------------------
def connections_to(database_url: str, older_than: float = 0.0) -> int:
    """How many connections the site's database has now that were opened more than
    ``older_than`` seconds ago."""
    import psycopg

    parts = urlsplit(database_url)
    admin = urlunsplit(parts._replace(path="/postgres"))
    query = (
        "SELECT count(*) FROM pg_stat_activity WHERE datname = %s"
        " AND now() - backend_start > make_interval(secs => %s)"
    )
    with psycopg.connect(admin, autocommit=True) as conn:
        return conn.execute(query, (parts.path.lstrip("/"), older_than)).fetchone()[0]


POLLS = 60


@pytest.mark.postgres
def test_waiting_long_polls_hold_no_more_connections_than_the_pool_on_postgresql(site):
    """60 long polls wait on one daphne process: the connections it holds are bounded by its
    pool (``DATABASE_POOL_SIZE``), not by the polls. Before the polls gave their connection
    back, each waiting poll kept one: 60 connections."""
    require_postgres()
    pool_size = 4
    site.env["DATABASE_POOL_SIZE"] = str(pool_size)
    base = site.start_web()
    tokens = make_players(site, POLLS)
    names = list(tokens)
    table = started_table(base, tokens, names[:3])
    path = f"/api/tables/{table['id']}?since={table['version']}"
    answers: list[tuple[int, dict]] = []
    started = threading.Barrier(POLLS + 1)

    def poll(name: str) -> None:
        started.wait()
        answers.append(call_api(base, path, tokens[name], timeout=40))

    threads = [threading.Thread(target=poll, args=(name,)) for name in names]
    for thread in threads:
        thread.start()
    started.wait()
    # The polls take their first look at the table, then wait; while they wait, each re-reads
    # the version now and then with a connection borrowed from the pool and given back at once.
    time.sleep(3.0)
    held = []
    for _ in range(20):
        held.append(connections_to(site.env["DATABASE_URL"]))
        time.sleep(0.1)
    played = play_one_move(base, tokens, table)
    for thread in threads:
        thread.join()
    assert [status for status, _ in answers] == [200] * POLLS
    assert {answer["version"] for _, answer in answers} == {played["version"]}
    assert max(held) <= pool_size, held


# --- Redis goes away and comes back ------------------------------------------------------------------
class RedisServer:
    """A redis-server of the test's own, on a free port, that can be stopped and started again."""

    def __init__(self, directory: Path) -> None:
        self.port = free_port()
        self.directory = directory
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                str(REDIS_SERVER),
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.directory),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for_port(self.port, self.process)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None
        with pytest.raises(OSError), sockets.create_connection(("127.0.0.1", self.port), 1):
            pass


@pytest.fixture
def redis_server(tmp_path):
    if not REDIS_SERVER.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{REDIS_SERVER} is missing: CI must install redis-server")
        pytest.skip(f"{REDIS_SERVER} is not installed")
    server = RedisServer(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def versions_in(frame: str) -> set[int]:
    import re

    return {int(v) for v in re.findall(r'id="table-status"[^>]*data-version="(\d+)"', frame)}


def wait_for_version(socket, version: int, seconds: float) -> bool:
    """Whether the socket shows ``version`` (or later) within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            frame = socket.recv(timeout=max(0.1, deadline - time.monotonic()))
        except TimeoutError:
            return False
        if any(v >= version for v in versions_in(frame)):
            return True
    return False


def test_redis_goes_away_mid_match_and_comes_back(tmp_path, redis_server):
    from websockets.exceptions import ConnectionClosed, InvalidStatus
    from websockets.sync.client import connect

    (tmp_path / "site").mkdir()
    site = LiveSite(tmp_path / "site", {"REDIS_URL": redis_server.url})
    try:
        base = site.start_web()
        site.start_worker()
        tokens = make_players(site, 2)
        table = started_table(base, tokens, list(tokens))
        page = connect(socket_url(base, table), origin=base, open_timeout=10)
        assert table["version"] in versions_in(page.recv(timeout=10))
        table = play_one_move(base, tokens, table)
        assert wait_for_version(page, table["version"], 5)

        redis_server.stop()
        # Meanwhile: moves, a long poll, pages and a new socket. Nothing answers 500.
        waiting: list[tuple[int, dict]] = []
        poller = threading.Thread(
            target=lambda: waiting.append(
                call_api(base, f"/api/tables/{table['id']}?since={table['version']}", timeout=40)
            )
        )
        poller.start()
        for _ in range(4):
            table = play_one_move(base, tokens, table)
        poller.join()
        assert waiting[0][0] == 200 and waiting[0][1]["version"] > table["version"] - 4
        for path in (f"/tables/{table['id']}/", "/play/", "/players/player0/", "/api/games"):
            status, _ = call_api(base, path)
            assert status == 200, path
        status, answer = call_api(base, f"/api/tables/{table['id']}")
        assert status == 200 and answer["version"] == table["version"]
        try:
            with connect(socket_url(base, table), origin=base, open_timeout=10) as refused:
                refused.recv(timeout=10)
        except InvalidStatus as refusal:
            assert refusal.response.status_code == 403  # the handshake is turned down
        # The page's socket either closed with a code after which the page reconnects by
        # itself, or it is still open (and may have had the moves made meanwhile: a doorbell
        # reaches the sockets of the process that rang it without Redis).
        seen_meanwhile = 0
        try:
            while True:
                seen_meanwhile = max([seen_meanwhile, *versions_in(page.recv(timeout=1))])
        except ConnectionClosed as closed:
            assert closed.rcvd is None or closed.rcvd.code in (1006, 1011, 1012, 1013)
            page, seen_meanwhile = None, 0
        except TimeoutError:
            pass

        redis_server.start()
        # The page reconnects (or its socket lived on): it shows every move made meanwhile.
        if page is None:
            page = connect(socket_url(base, table), origin=base, open_timeout=10)
        assert seen_meanwhile >= table["version"] or wait_for_version(page, table["version"], 15)
        # Doorbells ring again: the next move reaches the page well before the re-check would.
        table = play_one_move(base, tokens, table)
        assert wait_for_version(page, table["version"], 5)
        page.close()
        status, answer = call_api(base, f"/api/tables/{table['id']}/record")
        assert status == 200 and len(answer["moves"]) >= 6
        log = site.log_text()
        assert "Internal Server Error" not in log, log[-3000:]
    finally:
        site.close()


def test_a_socket_idle_longer_than_the_layers_blocking_read_stays_open(tmp_path, redis_server):
    """The channel layer waits for a doorbell with a blocking read of 5 s (BZPOPMIN). With
    redis-py 8 a read times out after 5 s by default: the layer raised ``TimeoutError`` and every
    idle socket was torn down about every 5 s, losing doorbells as it went."""
    from websockets.sync.client import connect

    (tmp_path / "site").mkdir()
    site = LiveSite(tmp_path / "site", {"REDIS_URL": redis_server.url})
    try:
        base = site.start_web()
        tokens = make_players(site, 2)
        table = started_table(base, tokens, list(tokens))
        with connect(socket_url(base, table), origin=base, open_timeout=10) as page:
            assert table["version"] in versions_in(page.recv(timeout=10))
            # Idle for longer than two blocking reads: nothing comes, nothing breaks.
            with pytest.raises(TimeoutError):
                page.recv(timeout=12)
            table = play_one_move(base, tokens, table)
            # The doorbell, well before the socket's own re-check (10 s with Redis).
            assert wait_for_version(page, table["version"], 5)
        assert "Exception inside application" not in site.log_text()
    finally:
        site.close()
