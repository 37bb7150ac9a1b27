"""A player's public profile: ratings with ladder ranks and history charts, recent matches,
trophies, presence, and the friend button. A fixed number of queries, however much they played."""

from __future__ import annotations

import hashlib
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import SafeString
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from games.bot_profiles import bot_url
from games.engines import all_engines
from games.models import Match, Seat
from ratings import ladder
from ratings.charts import chart_keys, render_charts

from . import friends, presence
from .models import Friendship
from .together import (
    Statement,
    column_converter,
    incoming_count_sql,
    one_instance,
    quoted_table,
    read_together,
)

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
    target = one_instance(get_user_model(), "username = %s AND is_active", [username])
    if target is None:
        raise Http404("There is no such player.")
    return render(request, "players/profile.html", profile_context(target, request.user))


def profile_context(target: Any, viewer: Any) -> dict[str, Any]:
    read = profile_reads(target, viewer)
    sections = rating_sections(target, read.standings)
    charts = chart_requests(target, sections)
    # The charts and the recent matches drawn before, in one round trip to the cache.
    chart_key, recent_key = chart_keys(charts), recent_cache_key(target, read.newest)
    cached = cache.get_many([*chart_key.values(), recent_key])
    add_charts(target, sections, charts, cached)
    context = {
        "profile_user": target,
        "online": presence.is_online(target.pk),
        "ratings": sections,
        "recent": recent_section(target, read.newest, cached.get(recent_key)),
        "trophies": read.trophies,
        "friend_status": read.status,
        "friend_actions": [
            {"url_name": name, "label": label, "primary": primary}
            for name, label, primary in FRIEND_ACTIONS.get(read.status, [])
        ],
        "friend_note": FRIEND_NOTES.get(read.status),
    }
    if read.incoming is not None:
        # Read with the rest: the header's badge (players.context_processors) need not ask.
        context["incoming_friend_requests"] = read.incoming
    return context


@dataclass(frozen=True)
class ProfileReads:
    #: The viewer's friendship with the player (``friends.friendship_status``); None for visitors.
    status: str | None
    standings: dict[str, ladder.Standing]
    #: The id of the player's last finished public match.
    newest: int | None
    trophies: list[dict[str, Any]]
    #: Friend requests waiting for the viewer's answer; None for visitors.
    incoming: int | None


def profile_reads(target: Any, viewer: Any) -> ProfileReads:
    """What the profile reads from the database, in one round trip. Raw SQL where it can be:
    building the ORM's queries cost more than running them."""
    reads: list[Any] = [ladder.standings_sql(target), newest_match_sql(target)]
    has_trophies = apps.is_installed("arena")
    if has_trophies:
        reads.append(trophies_sql(target))
    if viewer.is_authenticated:
        reads += [link_sql(viewer, target), incoming_count_sql(viewer)]
    found = read_together(reads)
    newest = found[1]
    status = incoming = None
    if viewer.is_authenticated:
        link, counted = found[-2], found[-1]
        status = (
            "self"
            if viewer.pk == target.pk
            else friends.status_of_link(viewer, link[0] if link else None)
        )
        incoming = counted[0][0]
    return ProfileReads(
        status=status,
        standings=ladder.standings_from(found[0]),
        newest=newest[0][0] if newest else None,
        trophies=trophies_from(found[2]) if has_trophies else [],
        incoming=incoming,
    )


def link_sql(viewer: Any, target: Any) -> Statement:
    """``friends.link_between`` as SQL: the friendship (or request) between the two players, as
    ``(from_user_id, accepted_at)``; ``accepted_at`` only tells whether it was accepted."""
    sql = (
        f"SELECT from_user_id, accepted_at FROM {quoted_table(Friendship)}"
        " WHERE (from_user_id = %s AND to_user_id = %s) OR (from_user_id = %s AND to_user_id = %s)"
        " ORDER BY id LIMIT 1"
    )
    return sql, [viewer.pk, target.pk, target.pk, viewer.pk]


def game_names() -> dict[str, str]:
    return {engine.slug: engine.name for engine in all_engines()}


def rating_sections(target: Any, standings: dict[str, ladder.Standing]) -> list[dict[str, Any]]:
    """One entry per game the player is rated in (``standings``), in the site's game order. The
    charts come from the cache while the player has played no rated match since they were drawn:
    their history is read only to draw them."""
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

    return sections


def chart_requests(target: Any, sections: list[dict[str, Any]]) -> dict[str, tuple[Hashable, str]]:
    """What each section's chart shows, for ``render_charts``: a rated match adds one to the count
    of matches and moves the rating, so it makes a new chart."""
    return {
        s["chart_id"]: (
            (target.pk, s["slug"], s["standing"].matches, s["standing"].value),
            s["chart_title"],
        )
        for s in sections
        if s["standing"].matches
    }


def add_charts(
    target: Any,
    sections: list[dict[str, Any]],
    charts: dict[str, tuple[Hashable, str]],
    cached: Mapping[str, Any],
) -> None:
    """Each section's ``chart``, from the cache (``cached``: what was read of it) or drawn."""

    def load_points() -> dict[str, list]:
        history = ladder.rating_history(target)
        return {f"history-{slug}": points for slug, points in history.items()}

    svgs = render_charts(charts, load_points, cached)
    for section in sections:
        section["chart"] = svgs.get(section.pop("chart_id")) or None


def replay_url(match: Match) -> str | None:
    """The replay of a finished match."""
    return reverse("games:replay", args=[match.pk])


#: A rendered list of recent matches is kept this long; the player's next finished match changes
#: its key.
RECENT_CACHE_SECONDS = 24 * 3600


def newest_match_sql(target: Any) -> Statement:
    """The id of the player's last finished public match (no row before their first)."""
    sql = (
        f"SELECT m.id FROM {quoted_table(Match)} m"
        f" JOIN {quoted_table(Seat)} s ON s.match_id = m.id"
        " WHERE NOT m.private AND s.user_id = %s AND m.status = %s"
        " ORDER BY m.finished_at DESC, m.id DESC LIMIT 1"
    )
    return sql, [target.pk, Match.Status.FINISHED.value]


def recent_cache_key(target: Any, newest: int | None) -> str:
    """A finished public match never changes, so the newest one's id (``newest_match_id``, with
    the language and time zone) names the list of recent matches."""
    shown = (target.pk, newest, get_language(), timezone.get_current_timezone_name())
    return "profile-recent:" + hashlib.sha256(repr(shown).encode()).hexdigest()


def recent_section(target: Any, newest: int | None, html: str | None) -> SafeString:
    """The player's recent matches, rendered once per finished match (``html``: as the cache
    kept it, None when it has not): a busy profile is read far more often than its player
    finishes a match."""
    key = recent_cache_key(target, newest)
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
    return trophies_from(read_together([trophies_sql(user)])[0])


def trophies_sql(user: Any) -> Statement:
    """The rows of ``trophies_for``: ``(place, tournament_id, name, schedule_key, game,
    ends_at)`` (``ends_at`` as the database sends it); needs the arena app."""
    trophy, tournament = apps.get_model("arena", "Trophy"), apps.get_model("arena", "Tournament")
    # A private arena's name is for its entrants only, as private tables stay off the profile.
    sql = (
        "SELECT t.place, t.tournament_id, a.name, a.schedule_key, a.game, a.ends_at"
        f" FROM {quoted_table(trophy)} t JOIN {quoted_table(tournament)} a"
        " ON a.id = t.tournament_id WHERE NOT a.private AND t.user_id = %s"
        " ORDER BY a.ends_at DESC, t.place"
    )
    return sql, [user.pk]


def trophies_from(rows: list[tuple]) -> list[dict[str, Any]]:
    from arena.models import Tournament
    from arena.rendering import arena_name

    names = game_names()
    as_datetime = column_converter(Tournament, "ends_at")
    trophies = []
    for place, tournament_id, name, schedule_key, game, ends_at in rows:
        tournament = Tournament(name=name, schedule_key=schedule_key, game=game)
        trophies.append(
            {
                "place": place,
                "tournament_id": tournament_id,
                "tournament": arena_name(tournament),
                "game": names.get(game, game),
                "game_slug": game,
                "ends_at": as_datetime(ends_at),
            }
        )
    return trophies
