"""The ladder in the JSON API (spec/api.md): ``GET /api/rankings/{game}?page=N``, and the
ratings, recent matches and trophies that ``GET /api/players/{username}`` shows."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, JsonResponse
from django.utils.translation import gettext as _

from games.api import ApiError, endpoint
from games.engines import all_engines
from players.profile import replay_url, trophies_for
from players.together import read_together

from . import ladder


@endpoint("GET")
def rankings(request: HttpRequest, user: Any, game: str) -> JsonResponse:
    """A page of the ladder. Unlike the HTML page, a bad page number is refused rather than
    clamped, so that a program walking the pages learns where they end."""
    if game not in {engine.slug for engine in all_engines()}:
        raise ApiError(_("There is no game called %(game)r.") % {"game": game}, 404)
    try:
        number = int(request.GET.get("page", "1"))
    except ValueError:
        raise ApiError(_("'page' must be a page number: 1, 2, …"), 400) from None
    if number < 1:
        raise ApiError(_("'page' must be a page number: 1, 2, …"), 400)
    # The page's query, or the changes since it was kept, go with the generation's.
    coming = ladder.kept_page_read(game, number)
    found = read_together([ladder.generation_sql(game), *coming.statements])
    page = ladder.kept_page(coming, ladder.generation_from(found[0]), found[1:])
    if page.number != number:
        raise ApiError(
            _("There are only %(pages)d pages in this ladder.") % {"pages": page.pages}, 404
        )
    return JsonResponse(
        {
            "game": game,
            "page": page.number,
            "pages": page.pages,
            "players": [
                {
                    "rank": row.rank,
                    "player": row.username,
                    "elo": row.elo,
                    "games": row.matches,
                    "provisional": row.provisional,
                }
                for row in page.rows
            ],
        }
    )


def ratings_json(user: Any) -> dict[str, dict[str, Any]]:
    """Per game the player is rated in: ``{"elo", "games", "wins", "rank", "provisional"}``."""
    return {
        game: {
            "elo": standing.elo,
            "games": standing.matches,
            "wins": standing.wins,
            "rank": standing.rank,
            "provisional": standing.provisional,
        }
        for game, standing in ladder.standings(user).items()
    }


def recent_json(user: Any) -> list[dict[str, Any]]:
    """The player's last finished public matches, newest first, with everyone's score and rank,
    the player's rating change (null when the match was not rated) and the replay's path."""
    return [
        {
            "id": match.pk,
            "game": match.game,
            "mode": match.mode,
            "finished_at": match.finished_at.isoformat() if match.finished_at else None,
            "players": [
                {"player": seat.display_name, "score": seat.score, "rank": seat.rank}
                for seat in match.seats.all()
            ],
            "rating_delta": None if match.rating_delta is None else round(match.rating_delta, 1),
            "replay": replay_url(match),
        }
        for match in ladder.recent_matches(user)
    ]


def trophies_json(user: Any) -> list[dict[str, Any]]:
    return [
        {
            "place": trophy["place"],
            "tournament": trophy["tournament_id"],
            "name": trophy["tournament"],
            "game": trophy["game_slug"],
            "ends_at": trophy["ends_at"].isoformat() if trophy["ends_at"] else None,
        }
        for trophy in trophies_for(user)
    ]
