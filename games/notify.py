"""The doorbell: after a commit, tell a table's group (and the lobby) that something changed.

A table's doorbell carries the new version and, when the process that made the change could render
them, each watching viewer's parts keyed by viewer (``games.published``): a socket forwards only
its own viewer's entry, else it renders its own seat's view, so nothing hidden reaches the wrong
player. The channel layer may drop a message; the
database stays the truth and a client that sees a gap asks for the whole table.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from redis.exceptions import RedisError

from pdc_site import loop_watch, request_threads
from pdc_site.layer import PubSubChannelLayer

logger = logging.getLogger(__name__)

LOBBY_GROUP = "lobby"
#: What a channel layer raises while Redis is away or slow (redis-py's own errors, and the
#: builtin ones of sockets: ``TimeoutError`` and ``ConnectionError`` are ``OSError``).
LAYER_ERRORS = (RedisError, OSError)


def table_group(match_id: int) -> str:
    return f"table-{match_id}"


def user_group(user_id: int) -> str:
    return f"user-{user_id}"


class RenderAhead:
    """The watchers' parts of ``match``'s new version, rendered while its commit is on its way
    (``rows.save_and_commit``'s ``while_committing``), for ``after_commit`` to ring with."""

    def __init__(self, match) -> None:
        self.match = match
        self.rendered = None

    def __call__(self) -> None:
        from . import published  # the doorbell is below the rendering

        self.rendered = published.render_ahead(self.match)


def after_commit(match, lobby: bool = False, ahead: RenderAhead | None = None) -> None:
    """Ring the table (and the lobby) once the transaction commits: in a request, after its
    answer was sent, so that the mover does not wait for the parts rendered for the watchers
    (unless they were rendered ``ahead``, while the commit was on its way)."""
    match_id, version = match.pk, match.version

    def ring_after_answer() -> None:
        loop_watch.name_move(match_id, version)
        rendered = ahead.rendered if ahead is not None else None
        if rendered is not None and here_now_elsewhere_after_answer(
            lambda: doorbells(match_id, version, lobby, match, rendered)
        ):
            return
        if not request_threads.after_answer(
            lambda: publish_here(doorbells(match_id, version, lobby, match, rendered))
        ):
            ring(match_id, version, lobby, match, rendered)

    transaction.on_commit(ring_after_answer)


def here_now_elsewhere_after_answer(rung: Callable[[], list[tuple[str, dict]]]) -> bool:
    """In a request, with the Pub/Sub layer: the doorbells ``rung`` makes queued for this
    process's sockets now, and published for the other processes after the answer
    (``publish_now``'s halves). False, with nothing done, elsewhere."""
    layer = get_channel_layer()
    if not isinstance(layer, PubSubChannelLayer):
        return False
    delivered: list[tuple[str, str, bytes]] = []

    def publish_elsewhere() -> None:
        for group, channel, data in delivered:
            try:
                layer.publish_delivered(channel, data)
            except Exception:  # the doorbell may fail (Redis away): the database is the truth
                _could_not_notify(group)

    if not request_threads.after_answer(publish_elsewhere):
        return False
    for group, message in rung():
        try:
            delivered.append((group, *layer.deliver_here(group, message)))
        except Exception:  # never raised to the commit's hook: the database is the truth
            _could_not_notify(group)
    loop_watch.mark("published")
    return True


def ring(match_id: int, version: int, lobby: bool, match=None, rendered=None) -> None:
    """Ring the table (and the lobby) now."""
    for group, message in doorbells(match_id, version, lobby, match, rendered):
        send(group, message)


def doorbells(
    match_id: int, version: int, lobby: bool, match=None, rendered=None
) -> list[tuple[str, dict]]:
    """The groups to ring and their messages. With ``match`` as saved at ``version`` (the last
    change of its transaction), the table's doorbell carries the parts of the table's viewers
    rendered here (or ``rendered`` while the commit was on its way), once for every process
    (``games.published``); an earlier version of the same transaction, or a render that
    failed, rings with the version only."""
    message = {"type": "table.changed", "match": match_id, "version": version}
    if match is not None and match.version == version:
        from . import published  # the doorbell is below the rendering

        parts = published.published(match, rendered)
        if parts is not None:
            message["parts"] = parts
    rung = [(table_group(match_id), message)]
    if lobby:
        rung.append((LOBBY_GROUP, {"type": "lobby.changed"}))
    return rung


def send(group: str, message: dict) -> None:
    """Send ``message`` to ``group`` now, from this thread (a request's, the worker's): with
    Redis straight from here, else through the event loop."""
    try:
        follow_up = publish_here([(group, message)])
        if follow_up is not None:
            async_to_sync(follow_up)()
    except Exception:  # called where it cannot reach the event loop: the database is the truth
        _could_not_notify(group)


def publish_here(rung: list[tuple[str, dict]]) -> Callable[[], Awaitable[None]] | None:
    """Send ``rung`` from this thread when the layer can (``PubSubChannelLayer.publish_now``:
    no turn of the event loop for it); else the follow-up that sends it from the loop
    (``sender``), as with the in-memory layer."""
    layer = get_channel_layer()
    if not isinstance(layer, PubSubChannelLayer):
        return sender(rung)
    for group, message in rung:
        try:
            layer.publish_now(group, message)
        except Exception:  # the doorbell may fail (Redis away): the database is still the truth
            _could_not_notify(group)
    loop_watch.mark("published")
    return None


def sender(rung: list[tuple[str, dict]]) -> Callable[[], Awaitable[None]]:
    """What sends ``rung`` from the event loop (no hop from a thread to it and back)."""

    async def send_all() -> None:
        layer = get_channel_layer()
        if layer is None:
            return
        for group, message in rung:
            try:
                await layer.group_send(group, message)
            except Exception:  # the doorbell may fail (Redis away): the database is still the truth
                _could_not_notify(group)

    return send_all


def _could_not_notify(group: str) -> None:
    """Log a doorbell that failed, with its error (called in the ``except`` that caught it)."""
    logger.warning("could not notify group %s", group, exc_info=True)


class Listener:
    """Waits for a group's doorbell outside a consumer (the API's long poll): ``async with
    Listener(group) as listener: await listener.wait(seconds)``. While the layer is away it
    just waits out the time; the caller re-reads the database after each wait anyway."""

    def __init__(self, group: str) -> None:
        self.group = group
        self.layer = get_channel_layer()
        self.channel: str | None = None

    async def __aenter__(self) -> Listener:
        if self.layer is None:
            return self
        try:
            channel = await self.layer.new_channel()
            await self.layer.group_add(self.group, channel)
            self.channel = channel
        except LAYER_ERRORS:
            logger.warning("could not listen to group %s", self.group, exc_info=True)
        return self

    @property
    def hears(self) -> bool:
        """Whether the doorbell reaches this listener (it joined the group)."""
        return self.channel is not None

    async def wait(self, seconds: float) -> None:
        """Until the doorbell rings or ``seconds`` pass."""
        loop = asyncio.get_running_loop()
        until = loop.time() + seconds
        if self.channel is not None:
            try:
                await asyncio.wait_for(self.layer.receive(self.channel), timeout=seconds)
                return
            except TimeoutError:  # no ring: the time is up (or what is left of it is waited out)
                pass
            except LAYER_ERRORS:
                logger.warning("lost the doorbell of group %s", self.group, exc_info=True)
        await asyncio.sleep(max(0.0, until - loop.time()))

    async def __aexit__(self, *exc_info: object) -> None:
        if self.channel is None:
            return
        try:
            await self.layer.group_discard(self.group, self.channel)
        except LAYER_ERRORS:
            logger.warning("could not leave group %s", self.group, exc_info=True)
