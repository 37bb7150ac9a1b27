"""What the arena pages show, built for one viewer, and the fragments the arena socket pushes.

The page and the socket render the same partials (``templates/arena/partials/arena.html``) from
the same context, so they never disagree. Everything is read through ``arena.services``; the few
read-only queries the pages need beyond it (player counts, podiums, the cheap "did anything
change" fingerprint the socket polls) live here.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlencode

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Count, F, Q, Sum
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.models import Match
from games.rendering import duration_label, game_name, shown_digest

from . import services
from .models import ArenaMatch, Entry, Tournament, Trophy

User = AbstractBaseUser | AnonymousUser | None

#: The names of the schedule's arenas, in the viewer's language (the database keeps the English
#: name, which the API answers).
SCHEDULED_NAMES = {
    "hourly": gettext_lazy("Hourly %(game)s arena"),
    "daily": gettext_lazy("Daily %(game)s arena"),
}


def arena_name(tournament: Tournament) -> str:
    """The arena's name as the viewer reads it: a scheduled arena's in their language."""
    kind = (tournament.schedule_key or "").split(":", 1)[0]
    if kind in SCHEDULED_NAMES:
        return SCHEDULED_NAMES[kind] % {"game": game_name(tournament.game)}
    return tournament.name


#: Tables listed on an arena page (newest first); older ones are still reachable by their link.
TABLES_SHOWN = 50
#: A table opened this recently is "new" for a page that loads now: the page's socket takes the
#: player there (they may have been seated between their click on "Join" and the page loading).
FRESH_TABLE = timedelta(seconds=10)
PODIUM = 3


def _authenticated(user: User) -> bool:
    return bool(user is not None and user.is_authenticated)


def _with_query(url: str, **params: Any) -> str:
    params = {key: value for key, value in params.items() if value not in (None, "")}
    return f"{url}?{urlencode(params)}" if params else url


def _seconds_until(moment: datetime, now: datetime) -> int:
    return max(0, int((moment - now).total_seconds()))


def valid_invite(tournament: Tournament, invite_code: str | None) -> str | None:
    """The invitation code to carry in links and forms, only when it is the arena's own."""
    if tournament.private and invite_code and invite_code == tournament.invite_code:
        return invite_code
    return None


# --- an arena ----------------------------------------------------------------------------------
def _is_starting(tournament: Tournament, now: datetime) -> bool:
    """Its start has come and the worker is about to start it (at its next pass)."""
    return tournament.status == Tournament.Status.SCHEDULED and tournament.starts_at <= now


def _status_label(tournament: Tournament, now: datetime) -> str:
    # Not "Scheduled · Starts in 0:00": an arena created to start now is starting.
    if _is_starting(tournament, now):
        return _("Starting")
    return tournament.get_status_display()


def arena_info(tournament: Tournament, user: User, invite_code: str | None = None) -> dict:
    """The arena's facts, times, links and form addresses, as ``user`` may see them."""
    pk = tournament.pk
    now = timezone.now()
    invite = valid_invite(tournament, invite_code)
    url = reverse("arena:detail", args=[pk])
    insider = _authenticated(user) and (
        tournament.created_by_id == user.pk
        or Entry.objects.filter(tournament=tournament, user=user).exists()
    )
    return {
        "id": pk,
        "name": arena_name(tournament),
        "game": tournament.game,
        "game_name": game_name(tournament.game),
        "status": tournament.status,
        "status_label": _status_label(tournament, now),
        "is_scheduled": tournament.status == Tournament.Status.SCHEDULED,
        "is_starting": _is_starting(tournament, now),
        "is_running": tournament.is_running,
        "is_finished": tournament.is_finished,
        "starts_at": tournament.starts_at,
        "ends_at": tournament.ends_at,
        "minutes": tournament.minutes,
        "duration_label": duration_label(tournament.minutes * 60),
        "seats": tournament.seats,
        "timer_label": duration_label(tournament.turn_seconds),
        "private": tournament.private,
        "creator": tournament.created_by.username if tournament.created_by else None,
        "seconds_to_start": _seconds_until(tournament.starts_at, now),
        "seconds_left": _seconds_until(tournament.ends_at, now),
        # The end has passed but the last matches are still played out.
        "overtime": tournament.is_running and tournament.ends_at <= now,
        "players": Entry.objects.filter(tournament=tournament).count(),
        "invite": invite,
        "url": _with_query(url, invite=invite),
        "join_url": reverse("arena:join", args=[pk]),
        "pause_url": reverse("arena:pause", args=[pk]),
        "resume_url": reverse("arena:resume", args=[pk]),
        "withdraw_url": reverse("arena:withdraw", args=[pk]),
        "table_url": reverse("arena:table", args=[pk]),
        "login_url": _with_query(reverse("players:login"), next=_with_query(url, invite=invite)),
        "signup_url": _with_query(reverse("players:signup"), next=_with_query(url, invite=invite)),
        # Who may already see a private arena gets the link to share.
        "invite_url": (
            _with_query(url, invite=tournament.invite_code)
            if tournament.private and insider
            else None
        ),
    }


def standing_rows(tournament: Tournament, user: User) -> list[dict[str, Any]]:
    me = user.pk if _authenticated(user) else None
    return [
        {
            "rank": s.rank,
            "player": s.player,
            "profile_url": reverse("profile", args=[s.player]),
            "points": s.points,
            "matches": s.matches,
            "fire": s.fire,
            # Withdrawn players keep their place and are shown as paused (arena/__init__.py).
            "paused": s.paused or s.withdrawn,
            "withdrawn": s.withdrawn,
            "performance": round(s.performance) if s.performance is not None else None,
            "is_you": s.user_id == me,
        }
        for s in services.standings(tournament)
    ]


def table_rows(tournament: Tournament, user: User) -> list[dict[str, Any]]:
    me = user.pk if _authenticated(user) else None
    watchable = services.may_watch_tables(tournament, user)
    rows = []
    for table in services.tables(tournament, limit=TABLES_SHOWN):
        match = table.match
        seats = sorted(match.seats.all(), key=lambda s: (s.rank or 99, s.index))
        rows.append(
            {
                "number": table.number,
                "match_id": match.pk,
                "url": reverse("games:table", args=[match.pk]) if watchable else None,
                "status": match.status,
                "status_label": match.get_status_display(),
                "live": match.status in services.LIVE_STATUSES,
                "finished": match.status == Match.Status.FINISHED,
                "players": [
                    {
                        "name": seat.display_name,
                        "rank": seat.rank,
                        "abandoned": seat.abandoned,
                        "is_you": seat.user_id is not None and seat.user_id == me,
                    }
                    for seat in seats
                ],
                "is_yours": me is not None and any(seat.user_id == me for seat in seats),
            }
        )
    return rows


def you_context(tournament: Tournament, user: User, standings: list[dict]) -> dict[str, Any]:
    """The viewer's own entry: what they may do, their table, their scoresheet."""
    if not _authenticated(user):
        return {"anonymous": True, "joined": False}
    entry = services.entry_for(user, tournament)
    open_ = not tournament.is_finished
    if entry is None:
        return {"anonymous": False, "joined": False, "can_join": open_}
    current = services.current_table_for(user, tournament)
    mine = next((row for row in standings if row["is_you"]), None)
    return {
        "anonymous": False,
        "joined": True,
        "paused": entry.paused and not entry.withdrawn,
        "paused_away": entry.paused and entry.paused_reason == Entry.PauseReason.AWAY,
        "paused_abandoned": entry.paused and entry.paused_reason == Entry.PauseReason.ABANDONED,
        "withdrawn": entry.withdrawn,
        "active": entry.active,
        "can_join": open_ and entry.withdrawn,
        "can_pause": open_ and entry.active,
        "can_resume": open_ and entry.paused and not entry.withdrawn,
        "can_withdraw": open_ and not entry.withdrawn,
        "rank": mine["rank"] if mine else None,
        "points": entry.points,
        "fire": entry.on_fire,
        "current_table": (
            {"id": current.pk, "url": reverse("games:table", args=[current.pk])}
            if current is not None
            else None
        ),
        "scoresheet": [
            {
                "table": result.table.number,
                "match_id": result.table.match_id,
                "url": reverse("games:table", args=[result.table.match_id]),
                "rank": result.rank,
                "points": result.points,
                "doubled": result.doubled,
                "abandoned": result.abandoned,
            }
            for result in services.scoresheet(entry)
        ],
    }


def podium_rows(tournament: Tournament) -> list[dict[str, Any]]:
    if not tournament.is_finished:
        return []
    points = dict(Entry.objects.filter(tournament=tournament).values_list("user_id", "points"))
    return [
        {
            "place": trophy.place,
            "player": trophy.user.username,
            "profile_url": reverse("profile", args=[trophy.user.username]),
            "points": points.get(trophy.user_id),
        }
        for trophy in Trophy.objects.filter(tournament=tournament)
        .select_related("user")
        .order_by("place")
    ]


def arena_context(
    tournament: Tournament,
    user: User,
    invite_code: str | None = None,
    *,
    error: str | None = None,
    redirect_to: int | None = None,
) -> dict[str, Any]:
    """Everything the arena page shows ``user``. ``redirect_to``: a table to take them to now."""
    standings = standing_rows(tournament, user)
    you = you_context(tournament, user, standings)
    current = you.get("current_table")
    shown_table = None
    if current is not None:
        opened = ArenaMatch.objects.filter(match_id=current["id"]).values_list(
            "created_at", flat=True
        )
        if opened and opened[0] < timezone.now() - FRESH_TABLE:
            shown_table = current["id"]
    info = arena_info(tournament, user, invite_code)
    # The socket is told which table the page already shows: any other is new and the
    # player is taken there.
    info["ws_url"] = _with_query(
        f"/ws/arenas/{tournament.pk}/", invite=info["invite"], table=shown_table
    )
    context = {
        "arena": info,
        "standings": standings,
        "tables": table_rows(tournament, user),
        "you": you,
        "podium": podium_rows(tournament),
        "error": error,
        "redirect_to": (
            {"id": redirect_to, "url": reverse("games:table", args=[redirect_to])}
            if redirect_to is not None
            else None
        ),
    }
    context["digest"] = arena_digest(context)
    return context


#: What an arena page's parts show that changes by the second alone: the page counts these down
#: itself, so a frame that differs only there shows nothing new. ``ws_url`` is no part's.
UNSHOWN_ARENA_FACTS = ("seconds_to_start", "seconds_left", "ws_url")


def arena_digest(context: dict[str, Any]) -> str:
    """``shown_digest`` of the arena's live parts (not the page's error area)."""
    info = {k: v for k, v in context["arena"].items() if k not in UNSHOWN_ARENA_FACTS}
    parts = ("standings", "tables", "you", "podium", "redirect_to")
    return shown_digest(info, *(context[part] for part in parts))


def arena_fragments(
    tournament: Tournament,
    user: User,
    invite_code: str | None = None,
    *,
    error: str | None = None,
    redirect_to: int | None = None,
    socket: bool = False,
    request: HttpRequest | None = None,
) -> str:
    """Every live part of the arena page for ``user``, as hx-swap-oob fragments. An htmx answer
    also clears the page's error area; a socket's leaves it (the error may be the user's news)
    and carries the redirect area instead."""
    context = arena_context(tournament, user, invite_code, error=error, redirect_to=redirect_to)
    # With the request the forms carry their CSRF token; a socket has none, and htmx sends the
    # token from the page's hx-headers anyway.
    return render_to_string(
        "arena/fragments.html", {**context, "oob": True, "socket": socket}, request=request
    )


def render_for_socket(
    tournament_id: int, user: User, invite_code: str | None, shown_table: int | None
) -> tuple[tuple, int | None, str] | None:
    """What an arena socket sends: (fingerprint, the user's current table, fragments). A current
    table other than ``shown_table`` is new: the fragments take the player there."""
    # Read before rendering: a change in between shows as a newer fingerprint at the next poll.
    fingerprint = arena_fingerprint(tournament_id, user)
    tournament = Tournament.objects.filter(pk=tournament_id).select_related("created_by").first()
    if fingerprint is None or tournament is None:
        return None
    current = services.current_table_for(user, tournament)
    current_id = current.pk if current is not None else None
    redirect_to = current_id if current_id is not None and current_id != shown_table else None
    html = arena_fragments(tournament, user, invite_code, redirect_to=redirect_to, socket=True)
    return fingerprint, current_id, html


def arena_fingerprint(tournament_id: int, user: User) -> tuple | None:
    """A few aggregates that change whenever anything an arena page shows changes: the socket
    polls them to catch changes whose doorbell it never heard (the worker is another process).
    Sums weighted by primary keys tell apart changes that keep totals equal."""
    head = (
        Tournament.objects.filter(pk=tournament_id)
        .values_list("status", "name", "starts_at", "ends_at")
        .first()
    )
    if head is None:
        return None
    entries = Entry.objects.filter(tournament_id=tournament_id).aggregate(
        count=Count("pk"),
        points=Sum(F("points") * F("pk")),
        matches=Sum("matches"),
        fire=Sum(F("fire_streak") * F("pk")),
        paused=Sum("pk", filter=Q(paused=True)),
        withdrawn=Sum("pk", filter=Q(withdrawn=True)),
        tables=Sum("table_id"),
    )
    tables = ArenaMatch.objects.filter(tournament_id=tournament_id).aggregate(
        count=Count("pk"),
        live=Sum("pk", filter=Q(match__status__in=services.LIVE_STATUSES)),
        finished=Sum("pk", filter=Q(match__status=Match.Status.FINISHED)),
        scored=Count("pk", filter=Q(scored=True)),
    )
    mine = None
    if _authenticated(user):
        mine = (
            Entry.objects.filter(tournament_id=tournament_id, user=user)
            .values_list("table_id", "paused", "withdrawn")
            .first()
        )
    return head, tuple(sorted(entries.items())), tuple(sorted(tables.items())), mine


# --- the list of arenas ------------------------------------------------------------------------
def listing_context(user: User) -> dict[str, Any]:
    """Upcoming, running and recently finished arenas the user may see."""
    groups = services.listing(user)
    shown = [t for key in ("running", "upcoming", "recent") for t in groups[key]]
    ids = [t.pk for t in shown]
    counts = dict(
        Entry.objects.filter(tournament_id__in=ids)
        .values("tournament_id")
        .annotate(n=Count("pk"))
        .values_list("tournament_id", "n")
    )
    entered: set[int] = set()
    if _authenticated(user):
        entered = set(
            Entry.objects.filter(tournament_id__in=ids, user=user, withdrawn=False).values_list(
                "tournament_id", flat=True
            )
        )
    podiums: dict[int, list[dict[str, Any]]] = defaultdict(list)
    finished_ids = [t.pk for t in groups["recent"]]
    for trophy in (
        Trophy.objects.filter(tournament_id__in=finished_ids)
        .select_related("user")
        .order_by("tournament_id", "place")
    ):
        podiums[trophy.tournament_id].append(
            {
                "place": trophy.place,
                "player": trophy.user.username,
                "profile_url": reverse("profile", args=[trophy.user.username]),
            }
        )
    now = timezone.now()

    def row(tournament: Tournament) -> dict[str, Any]:
        pk = tournament.pk
        url = reverse("arena:detail", args=[pk])
        invite = tournament.invite_code if tournament.private else None
        return {
            "id": pk,
            "name": arena_name(tournament),
            "game_name": game_name(tournament.game),
            "status": tournament.status,
            "starts_at": tournament.starts_at,
            "ends_at": tournament.ends_at,
            "duration_label": duration_label(tournament.minutes * 60),
            "seats": tournament.seats,
            "private": tournament.private,
            "players": counts.get(pk, 0),
            "seconds_to_start": _seconds_until(tournament.starts_at, now),
            "starting": _is_starting(tournament, now),
            "seconds_left": _seconds_until(tournament.ends_at, now),
            # Only creators and entrants see a private arena here: its link may carry the code.
            "url": _with_query(url, invite=invite),
            "join_url": reverse("arena:join", args=[pk]),
            "invite": invite,
            "entered": pk in entered,
            "can_join": (_authenticated(user) and pk not in entered and not tournament.is_finished),
            "podium": podiums.get(pk, [])[:PODIUM],
        }

    return {
        "running": [row(t) for t in groups["running"]],
        "upcoming": [row(t) for t in groups["upcoming"]],
        "recent": [row(t) for t in groups["recent"]],
        "anonymous": not _authenticated(user),
    }


def link_back_to_arena(match: Match) -> list[dict[str, str]]:
    """On a table the arena opened: a way back to the arena's standings."""
    table = ArenaMatch.objects.filter(match=match).select_related("tournament").first()
    if table is None:
        return []
    label = _("Back to the arena “%(name)s”") % {"name": arena_name(table.tournament)}
    return [{"label": label, "url": reverse("arena:detail", args=[table.tournament_id])}]
