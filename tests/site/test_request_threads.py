"""Requests run their synchronous code on threads that outlive them (pdc_site/request_threads.py):
no thread is started per request in the steady state, one request still has one thread to itself,
and a request never waits for a thread."""

from __future__ import annotations

import asyncio
import threading

import pytest
from asgiref.sync import ThreadSensitiveContext, sync_to_async

from pdc_site.request_threads import RequestThreads

pytestmark = pytest.mark.asyncio


class DjangoLike:
    """What Django's ASGI handler does with a request: its own ThreadSensitiveContext, then
    synchronous code (twice, as a view and a signal would), each call's thread noted."""

    def __init__(self) -> None:
        self.threads: list[tuple[int, int]] = []
        self.hold: asyncio.Event | None = None
        self.inside = 0
        self.all_inside = asyncio.Event()
        self.expected = 0

    async def __call__(self, scope, receive, send) -> None:
        async with ThreadSensitiveContext():
            first = await sync_to_async(threading.get_ident)()
            if self.hold is not None:
                self.inside += 1
                if self.inside == self.expected:
                    self.all_inside.set()
                await self.hold.wait()
            second = await sync_to_async(threading.get_ident)()
        self.threads.append((first, second))


async def request(app) -> None:
    await app({"type": "http"}, None, None)


async def test_one_thread_serves_request_after_request():
    django = DjangoLike()
    app = RequestThreads(django)
    for _ in range(5):
        await request(app)
    assert len({t for pair in django.threads for t in pair}) == 1
    assert len(app.idle) == 1


async def test_requests_at_the_same_time_each_have_a_thread_of_their_own():
    django = DjangoLike()
    django.hold = asyncio.Event()
    django.expected = 3
    app = RequestThreads(django)
    waiting = [asyncio.ensure_future(request(app)) for _ in range(3)]
    await asyncio.wait_for(django.all_inside.wait(), 10)  # all three in their requests at once
    django.hold.set()
    await asyncio.gather(*waiting)
    for first, second in django.threads:
        assert first == second  # one request stays on its thread
    assert len({first for first, _ in django.threads}) == 3
    assert len(app.idle) == 3  # lent again to the next requests


async def get(application, path: str) -> dict:
    from channels.testing import HttpCommunicator

    communicator = HttpCommunicator(application, "GET", path, headers=[(b"host", b"localhost")])
    communicator.scope["server"] = ("localhost", 80)
    # A first request loads the middleware and connects: more than the default second at a load
    # average of 20 (the answer, not the time, is what these tests check).
    return await communicator.get_response(timeout=15)


@pytest.mark.django_db
async def test_a_request_runs_its_middleware_and_view_in_one_hop_to_its_thread(monkeypatch):
    """The whole middleware chain and the view are one synchronous call (pdc_site.request_threads
    .OneHopHandler): a request hops to its thread for Django's request_started signal, for the
    chain and to close the response, not once or twice for every middleware as well."""
    from asgiref.sync import SyncToAsync

    from pdc_site.asgi import application

    hops = []
    call = SyncToAsync.__call__

    async def counted(self, *args, **kwargs):
        hops.append(self.func)
        return await call(self, *args, **kwargs)

    monkeypatch.setattr(SyncToAsync, "__call__", counted)
    response = await get(application, "/api/games")
    assert response["status"] == 200 and b"part-du-chef" in response["body"]
    assert len(hops) <= 3, hops


@pytest.mark.django_db(transaction=True)
async def test_an_async_view_still_answers_through_the_one_hop_chain():
    """``GET /api/tables/<id>`` is an async view (it may wait, as a long poll): it runs on the
    event loop from inside the synchronous chain."""
    from pdc_site.asgi import application

    response = await get(application, "/api/tables/999999")
    assert response["status"] == 404 and b"error" in response["body"]


@pytest.fixture
def site_app():
    """The site's HTTP application (as in pdc_site.asgi), with threads of its own that are
    closed afterwards with their database connections (a connection left open in a lent thread
    would hold the test database for the next test)."""
    from django.db import connection

    from pdc_site.request_threads import OneHopHandler

    app = RequestThreads(OneHopHandler())
    yield app
    for thread in app.idle:
        thread.submit(lambda: connection.close()).result()
        thread.shutdown()


@pytest.mark.django_db(transaction=True)
async def test_a_look_at_a_table_answers_in_the_requests_thread_as_the_async_view_does(
    monkeypatch, site_app
):
    """Through the site's handler ``GET /api/tables/<id>`` without ``since`` is answered by the
    view's synchronous twin (request_threads.IN_REQUEST_THREAD): no trip to the event loop and
    back, and the same answer as the async view gives (Django's own handler)."""
    import json

    from asgiref.sync import AsyncToSync, SyncToAsync
    from django.test import AsyncClient

    from .factories import started_table

    match, _users = await sync_to_async(started_table)(players=3)
    path = f"/api/tables/{match.pk}"
    by_the_async_view = (await AsyncClient().get(path)).json()
    hops = []
    to_thread, to_loop = SyncToAsync.__call__, AsyncToSync.__call__

    async def counted_to_thread(self, *args, **kwargs):
        hops.append(self.func)
        return await to_thread(self, *args, **kwargs)

    def counted_to_loop(self, *args, **kwargs):
        hops.append(self.awaitable)
        return to_loop(self, *args, **kwargs)

    monkeypatch.setattr(SyncToAsync, "__call__", counted_to_thread)
    monkeypatch.setattr(AsyncToSync, "__call__", counted_to_loop)
    response = await get(site_app, path)
    assert response["status"] == 200
    assert json.loads(response["body"]) == by_the_async_view
    assert len(hops) <= 3, hops


@pytest.mark.django_db(transaction=True)
async def test_a_poll_through_the_one_hop_chain_still_waits_for_the_next_version(site_app):
    from games import limits, services
    from games.engines import get_engine

    from .factories import started_table

    match, users = await sync_to_async(started_table)(players=2)
    poll = asyncio.ensure_future(get(site_app, f"/api/tables/{match.pk}?since={match.version}"))
    for _ in range(500):  # until it waits (it holds its place among its caller's polls)
        if limits.held("poll", "ip:?") == 1:
            break
        await asyncio.sleep(0.01)
    assert limits.held("poll", "ip:?") == 1 and not poll.done()
    chef = get_engine(match.game).to_move(match.state)[0]
    await sync_to_async(services.play)(match.pk, users[chef], {"cut": [0, 6]}, match.version)
    response = await asyncio.wait_for(poll, 20)
    assert response["status"] == 200
    assert b'"version": %d' % (match.version + 1) in response["body"]
