"""Long-lived threads for the site's synchronous request code.

Django's ASGI handler runs each request's synchronous code (views, the ORM) on a thread of its
own: a new thread for every request, and another one to join it afterwards. Starting a thread
blocks the event loop until the thread runs, and on a busy machine that wait was where a daphne
process spent its time (``py-spy dump`` under load: the loop in ``Thread.start``), while every
socket of the process waited behind it. ``RequestThreads`` lends each request one thread of a
set that lives as long as the process: one request at a time per thread, as before, and no
thread started in the steady state. A request never waits for a thread (long polls hold theirs
while they wait): when all are lent, one more is made, and kept only up to ``KEEP``. It may wait
for a place: at most ``REQUEST_THREADS_AT_ONCE`` requests are answered at once (``Places``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import sys
import threading
import weakref
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import Executor, Future
from contextvars import ContextVar
from typing import Any

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.conf import settings
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.db import close_old_connections
from django.http import HttpRequest, HttpResponseBase
from django.urls import set_script_prefix

from pdc_site import loop_watch

logger = logging.getLogger(__name__)

#: Threads kept for the next requests once their request has ended.
KEEP = 32
#: Threads the site keeps started and idle ahead of the next requests (``pdc_site.asgi``).
#: Starting a thread waits until the new thread runs; on the event loop, on a loaded machine,
#: that wait stopped every socket of the process (``bench/live.py --watch``: the loop sampled
#: in ``Thread.start`` under ``run_in_executor``). Spare threads are started at start-up and,
#: as they are lent, by a thread of their own, never by the loop.
SPARE = 4
#: The attribute by which an async view names its synchronous twin, which ``OneHopHandler``
#: calls instead, in the request's thread: for a view that may wait (a long poll) but most often
#: answers at once, which then costs no trip to the event loop and back.
IN_REQUEST_THREAD = "in_request_thread"

#: A job for after the answer: run in the request's thread, it may give back an async callable
#: that is then awaited on the event loop (to send what it made without one more hop).
AfterAnswer = Callable[[], Callable[[], Awaitable[None]] | None]


def hand_over_sooner() -> None:
    """Let a thread hold the GIL for at most ``GIL_SWITCH_INTERVAL`` while another waits for it.

    Every time the event loop waits on the network it lets the GIL go, and a request's thread
    with work to do (a move, the render for its watchers) takes it; the loop then gets it back
    only after the switch interval, 5 ms by default, and the loop waits on the network many times
    per move (the request, the answer, the doorbell, three frames)."""
    sys.setswitchinterval(settings.GIL_SWITCH_INTERVAL)


class RequestThread(Executor):
    """One thread that runs the calls it is given, one at a time, in order: what a
    ``ThreadPoolExecutor(max_workers=1)`` is to a request, for less. Every trip of a request to
    its thread goes through ``submit`` (a move's ``POST`` takes two), and the pool's own
    bookkeeping around the call (two locks, a work item, its idle-thread semaphore taken on
    every submit and given back after every call, a weak reference to itself) added a few
    microseconds to each (``bench/bench_move_parts.py --parts hop``). What it keeps:
    the future asyncio waits on, a call that fails or is cancelled before it runs, and at exit,
    as the pool, the calls already given run to their end before the thread is joined."""

    def __init__(self, name: str = "request") -> None:
        self._calls: queue.SimpleQueue = queue.SimpleQueue()
        self._stopped = False
        self._thread = threading.Thread(target=_serve, args=(self._calls,), name=name)
        self._thread.start()
        _queues[self._thread] = self._calls
        # Dropped without a shutdown, it still ends its thread (after the calls given).
        weakref.finalize(self, self._calls.put, None)

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        if self._stopped:
            raise RuntimeError("cannot schedule new futures after shutdown")
        future: Future = Future()
        self._calls.put((future, fn, args, kwargs))
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """The thread ends after the calls already given (``cancel_futures``: those not yet
        started are cancelled)."""
        if not self._stopped:
            self._stopped = True
            if cancel_futures:
                while True:
                    try:
                        call = self._calls.get_nowait()
                    except queue.Empty:
                        break
                    if call is not None:
                        call[0].cancel()
            self._calls.put(None)
        if wait and self._thread is not threading.current_thread():
            self._thread.join()


def _serve(calls: queue.SimpleQueue) -> None:
    """A ``RequestThread``'s loop (it holds no reference to its executor). The call and its
    arguments are let go before its future is answered: the caller, woken by the answer, may
    count on them being freed (a request's context, its jobs) by then."""
    while True:
        call = calls.get()
        if call is None:
            return
        future, fn, args, kwargs = call
        del call
        if not future.set_running_or_notify_cancel():
            del future, fn, args, kwargs
            continue
        try:
            result = fn(*args, **kwargs)
        except BaseException as failure:  # as ThreadPoolExecutor: the future carries it
            del fn, args, kwargs
            future.set_exception(failure)
            del failure  # no cycle through the traceback's frames
        else:
            del fn, args, kwargs
            future.set_result(result)
            del result
        del future


#: The calls of each request thread still running: ended and joined before the interpreter
#: exits (the thread holds no reference to its executor, which may be gone by then).
_queues: weakref.WeakKeyDictionary[threading.Thread, queue.SimpleQueue] = (
    weakref.WeakKeyDictionary()
)


def _end_threads_at_exit() -> None:
    running = list(_queues.items())
    for _thread, calls in running:
        calls.put(None)
    for thread, _calls in running:
        thread.join()


# Where ThreadPoolExecutor's threads are ended too: before the interpreter joins its threads,
# which it would otherwise wait on forever.
threading._register_atexit(_end_threads_at_exit)


class AfterAnswerJobs:
    """A request's jobs for after its answer, and the follow-ups they leave for the event loop.

    A follow-up (a move's ``PUBLISH``) is started on the loop as soon as its job has made it,
    from the request's thread: the doorbell does not wait for the rest of the answer's closing
    (the database connection given back) nor for the loop to notice that the closing is done.
    Follow-ups still run one after the other, in the order of their jobs."""

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.jobs: list[AfterAnswer] = []
        #: How many of ``jobs``, at its end, go after every other job (``add(job, last=True)``).
        self.last_ones = 0
        self.follow_ups: list[Callable[[], Awaitable[None]]] = []
        self.loop = loop
        #: The last follow-up started (each one waits for the one before it).
        self.started: asyncio.Future | None = None

    def add(self, job: AfterAnswer, last: bool = False) -> None:
        """Keep ``job``: after those kept before it, but before the ``last`` ones."""
        if last:
            self.jobs.append(job)
            self.last_ones += 1
        else:
            self.jobs.insert(len(self.jobs) - self.last_ones, job)

    def run_jobs(self) -> None:
        """Run the jobs kept so far, in order; one that fails is logged, the others still run."""
        jobs, self.jobs, self.last_ones = self.jobs, [], 0
        loop_watch.mark("jobs")
        loop_watch.work_begins()
        try:
            for job in jobs:
                try:
                    follow_up = job()
                except Exception:
                    logger.exception("a job after the answer failed")
                    continue
                if follow_up is not None:
                    self.follow_up_now(follow_up)
        finally:
            loop_watch.work_ends()
        loop_watch.mark("rendered")

    def follow_up_now(self, follow_up: Callable[[], Awaitable[None]]) -> None:
        """Start ``follow_up`` on the loop at once when called from another thread; else keep it
        for ``finish``."""
        if self.loop is None or self.loop.is_closed() or on_loop(self.loop):
            self.follow_ups.append(follow_up)
            return
        self.loop.call_soon_threadsafe(self.start, follow_up)

    def start(self, follow_up: Callable[[], Awaitable[None]]) -> None:
        """On the loop: ``follow_up`` after the follow-up started before it."""
        self.started = asyncio.ensure_future(self.after(self.started, follow_up))

    async def after(
        self, before: asyncio.Future | None, follow_up: Callable[[], Awaitable[None]]
    ) -> None:
        if before is not None:
            await asyncio.wait([before])
        try:
            await follow_up()
        except Exception:
            logger.exception("a job's follow-up after the answer failed")
        loop_watch.mark("published")

    def run_jobs_and_close_connections(self) -> None:
        """``run_jobs`` after the request gave its database connection back: the jobs' go back
        too."""
        try:
            self.run_jobs()
        finally:
            close_old_connections()

    async def finish(self, thread: Executor) -> None:
        """Jobs not yet run (``OneHopHandler`` runs them as it closes the answer) in ``thread``,
        then the follow-ups on the event loop, once those started from the thread are done."""
        if self.jobs:
            loop = asyncio.get_running_loop()
            await loop.run_in_executor(thread, self.run_jobs_and_close_connections)
        follow_ups, self.follow_ups = self.follow_ups, []
        for follow_up in follow_ups:
            self.start(follow_up)
        # A follow-up's call_soon_threadsafe from the thread ran before the thread's answer
        # reached this loop: every follow-up has started by now.
        if self.started is not None:
            await self.started
            # That task holds a copy of the request's context, which holds these jobs: kept, it
            # made a reference cycle of every move's request, its whole context in it, that only
            # a collection could free.
            self.started = None

    @property
    def pending(self) -> bool:
        return bool(self.jobs or self.follow_ups or self.started)


def on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    """Whether the caller runs on ``loop``'s own thread."""
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


#: The jobs of the running request, kept until its answer is sent (None outside a request).
_after_answer: ContextVar[AfterAnswerJobs | None] = ContextVar("after_answer", default=None)


def after_answer(job: AfterAnswer, last: bool = False) -> bool:
    """Keep ``job`` until the running request's answer is sent, then run it in the request's
    thread; with ``last``, after every job kept without it, even those kept later (bookkeeping
    that no one waits for goes after a move's doorbell). False outside a request served by
    ``RequestThreads`` (the worker, the test client): the caller then runs it at once."""
    pending = _after_answer.get()
    if pending is None:
        return False
    pending.add(job, last)
    return True


class Places:
    """At most ``size`` HTTP requests of a process are answered at once; the next ones wait on
    the event loop, with their bodies read, until one ends (``place``).

    Each request has a thread of its own, and at saturation a process had thirty of them with
    work at once: all but one waited for the GIL, and every hand-over woke another, so the event
    loop's thread waited for a core twice as long as it ran (``/proc/<pid>/task/*/schedstat``,
    two processes at 40 tables). A place is held from the request's first trip to its thread to
    its last, not for each trip: a request keeps its database connection in between, and a bound
    per trip let every pooled connection be held by requests waiting for a trip while the
    requests on a trip waited for a connection. A request that waits with nothing to do (a long
    poll) lets its place go meanwhile (``waiting``); one whose body is still coming in has none
    yet."""

    def __init__(self, size: int) -> None:
        self.free = asyncio.Semaphore(size)


#: The places of the running request's process (set by ``RequestThreads``), if it has any.
_places: ContextVar[Places | None] = ContextVar("request_places", default=None)


class Held:
    """A request's place, on the event loop's side: given back once, at the request's end,
    whatever its thread still does then (a poll whose client hung up runs to its end after the
    request has ended, and must not take a place it would never give back)."""

    def __init__(self, free: asyncio.Semaphore) -> None:
        self.free = free
        self.held = True
        self.ended = False

    def let_go(self) -> None:
        if self.held:
            self.held = False
            self.free.release()

    async def take_back(self) -> None:
        if self.ended or self.held:
            return
        await self.free.acquire()
        self.held = True
        if self.ended:
            self.let_go()

    def end(self) -> None:
        self.ended = True
        self.let_go()


#: The place the running request holds, and its event loop.
_place: ContextVar[tuple[asyncio.AbstractEventLoop, Held] | None] = ContextVar(
    "request_place", default=None
)


@contextlib.asynccontextmanager
async def place() -> Any:
    """Hold one of the process's places (``Places``) inside the block: what answers a request,
    once its body has been read."""
    places = _places.get()
    if places is None:
        yield
        return
    await places.free.acquire()
    held = Held(places.free)
    token = _place.set((asyncio.get_running_loop(), held))
    try:
        yield
    finally:
        _place.reset(token)
        held.end()


@contextlib.contextmanager
def waiting() -> Iterator[None]:
    """Around what a request's thread waits for with nothing to do (a long poll): the request's
    place (``Places``) is let go meanwhile and taken again after, unless the request has ended."""
    current = _place.get()
    if current is None:
        yield
        return
    loop, held = current
    loop.call_soon_threadsafe(held.let_go)
    try:
        yield
    finally:
        asyncio.run_coroutine_threadsafe(held.take_back(), loop).result()


class RequestThreads:
    """An ASGI wrapper: HTTP requests to ``app`` run their synchronous code on lent threads."""

    def __init__(self, app: Callable[..., Any], spare: int = 0, at_once: int = 0) -> None:
        self.app = app
        self.spare = spare
        #: At most ``at_once`` requests are served at once (0: no bound); see ``Places``.
        self.places = Places(at_once) if at_once > 0 else None
        self.idle: list[RequestThread] = [self.started_thread() for _ in range(spare)]
        #: The thread that starts the next spare threads (off the event loop).
        self.starter = self.started_thread() if spare else None
        self.starting = False
        #: HTTP requests in flight (lent a thread), answered or not.
        self.in_flight = 0

    def busy(self) -> bool:
        """Whether an HTTP request is in flight (the idle collector waits for none)."""
        return self.in_flight > 0

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        loop_watch.begin_request()
        places = _places.set(self.places)
        try:
            await self.serve(scope, receive, send)
        finally:
            _places.reset(places)

    async def serve(self, scope: dict, receive: Callable, send: Callable) -> None:
        """One HTTP request, on a thread lent at its first trip there."""
        thread = LentOnFirstCall(self)
        pending = AfterAnswerJobs(asyncio.get_running_loop())
        token = _after_answer.set(pending)
        self.in_flight += 1
        try:
            # Django's own ThreadSensitiveContext inside sees this one and uses its thread.
            async with ThreadSensitiveContext(executor=thread):
                await self.app(scope, receive, send)
            if pending.pending:
                # Shielded: should the server cancel the request now (its client went away), the
                # jobs (a move's doorbell) still run to their end.
                await asyncio.shield(pending.finish(thread))
        finally:
            self.in_flight -= 1
            _after_answer.reset(token)
            if thread.lent is not None:
                self.give_back(thread.lent)
            loop_watch.mark("ended")

    def new_thread(self) -> RequestThread:
        return RequestThread()

    def started_thread(self) -> RequestThread:
        """A new thread, started (the caller waits for it to run: never the event loop)."""
        thread = self.new_thread()
        thread.submit(int).result()
        return thread

    def lend(self) -> RequestThread:
        """An idle thread (a new one, started on first use, when none is); when fewer than
        ``spare`` are left idle, more are started meanwhile by the starter thread."""
        thread = self.idle.pop() if self.idle else self.new_thread()
        wanted = self.spare - len(self.idle)
        if wanted > 0 and self.starter is not None and not self.starting:
            self.starting = True
            loop = asyncio.get_running_loop()
            self.starter.submit(self.start_spares, loop, wanted)
        return thread

    def start_spares(self, loop: asyncio.AbstractEventLoop, count: int) -> None:
        """In the starter thread: ``count`` started threads, handed to the loop's idle ones."""
        threads = [self.started_thread() for _ in range(count)]
        try:
            loop.call_soon_threadsafe(self.add_spares, threads)
        except RuntimeError:  # the loop has closed
            for thread in threads:
                thread.shutdown(wait=False)

    def add_spares(self, threads: list[RequestThread]) -> None:
        self.starting = False
        for thread in threads:
            self.give_back(thread)

    def give_back(self, thread: RequestThread) -> None:
        if len(self.idle) < KEEP:
            self.idle.append(thread)
        else:
            thread.shutdown(wait=False)


class LentOnFirstCall(Executor):
    """A request's thread, lent by ``threads`` when the request first needs it: a request that
    waits for its place (``Places``) or for its body holds none meanwhile. Calls come from the
    event loop (``run_in_executor``), so lending needs no lock."""

    def __init__(self, threads: RequestThreads) -> None:
        self.threads = threads
        self.lent: RequestThread | None = None

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        if self.lent is None:
            self.lent = self.threads.lend()
        return self.lent.submit(fn, *args, **kwargs)


class SyncTwins:
    """A handler mixin for handlers that run views in the request's thread: a view that names a
    synchronous twin (``IN_REQUEST_THREAD``) is answered by the twin. Called from the chain in
    the request's thread, an async view costs two trips to the event loop and back (to run it,
    and for its own look at the database)."""

    def resolve_request(self, request: HttpRequest) -> Any:
        match = super().resolve_request(request)
        twin = getattr(match.func, IN_REQUEST_THREAD, None)
        if twin is not None:
            match.func = twin
        return match


def forget(request: HttpRequest) -> None:
    """A request answered and closed lets go of what it holds. Its user (a lazy object whose
    function holds the request), its messages' storage and its htmx details all refer back to
    it: left so, every request was cyclic garbage for the collector, its session, headers, query
    and resolver match with it, and the collections ran in the pauses between moves, where a
    move that came in waited for them (``tests/site/test_request_garbage.py``)."""
    vars(request).clear()


class OneHopHandler(SyncTwins, ASGIHandler):
    """Django's ASGI handler, with the middleware chain run as one synchronous call, and the
    request's signals in that same call where they can be.

    Under ASGI Django runs its middleware in async mode, and each of the site's middleware (all
    synchronous code: sessions, locale, the gate, CSRF…) then hops to the request's thread and
    back for its ``process_request`` and again for its ``process_response``: about twenty hops
    a request, each a wake-up of the event loop that every socket of the process shares. Here
    the whole chain and the view run in one hop, as under WSGI; an async view (the long poll)
    runs on the event loop from there, as Django runs async views under WSGI, unless it has a
    synchronous twin (``IN_REQUEST_THREAD``).

    Django's ``handle`` also hops once to send ``request_started`` and once more to close the
    answer after sending it (``request_finished``: the database connection goes back to the
    pool). Here ``request_started`` is sent at the start of the chain's hop, and an answer that
    has nothing to do after it is sent (no ``after_answer`` job, not streamed: its bytes are
    made) is closed at the end of that hop, before it is sent: one hop for a request where
    Django took three; a move's ``POST``, whose jobs wait for its answer, takes two."""

    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)

    async def handle(self, scope: dict, receive: Callable, send: Callable) -> None:
        """Read the body, answer (``answer``) while listening for the client to hang up, and
        close the answer unless the chain's hop already did."""
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        async with place():
            await self.answer_read(scope, body_file, receive, send)

    async def answer_read(
        self, scope: dict, body_file: Any, receive: Callable, send: Callable
    ) -> None:
        """``handle`` once the body is read."""
        try:
            set_script_prefix(get_script_prefix(scope))
            request, refusal = self.create_request(scope, body_file)
            if request is None:
                await sync_to_async(self.started, thread_sensitive=True)(scope)
                await self.send_response(refusal, send)
                await sync_to_async(refusal.close, thread_sensitive=True)()
                return
            try:
                response = await self.answer_unless_hung_up(request, receive, send)
                if response is None:
                    await signals.request_finished.asend(sender=self.__class__)
                elif not response.closed:
                    await sync_to_async(response.close, thread_sensitive=True)()
            finally:
                forget(request)
        finally:
            body_file.close()

    async def answer_unless_hung_up(
        self, request: HttpRequest, receive: Callable, send: Callable
    ) -> HttpResponseBase | None:
        """The answer, sent; None when the client hung up first (the answer is then given up,
        as Django gives it up: an async view is cancelled, a view in its thread runs to its
        end)."""
        answering = asyncio.ensure_future(self.answer(request, send))
        hanging_up = asyncio.ensure_future(self.listen_for_disconnect(receive))
        await asyncio.wait([hanging_up, answering], return_when=asyncio.FIRST_COMPLETED)
        for task in (hanging_up, answering):
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            elif not task.cancelled():
                failure = task.exception()
                # Read, not raised here: raised, its traceback would hold this frame, which
                # holds the task, which holds it (a cycle for a collection, every request: the
                # client's disconnect after the answer ends ``listen_for_disconnect`` so).
                if failure is not None and not isinstance(failure, RequestAborted):
                    raise failure
        if answering.cancelled():
            return None
        return answering.result()

    async def answer(self, request: HttpRequest, send: Callable) -> HttpResponseBase:
        response = await self.run_get_response(request)
        with contextlib.suppress(asyncio.CancelledError):  # the client hung up meanwhile
            await self.send_response(response, send)
        loop_watch.mark("sent")
        return response

    def started(self, scope: dict) -> None:
        """Django's ``request_started`` (its receivers reset the query log and close the
        thread's outdated database connections), in the request's thread."""
        signals.request_started.send(sender=self.__class__, scope=scope)

    def get_response(self, request: HttpRequest) -> HttpResponseBase:
        """The answer, in the request's thread, after ``request_started``. An answer with jobs
        for after it (``after_answer``) runs them as Django closes it once sent: in the hop to
        the request's thread that closing takes anyway, while the request still holds its
        database connection, instead of one more hop afterwards. Any other answer (not streamed)
        is closed here, before it is sent, which saves the hop to close it."""
        loop_watch.mark_in_thread("thread")
        loop_watch.work_begins()
        try:
            self.started(request.scope)
            response = super().get_response(request)
        finally:
            loop_watch.work_ends()
        loop_watch.mark_in_thread("made")
        pending = _after_answer.get()
        if pending is not None and pending.jobs:
            close = response.close

            def run_jobs_then_close() -> None:
                try:
                    pending.run_jobs()
                finally:
                    # The response held this function, which holds the response's own close:
                    # let go of it, so that reference counts free the response.
                    vars(response).pop("close", None)
                    close()

            response.close = run_jobs_then_close
        elif not response.streaming:
            response.close()
        return response

    async def get_response_async(self, request: HttpRequest) -> HttpResponseBase:
        return await sync_to_async(self.get_response, thread_sensitive=True)(request)
