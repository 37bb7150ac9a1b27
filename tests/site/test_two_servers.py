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


SESSION_OF = """
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from importlib import import_module
user = get_user_model().objects.get(username={name!r})
store = import_module(settings.SESSION_ENGINE).SessionStore()
store[SESSION_KEY] = str(user.pk)
store[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[-1]
store[HASH_SESSION_KEY] = user.get_session_auth_hash()
store.create()
print(store.session_key)
"""


def login_session(site: LiveSite, name: str) -> str:
    """The key of a session signed in as ``name`` on the live site."""
    # The shell may print a note first: the key is its last line.
    return site.manage("shell", "-c", SESSION_OF.format(name=name)).strip().splitlines()[-1]


def without_timer(frame: str) -> str:
    # The timer counts the seconds left at the moment of the render.
    return re.sub(r'<div id="table-timer".*?</div>', "", frame, flags=re.S)


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


@pytest.mark.redis
def test_each_seat_gets_its_own_view_of_a_move_on_both_servers(two_servers):
    """The server that took the move renders the seats' parts once and sends them with the
    doorbell: a seat's sockets on either server get the same frame, and the two seats' frames
    differ (each got its own)."""
    from websockets.sync.client import connect

    site, first, second = two_servers
    tokens = {name: site.manage("issue_token", name, "--create").strip() for name in ("ann", "bob")}
    sessions = {name: f"sessionid={login_session(site, name)}" for name in tokens}
    table = api(first, "/api/tables", tokens["ann"], {"game": "part-du-chef", "seats": 2})
    table = api(second, f"/api/tables/{table['id']}/join", tokens["bob"], {})
    sockets = {}
    for name in tokens:
        for base in (first, second):
            url = base.replace("http://", "ws://") + f"/ws/tables/{table['id']}/"
            sockets[name, base] = connect(
                url, origin=base, open_timeout=10, additional_headers={"Cookie": sessions[name]}
            )
            assert table["version"] in versions_in(sockets[name, base].recv(timeout=10))
    try:
        mover = table["seats"][table["to_move"][0]]["player"]
        played = api(
            first,
            f"/api/tables/{table['id']}/moves",
            tokens[mover],
            {"version": table["version"], "move": {"cut": [0, 6]}},
        )
        frames = {key: socket.recv(timeout=10) for key, socket in sockets.items()}
        for frame in frames.values():
            assert played["version"] in versions_in(frame), site.log_text()[-3000:]
        timeless = {key: without_timer(frame) for key, frame in frames.items()}
        assert timeless["ann", first] == timeless["ann", second]
        assert timeless["bob", first] == timeless["bob", second]
        assert timeless["ann", first] != timeless["bob", first]
    finally:
        for socket in sockets.values():
            socket.close()
