"""The per-page socket of a logged-in player: heartbeats for presence, and live invitations and
friend requests on whatever page they are."""

from __future__ import annotations

from channels.db import database_sync_to_async

from games import notify
from games.consumers import CLOSE_FORBIDDEN, RateLimitedConsumer

from . import presence, rendering


class PlayerConsumer(RateLimitedConsumer):
    async def connect(self) -> None:
        self.user = self.scope.get("user")
        if self.user is None or not self.user.is_authenticated:
            await self.close(code=CLOSE_FORBIDDEN)
            return
        self.group = notify.user_group(self.user.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await database_sync_to_async(presence.heartbeat)(self.user.pk)
        # Whatever rang while this socket was still connecting: the page may be older than it.
        await self.send_invitations()
        await self.user_changed({})

    async def send_invitations(self) -> None:
        html = await self.render_in_language(rendering.render_invitations, self.user)
        await self.send(text_data=html)

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def handle(self, message: dict) -> None:
        if message.get("type") == "ping":
            await database_sync_to_async(presence.heartbeat)(self.user.pk)
        else:
            await self.send_error("Unknown message.")

    async def user_invited(self, event: dict) -> None:
        await self.send_invitations()

    async def user_changed(self, event: dict) -> None:
        html = await self.render_in_language(rendering.render_friend_requests, self.user)
        await self.send(text_data=html)
