"""What the pages show of the lobby, a table and a replay, built for one viewer, and the HTML
fragments the WebSocket consumers push.

The full pages and the sockets render the same partials (``templates/games/partials/table.html``
and each game's ``templates/games/<slug>/table.html``) from the same contexts, so a page and a
socket never disagree. Game data comes only from ``engine.view(state, seat)`` through the game's
presenter: ``match.state`` holds what nobody may see yet (pizzas still to come, secret picks) and
never reaches a template. The move log is the sentences stored on the Move rows, each shown to a
viewer only when the engine's ``record_move`` shows that viewer the move.

A live table is read once per version (``load_table``: a ``TableSnapshot`` with the match, its
seats, its move rows and invitations) and every socket of a process renders from that one read.
What every viewer sees alike (``SHARED_PARTS``) is rendered once per version, language and
invitation code, from the *spectator's* context, so nothing of one seat can enter what another
receives; only the parts that differ per seat are rendered per socket, without a query.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language, ngettext

from players.friends import friend_ids

from . import analysis, rows, services, translations
from .bot_profiles import bot_url
from .engines import CHANCE, Engine, SeatRef, Sentence, all_engines, get_engine
from .engines.base import State
from .models import Invitation, Match, Move, Seat
from .presenters import Presenter, get_presenter
from .seat_facts import seat_facts
from .table_extras import add_table_extras
from .table_urls import table_urls
from .templatetags.move_forms import game_part
from .templatetags.table_parts import PART_WRITERS
from .translations import gettext as _
from .translations import kept_translations

#: Other apps add links about a table without games knowing them (an arena adds "back to the
#: arena"): each provider takes a Match and returns [{"label": …, "url": …}].
_TABLE_LINK_PROVIDERS: list[Callable[[Match], list[dict[str, str]]]] = []


def register_table_links(
    provider: Callable[[Match], list[dict[str, str]]],
) -> Callable[[Match], list[dict[str, str]]]:
    if provider not in _TABLE_LINK_PROVIDERS:
        _TABLE_LINK_PROVIDERS.append(provider)
    return provider


def table_links(match: Match) -> list[dict[str, str]]:
    return [link for provider in _TABLE_LINK_PROVIDERS for link in provider(match)]


LOBBY_TABLES_PER_GAME = 50
#: How many of the latest automatic moves (bots, chance, timeouts) the status announces.
ANNOUNCED_MOVES = 5

User = AbstractBaseUser | AnonymousUser | None


# --- public entry points (the consumers call these) -------------------------------------------
#: The live parts of a table, in page order: each is one hx-swap-oob fragment.
TABLE_PARTS = (
    "status",
    "page_error",
    "timer",
    "actions",
    "seats",
    "board",
    "targets",
    "moves",
    "info",
    "players",
    "log",
    "result",
)
#: The parts every viewer of a version sees alike (given the language and the invitation code in
#: the page's links): rendered once, from the spectator's context.
SHARED_PARTS = frozenset({"board", "info", "players", "result"})
_PART_TEMPLATES = {
    part: "games/partials/errors.html#page_error"
    if part == "page_error"
    else f"games/partials/table.html#{part}"
    for part in TABLE_PARTS
}


@dataclass(eq=False)
class TableSnapshot:
    """One read of a table at one version: what its fragments need, for every viewer. What is
    derived from it (the spectator's game context, shared fragments) is memoized on it, keyed by
    language and invitation code, never by viewer."""

    match: Match
    seats: dict[int, Seat]
    rows: list[tuple[int, int, Any, bool]]
    invited: list[Invitation]
    memo: dict[tuple, Any] = field(default_factory=dict)

    @property
    def version(self) -> int:
        return self.match.version

    def once(self, key: tuple, build: Callable[[], Any]) -> Any:
        if key not in self.memo:
            self.memo[key] = build()
        return self.memo[key]


def load_table(match_id: int, previous: TableSnapshot | None = None) -> TableSnapshot | None:
    """The table as it is now, in four queries (three after ``previous``, an earlier read of
    it); None when it does not exist."""
    match = Match.objects.select_related("created_by").filter(pk=match_id).first()
    return None if match is None else snapshot_of(match, previous)


def snapshot_of(
    match: Match, previous: TableSnapshot | None = None, seats: list[Seat] | None = None
) -> TableSnapshot:
    """A read of ``match``'s table. After ``previous`` (an earlier read of the same table) only
    the moves made since are read (moves are only ever added), the invitations of a table that
    had started already are kept (only an open table takes new ones), and so are its links."""
    if previous is not None and (
        previous.match.pk != match.pk
        or previous.match.seed != match.seed
        or previous.version > match.version
    ):
        previous = None
    by_index = {s.index: s for s in (seats_of(match) if seats is None else seats)}
    if previous is not None:
        _keep_creator(previous.match, match)
    rows = []
    if match.state is not None:
        earlier = previous.rows if previous is not None else []
        rows = earlier + _new_move_rows(match, earlier[-1][0] if earlier else None)
    if previous is not None and not previous.match.is_open:
        invited = previous.invited
    else:
        invited = list(match.invitations.select_related("to_user").order_by("to_user__username"))
    memo = kept_memo(previous.memo) if previous is not None else {}
    return TableSnapshot(match, by_index, rows, invited, memo)


def still_current(snapshot: TableSnapshot) -> bool:
    """Whether a running table is still as ``snapshot`` read it, in one small query: every
    change of a table bumps its version (``services._changed``, ``end_match``), and the
    deadline, which a worker's job moves without one, is compared too (the timer is rendered
    from it). The secret seed tells another table apart where a test database reuses ids. An
    open or finished table is never taken as current: what its parts show also depends on rows
    that change without its version (invitations dismissed, its rematch filling up)."""
    match = snapshot.match
    if not match.is_playing:
        return False
    now = Match.objects.filter(pk=match.pk).values_list("version", "deadline", "seed").first()
    return now == (match.version, match.deadline, match.seed)


def let_go(snapshot: TableSnapshot) -> None:
    """A read no longer kept: its match forgets the seats it was read with
    (``rows.forget_seats``): at 300 tables a replaced read was most of the cyclic garbage a
    middle collection found."""
    rows.forget_seats(snapshot.match)


def _keep_creator(previous: Match, match: Match) -> None:
    """The table's creator as the previous read of it read it: the match a move saves comes
    without it, and ``table_info`` would read it again at every version."""
    creator = Match.created_by.field
    if (
        not creator.is_cached(match)
        and creator.is_cached(previous)
        and previous.created_by_id == match.created_by_id
    ):
        creator.set_cached_value(match, previous.created_by)


#: What a read keeps of the previous read's memo: what no later version changes (the table's
#: links; the sentences of moves made, by language, names and bots), and the spectator's table
#: info with what it was made from (``_spectators_table_info``).
KEPT_MEMO = frozenset({"links", "log texts", "table made"})


def kept_memo(memo: dict[tuple, Any]) -> dict[tuple, Any]:
    """The entries of a read's memo that hold for the next version of its table (without the
    HTML and contexts of this version)."""
    return {key: value for key, value in memo.items() if key[0] in KEPT_MEMO}


def copied_memo(memo: dict[tuple, Any]) -> dict[tuple, Any]:
    """``kept_memo`` for a read that another thread will go on from: the entries that renders
    fill in place (the sentences of moves, a dict) are copied, so that neither read's renders
    write into what the other's are reading."""
    return {
        key: dict(value) if isinstance(value, dict) else value
        for key, value in kept_memo(memo).items()
    }


def seats_of(match: Match) -> list[Seat]:
    """The seats of ``match`` with their players: the ones read with it when it was read with
    them (a move reads them with the match's lock and changes no seat), else one query."""
    kept = getattr(match, "_prefetched_objects_cache", {}).get("seats")
    if kept is not None and all(s.user_id is None or Seat.user.is_cached(s) for s in kept):
        return list(kept)
    return list(Seat.objects.filter(match=match).select_related("user"))


def render_table_fragments(match: Match, user: User, invite_code: str | None = None) -> str:
    """Every live part of the table, as ``user``'s seat sees it, as hx-swap-oob fragments."""
    return table_fragments(match, user, invite_code)


def table_parts(
    snapshot: TableSnapshot, user: User, invite_code: str | None = None, error: str | None = None
) -> dict[str, str]:
    """Every live part of the table as ``user``'s seat sees it (part name → hx-swap-oob
    fragment, in page order). The shared parts come from the snapshot's memo; the log is shared
    by the viewers who may read the same lines. The contexts and writers read the language and
    their translations from what is kept for it (``translations.kept_translations``)."""
    with kept_translations():
        return _table_parts(snapshot, user, invite_code, error)


def _table_parts(
    snapshot: TableSnapshot, user: User, invite_code: str | None, error: str | None
) -> dict[str, str]:
    match = snapshot.match
    invite = invite_code if invite_code and invite_code == match.invite_code else None
    language = translations.language()
    shared = snapshot.once(
        ("shared", language, invite),
        lambda: _render_parts(table_context(match, None, invite, snapshot=snapshot), SHARED_PARTS),
    )
    context = table_context(match, user, invite, error=error, snapshot=snapshot)
    own = _render_parts(context, set(TABLE_PARTS) - SHARED_PARTS - {"log"})
    visible = tuple(line["move"] for line in context["log"])
    log = snapshot.once(
        ("log", language, invite, visible), lambda: _render_parts(context, {"log"})["log"]
    )
    parts = {**shared, **own, "log": log}
    return {part: parts[part] for part in TABLE_PARTS}


def _render_parts(context: dict[str, Any], parts: set[str] | frozenset[str]) -> dict[str, str]:
    """The parts' fragments: by their Python writers (what their partials call) where they have
    one, which spares the template engine's lookup and Context; else by their templates."""
    context = {**context, "oob": True}
    return {
        part: PART_WRITERS[part](context)
        if part in PART_WRITERS
        else render_to_string(_PART_TEMPLATES[part], context)
        for part in parts
    }


def render_lobby_fragments(user: User) -> str:
    """The lobby's open tables and the user's own tables, as hx-swap-oob fragments."""
    return render_to_string("games/lobby_fragments.html", {**lobby_context(user), "oob": True})


def render_socket_error(text: str) -> str:
    return render_to_string("games/partials/errors.html#socket_error", {"text": text, "oob": True})


def table_fragments(
    match: Match, user: User, invite_code: str | None = None, error: str | None = None
) -> str:
    parts = table_parts(snapshot_of(match), user, invite_code, error=error)
    return "\n".join(parts.values())


def page_error(text: str) -> str:
    """Only the error area of a page (for an htmx request that changed nothing)."""
    return render_to_string("games/partials/errors.html#page_error", {"error": text, "oob": True})


# --- small helpers -----------------------------------------------------------------------------
def _authenticated(user: User) -> bool:
    return bool(user is not None and user.is_authenticated)


def _with_query(url: str, **params: Any) -> str:
    params = {key: value for key, value in params.items() if value not in (None, "")}
    return f"{url}?{urlencode(params)}" if params else url


def duration_label(seconds: int | None) -> str:
    if not seconds:
        return _("no timer")
    # Literal ngettext calls, one per unit, so that makemessages finds every one of them.
    if seconds % 86400 == 0:
        count = seconds // 86400
        return ngettext("%(count)d day", "%(count)d days", count) % {"count": count}
    if seconds % 3600 == 0:
        count = seconds // 3600
        return ngettext("%(count)d hour", "%(count)d hours", count) % {"count": count}
    if seconds % 60 == 0:
        count = seconds // 60
        return ngettext("%(count)d minute", "%(count)d minutes", count) % {"count": count}
    return ngettext("%(count)d second", "%(count)d seconds", seconds) % {"count": seconds}


def option_labels(match: Match, engine: Engine) -> list[str]:
    """The table's options a person chose, as short phrases (an option left at its default and a
    switch that is off say nothing)."""
    labels = []
    for spec in engine.table_options(match.seats_count):
        value = match.options.get(spec.name, spec.default)
        if isinstance(value, bool):
            if value:
                labels.append(_(spec.label))
        elif value != spec.default:
            labels.append(f"{_(spec.label)}: {choice_label(spec, value)}")
    return labels


def choice_label(spec: Any, value: Any) -> str:
    """How an option's value reads (its translated choice label when the engine gives one)."""
    if spec.choice_labels and value in spec.choices:
        return _(spec.choice_labels[spec.choices.index(value)])
    return str(value)


def game_name(slug: str) -> str:
    try:
        return get_engine(slug).name
    except KeyError:
        return slug


# --- a table -----------------------------------------------------------------------------------
def table_context(
    match: Match,
    user: User,
    invite_code: str | None = None,
    *,
    error: str | None = None,
    snapshot: TableSnapshot | None = None,
) -> dict[str, Any]:
    """The context of the table page and of its fragments, for ``user``'s seat (or a spectator).

    ``game`` (from the spectator's view) is the same for every viewer of a version and built once
    per snapshot and language; ``moves`` and the log's secret lines are the viewer's own."""
    snapshot = snapshot_of(match) if snapshot is None else snapshot
    engine = get_engine(match.game)
    presenter = get_presenter(match.game)
    seats = snapshot.seats
    me = None
    if _authenticated(user):
        me = next((s for s in seats.values() if s.user_id == user.pk), None)
    you = me.index if me else None
    language = translations.language()
    names = snapshot.once(("names", language), lambda: seat_names(seats, match.seats_count))
    invite = invite_code if invite_code and invite_code == match.invite_code else None
    links = snapshot.once(("links", language), lambda: table_links(match))
    # Reversed once per read, not by each viewer's actions (a look-up of the script prefix and
    # URLconf each time).
    urls = snapshot.once(("urls",), lambda: table_urls(match.pk))
    # The same for every spectator of a version; a seated viewer's differs only by the private
    # table's invitation link, so it is the spectator's with that link (built once).
    table = snapshot.once(
        ("table", language, invite),
        lambda: _spectators_table_info(snapshot, engine, language, invite, links, urls),
    )
    if me is not None and match.private:
        table = snapshot.once(
            ("table", language, invite, "seated"),
            lambda: {**table, "invite_url": _invite_url(match, urls)},
        )
    context: dict[str, Any] = {
        "table": table,
        "parts": presenter.templates,
        "seats": [
            {
                "index": i,
                "name": names[i],
                "empty": i not in seats,
                "is_bot": i in seats and seats[i].is_bot,
                "bot_url": bot_url(match.game, seats[i].bot_level)
                if i in seats and seats[i].is_bot
                else None,
                "is_you": i == you,
                "abandoned": i in seats and seats[i].abandoned,
                "score": seats[i].score if i in seats else None,
                "rank": seats[i].rank if i in seats else None,
            }
            for i in range(match.seats_count)
        ],
        "you": you,
        "you_name": names[you] if you is not None else None,
        "anonymous": not _authenticated(user),
        "error": error,
        "actions": _seat_actions(
            match,
            engine,
            seats,
            me,
            user,
            table,
            snapshot.invited,
            snapshot.once(("login", invite), lambda: _login_url(match, table, urls)),
            urls,
        ),
        "game": None,
        "moves": None,
        "your_turn": False,
        "to_move": [],
        "log": [],
        "announced": [],
        "last_move": None,
        "last_move_number": None,
        "playback": [],
        "timer": None,
        "result": None,
        "winners": [],
    }
    if match.state is not None:
        state = match.state
        context["to_move"] = [s for s in engine.to_move(state) if s != CHANCE]
        context["game"] = snapshot.once(
            ("game", language), lambda: presenter.game_context(engine.view(state, None), names)
        )
        if you is not None and match.is_playing:
            context["your_turn"] = you in context["to_move"]
            context["moves"] = presenter.seat_context(
                engine.view(state, you), context["game"], you, names
            )
        bots = {i for i, seat in seats.items() if seat.is_bot}
        # A move's sentence reads the same to every viewer who may read it, at every later
        # version while the seats' names and bots stay: written once.
        texts = snapshot.once(("log texts", language, tuple(names), frozenset(bots)), dict)
        context["log"] = log_lines(engine, state, snapshot.rows, names, you, bots, texts)
        context["announced"] = announced_lines(context["log"])
        public_log = (
            context["log"]
            if you is None
            else snapshot.once(
                ("public_log", language),
                lambda: log_lines(engine, state, snapshot.rows, names, None, bots, texts),
            )
        )
        # The spectator's game of this language is shared: marked once, not once per viewer.
        snapshot.once(
            ("marked", language),
            lambda: mark_last_move(engine, presenter, state, context["game"]),
        )
        context["last_move"] = public_log[-1] if public_log else None
        context["last_move_number"] = len(state["log"]) - 1
        if match.is_playing or match.status == Match.Status.FINISHED:
            context["playback"] = playback_steps(match, engine, presenter, names, public_log)
    if match.is_playing and match.deadline:
        context["timer"] = timer_info(match.deadline, [names[s] for s in context["to_move"]])
    if match.status == Match.Status.FINISHED:
        context["result"] = snapshot.once(
            ("result", language), lambda: result_table(match, engine, presenter, seats, names)
        )
        context["winners"] = [row["name"] for row in context["result"]["rows"] if row["rank"] == 1]
    facts = snapshot.once(("facts",), lambda: seat_facts(match, seats))

    def rematch() -> Match | None:
        # The same for every viewer of a read (whether the viewer sits there is a query of their
        # own): read once, not once per viewer.
        return snapshot.once(("rematch",), lambda: services.rematch_of(match))

    add_table_extras(context, match, seats, me, user, facts, rematch, urls)
    return context


def seat_names(seats: dict[int, Seat], count: int) -> list[str]:
    """A name per seat; two bots of one level are told apart by their seats."""
    names = [
        seats[i].display_name if i in seats else _("Seat %(index)s") % {"index": i}
        for i in range(count)
    ]
    return [
        _("%(name)s, seat %(index)s") % {"name": name, "index": i}
        if names.count(name) > 1
        else name
        for i, name in enumerate(names)
    ]


def table_info(
    match: Match,
    engine: Engine,
    seats: dict[int, Seat],
    me: Seat | None,
    invite: str | None,
    links: list[dict[str, str]] | None = None,
    urls: dict[str, str] | None = None,
) -> dict[str, Any]:
    pk = match.pk
    urls = table_urls(pk) if urls is None else urls
    url = urls["table"]
    return {
        "id": pk,
        "game": match.game,
        "game_name": engine.name,
        "mode": match.mode,
        "mode_label": match.get_mode_display(),
        "status": match.status,
        "status_label": match.get_status_display(),
        "version": match.version,
        "seats_count": match.seats_count,
        "taken": len(seats),
        "private": match.private,
        "turn_seconds": match.turn_seconds,
        "timer_label": duration_label(match.turn_seconds),
        "options": option_labels(match, engine),
        "is_open": match.is_open,
        "is_playing": match.is_playing,
        "is_finished": match.status == Match.Status.FINISHED,
        "is_aborted": match.status == Match.Status.ABORTED,
        "end_reason": match.get_end_reason_display() if match.end_reason else "",
        "started": match.state is not None,
        "creator": match.created_by.username if match.created_by else None,
        "invite": invite,
        "url": _with_query(url, invite=invite),
        "ws_url": _with_query(f"/ws/tables/{pk}/", invite=invite),
        "move_url": urls["move"],
        "join_url": urls["join"],
        "leave_url": urls["leave"],
        "bot_url": urls["add_bot"],
        "record_url": _with_query(urls["record"], invite=invite),
        "replay_url": _with_query(urls["replay"], invite=invite),
        "invite_url": _invite_url(match, urls) if me is not None and match.private else None,
        "links": table_links(match) if links is None else links,
    }


def _spectators_table_info(
    snapshot: TableSnapshot,
    engine: Engine,
    language: str,
    invite: str | None,
    links: list[dict[str, str]],
    urls: dict[str, str],
) -> dict[str, Any]:
    """The spectator's ``table_info`` of this read: the previous version's with this version
    and seat count when everything else it is made from is the same (nearly every move), else
    made again. Its labels (mode, status, timer, options, end) cost a tenth of a millisecond
    per version through Django's translations and choices, and change a few times a match."""
    match = snapshot.match
    creator = match.created_by.username if match.created_by else None
    made_from = (
        match.pk,
        match.game,
        match.mode,
        match.status,
        match.end_reason,
        match.seats_count,
        match.private,
        match.turn_seconds,
        match.options,
        match.state is not None,
        creator,
        links,
        urls,
    )
    key = ("table made", language, invite)
    kept = snapshot.memo.get(key)
    if kept is not None and kept[0] == made_from:
        info = kept[1]
    else:
        info = table_info(match, engine, snapshot.seats, None, invite, links, urls)
        snapshot.memo[key] = (made_from, info)
    return {**info, "version": match.version, "taken": len(snapshot.seats)}


def _invite_url(match: Match, urls: dict[str, str] | None = None) -> str:
    """The private table's link with its invitation (shown to the players seated at it)."""
    urls = table_urls(match.pk) if urls is None else urls
    return _with_query(urls["table"], invite=match.invite_code)


def _seat_actions(
    match: Match,
    engine: Engine,
    seats: dict[int, Seat],
    me: Seat | None,
    user: User,
    table: dict[str, Any],
    invited: list[Invitation],
    login_url: str,
    urls: dict[str, str] | None = None,
) -> dict[str, Any]:
    urls = table_urls(match.pk) if urls is None else urls
    full = len(seats) >= match.seats_count
    friends_to_invite = []
    if match.is_open and me is not None and not full:
        seated = {s.user_id for s in seats.values()} | {i.to_user_id for i in invited}
        friends_to_invite = list(
            get_user_model().objects.filter(pk__in=friend_ids(user) - seated).order_by("username")
        )
    return {
        "invited": [i.to_user.username for i in invited],
        "friends_to_invite": friends_to_invite,
        "invite_friend_url": urls["invite_friend"],
        "can_join": match.is_open and _authenticated(user) and me is None and not full,
        "can_leave": match.is_open and me is not None,
        "can_add_bot": match.is_open and not full and services.may_add_bot(match, user),
        "bot_levels": list(engine.bot_levels),
        "login_url": login_url,
        "must_log_in": match.is_open and not _authenticated(user) and not full,
    }


def _login_url(match: Match, table: dict[str, Any], urls: dict[str, str] | None = None) -> str:
    """The login page, coming back to the table (the same for every viewer of a version)."""
    urls = table_urls(match.pk) if urls is None else urls
    return _with_query(urls["login"], next=table["url"])


def timer_info(deadline: datetime, who: list[str]) -> dict[str, Any]:
    seconds = max(0, int((deadline - timezone.now()).total_seconds()))
    return {
        "deadline": deadline.isoformat(),
        "seconds_left": seconds,
        "clock": f"{seconds // 60}:{seconds % 60:02d}",
        "who": ", ".join(who),
    }


# --- the move log ----------------------------------------------------------------------------------
def _move_rows(match: Match, after: int | None = None) -> list[tuple[int, int, Any, bool]]:
    """(number, seat, description, by_bot) of every move (after move number ``after``), in
    order."""
    moves = Move.objects.filter(match=match)
    if after is not None:
        moves = moves.filter(number__gt=after)
    return list(moves.order_by("number").values_list("number", "seat", "description", "by_bot"))


def _new_move_rows(match: Match, after: int | None) -> list[tuple[int, int, Any, bool]]:
    """The moves after move number ``after`` (all of them when None): the ones this ``match``
    object just wrote when they follow ``after`` with no gap (the publishing process renders the
    change it made without reading its moves back), else read."""
    saved = services.saved_move_rows(match)
    if saved and saved[0][0] == (-1 if after is None else after) + 1:
        return list(saved)
    return _move_rows(match, after=after)


def render_sentence(sentence: Sentence, names: list[str]) -> str:
    """An engine's sentence in the active language: seats become their players' names, nested
    sentences (a kind's name) are translated first."""

    def param(value: Any) -> Any:
        if isinstance(value, Sentence):
            return render_sentence(value, names)
        if isinstance(value, SeatRef):
            return names[value.seat] if 0 <= value.seat < len(names) else str(value)
        return value

    params = {key: param(value) for key, value in sentence.params.items()}
    if not params:
        return _(sentence.template)
    try:
        return _(sentence.template).format(**params)
    except (KeyError, IndexError, ValueError):
        # A translation that broke its placeholders must not break the page.
        return sentence.template.format(**params)


def log_lines(
    engine: Engine,
    state: State,
    rows: list[tuple[int, int, Any, bool]],
    names: list[str],
    viewer: int | None,
    bot_seats: set[int] = frozenset(),
    texts: dict[int, str] | None = None,
) -> list[dict[str, Any]]:
    """The move log as ``viewer`` may read it: the stored sentence of every move that the
    engine's record shows this viewer (a secret pick stays out until its step is revealed). A
    person's move that the bot played (time up, abandoned) says so. ``texts`` (move number →
    sentence, in the active language) keeps the sentences written for other viewers."""
    final = engine.is_over(state)
    entries = state["log"]
    lines = []
    for number, seat, description, by_bot in rows:
        if description is None or number >= len(entries):
            continue
        logged_seat, logged_move = entries[number]
        if engine.record_move(logged_seat, logged_move, viewer, final) is None:
            continue
        text = texts.get(number) if texts is not None else None
        if text is None:
            text = render_sentence(Sentence.from_json(description), names)
            if by_bot and seat != CHANCE and seat not in bot_seats:
                text = _("%(text)s (played by the bot)") % {"text": text}
            if texts is not None:
                texts[number] = text
        lines.append(
            {
                "number": len(lines) + 1,
                "move": number,
                "seat": seat,
                "text": text,
                "automatic": by_bot or seat == CHANCE,
            }
        )
    return lines


def announced_lines(log: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The automatic moves (bots, chance, timeouts) since the last move a person made: the
    status announces them, so that a player learns what happened while they waited."""
    tail = []
    for line in reversed(log):
        if not line["automatic"]:
            break
        tail.append(line)
    return list(reversed(tail[:ANNOUNCED_MOVES]))


# --- what just happened ---------------------------------------------------------------------------
#: How many boards before the current one the page plays back after automatic moves.
PLAYBACK_STEPS = ANNOUNCED_MOVES


def mark_last_move(engine: Engine, presenter: Presenter, state: State, game: dict) -> None:
    """Let the presenter highlight the last move that everyone may see and that shows on the
    board (a secret pick is not one until its step is revealed; a roll of dice draws nothing)."""
    final = engine.is_over(state)
    for seat, move in reversed(state["log"]):
        shown = engine.record_move(seat, move, None, final) is not None
        if shown and presenter.mark_last_move(game, seat, move):
            return


def playback_steps(
    match: Match,
    engine: Engine,
    presenter: Presenter,
    names: list[str],
    public_log: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """The boards between the last move a person made and now, when bots, chance or timeouts
    moved after it: the page shows them one after another, each with the sentence of the move
    that made it, before the board as it is. Spectator views only, so nothing hidden shows."""
    tail = announced_lines(public_log)[-PLAYBACK_STEPS:]
    if not tail:
        return []
    # Every viewer of a version sees the same boards: rendered once per version and language.
    # (The secret seed tells two matches apart where a test database reuses ids.)
    key = (match.pk, match.seed, match.version, len(public_log), translations.language())
    if key not in _PLAYBACK_CACHE:
        boards = _playback_boards(match, engine, presenter, names, public_log, tail)
        _keep_newest(_PLAYBACK_CACHE, key, boards, PLAYBACK_CACHE_SIZE)
    return _PLAYBACK_CACHE[key]


def _keep_newest(kept: dict[Any, Any], key: Any, value: Any, size: int) -> None:
    """Put ``value`` in ``kept`` under ``key`` as its newest entry, the oldest going first when
    it holds ``size`` (shared by the process's threads: another may have taken one already)."""
    kept.pop(key, None)
    while len(kept) >= size:
        kept.pop(next(iter(kept), None), None)
    kept[key] = value


_PLAYBACK_CACHE: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
PLAYBACK_CACHE_SIZE = 64


def _playback_boards(
    match: Match,
    engine: Engine,
    presenter: Presenter,
    names: list[str],
    public_log: list[dict[str, Any]],
    tail: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    first = public_log.index(tail[0])
    # The board after the move before the automatic ones, then after each automatic move but the
    # last (the live board shows that one).
    shown = [public_log[first - 1]] if first > 0 else []
    shown += tail[:-1]
    if not shown:
        return []
    stops = {line["move"]: line for line in shown}
    moves = _moves_to_replay(match, engine, min(stops), max(stops))
    state, last = moves[0]
    steps = []
    for number, seat, payload in moves[1:]:
        state = engine.apply(state, seat, payload)
        last = (number, seat, payload)
        if number in stops:
            game = presenter.game_context(engine.view(state, None), names)
            # A move that draws nothing of its own (a roll of dice) needs no board of its own.
            if not presenter.mark_last_move(game, seat, payload):
                continue
            context = {"game": game, "table": {"game": match.game}, "parts": presenter.templates}
            html = game_part(context, "board")
            steps.append({"move": number, "text": stops[number]["text"], "board": html})
    _remember_replayed(match, last, state)
    return steps


#: Per table (id, seed), the last move replayed for its playback (number, seat, payload) and the
#: state after it: the next version's playback starts there instead of from the deal.
_REPLAYED: dict[tuple[int, str], tuple[tuple[int, int, Any], State]] = {}
REPLAYED_TABLES = 1000


def _moves_to_replay(match: Match, engine: Engine, first: int, last: int) -> list[Any]:
    """``[(state, last move replayed), (number, seat, payload)…]``: where to start and the moves
    to play again to reach move ``last``, never starting past move ``first``. The start is the
    state kept from an earlier playback when the move it was kept after is still the table's
    (moves are only ever added; ``apply`` leaves the state it is given untouched), else the
    deal."""
    kept = _REPLAYED.get((match.pk, match.seed))
    payloads = Move.objects.filter(match=match, number__lte=last).order_by("number")
    if kept is not None and kept[0][0] < first:
        (after, _seat, _payload), state = kept
        rows = list(payloads.filter(number__gte=after).values_list("number", "seat", "payload"))
        if rows and rows[0] == kept[0]:
            return [(state, kept[0]), *rows[1:]]
    start = engine.new_game(match.seats_count, match.options)
    return [(start, None), *payloads.values_list("number", "seat", "payload")]


def _remember_replayed(match: Match, last: tuple[int, int, Any] | None, state: State) -> None:
    if last is None:
        return
    _keep_newest(_REPLAYED, (match.pk, match.seed), (last, state), REPLAYED_TABLES)


# --- the result ----------------------------------------------------------------------------------
def result_table(
    match: Match,
    engine: Engine,
    presenter: Presenter,
    seats: dict[int, Seat],
    names: list[str],
    state: State | None = None,
) -> dict[str, Any]:
    """The final breakdown (the engine's columns) per seat in ranked order, with the seats' ranks
    (abandoners last)."""
    state = match.state if state is None else state
    columns = [{"key": c.key, "label": _(c.label)} for c in engine.breakdown_columns]
    breakdown = engine.breakdown(state)
    rows = []
    for index in range(match.seats_count):
        seat = seats.get(index)
        rows.append(
            {
                "seat": index,
                "name": names[index],
                "score": seat.score if seat else None,
                "rank": seat.rank if seat else None,
                "abandoned": bool(seat and seat.abandoned),
                "bot_url": bot_url(match.game, seat.bot_level) if seat and seat.is_bot else None,
                "cells": [breakdown[index].get(c["key"]) for c in columns],
            }
        )
    rows.sort(key=lambda r: (r["rank"] or 99, r["seat"]))
    caption = _(presenter.result_caption) if presenter.result_caption else ""
    return {"columns": columns, "rows": rows, "caption": caption}


# --- the replay viewer -------------------------------------------------------------------------
def replay_context(match: Match, step: int) -> dict[str, Any]:
    """The spectator's view of a finished match after ``step`` lines of its move log (each step
    is one line; a move without a line is shown with the step before it)."""
    engine = get_engine(match.game)
    presenter = get_presenter(match.game)
    seats = {s.index: s for s in Seat.objects.filter(match=match).select_related("user")}
    names = seat_names(seats, match.seats_count)
    rows = _move_rows(match)
    bots = {i for i, seat in seats.items() if seat.is_bot}
    log = log_lines(engine, match.state, rows, names, None, bots)
    total = len(log)
    step = max(0, min(step, total))
    # Apply every move up to the next step's line (the deal comes before the first line).
    stop = log[step]["move"] if step < total else None
    state = engine.new_game(match.seats_count, match.options)
    payloads = (
        Move.objects.filter(match=match).order_by("number").values_list("number", "seat", "payload")
    )
    for number, seat, payload in payloads:
        if stop is not None and number >= stop:
            break
        state = engine.apply(state, seat, payload)
    url = reverse("games:replay", args=[match.pk])
    invite = match.invite_code if match.private else None

    def link(to: int) -> str:
        return _with_query(url, step=to, invite=invite)

    result = None
    if engine.is_over(state):
        result = result_table(match, engine, presenter, seats, names, state=state)
    game = presenter.game_context(engine.view(state, None), names)
    if step:
        mark_last_move(engine, presenter, state, game)
    return {
        "table": table_info(match, engine, seats, None, invite),
        "parts": presenter.templates,
        "game": game,
        "moves": None,
        "log": log[:step],
        "step": step,
        "total": total,
        "current": log[step - 1] if step else None,
        "first_url": link(0),
        "prev_url": link(step - 1) if step > 0 else None,
        "next_url": link(step + 1) if step < total else None,
        "last_url": link(total),
        "result": result,
        "analysis": analysis.replay_panel(match, log, step, names, link),
    }


# --- the lobby ---------------------------------------------------------------------------------
def lobby_context(user: User) -> dict[str, Any]:
    authenticated = _authenticated(user)
    public = (
        services.lobby_tables(user)
        .select_related("created_by")
        .prefetch_related("seats")
        .defer("state", "seed")
        .order_by("-created_at")
    )
    games = []
    for engine in all_engines():
        tables = [
            lobby_row(m, engine, user)
            for m in public.filter(game=engine.slug)[:LOBBY_TABLES_PER_GAME]
        ]
        games.append(
            {
                "slug": engine.slug,
                "name": engine.name,
                "tables": tables,
            }
        )
    mine = []
    if authenticated:
        own = (
            Match.objects.filter(
                seats__user=user, status__in=[Match.Status.OPEN, Match.Status.PLAYING]
            )
            .select_related("created_by")
            .prefetch_related("seats")
            .order_by("-created_at")
            .distinct()
        )
        for match in own:
            try:
                engine = get_engine(match.game)
            except KeyError:
                continue
            mine.append(lobby_row(match, engine, user))
    return {
        "games": games,
        "mine": mine,
        "anonymous": not authenticated,
        "digest": shown_digest(games, mine),
    }


def shown_digest(*shown: Any) -> str:
    """A short digest of what a live page's parts show (plain data, in the active language),
    carried by the parts as ``data-digest``: the page drops a socket frame whose parts carry the
    digests it already shows (``static/js/site.js``), rather than swapping the same parts in again
    under a click or the keyboard's focus. Pages without a table version use it (the lobby, an
    arena); a table's parts carry its version instead."""
    text = json.dumps([get_language(), *shown], sort_keys=True, default=str)
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def lobby_row(match: Match, engine: Engine, user: User) -> dict[str, Any]:
    seats = list(match.seats.all())
    me = None
    if _authenticated(user):
        me = next((s for s in seats if s.user_id == user.pk), None)
    your_turn = False
    if me is not None and match.is_playing and match.state is not None:
        your_turn = me.index in engine.to_move(match.state)
    return {
        "id": match.pk,
        "game": match.game,
        "game_name": engine.name,
        "url": reverse("games:table", args=[match.pk]),
        "join_url": reverse("games:join", args=[match.pk]),
        "taken": len(seats),
        "seats_count": match.seats_count,
        "mode": match.mode,
        "mode_label": match.get_mode_display(),
        "timer_label": duration_label(match.turn_seconds),
        "options": option_labels(match, engine),
        "creator": match.created_by.username if match.created_by else "—",
        "private": match.private,
        "status_label": match.get_status_display(),
        "is_open": match.is_open,
        "seated": me is not None,
        "your_turn": your_turn,
        "can_join": (
            match.is_open and _authenticated(user) and me is None and len(seats) < match.seats_count
        ),
    }
