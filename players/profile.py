"""A player's public profile: ratings with ladder ranks and history charts, recent matches,
trophies, presence, and the friend button. A fixed number of queries, however much they played."""

from __future__ import annotations

import hashlib
from typing import Any

from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import SafeString
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from games.bot_profiles import bot_url
from games.engines import all_engines
from games.models import Match
from ratings import ladder
from ratings.charts import render_charts

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
        "recent": recent_section(target),
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
    """One entry per game the player is rated in, in the site's game order. The charts come from
    the cache while the player has played no rated match since they were drawn: their history is
    read only to draw them."""
    standings = ladder.standings(target)
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
                "chart_id": f"history-{engine.slug}",
                "chart_title": _("Rating history in %(game)s") % {"game": engine.name},
                "history_truncated": standing.matches > ladder.HISTORY_POINTS,
                "history_count": min(standing.matches, ladder.HISTORY_POINTS),
                "ladder_url": reverse("ratings:ladder", args=[engine.slug])
                + f"?page={ladder.page_of(standing.rank)}",
            }
        )

    def load_points() -> dict[str, list]:
        history = ladder.rating_history(target)
        return {f"history-{slug}": points for slug, points in history.items()}

    # A rated match adds one to the count of matches and moves the rating: a new chart.
    shown = {
        s["chart_id"]: (
            (target.pk, s["slug"], s["standing"].matches, s["standing"].value),
            s["chart_title"],
        )
        for s in sections
        if s["standing"].matches
    }
    svgs = render_charts(shown, load_points)
    for section in sections:
        section["chart"] = svgs.get(section.pop("chart_id")) or None
    return sections


def replay_url(match: Match) -> str | None:
    """The replay of a finished match."""
    return reverse("games:replay", args=[match.pk])


#: A rendered list of recent matches is kept this long; the player's next finished match changes
#: its key.
RECENT_CACHE_SECONDS = 24 * 3600


def recent_section(target: Any) -> SafeString:
    """The player's recent matches, rendered once per finished match: a finished public match
    never changes, so the newest one's id (with the language and time zone) names the list. A
    busy profile is read far more often than its player finishes a match."""
    newest = (
        Match.objects.filter(seats__user=target, status=Match.Status.FINISHED, private=False)
        .order_by("-finished_at", "-pk")
        .values_list("pk", flat=True)
        .first()
    )
    shown = (target.pk, newest, get_language(), timezone.get_current_timezone_name())
    key = "profile-recent:" + hashlib.sha256(repr(shown).encode()).hexdigest()
    html = cache.get(key)
    if html is None:
        rows = recent_rows(target) if newest is not None else []
        html = render_to_string("players/recent_matches.html", {"recent": rows})
        cache.set(key, html, RECENT_CACHE_SECONDS)
    return SafeString(html)


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
                        "url": (
                            ladder.profile_url(seat.user.username)
                            if seat.user_id
                            else bot_url(match.game, seat.bot_level)
                        ),
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
