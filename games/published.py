"""A table version rendered once, where the change was made, and published with its doorbell.

The process that changes a table (the daphne that took the move's POST, or the worker) holds the
match as saved. Right after the commit it reads the seats and the moves made since its last read
of the table, renders the parts of every viewer who watches the table now, and sends them with
the doorbell: the sockets of every process then only pick their own viewer's parts and forward
them, with no read and no render of their own. Without this, each process with a socket on the
table read and rendered every version itself (twice per move with the seats spread over two).

Who watches is counted in the cache, per table and *viewer*: the user (or a visitor), the
invitation code the socket came with when it is the table's, and the language. Only viewers whose
parts are the same whoever renders them are published: the seated players and visitors. Anyone
else (a signed-in spectator, a viewer who came after the count was read, a doorbell that lost its
parts) gets no parts in the message and reads and renders as before (``consumers.TableHub``).

Hidden information: a viewer's own parts (its moves, its secret picks) are keyed by its user; a
socket takes only the entry of its own user, so they reach no other socket, exactly as when the
socket rendered them itself. The message itself stays between the site's processes.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.utils import translation

from . import limits, notify, rendering, rows
from .models import Match, Seat

logger = logging.getLogger(__name__)

#: A doorbell's parts: ``{"shared": {shared_field: parts}, "own": {viewer_field: parts}}``.
Parts = dict[str, dict[str, dict[str, str]]]
#: The count of a table's viewers in ``limits`` (one per viewer, as sockets come and go).
VIEWER_KIND = "table-viewer"
#: How long a count lasts after its last change, should its process die without giving it back.
VIEWER_HOLD_SECONDS = 24 * 3600
#: Tables whose last read a process keeps, to read only the moves made since.
KEPT_READS = 1000

_reads: OrderedDict[int, rendering.TableSnapshot] = OrderedDict()
_reads_lock = threading.Lock()


def enabled() -> bool:
    return bool(getattr(settings, "PUBLISH_RENDERS", True))


def viewer_field(user_pk: int | None, invite: str | None, language: str) -> str:
    """How a viewer is named in the count and in a published message."""
    return f"{user_pk or ''}|{invite or ''}|{language}"


def shared_field(invite: str | None, language: str) -> str:
    """How the parts every viewer sees alike are named in a published message."""
    return f"{invite or ''}|{language}"


def _holder(match_id: int, field: str) -> str:
    return f"{match_id}|{field}"


def start_watching(match_id: int, field: str) -> None:
    limits.take(VIEWER_KIND, _holder(match_id, field), 10**9, VIEWER_HOLD_SECONDS)


def stop_watching(match_id: int, field: str) -> None:
    limits.give_back(VIEWER_KIND, _holder(match_id, field))


def _read(match: Match, seats: list[Seat]) -> rendering.TableSnapshot:
    """A read of ``match`` (as saved, with these seats) after this process's last read of its
    table, not kept yet (``_keep_read``)."""
    with _reads_lock:
        previous = _reads.get(match.pk)
    return rendering.snapshot_of(match, previous, seats)


def _keep_read(snapshot: rendering.TableSnapshot) -> None:
    """Keep ``snapshot`` as the table's last read; inside ``render_ahead``, once its commit is
    known (``published``)."""
    held = getattr(_ahead, "reads", None)
    if held is not None:
        held.append(snapshot)
        return
    _keep(snapshot, lambda kept: kept.version <= snapshot.version)


#: The reads of the render ahead of a commit running in this thread, kept only after it.
_ahead = threading.local()


def offer_read(snapshot: rendering.TableSnapshot) -> None:
    """A read of a table made and rendered by this process's sockets
    (``consumers.load_and_render``), kept as the last read of it when this process has none as
    new: the first change of the table published here then reads and renders only what changed
    since, as every later one does, instead of the whole table (two queries and every move's
    sentence: 3 ms more of the push at 300 tables, in a sixth of the moves of a minute's run).
    Called in the thread that made and rendered the read, before it renders from it again: a
    copy is kept, with a memo of its own (its match is the read's: a read of the sockets keeps
    no seats on it for ``rendering.let_go`` to take)."""
    if not enabled():
        return
    with _reads_lock:
        kept = _reads.get(snapshot.match.pk)
    if kept is not None and kept.version >= snapshot.version:
        return
    copy = rendering.TableSnapshot(
        snapshot.match,
        dict(snapshot.seats),
        list(snapshot.rows),
        list(snapshot.invited),
        rendering.copied_memo(snapshot.memo),
    )
    _keep(copy, lambda kept: kept.version < copy.version)


def _keep(
    snapshot: rendering.TableSnapshot, replaces: Callable[[rendering.TableSnapshot], bool]
) -> None:
    """Keep ``snapshot`` as the last read of its table, in place of the one kept now if there is
    none or ``replaces`` says so; the reads no longer kept let go of their match."""
    pk = snapshot.match.pk
    replaced: list[rendering.TableSnapshot] = []
    with _reads_lock:
        kept = _reads.get(pk)
        if kept is None or replaces(kept):
            _reads[pk] = snapshot
            _reads.move_to_end(pk)
            if kept is not None:
                replaced.append(kept)
        while len(_reads) > KEPT_READS:
            replaced.append(_reads.popitem(last=False)[1])
    for old in replaced:
        if old.match is not snapshot.match:
            rendering.let_go(old)


def _candidates(match: Match, seats: list[Seat]) -> dict[str, tuple[int | None, str | None, str]]:
    """Every viewer whose parts may be published: visitors (None) and the seated players (their
    user's id), with or without the table's invitation code, in every language."""
    users = [None, *(s.user_id for s in seats if s.user_id is not None)]
    return {
        viewer_field(pk, invite, language): (pk, invite, language)
        for language, _name in settings.LANGUAGES
        for invite in (None, match.invite_code)
        for pk in users
    }


#: How long a process goes on from its last read of who watches a table it listens to, before
#: it reads again: a viewer's ring lost on the way (``viewers_changed``) costs at most this long
#: of parts rendered for nobody, or of a viewer reading the table for itself.
WATCHING_KEPT_SECONDS = 60.0
#: Tables this process listens to (a socket of its own is in the table's group, so it hears
#: every viewer come and go): the generation of what it heard, new at each ring.
_listened: dict[int, list[int]] = {}
_generations = itertools.count(1)


def listen(match_id: int) -> None:
    """This process hears ``match_id``'s rings from now on (its first socket there joined the
    table's group, ``consumers.TableHub``): who watches may be kept between two moves."""
    with _reads_lock:
        held = _listened.setdefault(match_id, [0, next(_generations)])
        held[0] += 1


def stop_listening(match_id: int) -> None:
    """The reverse of one ``listen``: once the last is undone, who watches is read at every move."""
    with _reads_lock:
        held = _listened.get(match_id)
        if held is not None:
            held[0] -= 1
            if held[0] <= 0:
                del _listened[match_id]


def viewers_changed(match_id: int) -> None:
    """A viewer came or went (its count changed before): what was kept of who watches
    ``match_id`` no longer holds."""
    with _reads_lock:
        held = _listened.get(match_id)
        if held is not None:
            held[1] = next(_generations)


#: Names this process in its viewers' rings: its own rings it has heard already (``viewers_ring``).
PROCESS = uuid.uuid4().hex


def viewers_ring(match_id: int) -> tuple[str, dict[str, str]]:
    """``viewers_changed`` here, now, and the group message that tells the other processes
    whose sockets watch ``match_id`` (``heard_viewers_ring``)."""
    viewers_changed(match_id)
    return notify.table_group(match_id), {"type": "table.viewers", "process": PROCESS}


def heard_viewers_ring(match_id: int, message: dict[str, Any]) -> None:
    """Another process's ``viewers_ring`` (this process's own changed its state when it rang)."""
    if message.get("process") != PROCESS:
        viewers_changed(match_id)


def _generation(match_id: int) -> int | None:
    held = _listened.get(match_id)
    return None if held is None else held[1]


class Viewers:
    """A table's publishable viewers (``_candidates``) and the counts that say which of them
    watch (``limits.HeldCounts``): the same at every version while the seats' players, the
    invitation code and the languages stay, so made once for them, not at every move.

    Who watches is read once per version (a ``MGET``), except at a table this process listens
    to (``listen``): there every viewer who comes or goes rings first (``viewers_changed``), so
    the last read holds until a ring or ``WATCHING_KEPT_SECONDS``. It is kept with the
    generation seen before the read: a ring during the read leaves it stale at once. Either way a
    count read late only costs work: a viewer left out reads for itself, as before."""

    def __init__(self, match: Match, seats: list[Seat]) -> None:
        self.match_id = match.pk
        self.candidates = _candidates(match, seats)
        fields = list(self.candidates)
        self.fields = {_holder(match.pk, field): field for field in fields}
        self.counts = limits.HeldCounts(VIEWER_KIND, list(self.fields))
        self.kept: tuple[int, float, list[str]] | None = None

    def watching(self) -> list[str]:
        """The fields of the viewers who watch the table now."""
        generation = _generation(self.match_id)
        now = time.monotonic()
        kept = self.kept
        if (
            generation is not None
            and kept is not None
            and kept[0] == generation
            and now - kept[1] < WATCHING_KEPT_SECONDS
        ):
            return kept[2]
        fields = [self.fields[holder] for holder in sorted(self.counts.read())]
        if generation is not None:
            self.kept = (generation, now, fields)
        return fields


#: Tables whose viewers a process keeps (``Viewers``), by what they are made of.
KEPT_VIEWERS = 1000
_viewers: OrderedDict[tuple, Viewers] = OrderedDict()


def viewers_of(match: Match, seats: list[Seat]) -> Viewers:
    """``match``'s viewers, made once per table, players, invitation code and languages."""
    key = (
        match.pk,
        match.invite_code,
        frozenset(s.user_id for s in seats if s.user_id is not None),
        tuple(code for code, _name in settings.LANGUAGES),
    )
    with _reads_lock:
        kept = _viewers.get(key)
        if kept is not None:
            _viewers.move_to_end(key)
            return kept
    made = Viewers(match, seats)
    with _reads_lock:
        _viewers[key] = made
        while len(_viewers) > KEPT_VIEWERS:
            _viewers.popitem(last=False)
    return made


def render_for_watchers(match: Match) -> Parts | None:
    """The parts of ``match`` (as just saved) for every publishable viewer who watches it now:
    ``{"shared": {shared_field: parts}, "own": {viewer_field: parts}}``, or None when nobody
    would take them."""
    # Who watches first: a table nobody watches (the worker's bots, an arena) costs no more.
    seats = rendering.seats_of(match)
    viewers = viewers_of(match, seats)
    watching = viewers.watching()
    if not watching:
        return None
    snapshot = _read(match, seats)
    _keep_read(snapshot)
    shared: dict[str, dict[str, str]] = {}
    own: dict[str, dict[str, str]] = {}
    users: dict[int | None, Any] = {s.user_id: s.user for s in seats if s.user_id is not None}
    users[None] = AnonymousUser()
    # One language switch per language watching, not one per viewer (a switch and its undoing
    # cost about 11 µs: asgiref's Local, twice).
    by_language: dict[str, list[tuple[str, int | None, str | None]]] = {}
    for field in watching:
        pk, invite, language = viewers.candidates[field]
        by_language.setdefault(language, []).append((field, pk, invite))
    for language, fields in by_language.items():
        with translation.override(language):
            for field, pk, invite in fields:
                parts = rendering.table_parts(snapshot, users[pk], invite)
                shared_key = shared_field(invite, language)
                if shared_key not in shared:  # the first such viewer's; the others' are the same
                    shared[shared_key] = {part: parts[part] for part in rendering.SHARED_PARTS}
                own[field] = {
                    p: html for p, html in parts.items() if p not in rendering.SHARED_PARTS
                }
    # Kept for the next read of the table: without the HTML and contexts of this version.
    snapshot.memo = rendering.kept_memo(snapshot.memo)
    return {"shared": shared, "own": own}


@dataclass
class Rendered:
    """The watchers' parts of a version (None: nobody watched) and the read they were rendered
    from, made while its commit was on its way (``render_ahead``): published and kept only once
    the commit is known."""

    version: int
    parts: Parts | None
    reads: list[rendering.TableSnapshot]


def render_ahead(match: Match) -> Rendered | None:
    """``render_for_watchers`` of ``match`` as just changed and not yet committed
    (``rows.save_and_commit``'s ``while_committing``): no query (a render that needs one is
    left for after the commit), nothing kept and nothing rung here. None when it could not."""
    if not enabled():
        return None
    _ahead.reads = []
    try:
        return Rendered(match.version, render_for_watchers(match), _ahead.reads)
    except rows.QueryWhileCommitting:
        return None
    except Exception:
        logger.warning("could not render table %s ahead of its commit", match.pk, exc_info=True)
        return None
    finally:
        _ahead.reads = None


def published(match: Match, ahead: Rendered | None = None) -> Parts | None:
    """The parts rendered ``ahead`` of this version's commit (``render_ahead``), else
    ``render_for_watchers``; None if anything fails: the doorbell then rings without parts and
    every socket reads the table itself."""
    if not enabled():
        return None
    if ahead is not None and ahead.version == match.version:
        for snapshot in ahead.reads:
            _keep_read(snapshot)
        return ahead.parts
    try:
        return render_for_watchers(match)
    except Exception:
        logger.warning("could not render table %s for its doorbell", match.pk, exc_info=True)
        return None


def parts_of(
    message: dict[str, Any], field: str, invite: str | None, language: str
) -> dict[str, str] | None:
    """The viewer ``field``'s parts in a doorbell's message, in page order; None when the
    message carries none for it."""
    carried = message.get("parts")
    if not isinstance(carried, dict):
        return None
    own = carried.get("own", {}).get(field)
    shared = carried.get("shared", {}).get(shared_field(invite, language))
    if own is None or shared is None:
        return None
    # One pass in page order (each socket of every move): the viewer's own part where it has
    # one, else the shared one; a part in neither and the message is not taken.
    parts = {}
    for part in rendering.TABLE_PARTS:
        html = own.get(part)
        if html is None:
            html = shared.get(part)
            if html is None:
                return None
        parts[part] = html
    return parts
