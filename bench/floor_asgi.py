"""The floor of ``bench/live.py``: the least a live site can do for a move.

A socket joins its table's group and forwards every group message; ``POST /send/<table>/<version>``
rings the group. It runs under daphne, on the site's own settings and channel layer (Redis when
``REDIS_URL`` is set), so the only difference from the site is everything the site does for a
move: checking it, saving it and rendering each seat's view.
"""

from __future__ import annotations

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pdc_site.settings")

import django

django.setup()

from channels.generic.http import AsyncHttpConsumer  # noqa: E402
from channels.generic.websocket import AsyncWebsocketConsumer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import path  # noqa: E402

from pdc_site.loop_watch import watching  # noqa: E402


def group_of(table: int) -> str:
    return f"floor-{table}"


class Echo(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.group = group_of(self.scope["url_route"]["kwargs"]["table"])
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def floor_push(self, event: dict) -> None:
        version = int(event["version"])
        await self.send(text_data=f'<div id="table-status" data-version="{version}"></div>')


class Ring(AsyncHttpConsumer):
    async def handle(self, body: bytes) -> None:
        kwargs = self.scope["url_route"]["kwargs"]
        version = int(kwargs["version"])
        await self.channel_layer.group_send(
            group_of(kwargs["table"]), {"type": "floor.push", "version": version}
        )
        await self.send_response(
            200,
            b'{"version": %d}' % version,
            headers=[(b"Content-Type", b"application/json")],
        )


class Ping(AsyncHttpConsumer):
    """A trivial endpoint: daphne's own cost of an HTTP request (``bench/bench_http.py``)."""

    async def handle(self, body: bytes) -> None:
        await self.send_response(200, b"{}", headers=[(b"Content-Type", b"application/json")])


application = watching(
    ProtocolTypeRouter(
        {
            "http": URLRouter(
                [
                    path("send/<int:table>/<int:version>", Ring.as_asgi()),
                    path("ping", Ping.as_asgi()),
                ]
            ),
            "websocket": URLRouter([path("ws/floor/<int:table>/", Echo.as_asgi())]),
        }
    )
)
