"""Two daphne processes sharing Redis and the database: a move posted to one reaches a socket
open on the other (the channel layer is the doorbell between processes)."""

from __future__ import annotations

import re
import time

import pytest

from tests.live_server import LiveSite, call_api
from tests.services_required import require_redis


def api(base: str, path: str, token: str, body: dict | None = None) -> dict:
    status, answer = call_api(base, path, token, body)
    assert status in (200, 201), answer
    return answer


def versions_in(frame: str) -> set[int]:
    return {int(v) for v in re.findall(r'data-version="(\d+)"', frame)}


@pytest.fixture
def two_servers(tmp_path):
    redis_url = require_redis()
    site = LiveSite(tmp_path, {"REDIS_URL": redis_url})
    try:
        yield site, site.start_web(), site.start_web()
    finally:
        site.close()


@pytest.mark.redis
def test_a_move_posted_to_one_server_reaches_a_socket_on_the_other(two_servers):
    from websockets.sync.client import connect

    site, first, second = two_servers
    ann = site.manage("issue_token", "ann", "--create").strip()
    bob = site.manage("issue_token", "bob", "--create").strip()
    table = api(first, "/api/tables", ann, {"game": "part-du-chef", "seats": 2})
    table = api(second, f"/api/tables/{table['id']}/join", bob, {})
    assert table["status"] == "playing"
    ws_url = second.replace("http://", "ws://") + f"/ws/tables/{table['id']}/"
    with connect(ws_url, origin=second, open_timeout=10) as socket:
        first_frame = socket.recv(timeout=10)
        assert table["version"] in versions_in(first_frame)
        chef = table["to_move"][0]
        tokens = {"ann": ann, "bob": bob}
        played = api(
            first,
            f"/api/tables/{table['id']}/moves",
            tokens[table["seats"][chef]["player"]],
            {"version": table["version"], "move": {"cut": [0, 6]}},
        )
        deadline = time.monotonic() + 10
        seen: set[int] = set()
        while played["version"] not in seen and time.monotonic() < deadline:
            seen |= versions_in(socket.recv(timeout=10))
        assert played["version"] in seen, site.log_text()[-3000:]
