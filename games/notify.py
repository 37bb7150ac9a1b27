"""The doorbell: after a commit, tell a table's group (and the lobby) that something changed.

A group message never carries game data, only the new version: each socket renders its own seat's
view, so nothing hidden can reach the wrong player. The channel layer may drop a message; the
database stays the truth and a client that sees a gap asks for the whole table.
"""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

logger = logging.getLogger(__name__)

LOBBY_GROUP = "lobby"


def table_group(match_id: int) -> str:
    return f"table-{match_id}"


def user_group(user_id: int) -> str:
    return f"user-{user_id}"


def after_commit(match, lobby: bool = False) -> None:
    match_id, version = match.pk, match.version
    transaction.on_commit(lambda: ring(match_id, version, lobby))


def ring(match_id: int, version: int, lobby: bool) -> None:
    send(table_group(match_id), {"type": "table.changed", "match": match_id, "version": version})
    if lobby:
        send(LOBBY_GROUP, {"type": "lobby.changed"})


def send(group: str, message: dict) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, message)
    except Exception:  # the doorbell may fail (Redis away): the database is still the truth
        logger.warning("could not notify group %s", group, exc_info=True)
