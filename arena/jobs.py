"""The arena's worker jobs: create the scheduled arenas, start them, seat waiting players, end
them and give the trophies.

Any number of workers may run these at once and any may be killed at any moment. So each job
works on one arena per transaction, takes that arena's row with ``select_for_update(skip_locked)``
(another worker busy with it: skip it, it will be done) and re-checks under the lock what made it
due. A killed worker's transaction rolls back whole: a table is opened together with its arena
link and its players' entries, an arena ends together with its trophies. Points are not added
here but by ``services.record_match_result``, inside the transaction that finishes each match.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, Max, OuterRef, QuerySet
from django.utils import timezone

from games import services as games_services
from games.engines import all_engines
from games.models import Match, Seat
from games.worker import job
from ratings.elo import START
from ratings.models import Rating

from . import pairing, schedule, services
from .models import ArenaMatch, Entry, Tournament, Trophy

logger = logging.getLogger(__name__)

PODIUM = 3


def _locked_tournament(tournament_id: int, **due) -> Tournament | None:
    """The arena's row if it is still due (``due``: filters) and no other worker holds it."""
    # NO KEY UPDATE: rows that point at the arena (entries joining) need not wait for the lock.
    return (
        Tournament.objects.select_for_update(skip_locked=True, no_key=True)
        .filter(pk=tournament_id, **due)
        .first()
    )


def _each(step: Callable[[int], int], tournament_ids: Iterable[int]) -> Iterator[int]:
    """Run ``step`` for each arena; one arena failing (and rolling back) must not keep the
    others waiting: it is logged and retried next tick."""
    for tournament_id in list(tournament_ids):
        try:
            yield step(tournament_id)
        except Exception:
            logger.exception("arena job %s failed for arena %s", step.__name__, tournament_id)


# --- the schedule --------------------------------------------------------------------------------
def game_slots() -> list[schedule.GameSlot]:
    return [
        schedule.GameSlot(e.slug, e.name, min(services.SCHEDULED_SEATS, e.max_players))
        for e in all_engines()
    ]


@job
def create_scheduled_arenas() -> int:
    """Create the scheduled arenas of the next hours that do not exist yet. The unique schedule
    key turns a second worker's attempt into a read of the first one's row."""
    if not getattr(settings, "ARENA_SCHEDULE", True):
        return 0
    planned = schedule.plan(game_slots(), timezone.now())
    existing = set(
        Tournament.objects.filter(schedule_key__in=[o.key for o in planned]).values_list(
            "schedule_key", flat=True
        )
    )
    created = 0
    for occurrence in planned:
        if occurrence.key in existing:
            continue
        _, made = Tournament.objects.get_or_create(
            schedule_key=occurrence.key,
            defaults={
                "game": occurrence.game,
                "name": occurrence.name,
                "starts_at": occurrence.starts_at,
                "minutes": occurrence.minutes,
                "seats": occurrence.seats,
                "turn_seconds": services.DEFAULT_TURN_SECONDS,
            },
        )
        created += made
    return created


# --- the start -----------------------------------------------------------------------------------
@job
def start_due_arenas() -> int:
    """Scheduled arenas whose time has come start running (one UPDATE: it cannot half happen,
    and a second worker finds nothing left to start)."""
    now = timezone.now()
    due = list(
        Tournament.objects.filter(
            status=Tournament.Status.SCHEDULED, starts_at__lte=now
        ).values_list("pk", flat=True)
    )
    if not due:
        return 0
    with transaction.atomic():
        started = Tournament.objects.filter(pk__in=due, status=Tournament.Status.SCHEDULED).update(
            status=Tournament.Status.RUNNING
        )
        for tournament_id in due:
            services.changed(tournament_id)
    return started


# --- seating -------------------------------------------------------------------------------------
@job
def seat_waiting_players() -> int:
    """Open tables for the waiting players of every running arena; how many were opened."""
    now = timezone.now()
    running = Tournament.objects.filter(
        status=Tournament.Status.RUNNING, starts_at__lte=now, ends_at__gt=now
    ).values_list("pk", flat=True)
    return sum(_each(seat_tournament, running))


def waiting_entries(tournament: Tournament) -> QuerySet[Entry]:
    """Joined, neither paused nor withdrawn, and not at a live arena table (of this arena or any
    other: one player, one arena match at a time). Read from the seats, so a table that ended in
    any way (finished or aborted) frees its players."""
    busy = Seat.objects.filter(
        user_id=OuterRef("user_id"),
        match__status__in=services.LIVE_STATUSES,
        match__arena__isnull=False,
    )
    return Entry.objects.filter(tournament=tournament, paused=False, withdrawn=False).filter(
        ~Exists(busy)
    )


def seat_tournament(tournament_id: int) -> int:
    """One round of seating for one arena, all in one transaction: every table it opens exists
    with its arena link and its players' entries marked, or none does."""
    with transaction.atomic():
        now = timezone.now()
        tournament = _locked_tournament(
            tournament_id, status=Tournament.Status.RUNNING, ends_at__gt=now
        )
        if tournament is None:
            return 0
        entries = list(
            waiting_entries(tournament)
            .select_for_update(of=("self",), no_key=True)
            .select_related("user")
            .order_by("pk")
        )
        if len(entries) < tournament.seats:
            return 0
        ratings = _ratings(tournament.game, [e.user_id for e in entries])
        groups = pairing.pair(
            _as_waiting(entries, ratings, now), tournament.seats, services.max_wait_seconds()
        )
        by_user = {e.user_id: e for e in entries}
        number = ArenaMatch.objects.filter(tournament=tournament).aggregate(n=Max("number"))["n"]
        for offset, group in enumerate(groups, start=1):
            seated = [by_user[u] for u in group]
            _open_table(tournament, seated, (number or 0) + offset, ratings, now)
        if groups:
            services.changed(tournament.pk)
        return len(groups)


def _ratings(game: str, user_ids: list[int]) -> dict[int, float]:
    return dict(
        Rating.objects.filter(game=game, user_id__in=user_ids).values_list("user_id", "value")
    )


def _as_waiting(
    entries: list[Entry], ratings: dict[int, float], now: datetime
) -> list[pairing.Waiting]:
    last = _last_tables([e.table_id for e in entries if e.table_id])
    return [
        pairing.Waiting(
            player=e.user_id,
            points=e.points,
            rating=ratings.get(e.user_id, START),
            # A clock that never started (a table aborted before the arena listened) starts now.
            waited=(now - (e.waiting_since or now)).total_seconds(),
            last_table=last.get(e.table_id, frozenset()),
        )
        for e in entries
    ]


def _last_tables(table_ids: list[int]) -> dict[int, frozenset]:
    players: dict[int, set[int]] = defaultdict(set)
    seats = Seat.objects.filter(match__arena__in=set(table_ids)).values_list(
        "match__arena", "user_id"
    )
    for table_id, user_id in seats:
        players[table_id].add(user_id)
    return {table_id: frozenset(users) for table_id, users in players.items()}


def _open_table(
    tournament: Tournament,
    entries: list[Entry],
    number: int,
    ratings: dict[int, float],
    now: datetime,
) -> ArenaMatch:
    """Start the match and link it to the arena (the site draws the seats from the match's seed).
    ``created_at`` is the time the round decided to open it (before the end, checked under the
    arena's lock)."""
    match = games_services.start_match_for_players(
        tournament.game,
        [e.user for e in entries],
        mode=Match.Mode.RANKED,
        options=tournament.options,
        turn_seconds=tournament.turn_seconds,
        # A private arena's tables are as private as the arena (its entrants may watch them).
        private=tournament.private,
    )
    table = ArenaMatch.objects.create(
        tournament=tournament,
        match=match,
        number=number,
        created_at=now,
        ratings={str(e.user_id): ratings.get(e.user_id, START) for e in entries},
    )
    Entry.objects.filter(pk__in=[e.pk for e in entries]).update(table=table, waiting_since=None)
    return table


# --- the end -------------------------------------------------------------------------------------
@job
def finish_ended_arenas() -> int:
    """Arenas past their end whose last match is over: finished, with trophies."""
    now = timezone.now()
    ended = Tournament.objects.filter(
        status=Tournament.Status.RUNNING, ends_at__lte=now
    ).values_list("pk", flat=True)
    return sum(_each(finish_tournament, ended))


def finish_tournament(tournament_id: int) -> bool:
    """End one arena if it is due: no live table left (matches running at the end are played out
    and count). The status and the trophies commit together, so trophies are given once."""
    with transaction.atomic():
        tournament = _locked_tournament(
            tournament_id, status=Tournament.Status.RUNNING, ends_at__lte=timezone.now()
        )
        if tournament is None:
            return False
        live = ArenaMatch.objects.filter(
            tournament=tournament, match__status__in=services.LIVE_STATUSES
        )
        if live.exists():
            return False
        award_trophies(tournament)
        Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.FINISHED)
        services.changed(tournament.pk)
        return True


def award_trophies(tournament: Tournament) -> list[Trophy]:
    """The top three of the standings who played at least one match."""
    podium = [s for s in services.standings(tournament) if s.matches > 0][:PODIUM]
    return Trophy.objects.bulk_create(
        Trophy(user_id=s.user_id, tournament=tournament, place=place)
        for place, s in enumerate(podium, start=1)
    )
