"""Who is online: each open page's socket sends a heartbeat; a player is online while their last
heartbeat is recent. Disconnect events are not trusted (a closed laptop sends none)."""

from __future__ import annotations

from collections.abc import Iterable

from django.core.cache import cache

HEARTBEAT_SECONDS = 25
#: Two missed heartbeats and a little slack.
ONLINE_FOR_SECONDS = 2 * HEARTBEAT_SECONDS + 10


def _key(user_id: int) -> str:
    return f"presence:{user_id}"


def _at_play_key(user_id: int) -> str:
    return f"presence-at-play:{user_id}"


def heartbeat(user_id: int, at_play: bool = False) -> None:
    """The player has a page open; ``at_play``: an arena page or a table."""
    cache.set(_key(user_id), 1, timeout=ONLINE_FOR_SECONDS)
    if at_play:
        cache.set(_at_play_key(user_id), 1, timeout=ONLINE_FOR_SECONDS)


def is_online(user_id: int) -> bool:
    return cache.get(_key(user_id)) is not None


def is_at_play(user_id: int) -> bool:
    """An arena page or a table of the player's has sent a heartbeat lately: they are there to
    play (an arena seats them again only then, after a table they did not play)."""
    return cache.get(_at_play_key(user_id)) is not None


def online_ids(user_ids: Iterable[int]) -> set[int]:
    ids = list(user_ids)
    found = cache.get_many([_key(i) for i in ids])
    return {i for i in ids if _key(i) in found}
