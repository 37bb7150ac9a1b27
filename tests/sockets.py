"""Talking to the site's sockets in tests (WebsocketCommunicator on the real routes)."""

from __future__ import annotations

from asgiref.sync import SyncToAsync
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

from pdc_site.routing import websocket_urlpatterns

APP = URLRouter(websocket_urlpatterns)


def communicator(path: str, user=None) -> WebsocketCommunicator:
    """A socket to ``path`` as ``user`` (anonymous by default), not yet connected."""
    socket = WebsocketCommunicator(APP, path)
    socket.scope["user"] = user or AnonymousUser()
    return socket


async def connected(path: str, user=None) -> tuple[WebsocketCommunicator, str]:
    """A socket let in, with the first frame it received."""
    socket = communicator(path, user)
    ok, _ = await socket.connect()
    assert ok
    return socket, await socket.receive_from(timeout=5)


def counted_hops(monkeypatch) -> list:
    """The functions run through ``sync_to_async`` (and ``database_sync_to_async``) from now on:
    each is a trip from the event loop to a thread."""
    hops = []
    call = SyncToAsync.__call__

    async def counted(self, *args, **kwargs):
        hops.append(self.func)
        return await call(self, *args, **kwargs)

    monkeypatch.setattr(SyncToAsync, "__call__", counted)
    return hops


def first_arguments(monkeypatch, module, name: str) -> list:
    """The first argument of every call of ``module.name`` from now on (it still runs)."""
    calls: list = []
    real = getattr(module, name)

    def counting(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counting)
    return calls
