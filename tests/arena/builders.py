"""Small builders for the arena's database tests."""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from arena import jobs, scoring, services
from arena.models import ArenaMatch, ArenaResult, Entry, Tournament
from games import services as games_services
from games.models import Match, Seat
from tests.site.factories import make_user, play_to_the_end


def running_arena(
    players: int = 6, seats: int = 3, game: str = "part-du-chef", **kwargs
) -> tuple[Tournament, list]:
    """A one-off arena that has started, with ``players`` entries."""
    tournament = services.create_tournament(make_user(), game, seats=seats, **kwargs)
    users = [make_user() for _ in range(players)]
    for user in users:
        services.join(user, tournament.pk)
    assert jobs.start_due_arenas() >= 1
    tournament.refresh_from_db()
    return tournament, users


def live_tables(tournament: Tournament) -> list[ArenaMatch]:
    return list(
        ArenaMatch.objects.filter(
            tournament=tournament, match__status=Match.Status.PLAYING
        ).select_related("match")
    )


def players_of(table: ArenaMatch) -> list:
    return [s.user for s in table.match.seats.select_related("user")]


def play_tables(tournament: Tournament, seed: int = 0) -> int:
    """Play every live table of the arena to its end through the services; how many."""
    tables = live_tables(tournament)
    for offset, table in enumerate(tables):
        play_to_the_end(table.match, players_of(table), seed + offset)
    return len(tables)


def end_arena_now(tournament: Tournament) -> None:
    past = timezone.now() - timedelta(seconds=1)
    Tournament.objects.filter(pk=tournament.pk).update(ends_at=past)


def wait_longer(tournament: Tournament, seconds: float) -> None:
    """Make every waiting player of the arena seem to have waited ``seconds`` more."""
    for entry in Entry.objects.filter(tournament=tournament, waiting_since__isnull=False):
        entry.waiting_since -= timedelta(seconds=seconds)
        entry.save(update_fields=["waiting_since"])


def open_table(tournament: Tournament, users: list) -> ArenaMatch:
    """A table of the arena for exactly these players (as a seating round would open it)."""
    with transaction.atomic():
        entries = list(Entry.objects.filter(tournament=tournament, user__in=users))
        number = ArenaMatch.objects.filter(tournament=tournament).count() + 1
        ordered = sorted(entries, key=lambda e: [u.pk for u in users].index(e.user_id))
        return jobs._open_table(tournament, ordered, number, {}, timezone.now())


def finish_with_ranks(
    table: ArenaMatch, users: list, ranks: list[int], abandoned: list[bool] = ()
) -> None:
    """End a table with chosen ranks (``ranks[i]`` for ``users[i]``, whatever their seats),
    through the arena's ``match_ended`` receiver: the engines decide real ranks, this lets a
    test choose them."""
    gone = list(abandoned) or [False] * len(ranks)
    with transaction.atomic():
        for user, rank, left in zip(users, ranks, gone, strict=True):
            Seat.objects.filter(match_id=table.match_id, user=user).update(
                rank=rank, abandoned=left
            )
        Match.objects.filter(pk=table.match_id).update(
            status=Match.Status.FINISHED, finished_at=timezone.now()
        )
        match = Match.objects.get(pk=table.match_id)
        games_services.match_ended.send(sender=Match, match=match)


def replayed_points(entry: Entry, streak: int = 0) -> int:
    """The entry's points recomputed from the ranks at its finished tables, in order, from a
    starting fire streak."""
    tables = (
        ArenaMatch.objects.filter(
            tournament_id=entry.tournament_id,
            match__status=Match.Status.FINISHED,
            match__seats__user_id=entry.user_id,
        )
        .select_related("match")
        .order_by("match__finished_at", "number")
    )
    points = 0
    for table in tables:
        seats = list(table.match.seats.order_by("index"))
        mine = next(i for i, s in enumerate(seats) if s.user_id == entry.user_id)
        result = scoring.score(
            [s.rank for s in seats], mine, streak, abandoned=seats[mine].abandoned
        )
        streak, points = result.streak, points + result.points
    return points


def assert_points_add_up(tournament: Tournament, streaks: dict[int, int] | None = None) -> None:
    """Every entry's points equal its results' and a replay of its ranks (``streaks``: fire
    streaks given to players at the start, by user id)."""
    for entry in Entry.objects.filter(tournament=tournament):
        from_results = sum(r.points for r in ArenaResult.objects.filter(entry=entry))
        replayed = replayed_points(entry, (streaks or {}).get(entry.user_id, 0))
        assert entry.points == from_results == replayed, entry
