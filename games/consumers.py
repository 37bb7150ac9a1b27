"""WebSocket consumers: thin. A socket joins its table's (or the lobby's) group; a group message
says "version N" and, when the process that made the change rendered it (``games.published``),
carries the parts of each viewer who watches the table: the socket forwards its own viewer's
entry, else it renders its own user's view, and pushes it as hx-swap-oob fragments. Nothing a
consumer sends is computed for anyone but the socket's own user.

What the sockets of one process share (``TableHub``, one per event loop): one read of a table
per version, the fragments every viewer sees alike (``rendering.table_parts``), and one periodic
check of the versions of every watched table, which recovers a lost doorbell (one query per
process, not one per socket). The lobby's pushes are coalesced per process (``LobbyHub``)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
import weakref
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs

from asgiref.sync import sync_to_async
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils import translation
from django.utils.translation.trans_real import (
    get_supported_language_variant,
    parse_accept_lang_header,
)

from pdc_site import gate, loop_watch

from . import chat, limits, notify, published, rendering, services
from .models import ChatMessage, Match

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


#: At most one lobby render per socket per this many seconds, however often the lobby rings.
LOBBY_THROTTLE_SECONDS = 1.0


def poll_seconds() -> float:
    """How often a process re-reads the versions of the tables its sockets watch. The doorbell
    may be lost, and with the in-memory layer a move made by another process (the worker) rings
    no bell here."""
    return 10.0 if getattr(settings, "REDIS_URL", None) else 2.0


def current_versions(match_ids: list[int]) -> dict[int, int]:
    """The version of each of these tables now (one query)."""
    return dict(Match.objects.filter(pk__in=match_ids).values_list("pk", "version"))


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
        except notify.LAYER_ERRORS:
            if hasattr(self, "channel_receive"):
                raise
            # The Pub/Sub layer subscribes a socket's own channel before the socket even sees
            # its handshake: while Redis is away the handshake is turned down (403), and the
            # page tries again later, instead of an error 500.
            logger.warning("socket refused: the channel layer is away", exc_info=True)
            await send({"type": "websocket.close", "code": CLOSE_TRY_AGAIN_LATER})
        finally:
            await self.release()

    async def dispatch(self, message: dict) -> None:
        """Hand ``message`` to its handler, without the hop Channels takes before every message to
        close the event loop's database connections: a socket's database work goes through
        ``database_sync_to_async``, which closes them itself before and after, and nothing of a
        socket touches the database on the event loop. That hop went to the one thread that all
        of a process's sockets share, for each doorbell of each socket (every seat of every move)."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def admit(
        self, group: str, verdict: bool | None = True, taken: bool | None = None
    ) -> bool:
        """Accept the socket into ``group``; close it with 4404 when what it asks for does not
        exist (``verdict`` None), 4403 when it may not see it (False) and 4429 when its client
        holds too many sockets already. ``taken``: whether the caller took the socket's place in
        its client's cap already (``take_place``, in a trip to a thread of its own), None to
        take it here."""
        if verdict is None:
            await self.close(code=CLOSE_NOT_FOUND)
            return False
        if not verdict:
            await self.close(code=CLOSE_FORBIDDEN)
            return False
        holder = client_key(self.scope)
        if taken is None:
            taken = await sync_to_async(self.take_place)()
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

    def take_place(self) -> bool:
        """The socket's place in its client's cap (``limits.take``); False when it is full."""
        return limits.take(
            "socket", client_key(self.scope), SOCKETS_PER_CLIENT, SOCKET_HOLD_SECONDS
        )

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

    @functools.cached_property
    def language(self) -> str:
        """The language this socket renders in, read once from its handshake."""
        return socket_language(self.scope)

    async def render_in_language(self, render: Callable[..., Any], *args: Any) -> Any:
        return await database_sync_to_async(rendered_in)(self.language, render, *args)


def chat_has_lines(match_id: int) -> bool:
    """Whether the table's chat has any line (nearly every table's has none): one query on the
    chat's lines alone."""
    return ChatMessage.objects.filter(match_id=match_id).exists()


def parts_for_viewers(
    snapshot: rendering.TableSnapshot, viewers: dict[tuple, tuple[Any, str | None, str]]
) -> dict[tuple, dict[str, str] | Exception]:
    """The table's parts for each viewer (key → (user, invitation code, language)), in one call:
    one trip to the rendering thread per table version, however many sockets watch it. A render
    that fails is that viewer's error only (``own_parts`` raises it for their socket)."""
    rendered: dict[tuple, dict[str, str] | Exception] = {}
    for key, (user, invite, language) in viewers.items():
        try:
            with translation.override(language):
                rendered[key] = rendering.table_parts(snapshot, user, invite)
        except Exception as error:
            rendered[key] = error
    return rendered


def own_parts(rendered: dict[tuple, dict[str, str] | Exception], key: tuple) -> dict[str, str]:
    parts = rendered[key]
    if isinstance(parts, Exception):
        raise parts
    return parts


def load_and_render(
    match_id: int,
    viewers: list[tuple[tuple, tuple[Any, str | None, str], int]],
    previous: rendering.TableSnapshot | None = None,
    reuse: bool = False,
) -> tuple[rendering.TableSnapshot | None, dict[tuple, dict[str, str] | Exception]]:
    """A read of the table (after ``previous``, the last one), and its parts for each viewer
    (key, viewer, version it pushed last) that is behind it: the one trip to the rendering
    thread of a table version. ``reuse``: ``previous`` itself when the table is still as it read
    it (``rendering.still_current``), with what its memo holds (the shared parts)."""
    if reuse and previous is not None and rendering.still_current(previous):
        snapshot: rendering.TableSnapshot | None = previous
    else:
        snapshot = rendering.load_table(match_id, previous)
    if snapshot is None:
        return None, {}
    behind = {key: viewer for key, viewer, sent in viewers if sent < snapshot.version}
    rendered = parts_for_viewers(snapshot, behind)
    published.offer_read(snapshot)
    return snapshot, rendered


def fresh_read(
    match_id: int,
    viewers: list[tuple[tuple, tuple[Any, str | None, str], int]],
    previous: rendering.TableSnapshot | None,
) -> tuple[rendering.TableSnapshot | None, dict[tuple, dict[str, str] | Exception], bool]:
    """``TableHub.fresh``'s one trip to the thread: the table (``load_and_render``, the last read
    taken again when it is still current) and whether its chat has a line, both read after the
    socket joined the table's group, so that a change or a line after them rings it. A table
    without chat costs its sockets no trip of their own for it."""
    snapshot, rendered = load_and_render(match_id, viewers, previous, reuse=True)
    return snapshot, rendered, snapshot is not None and chat_has_lines(match_id)


def read_alone(match_id: int) -> tuple[rendering.TableSnapshot | None, bool]:
    """The table and whether its chat has a line, for a socket whose process no longer keeps
    the table (``fresh_read`` without the shared read)."""
    snapshot = rendering.load_table(match_id)
    return snapshot, snapshot is not None and chat_has_lines(match_id)


class RenderRound:
    """The parts of one version for the viewers of a table who were behind when it began."""

    def __init__(self, version: int, viewers: set[tuple], future: asyncio.Future) -> None:
        self.version = version
        self.viewers = viewers
        self.waiting = set(viewers)
        self.future = future


#: Render rounds a table keeps at most (the newest versions), should some viewer never ask.
KEPT_ROUNDS = 3


class TableWatch:
    """The sockets of this process that watch one table, the newest read of it, and the render
    round of its newest version."""

    def __init__(self) -> None:
        self.sockets: set[TableConsumer] = set()
        self.snapshot: rendering.TableSnapshot | None = None
        self.loading: asyncio.Future | None = None
        self.rounds: dict[int, RenderRound] = {}
        #: Held by a socket's first read (``TableHub.fresh``): the sockets that connect together
        #: read one after another, so that the later ones may take the first one's read.
        self.connecting = asyncio.Lock()

    def begin_round(self, current: RenderRound) -> None:
        self.rounds[current.version] = current
        for version in sorted(self.rounds)[:-KEPT_ROUNDS]:
            del self.rounds[version]

    def viewers(self) -> list[tuple[tuple, tuple[Any, str | None, str], int]]:
        return [(s.viewer_key(), s.viewer(), s.sent_version) for s in self.sockets]


class TableHub:
    """What the table sockets of one event loop share: one read per table version, and one task
    that re-reads the versions of every watched table every ``poll_seconds()``. The task runs
    only while a socket watches a table: the last socket to leave ends it."""

    def __init__(self) -> None:
        self.watches: dict[int, TableWatch] = {}
        self.checker: asyncio.Task | None = None

    def join(self, match_id: int, socket: TableConsumer) -> None:
        if match_id not in self.watches:
            self.watches[match_id] = TableWatch()
            # Its socket is in the table's group now: this process hears its viewers' rings.
            published.listen(match_id)
        self.watches[match_id].sockets.add(socket)
        if self.checker is None or self.checker.done():
            self.checker = asyncio.ensure_future(self.check_every_few_seconds())

    async def leave(self, match_id: int, socket: TableConsumer) -> None:
        watch = self.watches.get(match_id)
        if watch is not None:
            watch.sockets.discard(socket)
            if not watch.sockets:
                del self.watches[match_id]
                published.stop_listening(match_id)
        if not self.watches and self.checker is not None:
            checker, self.checker = self.checker, None
            checker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await checker

    async def read(self, match_id: int, at_least: int) -> rendering.TableSnapshot | None:
        """The table at version ``at_least`` or later: the last read when it is recent enough,
        else a read that began after this call (shared with every socket that asks meanwhile)."""
        watch = self.watches.get(match_id)
        if watch is None:  # a socket that is leaving: a read of its own
            return await database_sync_to_async(rendering.load_table)(match_id)
        if watch.snapshot is not None and watch.snapshot.version >= at_least:
            return watch.snapshot
        earlier = watch.loading
        if earlier is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(earlier)
            if watch.snapshot is not None and watch.snapshot.version >= at_least:
                return watch.snapshot
        if watch.loading is None or watch.loading is earlier:
            watch.loading = asyncio.ensure_future(self.shared_load(match_id, watch))
        return await asyncio.shield(watch.loading)

    async def fresh(self, match_id: int) -> tuple[rendering.TableSnapshot | None, bool]:
        """A read that began now (a socket that just joined must see every change before it),
        or the last read when a check that began now finds the table unchanged since: the
        sockets of a table's players connect about together, and the second and third took the
        first one's read again, shared parts and all (they wait for it: one read and two checks
        where three reads ran side by side). With it, whether the table's chat has a line
        (``fresh_read``)."""
        watch = self.watches.get(match_id)
        if watch is None:
            return await database_sync_to_async(read_alone)(match_id)
        async with watch.connecting:
            snapshot, rendered, chatting = await database_sync_to_async(fresh_read)(
                match_id, watch.viewers(), watch.snapshot
            )
            return self.keep_read(watch, snapshot, rendered), chatting

    async def shared_load(self, match_id: int, watch: TableWatch) -> rendering.TableSnapshot | None:
        try:
            return await self.load(match_id, watch)
        finally:
            if watch.loading is asyncio.current_task():
                watch.loading = None

    async def parts(
        self, match_id: int, snapshot: rendering.TableSnapshot, socket: TableConsumer
    ) -> dict[str, str]:
        """``socket``'s parts of ``snapshot``. The first socket to ask for a version renders it
        for every socket of the table that is behind, in one hop to the rendering thread and
        once per viewer (sockets of one user, invitation and language share a render); the
        others take theirs from that round."""
        watch = self.watches.get(match_id)
        key = socket.viewer_key()
        if watch is None:  # a socket that is leaving: a render of its own
            rendered = await database_sync_to_async(parts_for_viewers)(
                snapshot, {key: socket.viewer()}
            )
            return own_parts(rendered, key)
        current = watch.rounds.get(snapshot.version)
        if current is None or key not in current.viewers:
            viewers = {
                other_key: viewer
                for other_key, viewer, sent in watch.viewers()
                if sent < snapshot.version
            }
            viewers[key] = socket.viewer()
            future = asyncio.ensure_future(
                database_sync_to_async(parts_for_viewers)(snapshot, viewers)
            )
            current = RenderRound(snapshot.version, set(viewers), future)
            watch.begin_round(current)
        try:
            rendered = await asyncio.shield(current.future)
        finally:
            # The round's HTML is kept only until each of its viewers took theirs.
            current.waiting.discard(key)
            if not current.waiting and watch.rounds.get(current.version) is current:
                del watch.rounds[current.version]
        return own_parts(rendered, key)

    async def load(self, match_id: int, watch: TableWatch) -> rendering.TableSnapshot | None:
        """A read of the table, with the parts of every socket that is behind it rendered in
        the same trip to the rendering thread (``parts`` then finds them)."""
        snapshot, rendered = await database_sync_to_async(load_and_render)(
            match_id, watch.viewers(), watch.snapshot
        )
        return self.keep_read(watch, snapshot, rendered)

    def keep_read(
        self,
        watch: TableWatch,
        snapshot: rendering.TableSnapshot | None,
        rendered: dict[tuple, dict[str, str] | Exception],
    ) -> rendering.TableSnapshot | None:
        """Keep a read of the table (the newest one) and the render round it came with."""
        if snapshot is None:
            return None
        if watch.snapshot is None or snapshot.version > watch.snapshot.version:
            watch.snapshot = snapshot
        if rendered:
            done = asyncio.get_running_loop().create_future()
            done.set_result(rendered)
            watch.begin_round(RenderRound(snapshot.version, set(rendered), done))
        return snapshot

    async def check_every_few_seconds(self) -> None:
        """The re-check that recovers a lost doorbell. A round that fails (the database away for
        a moment) is logged and tried again next time: it must never die before its sockets."""
        while True:
            await asyncio.sleep(poll_seconds())
            try:
                await self.check()
            except Exception:
                logger.warning("the tables' re-check failed; trying again", exc_info=True)

    async def check(self) -> None:
        if not self.watches:
            return
        versions = await database_sync_to_async(current_versions)(list(self.watches))
        behind = [
            (socket, version)
            for match_id, version in versions.items()
            for socket in list(self.watches.get(match_id, TableWatch()).sockets)
            if version > socket.sent_version
        ]
        results = await asyncio.gather(
            *(socket.table_changed({"version": v}) for socket, v in behind),
            return_exceptions=True,
        )
        for result in results:
            if isinstance(result, Exception):
                logger.warning("a socket's re-check failed", exc_info=result)


_table_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, TableHub] = (
    weakref.WeakKeyDictionary()
)


def table_hub() -> TableHub:
    """This event loop's hub (one per process under daphne; one per test in the tests)."""
    loop = asyncio.get_running_loop()
    if loop not in _table_hubs:
        _table_hubs[loop] = TableHub()
    return _table_hubs[loop]


class TableConsumer(RateLimitedConsumer):
    """A table's socket. It pushes the parts of the table that changed since its last push (all
    of them on connect, on a "sync" and after a gap in versions, since the page may then hold
    parts of a version this socket never rendered)."""

    hub: TableHub | None = None
    #: How this socket's viewer is counted among the table's watchers (``games.published``),
    #: while it is.
    watching: str | None = None

    async def connect(self) -> None:
        self.match_id = int(self.scope["url_route"]["kwargs"]["match_id"])
        self.user = self.scope.get("user")
        invite = parse_qs(self.scope.get("query_string", b"").decode()).get("invite", [None])[0]
        self.invite = invite
        #: The invitation code as the table's pages show it: the table's own, else none.
        self.shown_invite: str | None = None
        self.sent_version = -1
        self.sent_parts: dict[str, int] = {}
        self.pushing = asyncio.Lock()
        verdict, taken, self.watching = await database_sync_to_async(self.admission)()
        if not await self.admit(notify.table_group(self.match_id), verdict, taken):
            return
        self.hub = table_hub()
        self.hub.join(self.match_id, self)
        if self.watching is not None:
            await self.ring_viewers_changed()
        # After joining the group: whatever changed before is in this first render, whatever
        # changes after rings.
        await self.send_whole_table()

    async def release(self) -> None:
        # The socket's counts given back together: one trip to a thread, where it took two.
        # Only the cache is used: off the thread every socket's database work queues on.
        field, self.watching = self.watching, None
        holder, self.holder = self.holder, None
        if field is not None or holder is not None:
            await sync_to_async(self.give_back, thread_sensitive=False)(field, holder)
        if field is not None:
            await self.ring_viewers_changed()
        if self.hub is not None:
            hub, self.hub = self.hub, None
            await hub.leave(self.match_id, self)
        await super().release()

    def admission(self) -> tuple[bool | None, bool | None, str | None]:
        """What letting the socket in asks of the database and the cache, in one trip to a
        thread (three before): whether it may watch (``allowed``); if so its place in its
        client's cap (``take_place``); if taken, its viewer counted among the table's watchers
        before the first read (a change after it is published for this viewer too). Answers
        (verdict, taken or None when not asked, the viewer's field or None when not counted)."""
        verdict = self.allowed()
        if not verdict:
            return verdict, None, None
        taken = self.take_place()
        if not taken or not published.enabled():
            return verdict, taken, None
        field = self.published_field()
        published.start_watching(self.match_id, field)
        return verdict, taken, field

    def give_back(self, field: str | None, holder: str | None) -> None:
        if field is not None:
            published.stop_watching(self.match_id, field)
        if holder is not None:
            limits.give_back("socket", holder)

    def allowed(self) -> bool | None:
        match = Match.objects.filter(pk=self.match_id).first()
        # A private table the user may not watch is refused exactly like a missing one.
        if match is None or not services.may_watch(match, self.user, self.invite):
            return None
        if self.invite and self.invite == match.invite_code:
            self.shown_invite = self.invite
        return True

    def published_field(self) -> str:
        user = self.user
        pk = user.pk if user is not None and user.is_authenticated else None
        return published.viewer_field(pk, self.shown_invite, self.language)

    async def ring_viewers_changed(self) -> None:
        """This socket's viewer came or went (its count changed already): what this process and
        every other whose sockets watch the table kept of who watches no longer holds
        (``published.viewers_ring``). A ring lost costs work only, never a push."""
        await notify.sender([published.viewers_ring(self.match_id)])()

    async def table_viewers(self, event: dict) -> None:
        published.heard_viewers_ring(self.match_id, event)

    async def table_changed(self, event: dict) -> None:
        # Doorbells may arrive late or twice: a version already shown needs no new render.
        version = event.get("version", 0)
        if version <= self.sent_version or self.hub is None:
            return
        doorbell = time.monotonic()
        # Rendered by the process that made the change, for this socket's viewer: forwarded.
        # Otherwise (a viewer it did not render for, a ring without parts) a read of our own.
        parts = None
        if self.watching is not None:
            parts = published.parts_of(event, self.watching, self.shown_invite, self.language)
        if parts is not None:
            async with self.pushing:
                if version > self.sent_version:
                    await self.push(version, parts)
            loop_watch.socket_pushed(self.match_id, version, doorbell, "published")
            return
        await self.send_table(await self.hub.read(self.match_id, version))
        loop_watch.socket_pushed(self.match_id, version, doorbell, "read")

    async def handle(self, message: dict) -> None:
        # A client that saw a gap in versions (or came back from sleep) asks for the whole table.
        if message.get("type") == "sync":
            self.sent_version = -1
            self.sent_parts = {}
            await self.send_whole_table()
        else:
            await self.send_error("Unknown message.")

    async def chat_posted(self, event: dict) -> None:
        await self.send_chat()

    async def send_whole_table(self) -> None:
        """Every part of the table, then the chat's lines written while the socket was away (a
        table without chat sends nothing more)."""
        if self.hub is None:
            return
        snapshot, chatting = await self.hub.fresh(self.match_id)
        await self.send_table(snapshot)
        if chatting:
            await self.send_chat()

    async def send_chat(self) -> None:
        """The chat's lines as this socket's viewer reads them (their mutes): a fragment of its
        own, apart from the table's, rendered for this viewer only."""
        html = await self.render_in_language(
            chat.render_chat_lines, self.match_id, self.user, self.invite
        )
        if html is not None:
            await self.send(text_data=html)

    def viewer(self) -> tuple[Any, str | None, str]:
        """Whom this socket renders the table for: its user, invitation code and language."""
        return self.user, self.invite, self.language

    def viewer_key(self) -> tuple:
        """Sockets with the same key see the same table: one user (or visitors), one invitation
        code, one language."""
        user, invite, language = self.viewer()
        pk = user.pk if user is not None and user.is_authenticated else None
        return (pk, invite, language)

    async def send_table(self, snapshot: rendering.TableSnapshot | None) -> None:
        if snapshot is None:
            return
        async with self.pushing:
            if snapshot.version <= self.sent_version:
                return
            if self.hub is not None:
                parts = await self.hub.parts(self.match_id, snapshot, self)
            else:
                parts = await self.render_in_language(
                    rendering.table_parts, snapshot, self.user, self.invite
                )
            if snapshot.version <= self.sent_version:
                return
            await self.push(snapshot.version, parts)

    async def push(self, version: int, parts: dict[str, str]) -> None:
        """Send ``parts`` of ``version`` (those that changed since the last push). The caller
        holds ``self.pushing`` and has checked that ``version`` is newer than the last push."""
        html = self.changed_parts(version, parts)
        # Hashes only: an idle socket keeps a few numbers, not a copy of its table.
        self.sent_version = version
        self.sent_parts = {part: hash(fragment) for part, fragment in parts.items()}
        await self.send(text_data=html)

    def changed_parts(self, version: int, parts: dict[str, str]) -> str:
        """The parts to push: after the version this socket pushed last, those that changed
        (the status always: it carries the version; the error area always: a new version clears
        an error an htmx answer showed); otherwise all of them."""
        if version != self.sent_version + 1:
            return "\n".join(parts.values())
        return "\n".join(
            html
            for part, html in parts.items()
            if part in ALWAYS_PUSHED or self.sent_parts.get(part) != hash(html)
        )


#: Parts of the table a socket pushes with every version.
ALWAYS_PUSHED = frozenset({"status", "page_error"})


class LobbyHub:
    """The lobby sockets of one event loop. The lobby rings with every table that opens, fills
    or ends: the rings of a second are coalesced into one push to every lobby socket of the
    process, at most one per ``LOBBY_THROTTLE_SECONDS``, and viewers who see the same lobby
    (visitors; one player's tabs) share one render of it."""

    def __init__(self) -> None:
        self.sockets: set[LobbyConsumer] = set()
        self.pending: asyncio.Task | None = None
        self.last_push = float("-inf")

    def join(self, socket: LobbyConsumer) -> None:
        self.sockets.add(socket)

    async def leave(self, socket: LobbyConsumer) -> None:
        self.sockets.discard(socket)
        if not self.sockets and self.pending is not None:
            pending, self.pending = self.pending, None
            pending.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pending

    def ring(self) -> None:
        """Push soon, and not sooner than a second after the previous push: rings arriving
        meanwhile join the push already planned."""
        if self.pending is not None and not self.pending.done():
            return
        delay = max(0.0, self.last_push + LOBBY_THROTTLE_SECONDS - time.monotonic())
        self.pending = asyncio.ensure_future(self.push_after(delay))

    async def push_after(self, delay: float) -> None:
        if delay > 0:
            await asyncio.sleep(delay)
        # Cleared before reading the database: a ring during the push plans the next one.
        self.pending = None
        self.last_push = time.monotonic()
        shared: dict[tuple, asyncio.Future] = {}
        results = await asyncio.gather(
            *(socket.send_lobby(shared) for socket in list(self.sockets)),
            return_exceptions=True,
        )
        for result in results:
            if isinstance(result, Exception):
                logger.warning("a lobby push failed", exc_info=result)


_lobby_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LobbyHub] = (
    weakref.WeakKeyDictionary()
)


def lobby_hub() -> LobbyHub:
    loop = asyncio.get_running_loop()
    if loop not in _lobby_hubs:
        _lobby_hubs[loop] = LobbyHub()
    return _lobby_hubs[loop]


class LobbyConsumer(RateLimitedConsumer):
    hub: LobbyHub | None = None

    async def connect(self) -> None:
        self.user = self.scope.get("user")
        if not await self.admit(notify.LOBBY_GROUP):
            return
        self.hub = lobby_hub()
        self.hub.join(self)
        await self.send_lobby()

    async def release(self) -> None:
        if self.hub is not None:
            hub, self.hub = self.hub, None
            await hub.leave(self)
        await super().release()

    async def lobby_changed(self, event: dict) -> None:
        if self.hub is not None:
            self.hub.ring()

    async def handle(self, message: dict) -> None:
        if message.get("type") == "sync":
            await self.send_lobby()
        else:
            await self.send_error("Unknown message.")

    def viewer_key(self) -> tuple:
        """Who sees the same lobby: one key per language and user (all visitors share one)."""
        user = self.user
        pk = user.pk if user is not None and user.is_authenticated else None
        return (getattr(self, "language", None) or socket_language(self.scope), pk)

    async def send_lobby(self, shared: dict[tuple, asyncio.Future] | None = None) -> None:
        if shared is None:
            html = await self.render_in_language(rendering.render_lobby_fragments, self.user)
        else:
            key = self.viewer_key()
            if key not in shared:
                shared[key] = asyncio.ensure_future(
                    self.render_in_language(rendering.render_lobby_fragments, self.user)
                )
            html = await asyncio.shield(shared[key])
        await self.send(text_data=html)
