"""The JSON API (spec/api.md): thin views over the same services as the HTML pages."""

from __future__ import annotations

import asyncio
import functools
import itertools
from collections.abc import Callable, Collection
from typing import Any

from asgiref.sync import async_to_sync, sync_to_async
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import RequestDataTooBig
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt

from pdc_site import gate, request_threads
from players.auth import ApiAuthError, api_caller

from . import analysis, chat, limits, notify, ratelimit, rows, services
from .clocks import seat_clocks
from .engines import CHANCE, all_engines
from .engines.records import export_record
from .models import Match
from .seat_facts import seat_facts

LONG_POLL_SECONDS = 25.0
#: How often a waiting poll re-reads the table's version (the doorbell may be lost).
RECHECK_SECONDS = 1.0
#: Long polls one caller may have waiting at once; one more answers 429.
POLLS_PER_CALLER = 4
LEGAL_LIST_LIMIT = 50
#: API calls per minute per caller (``API_CALLS_PER_MINUTE``, 300).
CALLS_PER_WINDOW = (settings.API_CALLS_PER_MINUTE, 60)
#: A move's body: the version it was made on and the move.
MOVE_FIELDS = frozenset({"version", "move"})


def error(message: str, status: int) -> JsonResponse:
    return JsonResponse({"error": message}, status=status)


class ApiError(Exception):
    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.message, self.status = message, status


def _caller_key(request: HttpRequest, user: Any) -> str:
    if user.is_authenticated:
        return f"user:{user.pk}"
    return f"ip:{ratelimit.client_address(request)}"


def _prepare(
    request: HttpRequest, methods: tuple[str, ...], login: bool, counts_move: bool = False
) -> Any:
    """Method, caller, rate limit: the checks every endpoint makes first. ``counts_move``: the
    request is a move (its body already checked): its hit against the moves' limit is counted
    with the calls' (after it, and only if the calls' let it through), and what that limit
    said is kept for the view (``_move_allowed``)."""
    if request.method not in methods:
        raise ApiError(_("Use %(methods)s here.") % {"methods": " or ".join(methods)}, 405)

    def limits(user: Any) -> list[ratelimit.Limit]:
        calls = [ratelimit.Limit(f"api:{_caller_key(request, user)}", *CALLS_PER_WINDOW)]
        if counts_move and user.is_authenticated:
            calls.append(ratelimit.Limit(*ratelimit.move_limit(user.pk)))
        return calls

    try:
        # A token the process remembers is checked and its hits counted in one round trip.
        caller = api_caller(request, limits)
    except ApiAuthError as failure:
        raise ApiError(failure.message, failure.status) from None
    user = caller.user
    if login and not user.is_authenticated:
        raise ApiError(_("Log in or send an API token."), 401)
    refused = caller.refused if caller.counted else ratelimit.first_refused(limits(user))
    if refused == 0:
        raise ApiError(_("Too many requests: slow down and try again in a minute."), 429)
    if counts_move:
        request._move_allowed = refused is None
    return user


def endpoint(
    *methods: str, login: bool = False, fields: Collection[str] | None = None, plays: bool = False
) -> Callable:
    """A JSON endpoint: checks the method, the caller and the rate limit, and turns every refusal
    into ``{"error": …}`` with its status; bad input never becomes a 500. ``fields`` declares the
    fields a POST body may have: any other is refused (and the fuzz tests read them). ``plays``:
    a POST is a move, counted against the moves' limit too (``_prepare``)."""
    allowed = None if fields is None else frozenset(fields)

    def wrap(view: Callable) -> Callable:
        @csrf_exempt
        @functools.wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
            try:
                user = _prepare(request, methods, login, counts_move=plays and _is_a_move(request))
                if allowed is not None and request.method == "POST":
                    _refuse_unknown_fields(body_json(request), allowed)
                return view(request, user, *args, **kwargs)
            except ApiError as failure:
                return error(failure.message, failure.status)
            except services.ServiceError as failure:
                return error(failure.message, failure.status)
            except RequestDataTooBig:
                return error(_("The request is too large."), 400)

        wrapped.json_fields = allowed
        return wrapped

    return wrap


def _is_a_move(request: HttpRequest) -> bool:
    """Whether a POST to an endpoint that ``plays`` is a move the moves' limit counts: its body
    is the version and the move (any other body is refused before that limit)."""
    if request.method != "POST":
        return False
    try:
        return set(body_json(request)) == MOVE_FIELDS
    except (ApiError, RequestDataTooBig):
        return False


def _move_allowed(request: HttpRequest, user: Any) -> bool:
    """The moves' limit's answer, counted by ``_prepare`` (or now, for a caller it did not)."""
    allowed = getattr(request, "_move_allowed", None)
    if allowed is None:
        return ratelimit.allow_move(user.pk)
    return allowed


def _refuse_unknown_fields(data: dict[str, Any], allowed: frozenset[str]) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise ApiError(_("Unknown field %(field)r.") % {"field": unknown[0]}, 400)


def body_json(request: HttpRequest) -> dict[str, Any]:
    """The body as a JSON object, read through the gate (``{}`` when there is none)."""
    try:
        data = gate.request_json(request)
    except gate.BadInput as refused:
        raise ApiError(refused.message, 400) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ApiError(_("The request body must be a JSON object."), 400)
    return data


def _match_or_404(match_id: int, user: Any, invite: str | None = None) -> Match:
    match = services.read_table(match_id)
    # A private table the caller may not see answers exactly like a missing one.
    if match is None or not services.may_watch(match, user, invite):
        raise ApiError(_("There is no such table."), 404)
    return match


# --- representations ---------------------------------------------------------------------------
def table_json(match: Match, user: Any, ended_now: bool = False) -> dict[str, Any]:
    """The table as ``user`` may see it (spec/api.md). ``ended_now``: the match ended in this
    request, so nobody has asked for its rematch nor the worker analysed it yet (not read)."""
    engine = services.engine_for(match)
    seat = services.seat_of(match, user)
    you = seat.index if seat else None
    seats = {s.index: s for s in match.seats.all()}
    clocks = seat_clocks(match)
    facts = seat_facts(match, seats)
    data: dict[str, Any] = {
        "id": match.pk,
        "game": match.game,
        "mode": match.mode,
        "status": match.status,
        "version": match.version,
        "seats": [
            {
                "seat": index,
                "player": seats[index].display_name if index in seats else None,
                "bot": seats[index].is_bot if index in seats else False,
                "score": seats[index].score if index in seats else None,
                "rank": seats[index].rank if index in seats else None,
                "clock": clocks[index].as_json() if index in clocks else None,
                "elo": facts.get(index, {}).get("elo"),
                "elo_change": _rounded(facts.get(index, {}).get("elo_change")),
            }
            for index in range(match.seats_count)
        ],
        "options": match.options,
        "private": match.private,
        "turn_seconds": match.turn_seconds,
        "to_move": [],
        "you": you,
        "deadline": match.deadline.isoformat() if match.deadline else None,
        "end_reason": match.end_reason or None,
        "rematch": None if ended_now else _rematch_id(match),
        "view": None,
    }
    if seat is not None and match.private:
        data["invite"] = match.invite_code
    if match.status == Match.Status.FINISHED:
        # The analysis after the game exists only once the match is over (never while it runs).
        data["analysis"] = analysis.as_json(None if ended_now else analysis.for_match(match))
    if match.state is not None:
        data["to_move"] = [s for s in engine.to_move(match.state) if s != CHANCE]
        data["view"] = engine.view(match.state, you)
        if match.is_playing and you in data["to_move"]:
            legal = list(itertools.islice(engine.legal(match.state, you), LEGAL_LIST_LIMIT + 1))
            if len(legal) <= LEGAL_LIST_LIMIT:
                data["legal"] = legal
    return data


def _rematch_id(match: Match) -> int | None:
    """The table that plays this match again, if any (only a match that is over has one)."""
    if not match.is_over:
        return None
    return Match.objects.filter(rematch_of=match).values_list("pk", flat=True).first()


def _rounded(delta: float | None) -> float | None:
    return None if delta is None else round(delta, 1)


def players_of(match: Match) -> list[str]:
    return [s.display_name for s in match.seats.all()]


# --- endpoints ---------------------------------------------------------------------------------
@endpoint("GET")
def games(request: HttpRequest, user: Any) -> JsonResponse:
    return JsonResponse(
        {
            "games": [
                {
                    "slug": e.slug,
                    "name": e.name,
                    "min_players": e.min_players,
                    "max_players": e.max_players,
                    "options": [spec.as_json() for spec in e.option_specs],
                    "bot_levels": list(e.bot_levels),
                }
                for e in all_engines()
            ]
        }
    )


@endpoint("GET", "POST", fields=("game", "mode", "seats", "options", "private", "turn_seconds"))
def tables(request: HttpRequest, user: Any) -> JsonResponse:
    if request.method == "GET":
        return _open_tables(request, user)
    if not user.is_authenticated:
        raise ApiError(_("Log in or send an API token."), 401)
    data = body_json(request)
    if not isinstance(data.get("game"), str):
        raise ApiError(_("Name the game: 'game' is one of the slugs of /api/games."), 400)
    match = services.create_table(
        user,
        data["game"],
        mode=data.get("mode", Match.Mode.FRIENDLY),
        seats=data.get("seats"),
        options=data.get("options"),
        private=data.get("private", False),
        turn_seconds=data.get("turn_seconds"),
    )
    return JsonResponse(table_json(_match_or_404(match.pk, user), user), status=201)


def _open_tables(request: HttpRequest, user: Any) -> JsonResponse:
    game = request.GET.get("game")
    query = Match.objects.visible_in_lobby().prefetch_related("seats__user").order_by("-pk")
    if game:
        query = query.filter(game=game)
    return JsonResponse({"tables": [table_json(m, user) for m in query[:100]]})


@endpoint("POST", login=True, fields=("invite",))
def join(request: HttpRequest, user: Any, match_id: int) -> JsonResponse:
    invite = body_json(request).get("invite") or request.GET.get("invite")
    if invite is not None and not isinstance(invite, str):
        raise ApiError(_("'invite' must be the invitation code."), 400)
    match = services.join_table(user, match_id, invite_code=invite)
    return JsonResponse(table_json(_match_or_404(match.pk, user), user))


@endpoint("POST", login=True, fields=())
def leave(request: HttpRequest, user: Any, match_id: int) -> JsonResponse:
    match = services.leave_table(user, match_id)
    return JsonResponse(table_json(_match_or_404(match.pk, user), user))


@endpoint("POST", login=True, fields=("level",))
def bots(request: HttpRequest, user: Any, match_id: int) -> JsonResponse:
    """``{"level": 1 | 2 | 3}``: the creator of a friendly table fills a free seat with a bot."""
    match = services.add_bot(user, match_id, body_json(request).get("level", 1))
    return JsonResponse(table_json(_match_or_404(match.pk, user), user))


@endpoint("POST", login=True, fields=())
def resign(request: HttpRequest, user: Any, match_id: int) -> JsonResponse:
    """Give up a running match: the seat ranks last and the bot plays on for it."""
    match = services.resign(user, match_id)
    return JsonResponse(table_json(_match_or_404(match.pk, user), user))


@endpoint("POST", login=True, fields=())
def rematch(request: HttpRequest, user: Any, match_id: int) -> JsonResponse:
    """ "Play again": a new table with the same players and options (201), or the rematch a
    player already opened (200); the caller has a seat at it, the other players are invited."""
    again, created = services.rematch(user, match_id)
    return JsonResponse(
        table_json(_match_or_404(again.pk, user), user), status=201 if created else 200
    )


@endpoint("GET", "POST", fields=("text",))
def chat_lines(request: HttpRequest, user: Any, match_id: int) -> JsonResponse:
    """``GET``: the table's latest chat lines the caller has not muted, oldest first (``?before=ID``
    for older ones) and whom they mute; ``POST {"text"}``: write a line (201)."""
    invite = request.GET.get("invite")
    if request.method == "POST":
        if not user.is_authenticated:
            raise ApiError(_("Log in or send an API token."), 401)
        line = chat.post(user, match_id, body_json(request).get("text"), invite)
        return JsonResponse({"line": chat.line_json(line)}, status=201)
    match = _match_or_404(match_id, user, invite)
    before = request.GET.get("before")
    if before is not None and not before.isdigit():
        raise ApiError(_("'before' must be the id of a line."), 400)
    lines = chat.lines_for(match, user, int(before) if before else None)
    return JsonResponse(
        {"lines": [chat.line_json(line) for line in lines], "muted": chat.muted_names(user)}
    )


@endpoint("POST", login=True, fields=("player", "muted"))
def chat_mute(request: HttpRequest, user: Any, match_id: int) -> JsonResponse:
    """``{"player": name, "muted": true | false}``: the caller stops (or starts again) reading
    that person's lines, at every table; nobody else is affected."""
    data = body_json(request)
    names = chat.set_muted(
        user, match_id, data.get("player"), data.get("muted"), request.GET.get("invite")
    )
    return JsonResponse({"muted": names})


@endpoint("POST", login=True, fields=MOVE_FIELDS, plays=True)
def moves(request: HttpRequest, user: Any, match_id: int) -> JsonResponse:
    data = body_json(request)
    if set(data) != MOVE_FIELDS:
        raise ApiError(_('Send {"version": V, "move": {…}}.'), 400)
    if not _move_allowed(request, user):
        raise ApiError(_("Too many moves: slow down."), 429)
    match = services.play(match_id, user, data["move"], data["version"])
    # The match as the move left it, with its seats: what a read of it now would give. Only a
    # playing match takes a move, so one that is over now was ended by this one.
    return JsonResponse(table_json(match, user, ended_now=match.is_over))


@endpoint("GET")
def record(request: HttpRequest, user: Any, match_id: int) -> JsonResponse:
    match = _match_or_404(match_id, user, request.GET.get("invite"))
    if match.state is None:
        raise ApiError(_("The match has not started yet."), 409)
    engine = services.engine_for(match)
    seat = services.seat_of(match, user)
    viewer = seat.index if seat else None
    return JsonResponse(export_record(engine, match.state, players_of(match), viewer))


@endpoint("GET")
def player(request: HttpRequest, user: Any, username: str) -> JsonResponse:
    target = get_user_model().objects.filter(username=username, is_active=True).first()
    if target is None:
        raise ApiError(_("There is no player called %(name)r.") % {"name": username}, 404)
    return JsonResponse(player_json(target))


def player_json(target: Any) -> dict[str, Any]:
    # Imported here: ratings imports games (its models and signal) at load time.
    from players.presence import is_online
    from ratings.api import ratings_json, recent_json, trophies_json

    return {
        "username": target.username,
        "member_since": target.date_joined.isoformat(),
        "online": is_online(target.pk),
        "ratings": ratings_json(target),
        "recent": recent_json(target),
        "trophies": trophies_json(target),
    }


# --- the table, with long-polling ---------------------------------------------------------------
@csrf_exempt
async def table(request: HttpRequest, match_id: int) -> JsonResponse:
    """``GET /api/tables/{id}``; with ``?since=V`` it waits up to 25 s for a version above V.

    A waiting poll holds no database connection (each look opens one and closes it), at most
    ``POLLS_PER_CALLER`` of one caller wait at once, and a doorbell that fails (Redis away) only
    leaves the poll to its regular looks at the database."""
    since_text = request.GET.get("since")
    since = None
    if since_text is not None:
        try:
            since = int(since_text)
        except ValueError:
            return error(_("'since' must be a version number."), 400)
    invite = request.GET.get("invite")
    try:
        user, data = await sync_to_async(_first_look)(request, match_id, invite)
    except ApiError as failure:
        return error(failure.message, failure.status)
    if since is None or data["version"] > since:
        return JsonResponse(data)
    return await _poll(request, match_id, user, invite, since, data)


@csrf_exempt
def _table_in_thread(request: HttpRequest, match_id: int) -> JsonResponse:
    """``table`` for a handler that runs the view in the request's own thread
    (``request_threads.OneHopHandler``): a look without ``since`` (every mover's, before its
    move) answers there; a poll is the async view, as before."""
    if request.GET.get("since") is not None:
        with request_threads.waiting():
            return async_to_sync(table)(request, match_id)
    try:
        _user, data = _first_look(request, match_id, request.GET.get("invite"))
    except ApiError as failure:
        return error(failure.message, failure.status)
    return JsonResponse(data)


setattr(table, request_threads.IN_REQUEST_THREAD, _table_in_thread)


async def _poll(
    request: HttpRequest, match_id: int, user: Any, invite: str | None, since: int, data: dict
) -> JsonResponse:
    """The rest of a poll whose first look found nothing newer than ``since``: wait."""
    await sync_to_async(_close_connection)()
    caller = _caller_key(request, user)
    if not await sync_to_async(limits.take)("poll", caller, POLLS_PER_CALLER, _POLL_HOLD):
        return error(_("Too many waiting requests: wait for an answer before asking again."), 429)
    try:
        data = await _wait_for_version(match_id, user, invite, since) or data
    finally:
        await sync_to_async(limits.give_back)("poll", caller)
    return JsonResponse(data)


#: How long a poll's place in the cap lasts if its process dies before giving it back.
_POLL_HOLD = int(LONG_POLL_SECONDS) + 5


def _without_connection(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` run in the request's thread, which then closes its database connection: a
    poll that waits must not keep one (a hundred of them would use up the server's)."""

    def run(*args: Any) -> Any:
        try:
            return function(*args)
        finally:
            connection.close()

    return sync_to_async(run)


def _close_connection() -> None:
    connection.close()


def _first_look(request: HttpRequest, match_id: int, invite: str | None) -> tuple[Any, dict]:
    user = _prepare(request, ("GET",), False)
    return user, _table_for(match_id, user, invite)


def _table_for(match_id: int, user: Any, invite: str | None) -> dict[str, Any]:
    match = _match_or_404(match_id, user, invite)
    try:
        return table_json(match, user)
    finally:
        # The read ends with the answer: freed by its reference counts, not by a collection
        # (the mover's look before most moves made a match, seats and state of cyclic garbage).
        rows.forget_seats(match)


def _version_of(match_id: int) -> int | None:
    return Match.objects.filter(pk=match_id).values_list("version", flat=True).first()


async def _wait_for_version(
    match_id: int, user: Any, invite: str | None, since: int
) -> dict[str, Any] | None:
    """Wait for the table's doorbell, and look at the database at least every second (the
    doorbell may be lost; the database is the truth). The table above ``since``, or None."""
    loop = asyncio.get_running_loop()
    give_up = loop.time() + LONG_POLL_SECONDS
    async with notify.Listener(notify.table_group(match_id)) as listener:
        while (left := give_up - loop.time()) > 0:
            await listener.wait(min(RECHECK_SECONDS, left))
            version = await _without_connection(_version_of)(match_id)
            if version is not None and version > since:
                return await _without_connection(_table_for)(match_id, user, invite)
    return None
