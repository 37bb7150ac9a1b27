"""Talking to the site's sockets in tests (WebsocketCommunicator on the real routes)."""

from __future__ import annotations

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
