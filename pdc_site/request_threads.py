"""Long-lived threads for the site's synchronous request code.

Django's ASGI handler runs each request's synchronous code (views, the ORM) on a thread of its
own: a new thread for every request, and another one to join it afterwards. Starting a thread
blocks the event loop until the thread runs, and on a busy machine that wait was where a daphne
process spent its time (``py-spy dump`` under load: the loop in ``Thread.start``), while every
socket of the process waited behind it. ``RequestThreads`` lends each request one thread of a
set that lives as long as the process: one request at a time per thread, as before, and no
thread started in the steady state. A request never waits for a thread (long polls hold theirs
while they wait): when all are lent, one more is made, and kept only up to ``KEEP``.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.core.handlers.asgi import ASGIHandler
from django.http import HttpRequest, HttpResponseBase

#: Threads kept for the next requests once their request has ended.
KEEP = 32
#: The attribute by which an async view names its synchronous twin, which ``OneHopHandler``
#: calls instead, in the request's thread: for a view that may wait (a long poll) but most often
#: answers at once, which then costs no trip to the event loop and back.
IN_REQUEST_THREAD = "in_request_thread"


class RequestThreads:
    """An ASGI wrapper: HTTP requests to ``app`` run their synchronous code on lent threads."""

    def __init__(self, app: Callable[..., Any]) -> None:
        self.app = app
        self.idle: list[ThreadPoolExecutor] = []

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        thread = self.idle.pop() if self.idle else self.new_thread()
        try:
            # Django's own ThreadSensitiveContext inside sees this one and uses its thread.
            async with ThreadSensitiveContext(executor=thread):
                await self.app(scope, receive, send)
        finally:
            self.give_back(thread)

    def new_thread(self) -> ThreadPoolExecutor:
        return ThreadPoolExecutor(max_workers=1, thread_name_prefix="request")

    def give_back(self, thread: ThreadPoolExecutor) -> None:
        if len(self.idle) < KEEP:
            self.idle.append(thread)
        else:
            thread.shutdown(wait=False)


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


class OneHopHandler(SyncTwins, ASGIHandler):
    """Django's ASGI handler, with the middleware chain run as one synchronous call.

    Under ASGI Django runs its middleware in async mode, and each of the site's middleware (all
    synchronous code: sessions, locale, the gate, CSRF…) then hops to the request's thread and
    back for its ``process_request`` and again for its ``process_response``: about twenty hops
    a request, each a wake-up of the event loop that every socket of the process shares. Here
    the whole chain and the view run in one hop, as under WSGI; an async view (the long poll)
    runs on the event loop from there, as Django runs async views under WSGI, unless it has a
    synchronous twin (``IN_REQUEST_THREAD``)."""

    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)

    async def get_response_async(self, request: HttpRequest) -> HttpResponseBase:
        return await sync_to_async(self.get_response, thread_sensitive=True)(request)
