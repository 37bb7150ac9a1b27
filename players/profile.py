"""A player's public profile: ratings with ladder ranks and history charts, recent matches,
trophies, presence, and the friend button. A fixed number of queries, however much they played."""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from games.engines import all_engines
from games.models import Match
from ratings import ladder
from ratings.charts import build_chart

from . import friends, presence

#: The friend forms a visitor sees on someone's profile, by friendship status:
#: (url name, button label, is the main action).
FRIEND_ACTIONS: dict[str, list[tuple[str, Any, bool]]] = {
    "none": [("players:friend_request", _("Add as friend"), True)],
    "requested": [("players:friend_remove", _("Cancel friend request"), False)],
    "incoming": [
        ("players:friend_accept", _("Accept friend request"), True),
        ("players:friend_decline", _("Decline"), False),
    ],
    "friends": [("players:friend_remove", _("Remove from friends"), False)],
}

FRIEND_NOTES: dict[str, Any] = {
    "requested": _("Friend request sent."),
    "incoming": _("This player asked to be your friend."),
    "friends": _("You are friends."),
}


def profile(request: HttpRequest, username: str) -> HttpResponse:
    target = get_object_or_404(get_user_model(), username=username, is_active=True)
    return render(request, "players/profile.html", profile_context(target, request.user))


def profile_context(target: Any, viewer: Any) -> dict[str, Any]:
    status = friends.friendship_status(viewer, target) if viewer.is_authenticated else None
    return {
        "profile_user": target,
        "online": presence.is_online(target.pk),
        "ratings": rating_sections(target),
        "recent": recent_rows(target),
        "trophies": trophies_for(target),
        "friend_status": status,
        "friend_actions": [
            {"url_name": name, "label": label, "primary": primary}
            for name, label, primary in FRIEND_ACTIONS.get(status, [])
        ],
        "friend_note": FRIEND_NOTES.get(status),
    }


def game_names() -> dict[str, str]:
    return {engine.slug: engine.name for engine in all_engines()}


def rating_sections(target: Any) -> list[dict[str, Any]]:
    """One entry per game the player is rated in, in the site's game order."""
    standings = ladder.standings(target)
    history = ladder.rating_history(target)
    sections = []
    for engine in all_engines():
        standing = standings.get(engine.slug)
        if standing is None:
            continue
        sections.append(
            {
                "slug": engine.slug,
                "name": engine.name,
                "standing": standing,
                "chart": build_chart(history.get(engine.slug, [])),
                "history_truncated": standing.matches > ladder.HISTORY_POINTS,
                "ladder_url": reverse("ratings:ladder", args=[engine.slug])
                + f"?page={ladder.page_of(standing.rank)}",
            }
        )
    return sections


def replay_url(match: Match) -> str | None:
    """The replay of a finished match."""
    return reverse("games:replay", args=[match.pk])


def recent_rows(target: Any) -> list[dict[str, Any]]:
    names = game_names()
    rows = []
    for match in ladder.recent_matches(target):
        seats = list(match.seats.all())
        mine = next(s for s in seats if s.user_id == target.pk)
        delta = match.rating_delta
        rows.append(
            {
                "id": match.pk,
                "game": names.get(match.game, match.game),
                "ranked": match.mode == Match.Mode.RANKED,
                "finished_at": match.finished_at,
                "rank": mine.rank,
                "score": mine.score,
                "players": len(seats),
                "opponents": [
                    {
                        "name": seat.display_name,
                        "username": seat.user.username if seat.user_id else None,
                        "rank": seat.rank,
                        "score": seat.score,
                    }
                    for seat in seats
                    if seat is not mine
                ],
                "delta": None if delta is None else f"{round(delta):+d}",
                "replay_url": replay_url(match),
            }
        )
    return rows


def trophies_for(user: Any) -> list[dict[str, Any]]:
    """The player's arena podiums, best and newest first; none while the arena app is absent."""
    if not apps.is_installed("arena"):
        return []
    trophy = apps.get_model("arena", "Trophy")
    from arena.rendering import arena_name

    names = game_names()
    # A private arena's name is for its entrants only, as private tables stay off the profile.
    rows = (
        trophy.objects.filter(user=user, tournament__private=False)
        .select_related("tournament")
        .order_by("-tournament__ends_at", "place")
    )
    return [
        {
            "place": row.place,
            "tournament_id": row.tournament_id,
            "tournament": arena_name(row.tournament),
            "game": names.get(row.tournament.game, row.tournament.game),
            "game_slug": row.tournament.game,
            "ends_at": row.tournament.ends_at,
        }
        for row in rows
    ]
