"""What players do in arenas (create, join, pause, resume, withdraw), what pages and the API read
(standings, tables, a player's current table, trophies), and the ``match_ended`` receiver that
adds points or frees the players of an aborted table. The worker's side (schedule, start, seating, end) is in ``arena.jobs``.

Arena code never reads a match's game state: only ``Seat.rank``, ``Seat.abandoned`` and
``Match.status``. Ratings are not written here: arena matches are ranked, so the ratings receiver
rates them like any ranked match.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games import notify
from games.engines import get_engine
from games.models import Match, Move, Seat
from games.rows import save_rows
from games.services import BadRequest, Conflict, NotAllowed, NotFound, checked_options
from ratings.elo import START

from . import pairing, scoring
from .models import ArenaMatch, ArenaResult, Entry, Tournament, Trophy

logger = logging.getLogger(__name__)

DEFAULT_MINUTES = 30
MINUTES_RANGE = (5, 24 * 60)
DEFAULT_TURN_SECONDS = 30
TURN_SECONDS_RANGE = (10, 600)
NAME_LENGTH = 100
#: How far ahead a one-off arena may be announced.
FURTHEST_START = timedelta(days=30)
#: A start this far in the past is taken as "now" (clocks differ a little).
START_SLACK = timedelta(minutes=1)
#: Arenas a player (not staff) may have announced or running at once.
OWN_ARENAS_LIMIT = 3
#: Seats per table of the scheduled arenas (capped by each game's maximum).
SCHEDULED_SEATS = 3
LIVE_STATUSES = (Match.Status.OPEN, Match.Status.PLAYING)


def max_wait_seconds() -> float:
    """How long a waiting player may be held back for better opponents (settings may shorten
    it, for tests)."""
    return float(getattr(settings, "ARENA_MAX_WAIT_SECONDS", pairing.MAX_WAIT))


def arena_group(tournament_id: int) -> str:
    return f"arena-{tournament_id}"


def changed(tournament_id: int) -> None:
    """Ring the arena's doorbell after the commit. Like a table's, it carries no data: a page
    re-reads the standings (throttled on its side to about once a second)."""
    transaction.on_commit(
        lambda: notify.send(
            arena_group(tournament_id), {"type": "arena.changed", "arena": tournament_id}
        )
    )


# --- creating ------------------------------------------------------------------------------------
def create_tournament(
    user: AbstractBaseUser | None,
    game: Any,
    *,
    name: Any = None,
    starts_at: Any = None,
    minutes: Any = None,
    seats: Any = None,
    turn_seconds: Any = None,
    options: Any = None,
    private: Any = False,
) -> Tournament:
    """A one-off arena, checked field by field with a sentence for each refusal. ``starts_at`` is
    an aware datetime or an ISO 8601 string (default: now)."""
    try:
        engine = get_engine(game)
    except KeyError:
        raise BadRequest(_("There is no game called %(game)r.") % {"game": game}) from None
    now = timezone.now()
    seats = _whole(seats, min(SCHEDULED_SEATS, engine.max_players), _("seats"))
    if options is not None and not isinstance(options, dict):
        raise BadRequest(_("'options' must be an object, for example {}."))
    options = checked_options(engine, seats, options)
    if not isinstance(private, bool):
        raise BadRequest(_("'private' must be true or false."))
    tournament = Tournament(
        game=engine.slug,
        name=_checked_name(name, engine.name),
        starts_at=_checked_start(starts_at, now),
        minutes=_in_range(_whole(minutes, DEFAULT_MINUTES, _("minutes")), MINUTES_RANGE, "minutes"),
        seats=seats,
        options=options,
        turn_seconds=_in_range(
            _whole(turn_seconds, DEFAULT_TURN_SECONDS, _("turn_seconds")),
            TURN_SECONDS_RANGE,
            "turn_seconds",
        ),
        private=private,
        created_by=user if user is not None and user.is_authenticated else None,
    )
    with transaction.atomic():
        _check_own_arenas(user)
        tournament.save()
    return tournament


def _whole(value: Any, default: int, field: str) -> int:
    if value is None:
        return default
    if not isinstance(value, int) or isinstance(value, bool):
        raise BadRequest(_("'%(field)s' must be a whole number.") % {"field": field})
    return value


def _in_range(value: int, bounds: tuple[int, int], field: str) -> int:
    low, high = bounds
    if not low <= value <= high:
        raise BadRequest(
            _("'%(field)s' must be between %(low)s and %(high)s.")
            % {"field": field, "low": low, "high": high}
        )
    return value


def _checked_name(name: Any, game_name: str) -> str:
    if name is None:
        return _("%(game)s arena") % {"game": game_name}
    if not isinstance(name, str) or not name.strip():
        raise BadRequest(_("Give the arena a name."))
    if len(name.strip()) > NAME_LENGTH:
        raise BadRequest(
            _("The name may have at most %(count)s characters.") % {"count": NAME_LENGTH}
        )
    return name.strip()


def _checked_start(starts_at: Any, now: datetime) -> datetime:
    if starts_at is None:
        return now
    if isinstance(starts_at, str):
        try:
            starts_at = datetime.fromisoformat(starts_at)
        except ValueError:
            raise BadRequest(
                _("'starts_at' must be an ISO 8601 time such as 2030-06-01T18:00:00Z.")
            ) from None
    if not isinstance(starts_at, datetime):
        raise BadRequest(_("'starts_at' must be an ISO 8601 time such as 2030-06-01T18:00:00Z."))
    if starts_at.tzinfo is None:
        raise BadRequest(_("'starts_at' must say its time zone, for example 18:00:00Z or +02:00."))
    if starts_at < now - START_SLACK:
        raise BadRequest(_("'starts_at' is in the past."))
    if starts_at > now + FURTHEST_START:
        raise BadRequest(_("An arena may be announced at most 30 days ahead."))
    return max(starts_at, now)


def _check_own_arenas(user: AbstractBaseUser | None) -> None:
    if user is None or not user.is_authenticated or user.is_staff:
        return
    own = Tournament.objects.filter(
        created_by=user, status__in=[Tournament.Status.SCHEDULED, Tournament.Status.RUNNING]
    ).count()
    if own >= OWN_ARENAS_LIMIT:
        raise Conflict(
            _("You already have %(count)s arenas announced or running: wait for one to end.")
            % {"count": OWN_ARENAS_LIMIT}
        )


# --- finding and seeing --------------------------------------------------------------------------
def may_view(
    tournament: Tournament, user: AbstractBaseUser | None, invite_code: str | None = None
) -> bool:
    """A public arena is open to all; a private one to its creator, its players and whoever has
    its invitation code."""
    if not tournament.private:
        return True
    if invite_code and invite_code == tournament.invite_code:
        return True
    if user is None or not user.is_authenticated:
        return False
    if tournament.created_by_id == user.pk:
        return True
    return Entry.objects.filter(tournament=tournament, user=user).exists()


def may_watch_tables(tournament: Tournament, user: AbstractBaseUser | None) -> bool:
    """A private arena's tables are private too: its creator and its entrants may watch them
    (someone who only has the arena's link sees the standings, and joins to watch)."""
    if not tournament.private:
        return True
    if user is None or not user.is_authenticated:
        return False
    return (
        tournament.created_by_id == user.pk
        or Entry.objects.filter(tournament=tournament, user=user).exists()
    )


def entrants_may_watch(match: Match, user: AbstractBaseUser) -> bool:
    """Games' watch rule for a private table an arena opened: whoever may watch that arena's
    tables may watch it."""
    tournament = Tournament.objects.filter(tables__match=match).first()
    return tournament is not None and may_watch_tables(tournament, user)


def get_tournament(
    tournament_id: Any, user: AbstractBaseUser | None, invite_code: str | None = None
) -> Tournament:
    """The arena, or NotFound: a private arena the user may not see answers like a missing one."""
    tournament = Tournament.objects.filter(pk=_int_or_none(tournament_id)).first()
    if tournament is None or not may_view(tournament, user, invite_code):
        raise NotFound(_("There is no such arena."))
    return tournament


def _int_or_none(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def listing(user: AbstractBaseUser | None, recent: int = 20) -> dict[str, list[Tournament]]:
    """Upcoming (soonest first), running and recently finished arenas the user may see."""
    visible = Tournament.objects.visible_to(user)
    status = Tournament.Status
    return {
        "running": list(visible.filter(status=status.RUNNING).order_by("ends_at", "pk")),
        "upcoming": list(visible.filter(status=status.SCHEDULED).order_by("starts_at", "pk")),
        "recent": list(visible.filter(status=status.FINISHED).order_by("-ends_at", "-pk")[:recent]),
    }


@dataclass(frozen=True)
class Standing:
    rank: int
    user_id: int
    player: str
    points: int
    matches: int
    fire: bool
    paused: bool
    withdrawn: bool
    performance: float | None


def standings(tournament: Tournament) -> list[Standing]:
    """Points, then performance; ties beyond that go to whoever joined first."""
    entries = sorted(
        Entry.objects.filter(tournament=tournament).select_related("user"),
        key=lambda e: scoring.standing_key(e.points, e.performance, (e.joined_at, e.pk)),
    )
    return [
        Standing(
            rank=position,
            user_id=entry.user_id,
            player=entry.user.username,
            points=entry.points,
            matches=entry.matches,
            fire=entry.on_fire,
            paused=entry.paused,
            withdrawn=entry.withdrawn,
            performance=entry.performance,
        )
        for position, entry in enumerate(entries, start=1)
    ]


def tables(tournament: Tournament, limit: int | None = 100) -> list[ArenaMatch]:
    """The arena's tables, newest first, with their match and players loaded."""
    query = (
        ArenaMatch.objects.filter(tournament=tournament)
        .select_related("match")
        .prefetch_related("match__seats__user")
        .order_by("-number")
    )
    return list(query if limit is None else query[:limit])


def entry_for(user: AbstractBaseUser | None, tournament: Tournament) -> Entry | None:
    if user is None or not user.is_authenticated:
        return None
    return Entry.objects.filter(tournament=tournament, user=user).first()


def current_table_for(user: AbstractBaseUser | None, tournament: Tournament) -> Match | None:
    """The match the user is playing in this arena now, if any (pages send them there)."""
    entry = entry_for(user, tournament)
    if entry is None or entry.table_id is None:
        return None
    return Match.objects.filter(arena__pk=entry.table_id, status__in=LIVE_STATUSES).first()


def trophies_for(user: AbstractBaseUser) -> list[Trophy]:
    """A player's trophies, newest first, for their profile."""
    return list(Trophy.objects.filter(user=user).select_related("tournament"))


# --- joining, pausing, leaving -------------------------------------------------------------------
def join(user: AbstractBaseUser, tournament_id: Any, invite_code: str | None = None) -> Entry:
    """Enter an arena before or while it runs. Joining again undoes a pause or a withdrawal."""
    tournament = get_tournament(tournament_id, user, invite_code)
    if tournament.is_finished:
        raise Conflict(_("This arena has finished."))
    with transaction.atomic():
        try:
            with transaction.atomic():
                entry, created = Entry.objects.get_or_create(
                    tournament=tournament, user=user, defaults={"waiting_since": timezone.now()}
                )
        except IntegrityError:  # the same player joining twice at once
            created = False
        if not created:
            entry = _locked_entry(user, tournament)
            _make_active(entry)
        changed(tournament.pk)
    return entry


@transaction.atomic
def resume(user: AbstractBaseUser, tournament_id: Any) -> Entry:
    """Be seated again after a pause (or after abandoning a match)."""
    tournament, entry = _own_entry(user, tournament_id)
    _make_active(entry)
    changed(tournament.pk)
    return entry


@transaction.atomic
def pause(user: AbstractBaseUser, tournament_id: Any) -> Entry:
    """Not be seated again until resuming; a match being played is played out."""
    tournament, entry = _own_entry(user, tournament_id)
    if not entry.paused:
        entry.paused = True
        entry.paused_reason = Entry.PauseReason.CHOSEN
        entry.waiting_since = None
        entry.save(update_fields=["paused", "paused_reason", "waiting_since"])
        changed(tournament.pk)
    return entry


@transaction.atomic
def withdraw(user: AbstractBaseUser, tournament_id: Any) -> Entry | None:
    """Leave the arena. Before it starts the entry is removed; once it runs, the points earned
    stay in the standings and the player is no longer seated (joining again comes back)."""
    tournament, entry = _own_entry(user, tournament_id)
    if tournament.status == Tournament.Status.SCHEDULED:
        entry.delete()
        changed(tournament.pk)
        return None
    if not entry.withdrawn:
        entry.withdrawn = True
        entry.waiting_since = None
        entry.save(update_fields=["withdrawn", "waiting_since"])
        changed(tournament.pk)
    return entry


def _own_entry(user: AbstractBaseUser, tournament_id: Any) -> tuple[Tournament, Entry]:
    """The arena and the user's entry, locked until the caller's transaction ends."""
    tournament = get_tournament(tournament_id, user)
    if tournament.is_finished:
        raise Conflict(_("This arena has finished."))
    entry = _locked_entry(user, tournament)
    if entry is None:
        raise NotAllowed(_("You have not joined this arena."))
    return tournament, entry


def _locked_entry(user: AbstractBaseUser, tournament: Tournament) -> Entry | None:
    # The lock makes a pause wait for a seating round that holds the entry, and vice versa.
    return (
        Entry.objects.select_for_update(no_key=True)
        .filter(tournament=tournament, user=user)
        .first()
    )


def _make_active(entry: Entry) -> None:
    if entry.active:
        return
    entry.paused = entry.withdrawn = False
    entry.paused_reason = Entry.PauseReason.CHOSEN
    entry.waiting_since = timezone.now()
    entry.save(update_fields=["paused", "paused_reason", "withdrawn", "waiting_since"])


# --- the end of an arena match ------------------------------------------------------------------
def arena_match_ended(sender: Any, match: Match, **kwargs: Any) -> None:
    """The ``match_ended`` receiver, inside the transaction that ends the match: a finished arena
    match scores; an aborted one scores nothing and its players wait to be seated again.
    Arena tables are ranked, and a match keeps its mode: a friendly match's end reads nothing."""
    if match.mode != Match.Mode.RANKED:
        return
    table = ArenaMatch.objects.filter(match_id=match.pk).first()
    if table is None:  # a ranked match outside any arena: one read
        return
    status = Match.objects.filter(pk=match.pk).values_list("status", flat=True).first()
    if status in (Match.Status.FINISHED, Match.Status.ABORTED):
        pause_away_players(match, table)
    if status == Match.Status.FINISHED:
        record_match_result(match)
    elif status == Match.Status.ABORTED:
        free_players(match, table)


def seats_not_played(match: Match) -> list[Seat]:
    """The players' seats at ``match`` that never moved although they were asked to: the timer's
    bot moved for them and they never did, or the match was called off while they were to move."""
    match = Match.objects.get(pk=match.pk)
    seats = [s for s in Seat.objects.filter(match_id=match.pk).order_by("index") if s.user_id]
    # Who moved, and how: a few rows, not one per move.
    moves = set(
        Move.objects.filter(match_id=match.pk).order_by().values_list("seat", "by_bot").distinct()
    )
    to_move: set[int] = set()
    if match.status == Match.Status.ABORTED and match.state is not None:
        to_move = set(get_engine(match.game).to_move(match.state))
    return [
        s
        for s in seats
        if (s.index, False) not in moves and ((s.index, True) in moves or s.index in to_move)
    ]


def pause_away_players(match: Match, table: ArenaMatch) -> None:
    """Arenas seat only players who are there: a player who did not play this arena table and
    has no arena page or table open is paused, with the reason, which their arena page tells
    them when they come back. (Otherwise the arena seats them again and again at tables that are
    called off, each shown to the others as waiting for them.) ``table``: the match's arena
    table."""
    from players.presence import is_at_play

    away = [s.user_id for s in seats_not_played(match) if not is_at_play(s.user_id)]
    if not away:
        return
    paused = Entry.objects.filter(
        tournament_id=table.tournament_id, user_id__in=away, paused=False, withdrawn=False
    ).update(paused=True, paused_reason=Entry.PauseReason.AWAY, waiting_since=None)
    if paused:
        changed(table.tournament_id)


def free_players(match: Match, table: ArenaMatch) -> None:
    """The players of the aborted arena ``table`` start waiting now (those who still want to
    play)."""
    freed = Entry.objects.filter(
        table=table, paused=False, withdrawn=False, waiting_since__isnull=True
    ).update(waiting_since=timezone.now())
    if freed:
        changed(table.tournament_id)


def record_match_result(match: Match) -> None:
    """Add each player's points to their entry. It runs inside the transaction that ends the
    match, so the points commit or roll back with its end; the table's ``scored`` flag (checked
    under its row lock) and the unique result per table and entry make counting a match twice
    impossible."""
    table = (
        ArenaMatch.objects.select_for_update(no_key=True)
        .filter(match_id=match.pk, scored=False)
        .first()
    )
    if table is None:
        return
    seats = [s for s in Seat.objects.filter(match_id=match.pk).order_by("index") if s.user_id]
    entries = {
        e.user_id: e
        for e in Entry.objects.select_for_update(no_key=True)
        .filter(tournament_id=table.tournament_id, user_id__in=[s.user_id for s in seats])
        .order_by("pk")  # always in the same order, so two finishing matches cannot deadlock
    }
    seats = [s for s in seats if s.user_id in entries]
    ranks = [s.rank for s in seats]
    ratings = [float(table.ratings.get(str(s.user_id), START)) for s in seats]
    scores = scoring.score_table(
        ranks, [entries[s.user_id].fire_streak for s in seats], [s.abandoned for s in seats]
    )
    now = timezone.now()
    results = []
    for position, (seat, result) in enumerate(zip(seats, scores, strict=True)):
        entry = entries[seat.user_id]
        _add_result(entry, result, seat.abandoned, now)
        entry.performance_sum += scoring.performance_terms(ranks, ratings, position)
        entry.opponents += len(seats) - 1
        results.append(
            ArenaResult(
                table=table,
                entry=entry,
                rank=seat.rank,
                points=result.points,
                doubled=result.doubled,
                abandoned=seat.abandoned,
                created_at=now,
            )
        )
    # Every player's entry in one statement and one round trip (the rows are locked).
    save_rows([entries[seat.user_id] for seat in seats], RESULT_FIELDS)
    ArenaResult.objects.bulk_create(results)
    table.scored = True
    table.save(update_fields=["scored"])
    changed(table.tournament_id)


#: What a table's result changes in each of its players' entries.
RESULT_FIELDS = [
    "points",
    "matches",
    "fire_streak",
    "paused",
    "paused_reason",
    "waiting_since",
    "performance_sum",
    "opponents",
]


def _add_result(entry: Entry, result: scoring.Score, abandoned: bool, now: datetime) -> None:
    entry.points += result.points
    entry.matches += 1
    entry.fire_streak = result.streak
    if abandoned:
        # The spec: an abandoner scores 0 and is paused (they resume by themselves).
        entry.paused = True
        entry.paused_reason = Entry.PauseReason.ABANDONED
        entry.waiting_since = None
    elif entry.active:
        entry.waiting_since = now


def scoresheet(entry: Entry) -> list[ArenaResult]:
    """The entry's results in order (points per match, doubled ones marked), for pages."""
    return list(entry.results.select_related("table"))
