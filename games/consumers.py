"""WebSocket consumers: thin. A socket joins its table's (or the lobby's) group; a group message
only says "version N"; the socket then renders its own user's view and pushes it as hx-swap-oob
fragments. Nothing a consumer sends is computed for anyone but the socket's own user."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils import translation
from django.utils.translation.trans_real import (
    get_supported_language_variant,
    parse_accept_lang_header,
)

from pdc_site import gate

from . import notify, rendering, services
from .models import Match

#: Largest frame a client may send, and how many frames it may send per window.
MAX_FRAME_BYTES = 4096
RATE_WINDOW_SECONDS = 10.0
RATE_MAX_FRAMES = 30
CLOSE_POLICY_VIOLATION = 1008
CLOSE_TOO_BIG = 1009
CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404


def poll_seconds() -> float:
    """How often a table socket re-reads its version from the database. The doorbell may be lost,
    and with the in-memory layer a move made by another process (the worker) rings no bell here."""
    return 10.0 if getattr(settings, "REDIS_URL", None) else 2.0


def socket_language(scope: dict) -> str:
    """The language the socket's pages are in: the language cookie, else Accept-Language."""
    cookie = scope.get("cookies", {}).get(settings.LANGUAGE_COOKIE_NAME)
    headers = dict(scope.get("headers", []))
    wanted = [cookie] if cookie else []
    accept = headers.get(b"accept-language", b"").decode("latin-1")
    wanted += [code for code, _quality in parse_accept_lang_header(accept) if code != "*"]
    for code in wanted:
        with contextlib.suppress(LookupError):
            return get_supported_language_variant(code)
    return settings.LANGUAGE_CODE


def rendered_in(language: str, render: Callable[..., Any], *args: Any) -> Any:
    with translation.override(language):
        return render(*args)


class RateLimitedConsumer(AsyncWebsocketConsumer):
    """The base of the site's sockets: admission into one group, background tasks that end with
    the socket, and refusal of oversized frames and floods (a misbehaving client is cut off)."""

    async def admit(self, group: str, verdict: bool | None = True) -> bool:
        """Accept the socket into ``group``; close it with 4404 when what it asks for does not
        exist (``verdict`` None) and 4403 when it may not see it (False)."""
        if verdict is None:
            await self.close(code=CLOSE_NOT_FOUND)
            return False
        if not verdict:
            await self.close(code=CLOSE_FORBIDDEN)
            return False
        self.group = group
        await self.channel_layer.group_add(group, self.channel_name)
        await self.accept()
        return True

    def keep_running(self, work: Any) -> None:
        """Run ``work`` (a coroutine) beside the socket until it disconnects."""
        self.tasks = [*getattr(self, "tasks", []), asyncio.ensure_future(work)]

    async def disconnect(self, code: int) -> None:
        for task in getattr(self, "tasks", []):
            task.cancel()
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        size = len(text_data.encode()) if text_data is not None else len(bytes_data or b"")
        if size > MAX_FRAME_BYTES:
            await self.close(code=CLOSE_TOO_BIG)
            return
        now = time.monotonic()
        self.recent = [t for t in getattr(self, "recent", []) if now - t < RATE_WINDOW_SECONDS]
        self.recent.append(now)
        if len(self.recent) > RATE_MAX_FRAMES:
            await self.close(code=CLOSE_POLICY_VIOLATION)
            return
        try:
            message = gate.load_json(text_data or "")
        except gate.BadInput:
            await self.send_error("Messages must be JSON.")
            return
        if not isinstance(message, dict):
            await self.send_error("Messages must be JSON objects.")
            return
        await self.handle(message)

    async def handle(self, message: dict) -> None:
        await self.send_error("Unknown message.")

    async def send_error(self, text: str) -> None:
        html = await self.render_in_language(rendering.render_socket_error, text)
        await self.send(text_data=html)

    async def render_in_language(self, render: Callable[..., Any], *args: Any) -> Any:
        if not hasattr(self, "language"):
            self.language = socket_language(self.scope)
        return await database_sync_to_async(rendered_in)(self.language, render, *args)


class TableConsumer(RateLimitedConsumer):
    async def connect(self) -> None:
        self.match_id = int(self.scope["url_route"]["kwargs"]["match_id"])
        self.user = self.scope.get("user")
        invite = parse_qs(self.scope.get("query_string", b"").decode()).get("invite", [None])[0]
        self.invite = invite
        self.sent_version = -1
        verdict = await database_sync_to_async(self.allowed)()
        if not await self.admit(notify.table_group(self.match_id), verdict):
            return
        await self.send_table()
        self.keep_running(self.poll_version())

    async def poll_version(self) -> None:
        while True:
            await asyncio.sleep(poll_seconds())
            version = await database_sync_to_async(self.current_version)()
            if version is not None and version > self.sent_version:
                await self.send_table()

    def current_version(self) -> int | None:
        return Match.objects.filter(pk=self.match_id).values_list("version", flat=True).first()

    def allowed(self) -> bool | None:
        match = Match.objects.filter(pk=self.match_id).first()
        # A private table the user may not watch is refused exactly like a missing one.
        if match is None or not services.may_watch(match, self.user, self.invite):
            return None
        return True

    async def table_changed(self, event: dict) -> None:
        # Doorbells may arrive late or twice: a version already shown needs no new render.
        if event.get("version", 0) > self.sent_version:
            await self.send_table()

    async def handle(self, message: dict) -> None:
        # A client that saw a gap in versions (or came back from sleep) asks for the whole table.
        if message.get("type") == "sync":
            self.sent_version = -1
            await self.send_table()
        else:
            await self.send_error("Unknown message.")

    async def send_table(self) -> None:
        rendered = await self.render_in_language(self.render)
        if rendered is None:
            return
        version, html = rendered
        if version > self.sent_version:
            self.sent_version = version
            await self.send(text_data=html)

    def render(self) -> tuple[int, str] | None:
        match = Match.objects.filter(pk=self.match_id).first()
        if match is None:
            return None
        return match.version, rendering.render_table_fragments(match, self.user, self.invite)


class LobbyConsumer(RateLimitedConsumer):
    async def connect(self) -> None:
        self.user = self.scope.get("user")
        await self.admit(notify.LOBBY_GROUP)
        await self.send_lobby()

    async def lobby_changed(self, event: dict) -> None:
        await self.send_lobby()

    async def handle(self, message: dict) -> None:
        if message.get("type") == "sync":
            await self.send_lobby()
        else:
            await self.send_error("Unknown message.")

    async def send_lobby(self) -> None:
        html = await self.render_in_language(rendering.render_lobby_fragments, self.user)
        await self.send(text_data=html)
