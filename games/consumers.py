"""WebSocket consumers: thin. A socket joins its table's (or the lobby's) group; a group message
only says "version N"; the socket then renders its own user's view and pushes it as hx-swap-oob
fragments. Nothing a consumer sends is computed for anyone but the socket's own user."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs

from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils import translation
from django.utils.translation.trans_real import (
    get_supported_language_variant,
    parse_accept_lang_header,
)

from pdc_site import gate

from . import chat, limits, notify, rendering, services
from .models import Match

logger = logging.getLogger(__name__)

#: Largest frame a client may send, and how many frames it may send per window.
MAX_FRAME_BYTES = 4096
RATE_WINDOW_SECONDS = 10.0
RATE_MAX_FRAMES = 30
#: Sockets one client (a user, or an address for visitors) may hold open at once: two per page
#: (the page's own and the player's), so about ten tabs.
SOCKETS_PER_CLIENT = 20
#: How long a socket's place in that cap lasts if its process dies without giving it back.
SOCKET_HOLD_SECONDS = 24 * 3600
# Close codes: the server library accepts only 1000 and 3000-4999 from an application, and the
# page reconnects by itself only after 1006, 1011, 1012 and 1013. So every refusal is a 4xxx
# code (no reconnecting into the same refusal), and a socket that cannot join its group for
# now (Redis away) is told to try again later.
CLOSE_POLICY_VIOLATION = 4008
CLOSE_TOO_BIG = 4009
CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_TOO_MANY_SOCKETS = 4429
CLOSE_TRY_AGAIN_LATER = 1013


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


def client_key(scope: dict) -> str:
    """Who holds a socket, for the cap: the user, or the address of a visitor."""
    user = scope.get("user")
    if user is not None and user.is_authenticated:
        return f"user:{user.pk}"
    client = scope.get("client") or ("?",)
    return f"ip:{client[0]}"


class RateLimitedConsumer(AsyncWebsocketConsumer):
    """The base of the site's sockets: admission into one group, a cap on the sockets of one
    client, background tasks that end with the socket, and refusal of oversized frames, floods
    and malformed ones (a misbehaving client is cut off).

    However a socket ends (either side closes it, it is refused, the consumer crashes, the server
    cancels it), ``release`` runs: its tasks end, its group forgets it and its place in the
    client's cap is given back."""

    group: str | None = None
    holder: str | None = None

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        self.tasks: list[asyncio.Future] = []
        try:
            await super().__call__(scope, receive, send)
        finally:
            await self.release()

    async def admit(self, group: str, verdict: bool | None = True) -> bool:
        """Accept the socket into ``group``; close it with 4404 when what it asks for does not
        exist (``verdict`` None), 4403 when it may not see it (False) and 4429 when its client
        holds too many sockets already."""
        if verdict is None:
            await self.close(code=CLOSE_NOT_FOUND)
            return False
        if not verdict:
            await self.close(code=CLOSE_FORBIDDEN)
            return False
        holder = client_key(self.scope)
        taken = await sync_to_async(limits.take)(
            "socket", holder, SOCKETS_PER_CLIENT, SOCKET_HOLD_SECONDS
        )
        if not taken:
            await self.close(code=CLOSE_TOO_MANY_SOCKETS)
            return False
        self.holder = holder
        try:
            await self.channel_layer.group_add(group, self.channel_name)
        except notify.LAYER_ERRORS:
            logger.warning("socket could not join group %s", group, exc_info=True)
            await self.close(code=CLOSE_TRY_AGAIN_LATER)
            return False
        self.group = group
        await self.accept()
        return True

    def keep_running(self, work: Awaitable[None]) -> None:
        """Run ``work`` (a coroutine) beside the socket until it ends."""
        self.tasks.append(asyncio.ensure_future(work))

    def keep_checking(self, check: Callable[[], Awaitable[None]]) -> None:
        """Run ``check`` every ``poll_seconds()`` while the socket lives: the re-check that
        recovers a lost doorbell. A check that fails (the database away for a moment) is logged
        and tried again next time: the re-check must never die before its socket."""

        async def every_few_seconds() -> None:
            while True:
                await asyncio.sleep(poll_seconds())
                try:
                    await check()
                except Exception:
                    logger.warning("a socket's re-check failed; trying again", exc_info=True)

        self.keep_running(every_few_seconds())

    async def release(self) -> None:
        for task in self.tasks:
            task.cancel()
        if self.tasks:
            await asyncio.wait(self.tasks)
        self.tasks = []
        if self.group is not None:
            group, self.group = self.group, None
            try:
                await self.channel_layer.group_discard(group, self.channel_name)
            except notify.LAYER_ERRORS:
                logger.warning("socket could not leave group %s", group, exc_info=True)
        if self.holder is not None:
            holder, self.holder = self.holder, None
            await sync_to_async(limits.give_back)("socket", holder)

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
        # After joining the group: whatever changed before is in this first render, whatever
        # changes after rings.
        await self.send_table()
        self.keep_checking(self.check_version)
        # Lines written while the socket was away (a table without chat sends nothing more).
        await self.send_chat(unless_empty=True)

    async def check_version(self) -> None:
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
            await self.send_chat(unless_empty=True)
        else:
            await self.send_error("Unknown message.")

    async def chat_posted(self, event: dict) -> None:
        await self.send_chat()

    async def send_chat(self, unless_empty: bool = False) -> None:
        """The chat's lines as this socket's viewer reads them (their mutes): a fragment of its
        own, apart from the table's, rendered for this viewer only."""
        html = await self.render_in_language(
            chat.render_chat_lines, self.match_id, self.user, self.invite, unless_empty
        )
        if html is not None:
            await self.send(text_data=html)

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
