"""The per-page socket of a logged-in player: heartbeats for presence, and live invitations and
friend requests on whatever page they are."""

from __future__ import annotations

from channels.db import database_sync_to_async

from games import notify
from games.consumers import RateLimitedConsumer

from . import presence, rendering


class PlayerConsumer(RateLimitedConsumer):
    async def connect(self) -> None:
        self.user = self.scope.get("user")
        signed_in = self.user is not None and self.user.is_authenticated
        if not await self.admit(notify.user_group(self.user.pk) if signed_in else "", signed_in):
            return
        # The page says what it is (``?page=play`` on arena pages and tables).
        self.at_play = b"page=play" in self.scope.get("query_string", b"").split(b"&")
        await database_sync_to_async(presence.heartbeat)(self.user.pk, self.at_play)
        # Whatever rang while this socket was still connecting: the page may be older than it.
        await self.send_invitations()
        await self.user_changed({})

    async def send_invitations(self) -> None:
        html = await self.render_in_language(rendering.render_invitations, self.user)
        await self.send(text_data=html)

    async def handle(self, message: dict) -> None:
        if message.get("type") == "ping":
            await database_sync_to_async(presence.heartbeat)(self.user.pk, self.at_play)
        else:
            await self.send_error("Unknown message.")

    async def user_invited(self, event: dict) -> None:
        await self.send_invitations()

    async def user_changed(self, event: dict) -> None:
        html = await self.render_in_language(rendering.render_friend_requests, self.user)
        await self.send(text_data=html)
