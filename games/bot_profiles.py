"""Bot profile pages (``/bots/<game>/<level>/``): what a level does, in words, its record against
people by player count, and its recent matches with links to their replays.

The page runs a fixed number of queries whatever the number of matches: the record is one
aggregate over pairs of seats (a person and a bot of this level at the same finished table), the
recent matches one query and one prefetch of their seats.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models import Count, F, Prefetch, Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _

from .engines import Engine, all_engines, get_engine
from .models import Match, Seat

#: Recent matches listed on a bot's page.
RECENT_MATCHES = 10


def bot_url(game: str, level: int | None) -> str | None:
    """The profile page of a bot level in a game (None for a seat that is not a bot)."""
    if level is None:
        return None
    return reverse("games:bot_profile", args=[game, level])


def level_description(level: int) -> str:
    """What a level does, in words (the same levels play every game)."""
    if level == 1:
        return _(
            "Level 1 plays a quick rule of thumb: it weighs the moves it has now by what they "
            "give it at once and takes the best, without thinking further ahead."
        )
    if level == 2:
        return _(
            "Level 2 thinks a little ahead: it tries its best few level-1 moves in many random "
            "continuations of the game and keeps the one that ends best for it."
        )
    return _(
        "Level %(level)s searches: it re-deals what its seat cannot see (pizzas still to come, "
        "dice, secret picks) into many possible worlds, plays each of its best candidate moves "
        "out in the same worlds and keeps the move that wins most, thinking about "
        "%(seconds)s seconds a move. The analysis after the game compares every decision with "
        "its choice."
    ) % {"level": level, "seconds": f"{settings.BOT_LEVEL3_BUDGET:g}"}


def bot_profile(request: HttpRequest, game: str, level: int) -> HttpResponse:
    engine = _engine_or_404(game)
    if level not in engine.bot_levels:
        raise Http404("No such bot level.")
    context = {
        "engine": engine,
        "level": level,
        "description": level_description(level),
        "honest": _("Like every bot here, it sees only what its seat may see: never the state."),
        "record": record_against_people(engine.slug, level),
        "recent": recent_matches(engine.slug, level),
        "levels": [
            {"level": other, "url": bot_url(engine.slug, other), "current": other == level}
            for other in engine.bot_levels
        ],
        "games": [
            {"name": e.name, "url": bot_url(e.slug, min(e.bot_levels)), "current": e is engine}
            for e in all_engines()
        ],
    }
    return render(request, "games/bot_profile.html", context)


def _engine_or_404(game: str) -> Engine:
    try:
        return get_engine(game)
    except (KeyError, LookupError, ValueError):
        raise Http404("No such game.") from None


def record_against_people(game: str, level: int) -> dict[str, Any]:
    """Per player count: the finished matches where a bot of this level sat with at least one
    person, and the people's wins, losses and draws against it (one per person and bot seat at
    a table: a better rank is a win, an equal rank a draw)."""
    rows = (
        Seat.objects.filter(
            user__isnull=True,
            bot_level=level,
            match__game=game,
            match__status=Match.Status.FINISHED,
            match__seats__user__isnull=False,
        )
        .values("match__seats_count")
        .annotate(
            matches=Count("match", distinct=True),
            wins=Count("match__seats", filter=Q(match__seats__rank__lt=F("rank"))),
            losses=Count("match__seats", filter=Q(match__seats__rank__gt=F("rank"))),
            draws=Count("match__seats", filter=Q(match__seats__rank=F("rank"))),
        )
        .order_by("match__seats_count")
    )
    by_count = [
        {
            "players": row["match__seats_count"],
            "matches": row["matches"],
            "wins": row["wins"],
            "losses": row["losses"],
            "draws": row["draws"],
        }
        for row in rows
    ]
    totals = {
        key: sum(row[key] for row in by_count) for key in ("matches", "wins", "losses", "draws")
    }
    return {"rows": by_count, "totals": totals}


def recent_matches(game: str, level: int) -> list[dict[str, Any]]:
    """The latest finished public matches where a bot of this level sat, with every seat's
    place and links to the players' pages and the replay."""
    from ratings.ladder import profile_url  # ratings imports the games models

    matches = (
        Match.objects.filter(
            game=game,
            status=Match.Status.FINISHED,
            private=False,
            seats__user__isnull=True,
            seats__bot_level=level,
        )
        .distinct()
        .defer("state", "seed", "options")
        .order_by("-finished_at", "-pk")
        .prefetch_related(
            Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("rank"))
        )[:RECENT_MATCHES]
    )
    return [
        {
            "id": match.pk,
            "finished_at": match.finished_at,
            "ranked": match.mode == Match.Mode.RANKED,
            "players": [
                {
                    "name": seat.display_name,
                    "url": (
                        profile_url(seat.user.username)
                        if seat.user_id
                        else bot_url(game, seat.bot_level)
                    ),
                    "rank": seat.rank,
                    "score": seat.score,
                    "this_bot": seat.user_id is None and seat.bot_level == level,
                }
                for seat in match.seats.all()
            ],
            "replay_url": reverse("games:replay", args=[match.pk]),
        }
        for match in matches
    ]
