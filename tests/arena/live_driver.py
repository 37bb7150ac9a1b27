"""Runs inside the live site's own processes (``manage.py shell -c``) for the kill-and-restart
test: sets an arena up, plays its tables as its players would, and reports what the database
holds. Every command prints one line of JSON."""

from __future__ import annotations

import contextlib
import itertools
import json
import random
import sys
import time
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from arena import scoring, services
from arena.models import ArenaMatch, ArenaResult, Entry, Tournament, Trophy
from games import services as games_services
from games.engines import get_engine
from games.models import Match, Seat


def setup(players: int, seats: int, seconds: float) -> dict:
    users = [
        get_user_model().objects.create_user(username=f"arena{i}", password=None)
        for i in range(players)
    ]
    tournament = services.create_tournament(None, "part-du-chef", seats=seats, turn_seconds=60)
    for user in users:
        services.join(user, tournament.pk)
    # Set directly, past the form's bounds: the test decides when the arena ends (`end_in`).
    ends_at = timezone.now() + timedelta(seconds=seconds)
    Tournament.objects.filter(pk=tournament.pk).update(ends_at=ends_at)
    return {"id": tournament.pk}


def end_in(tournament_id: int, seconds: float, once_tables: int, wait_at_most: float) -> dict:
    """Bring the arena's end forward to ``seconds`` from now, once it has seated ``once_tables``
    tables (the test ends it when it has killed enough workers and a second round sat down,
    however slow a loaded machine is); after ``wait_at_most`` seconds it ends it anyway."""
    give_up = time.monotonic() + wait_at_most
    while time.monotonic() < give_up:
        if ArenaMatch.objects.filter(tournament_id=tournament_id).count() >= once_tables:
            break
        time.sleep(0.2)
    ends_at = timezone.now() + timedelta(seconds=seconds)
    Tournament.objects.filter(pk=tournament_id).update(ends_at=ends_at)
    return {"id": tournament_id}


def play(tournament_id: int, give_up_after: float) -> dict:
    """Make moves at the arena's live tables, one table after the other, until it ends."""
    rng = random.Random(7)
    moves = 0
    give_up = time.monotonic() + give_up_after
    while time.monotonic() < give_up:
        status = Tournament.objects.get(pk=tournament_id).status
        if status == Tournament.Status.FINISHED:
            break
        live = Match.objects.filter(arena__tournament_id=tournament_id, status="playing")
        if not live:
            time.sleep(0.05)
        for match in live:
            moves += _move(match, rng)
    return {"moves": moves, "status": status}


def _move(match: Match, rng: random.Random) -> int:
    engine = get_engine(match.game)
    movers = engine.to_move(match.state)
    if not movers:
        return 0
    seat = match.seats.get(index=movers[0])
    move = engine.random_move(match.state, seat.index, rng)
    try:
        games_services.play(match.pk, seat.user, move, match.version)
    except games_services.ServiceError:
        return 0  # the table changed meanwhile (a timeout): look again next time
    return 1


def report(tournament_id: int) -> dict:
    """What the checks of the test need, computed from the database alone."""
    tournament = Tournament.objects.get(pk=tournament_id)
    tables = list(ArenaMatch.objects.filter(tournament=tournament).select_related("match"))
    problems = []
    for entry in Entry.objects.filter(tournament=tournament):
        results = ArenaResult.objects.filter(entry=entry)
        replayed = _replayed_points(entry)
        if not entry.points == sum(r.points for r in results) == replayed:
            problems.append(f"{entry}: {entry.points} points, results and replay disagree")
        if entry.matches != results.count():
            problems.append(f"{entry}: {entry.matches} matches, {results.count()} results")
    finished = [t for t in tables if t.match.status == Match.Status.FINISHED]
    seats = Seat.objects.filter(match__arena__tournament=tournament)
    return {
        "status": tournament.status,
        "tables": len(tables),
        "finished": len(finished),
        "unscored": sum(1 for t in finished if not t.scored),
        "results": ArenaResult.objects.filter(table__tournament=tournament).count(),
        "finished_seats": seats.filter(match__status=Match.Status.FINISHED).count(),
        "late_tables": sum(1 for t in tables if t.created_at >= tournament.ends_at),
        "overlaps": _overlaps(seats),
        "trophies": list(
            Trophy.objects.filter(tournament=tournament)
            .order_by("place")
            .values_list("place", "user__username")
        ),
        "podium": [s.player for s in services.standings(tournament) if s.matches][:3],
        "arenas_named_alike": Tournament.objects.filter(name=tournament.name).count(),
        "problems": problems,
    }


def _replayed_points(entry: Entry) -> int:
    streak, points = 0, 0
    tables = ArenaMatch.objects.filter(
        tournament_id=entry.tournament_id,
        match__status=Match.Status.FINISHED,
        match__seats__user_id=entry.user_id,
    ).order_by("match__finished_at", "number")
    for table in tables:
        seats = list(table.match.seats.order_by("index"))
        mine = next(i for i, s in enumerate(seats) if s.user_id == entry.user_id)
        ranks = [s.rank for s in seats]
        result = scoring.score(ranks, mine, streak, abandoned=seats[mine].abandoned)
        streak, points = result.streak, points + result.points
    return points


def _overlaps(seats) -> int:
    """Times a player was seated at two of the arena's tables at once."""
    spans: dict[int, list] = {}
    for seat in seats.select_related("match"):
        end = seat.match.finished_at or timezone.now() + timedelta(days=1)
        spans.setdefault(seat.user_id, []).append((seat.match.started_at, end))
    count = 0
    for user_spans in spans.values():
        user_spans.sort()
        count += sum(1 for a, b in itertools.pairwise(user_spans) if a[1] > b[0])
    return count


def main(command: str, *args: object) -> None:
    commands = {"setup": setup, "end_in": end_in, "play": play, "report": report}
    # The arena appears whole or not at all: a worker never sees it half set up.
    with transaction.atomic() if command == "setup" else contextlib.nullcontext():
        answer = commands[command](*args)
    sys.stdout.write(json.dumps(answer) + "\n")
