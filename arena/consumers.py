"""The arena page's socket. Like the table's: the group message (``arena.changed``) only rings;
the socket re-reads the arena and pushes its own user's view as hx-swap-oob fragments.

Two things differ from a table. An arena rings often (every finished match, every join), so
rings are coalesced and the page is re-rendered at most once per ``THROTTLE_SECONDS``. And the
socket takes its player to their new table when the arena seats them (the fragments then hold
an element that asks for the redirect).
"""

from __future__ import annotations

import asyncio
import time
from urllib.parse import parse_qs

from channels.db import database_sync_to_async

from games.consumers import RateLimitedConsumer

from . import rendering, services
from .models import Tournament

#: At most one render per this many seconds, however often the arena rings.
THROTTLE_SECONDS = 1.0


def _int_or_none(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


class ArenaConsumer(RateLimitedConsumer):
    async def connect(self) -> None:
        self.tournament_id = int(self.scope["url_route"]["kwargs"]["tournament_id"])
        self.user = self.scope.get("user")
        query = parse_qs(self.scope.get("query_string", b"").decode())
        self.invite = query.get("invite", [None])[0]
        # The table the page already shows as the player's: only another one is news.
        self.shown_table = _int_or_none(query.get("table", [None])[0])
        self.fingerprint: tuple | None = None
        self.last_render = float("-inf")
        self.pending: asyncio.Future | None = None
        verdict = await database_sync_to_async(self.allowed)()
        if not await self.admit(services.arena_group(self.tournament_id), verdict):
            return
        await self.send_arena()
        self.keep_checking(self.check_fingerprint)

    def allowed(self) -> bool | None:
        tournament = Tournament.objects.filter(pk=self.tournament_id).first()
        # A private arena the user may not see is refused exactly like a missing one.
        if tournament is None or not services.may_view(tournament, self.user, self.invite):
            return None
        return True

    async def release(self) -> None:
        pending = getattr(self, "pending", None)
        if pending is not None:
            pending.cancel()
            await asyncio.wait([pending])
        await super().release()

    async def arena_changed(self, event: dict) -> None:
        self.schedule_render()

    async def handle(self, message: dict) -> None:
        if message.get("type") == "sync":
            self.schedule_render()
        else:
            await self.send_error("Unknown message.")

    async def check_fingerprint(self) -> None:
        """The doorbell may be lost, and with the in-memory layer the worker (another process)
        rings no bell here: a cheap fingerprint read tells whether to re-render."""
        fingerprint = await database_sync_to_async(rendering.arena_fingerprint)(
            self.tournament_id, self.user
        )
        if fingerprint != self.fingerprint:
            self.schedule_render()

    def schedule_render(self) -> None:
        """Render soon, and not sooner than a second after the previous render: rings arriving
        meanwhile join the render already planned."""
        if self.pending is not None and not self.pending.done():
            return
        delay = max(0.0, self.last_render + THROTTLE_SECONDS - time.monotonic())
        self.pending = asyncio.ensure_future(self.render_after(delay))

    async def render_after(self, delay: float) -> None:
        if delay > 0:
            await asyncio.sleep(delay)
        # Cleared before reading the database: a ring during the render plans the next one.
        self.pending = None
        await self.send_arena()

    async def send_arena(self) -> None:
        self.last_render = time.monotonic()
        rendered = await self.render_in_language(
            rendering.render_for_socket,
            self.tournament_id,
            self.user,
            self.invite,
            self.shown_table,
        )
        if rendered is None:
            return
        self.fingerprint, self.shown_table, html = rendered
        await self.send(text_data=html)
