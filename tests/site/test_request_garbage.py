"""What a request leaves to Python's collector: nothing of a move's POST or of the mover's look
at the table. Objects in reference cycles wait for a collection, and a daphne process collects
in the pauses between moves, where a move that comes in waits for it (pdc_site/collector.py);
freed by their reference counts they never reach it. Each test serves a request through the
site's handler with the collector off and checks that what it made is already gone."""

from __future__ import annotations

import asyncio
import gc
import json
import weakref
from collections.abc import Iterator

import pytest
from asgiref.sync import sync_to_async

from bench.bench_move_asgi import asgi_request
from games import rows, services
from pdc_site.request_threads import OneHopHandler
from players.models import ApiToken

from .factories import started_table
from .test_answer_before_render import DEADLOCK_GUARD

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@pytest.fixture
def no_collections() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


async def served_as_daphne(
    app, method: str, path: str, raw_token: str, body: bytes = b""
) -> tuple[int, bytes]:
    """A request to the site's API with a token, served by ``app`` as daphne serves it: once
    the answer is sent, the client is gone (``http.disconnect``), which ends the handler's
    listener for a hang-up with ``RequestAborted`` as the answer ends."""
    headers = [
        (b"content-type", b"application/json"),
        (b"authorization", f"Bearer {raw_token}".encode()),
    ]
    return await asyncio.wait_for(
        asgi_request(app, method, path, headers, body, disconnect_after_answer=True),
        DEADLOCK_GUARD,
    )


def made_answers(monkeypatch) -> list[weakref.ref]:
    """Weak references to the answers the site's handler makes from now on."""
    made: list[weakref.ref] = []
    get_response = OneHopHandler.get_response

    def recorded(self, request):
        response = get_response(self, request)
        made.append(weakref.ref(response))
        return response

    monkeypatch.setattr(OneHopHandler, "get_response", recorded)
    return made


def made_requests(monkeypatch) -> list[weakref.ref]:
    """Weak references to the requests the site's handler makes from now on."""
    made: list[weakref.ref] = []
    create = OneHopHandler.create_request

    def recorded(self, scope, body_file):
        request, refusal = create(self, scope, body_file)
        if request is not None:
            made.append(weakref.ref(request))
        return request, refusal

    monkeypatch.setattr(OneHopHandler, "create_request", recorded)
    return made


def read_matches(monkeypatch) -> list[weakref.ref]:
    """Weak references to the matches read with their seats from now on."""
    read: list[weakref.ref] = []
    real = rows.match_with_seats

    def recorded(match_id, *, lock=False):
        match = real(match_id, lock=lock)
        if match is not None:
            read.append(weakref.ref(match))
        return match

    monkeypatch.setattr(rows, "match_with_seats", recorded)
    return read


async def test_a_moves_post_is_freed_without_a_collection(monkeypatch, site_app, no_collections):
    """The request (its user, messages, htmx details and session refer back to it, and so did
    the hang-up listener's end), and its answer (whose close ran the doorbell's jobs), are gone
    once the request has ended."""
    match, users = await sync_to_async(started_table)(players=3)
    requests, answers = made_requests(monkeypatch), made_answers(monkeypatch)
    chef = (await sync_to_async(services.engine_for)(match)).to_move(match.state)[0]
    _token, raw = await sync_to_async(ApiToken.issue)(users[chef], "bot")
    body = json.dumps({"version": match.version, "move": {"cut": [0, 4, 8]}}).encode()
    status, answer = await served_as_daphne(
        site_app, "POST", f"/api/tables/{match.pk}/moves", raw, body
    )
    assert status == 200, answer
    assert json.loads(answer)["version"] == match.version + 1
    assert len(requests) == 1 and len(answers) == 1
    assert requests[0]() is None
    assert answers[0]() is None


async def test_the_movers_look_at_the_table_is_freed_without_a_collection(
    monkeypatch,
    site_app,
    no_collections,
):
    """The look's request and the match it read with its seats (which refer to each other) are
    gone once it has answered."""
    match, users = await sync_to_async(started_table)(players=3)
    mover = (await sync_to_async(services.engine_for)(match)).to_move(match.state)[0]
    _token, raw = await sync_to_async(ApiToken.issue)(users[mover], "bot")
    requests, matches = made_requests(monkeypatch), read_matches(monkeypatch)
    status, answer = await served_as_daphne(site_app, "GET", f"/api/tables/{match.pk}", raw)
    assert status == 200
    assert json.loads(answer)["you"] == mover
    assert len(requests) == 1 and len(matches) == 1
    assert requests[0]() is None
    assert matches[0]() is None
