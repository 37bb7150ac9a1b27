"""What the pages show of the lobby, a table and a replay, built for one viewer, and the HTML
fragments the WebSocket consumers push.

The full pages and the sockets render the same partials (``templates/games/partials/``) from the
same contexts, so a page and a socket never disagree. Game data comes only from
``engine.view(state, seat)``: ``match.state`` holds the pizzas still to come and never reaches a
template. The move log is read from the Move rows without the chance moves (the deal holds every
pizza); its slices are named from the pizzas the view reveals.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from players.friends import friend_ids

from . import services
from .engines import CHANCE, Engine, all_engines, get_engine
from .engines.part_du_chef import (
    KIND_NAMES,
    KINDS,
    MAJORITY_VALUE,
    SLICES_PER_PIZZA,
    portions_of_cut,
)
from .models import Match, Move, Seat

#: Games with a table page in the browser; the others are played through the JSON API for now.
BROWSER_GAMES = frozenset({"part-du-chef"})

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


#: Kind letters in display order, chillies and burnt slices last.
DISPLAY_ORDER = (*KINDS, "C", "B")
LOBBY_TABLES_PER_GAME = 50
BREAKDOWN_KEYS = ("olives", "slice_points", "majority", "variety", "burnt", "total")

User = AbstractBaseUser | AnonymousUser | None


# --- public entry points (the consumers call these) -------------------------------------------
def render_table_fragments(match: Match, user: User, invite_code: str | None = None) -> str:
    """Every live part of the table, as ``user``'s seat sees it, as hx-swap-oob fragments."""
    return table_fragments(match, user, invite_code)


def render_lobby_fragments(user: User) -> str:
    """The lobby's open tables and the user's own tables, as hx-swap-oob fragments."""
    return render_to_string("games/lobby_fragments.html", {**lobby_context(user), "oob": True})


def render_socket_error(text: str) -> str:
    return render_to_string("games/partials/errors.html#socket_error", {"text": text, "oob": True})


def table_fragments(
    match: Match, user: User, invite_code: str | None = None, error: str | None = None
) -> str:
    context = table_context(match, user, invite_code, error=error)
    return render_to_string("games/table_fragments.html", {**context, "oob": True})


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
    labels = []
    for spec in engine.option_specs:
        value = match.options.get(spec.name, spec.default)
        if spec.name == "marianne":
            if value:
                labels.append(_("La Marianne"))
        elif isinstance(value, bool):
            if value:
                labels.append(_(spec.label))
        elif value != spec.default:
            labels.append(f"{_(spec.label)}: {value}")
    return labels


def game_name(slug: str) -> str:
    try:
        return get_engine(slug).name
    except KeyError:
        return slug


# --- slices ------------------------------------------------------------------------------------
def revealed_codes(view: dict[str, Any]) -> dict[int, str]:
    """Slice id → code for the pizzas the view reveals (and only those)."""
    return {
        SLICES_PER_PIZZA * k + position: code
        for k, pizza in enumerate(view["pizzas"])
        for position, code in enumerate(pizza)
    }


def describe_slice(slice_id: int, code: str | None) -> dict[str, Any]:
    if code is None:  # not revealed to this viewer (never expected for kept or eaten slices)
        return {
            "id": slice_id,
            "position": slice_id % SLICES_PER_PIZZA,
            "letter": "X",
            "kind": None,
            "olives": 0,
            "finisher": False,
            "edible": False,
            "short": "?",
            "name": _("Unknown slice"),
            "label": f"? #{slice_id}",
            "title": _("Slice #%(id)s") % {"id": slice_id},
        }
    finisher = code.endswith("*")
    base = code.rstrip("*")
    letter = base[0]
    kind = letter if letter in KINDS else None
    olives = int(base[1]) if kind and len(base) > 1 else 0
    if kind:
        name = KIND_NAMES[kind]
        short = base
    elif letter == "C":
        name, short = _("Chilli"), _("Chilli")
    else:
        name, short = _("Burnt slice"), _("Burnt")
    details = [name]
    if kind:
        details.append(ngettext("%(count)d olive", "%(count)d olives", olives) % {"count": olives})
    if finisher:
        details.append(_("double finisher"))
    star = "★" if finisher else ""
    return {
        "id": slice_id,
        "position": slice_id % SLICES_PER_PIZZA,
        "letter": letter,
        "kind": kind,
        "olives": olives,
        "finisher": finisher,
        "edible": kind is not None,
        "short": short,
        "name": name,
        "label": f"{short}{star} #{slice_id}",
        "title": _("Slice #%(id)s: %(details)s")
        % {"id": slice_id, "details": ", ".join(str(d) for d in details)},
    }


# --- La Part du Chef ---------------------------------------------------------------------------
def pdc_context(
    view: dict[str, Any],
    names: list[str],
    you: int | None,
    moves: list[tuple[int, dict[str, Any], bool]],
    *,
    interactive: bool,
) -> dict[str, Any]:
    """Everything the table shows of a La Part du Chef game, from a seat's view only."""
    codes = revealed_codes(view)

    def slice_info(slice_id: int) -> dict[str, Any]:
        return describe_slice(slice_id, codes.get(slice_id))

    to_move = list(view["to_move"])
    chef = view["chef"]
    marianne = view.get("marianne")
    holder = marianne["holder"] if marianne and marianne["in_play"] else None
    context: dict[str, Any] = {
        "phase": view["phase"],
        "round_number": view["round"] + 1 if view["round"] is not None else None,
        "rounds": view["rounds"],
        "chef": chef,
        "chef_name": names[chef] if chef is not None else None,
        "to_move": to_move,
        "to_move_names": [names[s] for s in to_move],
        "your_turn": you is not None and you in to_move,
        "marianne": marianne,
        "marianne_holder_name": names[holder] if holder is not None else None,
        "board": None,
        "cut_form": None,
        "take_forms": [],
        "marianne_form": None,
        "players": [],
        "kinds": [{"letter": k, "name": KIND_NAMES[k], "value": MAJORITY_VALUE[k]} for k in KINDS],
        "log": log_lines(moves, names, codes, view["players"]),
    }
    kept_by_seat = {
        entry["seat"]: [slice_info(i) for i in entry["kept"]] for entry in view["seats"]
    }
    if view["round"] is not None:
        context["board"] = _board(view, names, slice_info)
    for entry in view["seats"]:
        context["players"].append(_player(entry, names, kept_by_seat[entry["seat"]], view, you))
    if interactive and context["your_turn"] and view["round"] is not None:
        board = context["board"]
        if view["phase"] == "cut":
            context["cut_form"] = {"n": view["players"], "slices": board["slices"]}
        elif view["phase"] == "take":
            context["take_forms"] = _take_forms(view, names, you, slice_info, kept_by_seat)
        if holder == you:
            context["marianne_form"] = _marianne_form(names, you, kept_by_seat)
    return context


def _board(view: dict[str, Any], names: list[str], slice_info: Any) -> dict[str, Any]:
    k = view["round"]
    base = SLICES_PER_PIZZA * k
    slices = [slice_info(base + position) for position in range(SLICES_PER_PIZZA)]
    portions = []
    for portion in view["portions"] or []:
        taken_by = portion["taken_by"]
        info = {
            "index": portion["index"],
            "first": portion["slices"][0] % SLICES_PER_PIZZA,
            "length": len(portion["slices"]),
            "slices": [slices[i % SLICES_PER_PIZZA] for i in portion["slices"]],
            "taken_by": taken_by,
            "taken_by_name": names[taken_by] if taken_by is not None else None,
        }
        portions.append(info)
    owner = {i: p for p in portions for i in (s["id"] for s in p["slices"])}
    drawn = []
    for s in slices:
        portion = owner.get(s["id"])
        title = s["title"]
        if portion is not None:
            title = _("%(slice)s; portion %(portion)s") % {
                "slice": title,
                "portion": portion["index"],
            }
            if portion["taken_by_name"]:
                title = _("%(slice)s, taken by %(player)s") % {
                    "slice": title,
                    "player": portion["taken_by_name"],
                }
        drawn.append(
            {
                **s,
                "title": title,
                "portion": portion["index"] if portion else None,
                "taken": bool(portion and portion["taken_by"] is not None),
            }
        )
    title = _("Pizza %(number)s of %(total)s") % {"number": k + 1, "total": view["rounds"]}
    if view["cut"]:
        title = _("%(pizza)s, cut at positions %(cut)s") % {
            "pizza": title,
            "cut": ", ".join(str(p) for p in view["cut"]),
        }
    return {
        "number": k + 1,
        "title": title,
        "slices": drawn,
        "portions": portions,
        "cut": view["cut"],
        "dom_id": f"pizza-{k}",
    }


def _player(
    entry: dict[str, Any],
    names: list[str],
    kept: list[dict[str, Any]],
    view: dict[str, Any],
    you: int | None,
) -> dict[str, Any]:
    seat = entry["seat"]
    groups = []
    for letter in DISPLAY_ORDER:
        of_kind = [s for s in kept if s["letter"] == letter]
        if of_kind:
            groups.append(
                {
                    "letter": letter,
                    "name": of_kind[0]["name"],
                    "count": len(of_kind),
                    "slices": of_kind,
                }
            )
    counts = [{"letter": k, "count": entry["counts"].get(k, 0)} for k in KINDS]
    marianne = view.get("marianne")
    return {
        "seat": seat,
        "name": names[seat],
        "is_you": seat == you,
        "is_chef": seat == view["chef"],
        "to_move": seat in view["to_move"],
        "holds_marianne": bool(marianne and marianne["in_play"] and marianne["holder"] == seat),
        "groups": groups,
        "counts": counts,
        "chillies": sum(1 for s in kept if s["letter"] == "C"),
        "burnt": sum(1 for s in kept if s["letter"] == "B"),
        "eaten": len(entry["eaten"]),
        "olives": entry["olives"],
        "slice_points": entry["slice_points"],
        "points": entry["olives"] + entry["slice_points"],
    }


def _take_forms(
    view: dict[str, Any],
    names: list[str],
    you: int,
    slice_info: Any,
    kept_by_seat: dict[int, list[dict[str, Any]]],
) -> list[dict[str, Any]]:
    forms = []
    for portion in view["portions"]:
        if portion["taken_by"] is not None:
            continue
        slices = [slice_info(i) for i in portion["slices"]]
        steals = []
        for s in slices:
            if not (s["finisher"] and s["kind"]):
                continue
            targets = [
                {"seat": other, "name": names[other]}
                for other, kept in kept_by_seat.items()
                if other != you and any(k["kind"] == s["kind"] for k in kept)
            ]
            steals.append({"kind": s["kind"], "name": s["name"], "slice": s, "targets": targets})
        forms.append(
            {
                "index": portion["index"],
                "slices": slices,
                "edible": [s for s in slices if s["edible"]],
                "steals": steals,
            }
        )
    return forms


def _marianne_form(
    names: list[str], you: int, kept_by_seat: dict[int, list[dict[str, Any]]]
) -> dict[str, Any] | None:
    mine = kept_by_seat.get(you, [])
    others = [
        {"value": f"{seat}:{s['id']}", "label": f"{names[seat]}: {s['label']}"}
        for seat, kept in sorted(kept_by_seat.items())
        if seat != you
        for s in kept
    ]
    if len(mine) < 2 or len(others) < 2:
        return None
    return {"mine": mine, "others": others, "pairs": [1, 2]}


def log_lines(
    moves: list[tuple[int, dict[str, Any], bool]],
    names: list[str],
    codes: dict[int, str],
    n_players: int,
) -> list[dict[str, Any]]:
    """Human-readable lines for the players' moves (chance moves are never passed in)."""

    def label(slice_id: int) -> str:
        return describe_slice(slice_id, codes.get(slice_id))["label"]

    def labels(ids: list[int]) -> str:
        return ", ".join(label(i) for i in ids)

    lines = []
    round_index, takes, portions = 0, 0, []
    for number, (seat, move, by_bot) in enumerate(moves, start=1):
        name = names[seat] if 0 <= seat < len(names) else "?"
        text = ""
        if "marianne" in move:
            swap = move["marianne"]
            (give_a, give_b), ((to_a, get_a), (to_b, get_b)) = swap["give"], swap["get"]
            text = _(
                "%(name)s plays La Marianne: gives %(give_a)s to %(to_a)s for %(get_a)s, "
                "and %(give_b)s to %(to_b)s for %(get_b)s."
            ) % {
                "name": name,
                "give_a": label(give_a),
                "to_a": names[to_a],
                "get_a": label(get_a),
                "give_b": label(give_b),
                "to_b": names[to_b],
                "get_b": label(get_b),
            }
        elif "cut" in move:
            portions = portions_of_cut(move["cut"], round_index)
            takes = 0
            text = _("%(name)s cuts pizza %(number)s at positions %(cut)s.") % {
                "name": name,
                "number": round_index + 1,
                "cut": ", ".join(str(p) for p in sorted(move["cut"])),
            }
        elif "take" in move:
            index = move["take"]
            portion = portions[index] if 0 <= index < len(portions) else []
            parts = [
                _("%(name)s takes portion %(index)s (%(slices)s).")
                % {"name": name, "index": index, "slices": labels(portion)}
            ]
            if move.get("eat"):
                parts.append(_("Eats %(slices)s.") % {"slices": labels(move["eat"])})
            for kind, target in (move.get("steal") or {}).items():
                parts.append(
                    _("Takes a %(kind)s slice from %(player)s.")
                    % {"kind": KIND_NAMES.get(kind, kind), "player": names[target]}
                )
            text = " ".join(str(p) for p in parts)
            takes += 1
            if takes == n_players:
                round_index += 1
        if by_bot:
            text = _("%(text)s (played by the bot)") % {"text": text}
        lines.append({"number": number, "seat": seat, "text": text})
    return lines


# --- a table -----------------------------------------------------------------------------------
def table_context(
    match: Match, user: User, invite_code: str | None = None, *, error: str | None = None
) -> dict[str, Any]:
    """The context of the table page and of its fragments, for ``user``'s seat (or a spectator)."""
    engine = get_engine(match.game)
    seats = {s.index: s for s in Seat.objects.filter(match=match).select_related("user")}
    me = None
    if _authenticated(user):
        me = next((s for s in seats.values() if s.user_id == user.pk), None)
    you = me.index if me else None
    names = seat_names(seats, match.seats_count)
    invite = invite_code if invite_code and invite_code == match.invite_code else None
    table = table_info(match, engine, seats, me, invite)
    context: dict[str, Any] = {
        "table": table,
        "seats": [
            {
                "index": i,
                "name": names[i],
                "empty": i not in seats,
                "is_bot": i in seats and seats[i].is_bot,
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
        "actions": _seat_actions(match, engine, seats, me, user, table),
        "game": None,
        "to_move": [],
        "timer": None,
        "result": None,
        "winners": [],
    }
    if match.state is not None:
        view = engine.view(match.state, you)
        context["to_move"] = [s for s in view.get("to_move", []) if s != CHANCE]
        if match.game in BROWSER_GAMES:
            moves = list(
                Move.objects.filter(match=match)
                .exclude(seat=CHANCE)
                .order_by("number")
                .values_list("seat", "payload", "by_bot")
            )
            context["game"] = pdc_context(
                view, names, you, moves, interactive=match.is_playing and you is not None
            )
    if match.is_playing and match.deadline:
        context["timer"] = timer_info(match.deadline, [names[s] for s in context["to_move"]])
    if match.status == Match.Status.FINISHED:
        context["result"] = result_rows(match, engine, seats, names)
        context["winners"] = [row["name"] for row in context["result"] if row["rank"] == 1]
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
) -> dict[str, Any]:
    pk = match.pk
    url = reverse("games:table", args=[pk])
    return {
        "id": pk,
        "game": match.game,
        "game_name": engine.name,
        "browser": match.game in BROWSER_GAMES,
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
        "move_url": reverse("games:move", args=[pk]),
        "join_url": reverse("games:join", args=[pk]),
        "leave_url": reverse("games:leave", args=[pk]),
        "bot_url": reverse("games:add_bot", args=[pk]),
        "record_url": _with_query(reverse("games:record", args=[pk]), invite=invite),
        "replay_url": _with_query(reverse("games:replay", args=[pk]), invite=invite),
        "invite_url": (
            _with_query(url, invite=match.invite_code) if me is not None and match.private else None
        ),
        "links": table_links(match),
    }


def _seat_actions(
    match: Match,
    engine: Engine,
    seats: dict[int, Seat],
    me: Seat | None,
    user: User,
    table: dict[str, Any],
) -> dict[str, Any]:
    full = len(seats) >= match.seats_count
    invited = list(match.invitations.select_related("to_user").order_by("to_user__username"))
    friends_to_invite = []
    if match.is_open and me is not None and not full:
        seated = {s.user_id for s in seats.values()} | {i.to_user_id for i in invited}
        friends_to_invite = list(
            get_user_model().objects.filter(pk__in=friend_ids(user) - seated).order_by("username")
        )
    return {
        "invited": [i.to_user.username for i in invited],
        "friends_to_invite": friends_to_invite,
        "invite_friend_url": reverse("players:invite_friend", args=[match.pk]),
        "can_join": match.is_open and _authenticated(user) and me is None and not full,
        "can_leave": match.is_open and me is not None,
        "can_add_bot": match.is_open and not full and services.may_add_bot(match, user),
        "bot_levels": list(engine.bot_levels),
        "login_url": _with_query(reverse("players:login"), next=table["url"]),
        "must_log_in": match.is_open and not _authenticated(user) and not full,
    }


def timer_info(deadline: datetime, who: list[str]) -> dict[str, Any]:
    seconds = max(0, int((deadline - timezone.now()).total_seconds()))
    return {
        "deadline": deadline.isoformat(),
        "seconds_left": seconds,
        "clock": f"{seconds // 60}:{seconds % 60:02d}",
        "who": ", ".join(who),
    }


def result_rows(
    match: Match, engine: Engine, seats: dict[int, Seat], names: list[str], state: Any = None
) -> list[dict[str, Any]]:
    """The final breakdown per seat (ranked order): the engine's breakdown when it has one, the
    seats' scores and ranks (abandoners last) in any case."""
    if state is None:
        state = match.state
    breakdown = None
    if match.game in BROWSER_GAMES and state is not None and hasattr(engine, "breakdown"):
        breakdown = engine.breakdown(state)
    rows = []
    for index in range(match.seats_count):
        seat = seats.get(index)
        row = {
            "seat": index,
            "name": names[index],
            "score": seat.score if seat else None,
            "rank": seat.rank if seat else None,
            "abandoned": bool(seat and seat.abandoned),
            **dict.fromkeys(BREAKDOWN_KEYS),
        }
        if breakdown:
            row.update(breakdown[index])
        rows.append(row)
    return sorted(rows, key=lambda r: (r["rank"] or 99, r["seat"]))


# --- the replay viewer -------------------------------------------------------------------------
def replay_context(match: Match, step: int) -> dict[str, Any]:
    """The spectator's view after ``step`` players' moves of a finished match."""
    engine = get_engine(match.game)
    seats = {s.index: s for s in Seat.objects.filter(match=match).select_related("user")}
    names = seat_names(seats, match.seats_count)
    rows = list(
        Move.objects.filter(match=match).order_by("number").values_list("seat", "payload", "by_bot")
    )
    player_moves = [row for row in rows if row[0] != CHANCE]
    total = len(player_moves)
    step = max(0, min(step, total))
    state = engine.new_game(match.seats_count, match.options)
    done = 0
    for seat, payload, _by_bot in rows:
        if seat != CHANCE:
            if done == step:
                break
            done += 1
        state = engine.apply(state, seat, payload)
    view = engine.view(state, None)
    game = pdc_context(view, names, None, player_moves[:step], interactive=False)
    url = reverse("games:replay", args=[match.pk])
    invite = match.invite_code if match.private else None

    def link(to: int) -> str:
        return _with_query(url, step=to, invite=invite)

    result = None
    if engine.is_over(state):
        result = result_rows(match, engine, seats, names, state=state)
    return {
        "table": table_info(match, engine, seats, None, invite),
        "game": game,
        "step": step,
        "total": total,
        "current": game["log"][-1] if step else None,
        "first_url": link(0),
        "prev_url": link(step - 1) if step > 0 else None,
        "next_url": link(step + 1) if step < total else None,
        "last_url": link(total),
        "result": result,
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
                "browser": engine.slug in BROWSER_GAMES,
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
    return {"games": games, "mine": mine, "anonymous": not authenticated}


def lobby_row(match: Match, engine: Engine, user: User) -> dict[str, Any]:
    seats = list(match.seats.all())
    me = None
    if _authenticated(user):
        me = next((s for s in seats if s.user_id == user.pk), None)
    your_turn = False
    if me is not None and match.is_playing and match.state is not None:
        your_turn = me.index in engine.to_move(match.state)
    browser = match.game in BROWSER_GAMES
    return {
        "id": match.pk,
        "game": match.game,
        "game_name": engine.name,
        "browser": browser,
        "url": reverse("games:table", args=[match.pk]) if browser else None,
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
            browser
            and match.is_open
            and _authenticated(user)
            and me is None
            and len(seats) < match.seats_count
        ),
    }
