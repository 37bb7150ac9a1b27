"""Requests run their synchronous code on threads that outlive them (pdc_site/request_threads.py):
no thread is started per request in the steady state, one request still has one thread to itself,
and a request never waits for a thread."""

from __future__ import annotations

import asyncio
import gc
import threading
import weakref

import pytest
from asgiref.sync import ThreadSensitiveContext, sync_to_async

from pdc_site.request_threads import RequestThreads
from tests.site_app import closed_after
from tests.sockets import counted_hops

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
    .OneHopHandler), with Django's request_started signal before it and the closing of the
    answer after it: one hop to the request's thread, not one for the signal, one to close the
    answer, and one or two for every middleware as well."""
    from pdc_site.asgi import application

    hops = counted_hops(monkeypatch)
    response = await get(application, "/api/games")
    assert response["status"] == 200 and b"part-du-chef" in response["body"]
    assert len(hops) == 1, hops


@pytest.mark.django_db(transaction=True)
async def test_an_async_view_still_answers_through_the_one_hop_chain():
    """``GET /api/tables/<id>`` is an async view (it may wait, as a long poll): it runs on the
    event loop from inside the synchronous chain."""
    from pdc_site.asgi import application

    response = await get(application, "/api/tables/999999")
    assert response["status"] == 404 and b"error" in response["body"]


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
    assert len(hops) == 1, hops


async def waiting_poll(app, match) -> asyncio.Future:
    """A long poll on ``match`` through ``app``, once it waits (it holds its place among its
    caller's polls)."""
    from games import limits

    poll = asyncio.ensure_future(get(app, f"/api/tables/{match.pk}?since={match.version}"))
    for _ in range(500):
        if limits.held("poll", "ip:?") == 1:
            break
        await asyncio.sleep(0.01)
    assert limits.held("poll", "ip:?") == 1 and not poll.done()
    return poll


async def answered_by_the_next_move(poll: asyncio.Future, match, users) -> None:
    """The chef cuts; ``poll`` answers with the next version."""
    from games import services
    from games.engines import get_engine

    chef = get_engine(match.game).to_move(match.state)[0]
    await sync_to_async(services.play)(match.pk, users[chef], {"cut": [0, 6]}, match.version)
    response = await asyncio.wait_for(poll, 20)
    assert response["status"] == 200
    assert b'"version": %d' % (match.version + 1) in response["body"]


@pytest.mark.django_db(transaction=True)
async def test_a_poll_through_the_one_hop_chain_still_waits_for_the_next_version(site_app):
    from .factories import started_table

    match, users = await sync_to_async(started_table)(players=2)
    poll = await waiting_poll(site_app, match)
    await answered_by_the_next_move(poll, match, users)


@pytest.fixture
def request_signals():
    """Django's request_started and request_finished as they are sent: (which, thread)."""
    from django.core import signals

    seen: list[tuple[str, int]] = []

    def started(**kwargs) -> None:
        seen.append(("started", threading.get_ident()))

    def finished(**kwargs) -> None:
        seen.append(("finished", threading.get_ident()))

    signals.request_started.connect(started)
    signals.request_finished.connect(finished)
    yield seen
    signals.request_started.disconnect(started)
    signals.request_finished.disconnect(finished)


async def served(application, path: str, query: bytes | None = None) -> dict:
    """``get``, and wait until the application has ended (its thread is given back)."""
    from channels.testing import HttpCommunicator

    communicator = HttpCommunicator(application, "GET", path, headers=[(b"host", b"localhost")])
    communicator.scope["server"] = ("localhost", 80)
    if query is not None:
        communicator.scope["query_string"] = query
    response = await communicator.get_response(timeout=15)
    await communicator.wait(timeout=15)
    return response


@pytest.mark.django_db(transaction=True)
async def test_each_request_starts_and_finishes_once_in_its_own_thread(site_app, request_signals):
    """The signals Django's receivers hang on (the query log reset, the database connection
    given back to the pool) are sent once a request, in the request's thread, before and after
    the view: for answers closed before they are sent (a JSON view, a page, an async view's
    refusal) as for those closed after."""
    from django.db import connection

    threads: list[int] = []
    for path in ("/api/games", "/robots.txt", "/api/tables/999999"):
        request_signals.clear()
        response = await served(site_app, path)
        assert response["status"] in (200, 404)
        assert [name for name, _ in request_signals] == ["started", "finished"]
        assert len({thread for _, thread in request_signals}) == 1
        threads.append(request_signals[0][1])
        # The connection went back: the request's thread holds none between requests.
        (thread,) = site_app.idle
        assert thread.submit(lambda: connection.connection).result() is None
    assert len(set(threads)) == 1  # one lent thread served them all, one after the other


@pytest.mark.django_db(transaction=True)
async def test_a_request_django_cannot_read_is_still_refused_and_finished(
    site_app, request_signals
):
    """A query that is not UTF-8: Django refuses it before any middleware (400), and the
    request still starts and finishes once."""
    response = await served(site_app, "/api/games", query=b"a=\xff")
    assert response["status"] == 400
    assert [name for name, _ in request_signals] == ["started", "finished"]


@pytest.mark.django_db(transaction=True)
async def test_a_poll_whose_client_hangs_up_is_given_up_and_finished(site_app, request_signals):
    """A client that goes away while its long poll waits: the poll is cancelled (its place
    among the caller's polls given back) and the request finishes, as under Django's handler."""
    from channels.testing import HttpCommunicator

    from games import limits

    from .factories import started_table

    match, _users = await sync_to_async(started_table)(players=2)
    path = f"/api/tables/{match.pk}"
    poll = HttpCommunicator(site_app, "GET", path, headers=[(b"host", b"localhost")])
    poll.scope["server"] = ("localhost", 80)
    poll.scope["query_string"] = f"since={match.version}".encode()
    await poll.send_input({"type": "http.request", "body": b""})
    for _ in range(500):  # until it waits
        if limits.held("poll", "ip:?") == 1:
            break
        await asyncio.sleep(0.01)
    assert limits.held("poll", "ip:?") == 1
    await poll.send_input({"type": "http.disconnect"})
    await poll.wait(timeout=15)
    assert limits.held("poll", "ip:?") == 0
    assert [name for name, _ in request_signals][-1] == "finished"


#: A bound on a wait that only a broken ordering would reach (not a timing assert).
DEADLOCK_GUARD = 10


class ClosingApp:
    """A request whose answer's closing (as ``OneHopHandler`` closes it) runs its jobs for after
    the answer, then ``then`` in the same thread."""

    def __init__(self, jobs, then=lambda: None) -> None:
        self.jobs = jobs
        self.then = then

    def close(self) -> None:
        from pdc_site.request_threads import _after_answer, after_answer

        for job in self.jobs:
            after_answer(job)
        _after_answer.get().run_jobs()
        self.then()

    async def __call__(self, scope, receive, send) -> None:
        async with ThreadSensitiveContext():
            await sync_to_async(self.close)()


async def test_a_doorbell_leaves_while_its_answer_is_still_being_closed():
    """The follow-up (the PUBLISH) starts on the loop as soon as its job made it: were it kept
    until the closing is over, the closing would wait for it in vain."""
    published = threading.Event()
    waited: list[bool] = []

    async def publish() -> None:
        published.set()

    app = ClosingApp([lambda: publish], then=lambda: waited.append(published.wait(DEADLOCK_GUARD)))
    await request(RequestThreads(app))
    assert waited == [True]


async def test_follow_ups_run_one_after_the_other_in_the_order_of_their_jobs():
    sent: list[int] = []

    def follow_up(number: int, turns: int):
        async def send() -> None:
            for _ in range(turns):  # the first is the slower one
                await asyncio.sleep(0)
            sent.append(number)

        return lambda: send

    await request(RequestThreads(ClosingApp([follow_up(1, 5), follow_up(2, 0)])))
    assert sent == [1, 2]


async def test_a_failed_follow_up_is_logged_and_the_next_still_runs(caplog):
    sent: list[str] = []

    async def fails() -> None:
        raise RuntimeError("Redis away")

    async def sends() -> None:
        sent.append("second")

    await request(RequestThreads(ClosingApp([lambda: fails, lambda: sends])))
    assert sent == ["second"]
    assert "follow-up after the answer failed" in caplog.text


async def test_requests_up_to_the_spare_threads_start_no_thread_on_the_event_loop(monkeypatch):
    """Starting a thread waits until it runs: the site keeps spare threads started (at start-up,
    then by a starter thread of their own), so a request's thread is never started by the loop
    that every socket of the process shares."""
    loop_thread = threading.get_ident()
    started_by: list[int] = []
    start = threading.Thread.start

    def noted_start(self, *args, **kwargs):
        started_by.append(threading.get_ident())
        return start(self, *args, **kwargs)

    app = RequestThreads(DjangoLike(), spare=2)
    assert len(app.idle) == 2
    monkeypatch.setattr(threading.Thread, "start", noted_start)
    spares_added = asyncio.Event()
    add_spares = app.add_spares

    def noted_add_spares(threads) -> None:
        add_spares(threads)
        spares_added.set()

    monkeypatch.setattr(app, "add_spares", noted_add_spares)
    for _round in range(3):
        spares_added.clear()
        django = app.app
        django.hold, django.inside, django.expected = asyncio.Event(), 0, 2
        django.all_inside = asyncio.Event()
        waiting = [asyncio.ensure_future(request(app)) for _ in range(2)]
        await asyncio.wait_for(django.all_inside.wait(), DEADLOCK_GUARD)
        django.hold.set()
        await asyncio.gather(*waiting)
        # The spares lent are started again meanwhile, by the starter thread.
        if app.starting:
            await asyncio.wait_for(spares_added.wait(), DEADLOCK_GUARD)
    assert loop_thread not in started_by
    assert started_by  # the starter did start the next spares
    assert len(app.idle) >= 2
    for thread in [*app.idle, app.starter]:
        thread.shutdown()


async def test_a_request_with_a_follow_up_leaves_no_cycle_for_the_collector():
    """The follow-up's task holds a copy of the request's context, which holds the request's jobs,
    which held that task: a reference cycle per move, freed only by a collection (with the
    request's whole context in it). Freed by reference counts, it never reaches the collector."""
    from pdc_site.request_threads import _after_answer

    jobs: list[weakref.ref] = []

    async def publish() -> None:
        pass

    class Watched(ClosingApp):
        def close(self) -> None:
            jobs.append(weakref.ref(_after_answer.get()))
            super().close()

    enabled = gc.isenabled()
    gc.disable()
    try:
        await request(RequestThreads(Watched([lambda: publish])))
        await asyncio.sleep(0)
        assert len(jobs) == 1
        assert jobs[0]() is None
    finally:
        if enabled:
            gc.enable()


# --- places: at most so many requests served at once ------------------------------------------
async def test_no_more_requests_than_its_places_are_served_at_once():
    """The others wait on the event loop, without a thread, and are served as places free."""
    from pdc_site.request_threads import place

    class Placed(DjangoLike):
        """Answers inside a place, as ``OneHopHandler`` does once the body is read."""

        async def __call__(self, scope, receive, send) -> None:
            async with place():
                await super().__call__(scope, receive, send)

    django = Placed()
    django.hold = asyncio.Event()
    django.expected = 2
    app = RequestThreads(django, at_once=2)
    requests = [asyncio.ensure_future(request(app)) for _ in range(5)]
    await asyncio.wait_for(django.all_inside.wait(), DEADLOCK_GUARD)
    for _ in range(50):  # turns of the loop in which a third request could have started
        await asyncio.sleep(0)
    assert django.inside == 2
    django.hold.set()
    await asyncio.wait_for(asyncio.gather(*requests), DEADLOCK_GUARD)
    assert (django.inside, len(django.threads), app.in_flight) == (5, 5, 0)
    # A request waiting for its place holds no thread: two threads served all five.
    assert len({t for pair in django.threads for t in pair}) == 2
    for thread in app.idle:
        thread.shutdown()


async def test_a_request_waiting_with_nothing_to_do_lets_its_place_go_meanwhile():
    from pdc_site.request_threads import place, waiting

    polling, answered = threading.Event(), threading.Event()
    served: list[str] = []

    class Polls:
        async def __call__(self, scope, receive, send) -> None:
            async with place(), ThreadSensitiveContext():
                await sync_to_async(self.work)(scope["path"])

        def work(self, path: str) -> None:
            if path == "/poll":
                with waiting():
                    polling.set()
                    answered.wait(DEADLOCK_GUARD)
            served.append(path)

    app = RequestThreads(Polls(), at_once=1)
    poll = asyncio.ensure_future(app({"type": "http", "path": "/poll"}, None, None))
    loop = asyncio.get_running_loop()
    assert await loop.run_in_executor(None, polling.wait, DEADLOCK_GUARD)
    await asyncio.wait_for(app({"type": "http", "path": "/look"}, None, None), DEADLOCK_GUARD)
    assert served == ["/look"]
    answered.set()
    await asyncio.wait_for(poll, DEADLOCK_GUARD)
    assert served == ["/look", "/poll"]
    # The poll took its place back before it ended, and gave it back once: one place, free.
    assert app.places.free._value == 1
    for thread in app.idle:
        thread.shutdown()


async def test_a_request_that_ends_while_its_thread_waits_gives_its_place_back_once():
    """A poll whose client hung up runs to its end in its thread after the request has ended:
    the place it let go is not given back a second time at the request's end (that made one
    place too many), nor taken back by the thread afterwards (nobody would give it back)."""
    from pdc_site.request_threads import place, waiting

    polling, answered, done = threading.Event(), threading.Event(), threading.Event()
    left: list[asyncio.Future] = []

    def work() -> None:
        with waiting():
            polling.set()
            answered.wait(DEADLOCK_GUARD)
        done.set()

    class HangsUp:
        async def __call__(self, scope, receive, send) -> None:
            async with place(), ThreadSensitiveContext():
                left.append(asyncio.ensure_future(sync_to_async(work)()))
                loop = asyncio.get_running_loop()
                await loop.run_in_executor(None, polling.wait, DEADLOCK_GUARD)
            # the request ends here, its thread still waiting

    app = RequestThreads(HangsUp(), at_once=1)
    await asyncio.wait_for(request(app), DEADLOCK_GUARD)
    assert app.places.free._value == 1
    answered.set()
    await asyncio.wait_for(left[0], DEADLOCK_GUARD)
    assert done.is_set()
    assert app.places.free._value == 1
    for thread in app.idle:
        thread.shutdown()


@pytest.mark.django_db(transaction=True)
async def test_a_long_poll_that_waits_leaves_its_place_to_the_other_requests():
    """With one place, a look at the table is answered while a poll on it waits: the poll's
    thread lets its place go for as long as it waits (``request_threads.waiting``)."""
    from pdc_site.request_threads import OneHopHandler

    from .factories import started_table

    app = RequestThreads(OneHopHandler(), at_once=1)
    try:
        match, users = await sync_to_async(started_table)(players=2)
        poll = await waiting_poll(app, match)
        look = await asyncio.wait_for(get(app, f"/api/tables/{match.pk}"), DEADLOCK_GUARD)
        assert look["status"] == 200 and not poll.done()
        await answered_by_the_next_move(poll, match, users)
    finally:
        closed_after(app)


@pytest.mark.django_db(transaction=True)
async def test_a_request_whose_body_is_still_coming_in_holds_no_place():
    """A client that sends its body slowly keeps no other request waiting: the place is taken
    once the body has been read."""
    from pdc_site.request_threads import OneHopHandler

    app = RequestThreads(OneHopHandler(), at_once=1)
    try:
        body: asyncio.Queue = asyncio.Queue()
        await body.put({"type": "http.request", "body": b'{"game": ', "more_body": True})
        sent: list[dict] = []

        async def send(message: dict) -> None:
            sent.append(message)

        scope = {
            "type": "http",
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": "/api/tables",
            "raw_path": b"/api/tables",
            "root_path": "",
            "query_string": b"",
            "headers": [(b"host", b"localhost"), (b"content-type", b"application/json")],
            "server": ("localhost", 80),
            "client": ("127.0.0.1", 40000),
        }
        post = asyncio.ensure_future(app(scope, body.get, send))
        look = await asyncio.wait_for(get(app, "/api/games"), DEADLOCK_GUARD)
        assert look["status"] == 200 and not post.done() and not sent
        await body.put({"type": "http.request", "body": b'"part-du-chef"}', "more_body": False})
        await asyncio.wait_for(post, DEADLOCK_GUARD)
        assert sent[0]["type"] == "http.response.start" and sent[0]["status"] == 401
    finally:
        closed_after(app)


async def test_the_site_serves_as_many_requests_at_once_as_its_setting_says():
    from django.conf import settings

    from pdc_site.asgi import request_threads

    assert settings.REQUEST_THREADS_AT_ONCE == 3
    assert request_threads.places.free._value == settings.REQUEST_THREADS_AT_ONCE
