"""A player's public profile: ratings with ladder ranks and history charts, recent matches,
trophies, presence, and the friend button. A fixed number of queries, however much they played."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from django.apps import apps
from django.contrib.auth import get_user_model
from django.db import connection
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import get_script_prefix, reverse
from django.utils import timezone
from django.utils.safestring import SafeString
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from games.bot_profiles import bot_url
from games.engines import all_engines
from games.models import Match, Seat
from pdc_site.links import around_argument
from ratings import ladder
from ratings.charts import DRAWN, render_charts
from ratings.models import RatingChange

from . import friends, presence
from .models import Friendship
from .profile_html import profile_page_html
from .rendering import recent_matches_html
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
    # Written in Python (players/profile_html.py), byte for byte what players/profile.html draws.
    return HttpResponse(profile_page_html(request, profile_context(target, request.user)))


def profile_context(target: Any, viewer: Any) -> dict[str, Any]:
    read = profile_reads(target, viewer)
    sections = rating_sections(target, read.standings)
    add_charts(target, sections, chart_requests(target, sections), read.history)
    context = {
        "profile_user": target,
        "online": presence.is_online(target.pk),
        "ratings": sections,
        "recent": recent_section(target, read.recent),
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


def add_charts(
    target: Any,
    sections: list[dict[str, Any]],
    charts: dict[str, tuple[Hashable, str]],
    history: list[tuple] | None = None,
) -> None:
    """Each section's ``chart``, as this process drew it before (``charts.DRAWN``) or drawn
    now: a busy profile is read far more often than its player plays a rated match. The
    points are ``history`` (rows of ``ladder.rating_history_sql``) when the profile's reads
    brought them, else read when a chart must be drawn."""

    def load_points() -> dict[str, list]:
        if history is not None:
            found = ladder.rating_history_from(history)
        else:
            found = ladder.rating_history(target)
        return {f"history-{slug}": values for slug, values in found.items()}

    svgs = render_charts(charts, load_points)
    DRAWN.set_many({charts_drawn_mark(target): ""})
    for section in sections:
        section["chart"] = svgs.get(section.pop("chart_id")) or None


def charts_drawn_mark(target: Any) -> Hashable:
    """A key ``DRAWN`` holds while this process keeps the player's charts drawn: without it
    (never drawn here, or forgotten), the profile reads the charts' points with its other
    reads rather than in a round trip of their own. Only a guess: after a rated match the
    mark is there, the new charts are not, and their points are read afterwards."""
    return ("profile-charts-drawn", connection.settings_dict["NAME"], target.pk)


def recent_section(target: Any, found: list[tuple]) -> SafeString:
    """The player's recent matches (``found``: the rows of ``recent_sql``), drawn once per
    process for what they show: the rows themselves are the key (with the language, time zone
    and links' prefix), so that a finished match, a renamed or deleted opponent, anything the
    table prints, draws it again."""
    key = (
        "profile-recent",
        target.pk,
        tuple(found),
        get_language(),
        timezone.get_current_timezone_name(),
        get_script_prefix(),
    )
    html = DRAWN.get_many([key]).get(key)
    if html is None:
        html = recent_matches_html(recent_rows_from(target, found))
        DRAWN.set_many({key: html})
    return SafeString(html)


@dataclass(frozen=True)
class ProfileReads:
    #: The viewer's friendship with the player (``friends.friendship_status``); None for visitors.
    status: str | None
    standings: dict[str, ladder.Standing]
    #: The player's last finished public matches (``recent_sql``'s rows).
    recent: list[tuple]
    trophies: list[dict[str, Any]]
    #: Friend requests waiting for the viewer's answer; None for visitors.
    incoming: int | None
    #: The rows of ``ladder.rating_history_sql`` when this process had no charts of the player
    #: drawn (``charts_drawn_mark``), else None.
    history: list[tuple] | None = None


def profile_reads(target: Any, viewer: Any) -> ProfileReads:
    """What the profile reads from the database, in one round trip. Raw SQL where it can be:
    building the ORM's queries cost more than running them."""
    mark = charts_drawn_mark(target)
    with_history = not DRAWN.get_many([mark])
    # The standings carried across the ratings that moved since this process read them.
    standings = ladder.standings_read(target)
    reads: list[Any] = [*standings.statements, recent_sql(target)]
    if with_history:
        reads.append(ladder.rating_history_sql(target))
    has_trophies = apps.is_installed("arena")
    if has_trophies:
        reads.append(trophies_sql(target))
    if viewer.is_authenticated:
        reads += [link_sql(viewer, target), incoming_count_sql(viewer)]
    found = read_together(reads)
    standings_found = [found.pop(0) for _statement in standings.statements]
    history = found.pop(1) if with_history else None
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
        standings=ladder.standings_read_from(standings, standings_found)
        or ladder.standings_afresh(target),
        recent=found[0],
        trophies=trophies_from(found[1]) if has_trophies else [],
        incoming=incoming,
        history=history,
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
    charts come from what this process drew (``add_charts``) while the player has played no
    rated match since: their history is read only to draw them."""
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
                "ladder_url": ladder_url(engine.slug, get_script_prefix())
                + f"?page={ladder.page_of(standing.rank)}",
            }
        )

    return sections


@lru_cache(maxsize=32)
def ladder_url(game: str, script_prefix: str) -> str:
    """A game's ladder page, reversed once per process and links' prefix."""
    return reverse("ratings:ladder", args=[game])


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


def replay_url(match: Match) -> str | None:
    """The replay of a finished match."""
    return reverse("games:replay", args=[match.pk])


def recent_sql(target: Any, limit: int = ladder.RECENT_MATCHES) -> Statement:
    """``ladder.recent_matches`` as one statement: a row per seat of the player's last ``limit``
    finished public matches, newest first, seats in order: ``(match id, game, mode,
    finished_at, the player's rating change or NULL, seat's user id, username, bot level,
    score, rank)``. Raw SQL: building the ORM's two queries and their instances cost more than
    running them."""
    match, seat = quoted_table(Match), quoted_table(Seat)
    change, user = quoted_table(RatingChange), quoted_table(get_user_model())
    sql = f"""
        WITH recent AS (
            SELECT m.id, m.game, m.mode, m.finished_at, (
                SELECT c.delta FROM {change} c WHERE c.match_id = m.id AND c.user_id = %s LIMIT 1
            ) AS delta
            FROM {match} m
            WHERE m.status = %s AND NOT m.private AND EXISTS (
                SELECT 1 FROM {seat} s WHERE s.match_id = m.id AND s.user_id = %s
            )
            ORDER BY m.finished_at DESC, m.id DESC LIMIT %s
        )
        SELECT recent.id, recent.game, recent.mode, recent.finished_at, recent.delta,
            s.user_id, u.username, s.bot_level, s.score, s.rank
        FROM recent JOIN {seat} s ON s.match_id = recent.id
        LEFT JOIN {user} u ON u.id = s.user_id
        ORDER BY recent.finished_at DESC, recent.id DESC, s.{connection.ops.quote_name("index")}
    """
    return sql, [target.pk, Match.Status.FINISHED.value, target.pk, limit]


def recent_rows_from(target: Any, found: list[tuple]) -> list[dict[str, Any]]:
    """What the recent matches' table prints of each match, from ``recent_sql``'s rows. The
    links' prefixes are looked up once for the table rather than once a link."""
    names = game_names()
    as_datetime = column_converter(Match, "finished_at")
    replay_url = match_replay_urls()
    player_url = ladder.profile_urls()
    by_match: dict[int, list[tuple]] = {}
    for row in found:
        by_match.setdefault(row[0], []).append(row)
    rows = []
    for match_id, seats in by_match.items():
        _id, game, mode, finished_at, delta = seats[0][:5]
        mine = next(seat for seat in seats if seat[5] == target.pk)
        rows.append(
            {
                "id": match_id,
                "game": names.get(game, game),
                "ranked": mode == Match.Mode.RANKED,
                "finished_at": as_datetime(finished_at),
                "rank": mine[9],
                "score": mine[8],
                "players": len(seats),
                "opponents": [
                    opponent(game, seat, player_url) for seat in seats if seat is not mine
                ],
                "delta": None if delta is None else f"{round(delta):+d}",
                "replay_url": replay_url(match_id),
            }
        )
    return rows


def match_replay_url(match_id: int) -> str:
    """What ``reverse("games:replay", args=[match_id])`` gives, without reversing ten times a
    profile (two thirds of the CPU of its recent matches' rows, drawn afresh)."""
    return match_replay_urls()(match_id)


def match_replay_urls() -> Callable[[int], str]:
    """``match_replay_url`` for many matches, the links' prefix looked up once."""
    prefix, suffix = around_argument("games:replay", "918273645")
    return lambda match_id: f"{prefix}{int(match_id)}{suffix}"


def opponent(
    game: str, seat: tuple, player_url: Callable[[str], str] = ladder.profile_url
) -> dict[str, Any]:
    """An opponent's entry in a recent match (a ``recent_sql`` row): a player links to their
    profile (``player_url``), a bot to its level's page."""
    *_match, user_id, username, bot_level, score, rank = seat
    if user_id is None:
        name = str(_("Bot (level %(level)s)") % {"level": bot_level})
        url = bot_url(game, bot_level)
    else:
        name, url = username, player_url(username)
    return {
        "name": name,
        "username": username if user_id is not None else None,
        "url": url,
        "rank": rank,
        "score": score,
    }


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
