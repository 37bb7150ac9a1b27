"""The arena's JSON API (spec/api.md): thin views over ``arena.services``, with the games API's
endpoint decorator, so errors, tokens and rate limits behave the same everywhere."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db.models import Count
from django.http import HttpRequest, JsonResponse
from django.utils.translation import gettext as _

from games.api import ApiError, body_json, endpoint

from . import services
from .models import Entry, Tournament

CREATE_FIELDS = {
    "game",
    "name",
    "starts_at",
    "minutes",
    "seats",
    "turn_seconds",
    "options",
    "private",
}


# --- representations ---------------------------------------------------------------------------
def _head_json(tournament: Tournament) -> dict[str, Any]:
    """What every representation of an arena starts with."""
    return {
        "id": tournament.pk,
        "game": tournament.game,
        "name": tournament.name,
        "status": tournament.status,
        "starts_at": tournament.starts_at.isoformat(),
        "ends_at": tournament.ends_at.isoformat(),
        "seats": tournament.seats,
    }


def summary_json(tournament: Tournament, players: int) -> dict[str, Any]:
    return {
        **_head_json(tournament),
        "minutes": tournament.minutes,
        "private": tournament.private,
        "players": players,
    }


def arena_json(tournament: Tournament, user: Any) -> dict[str, Any]:
    """An arena with its standings and its tables, newest first (spec/api.md)."""
    data: dict[str, Any] = {
        **_head_json(tournament),
        "standings": [
            {
                "rank": s.rank,
                "player": s.player,
                "points": s.points,
                "matches": s.matches,
                "fire": s.fire,
                "paused": s.paused or s.withdrawn,
            }
            for s in services.standings(tournament)
        ],
        "tables": [
            {
                "id": table.match_id,
                "players": [seat.display_name for seat in table.match.seats.all()],
                "status": table.match.status,
            }
            for table in services.tables(tournament)
        ],
    }
    if tournament.private and _insider(tournament, user):
        # Those who may already see it get the code to share the invitation link.
        data["invite"] = tournament.invite_code
    return data


def _insider(tournament: Tournament, user: Any) -> bool:
    if not user.is_authenticated:
        return False
    return tournament.created_by_id == user.pk or services.entry_for(user, tournament) is not None


# --- endpoints ---------------------------------------------------------------------------------
@endpoint("GET", "POST", fields=CREATE_FIELDS)
def tournaments(request: HttpRequest, user: Any) -> JsonResponse:
    if request.method == "GET":
        return _listing(user)
    if not user.is_authenticated:
        raise ApiError(_("Log in or send an API token."), 401)
    data = body_json(request)
    if not isinstance(data.get("game"), str):
        raise ApiError(_("Name the game: 'game' is one of the slugs of /api/games."), 400)
    tournament = services.create_tournament(
        user,
        data["game"],
        name=data.get("name"),
        starts_at=data.get("starts_at"),
        minutes=data.get("minutes"),
        seats=data.get("seats"),
        turn_seconds=data.get("turn_seconds"),
        options=data.get("options"),
        private=data.get("private", False),
    )
    return JsonResponse(arena_json(tournament, user), status=201)


def _listing(user: Any) -> JsonResponse:
    groups = services.listing(user)
    shown = [t for key in ("running", "upcoming", "recent") for t in groups[key]]
    counts = dict(
        Entry.objects.filter(tournament__in=shown)
        .values_list("tournament")
        .annotate(n=Count("pk"))
        .values_list("tournament", "n")
    )
    return JsonResponse({"tournaments": [summary_json(t, counts.get(t.pk, 0)) for t in shown]})


@endpoint("GET")
def tournament(request: HttpRequest, user: Any, tournament_id: int) -> JsonResponse:
    found = services.get_tournament(tournament_id, user, request.GET.get("invite"))
    return JsonResponse(arena_json(found, user))


@endpoint("POST", login=True, fields=("invite",))
def join(request: HttpRequest, user: Any, tournament_id: int) -> JsonResponse:
    invite = body_json(request).get("invite") or request.GET.get("invite")
    if invite is not None and not isinstance(invite, str):
        raise ApiError(_("'invite' must be the invitation code."), 400)
    entry = services.join(user, tournament_id, invite_code=invite)
    return JsonResponse(arena_json(entry.tournament, user))


def _entry_action(service: Callable[[Any, int], Any]) -> Callable:
    @endpoint("POST", login=True, fields=())
    def view(request: HttpRequest, user: Any, tournament_id: int) -> JsonResponse:
        # Read first: a player who withdraws from a private arena may no longer see it after.
        found = services.get_tournament(tournament_id, user)
        service(user, tournament_id)
        found.refresh_from_db()
        return JsonResponse(arena_json(found, user))

    view.__name__ = service.__name__
    return view


pause = _entry_action(services.pause)
resume = _entry_action(services.resume)
withdraw = _entry_action(services.withdraw)
