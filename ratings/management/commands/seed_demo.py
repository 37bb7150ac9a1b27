"""Fill the database with demo players, ratings and (optionally) rated matches, fast.

``manage.py seed_demo --players 100000`` makes the players and their ratings with bulk inserts
(well under a minute on SQLite); ``--matches M`` also plays M ranked matches with random moves
through the real engines, so that profiles have histories, recent matches and working replays."""

from __future__ import annotations

import random
import time
from collections.abc import Iterable, Iterator
from datetime import datetime, timedelta
from itertools import islice
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from games.engines import all_engines, get_engine
from games.models import Match, Move, Seat
from ratings import buckets
from ratings.elo import START, rating_deltas
from ratings.models import Rating, RatingChange

BATCH = 5000
FIRST_WORDS = (
    "basil", "olive", "truffle", "crust", "pepper", "mozza", "chili", "oregano", "tomato",
    "ricotta", "garlic", "caper", "anchovy", "rucola", "salami", "burrata", "pesto", "fungi",
)  # fmt: skip
SECOND_WORDS = (
    "chef", "cook", "baker", "fan", "lover", "slicer", "master", "eater", "knife", "oven",
    "dough", "crumb", "queen", "king", "kid", "pro",
)  # fmt: skip
#: How likely a demo player is to be rated in each game (everyone is rated in at least one).
GAME_SHARE = {"part-du-chef": 0.85, "pizza-party": 0.5, "cafe-fatal": 0.4}
#: Demo matches are played among this many of the most active players per game, so that some
#: profiles have long histories.
REGULARS = 60


def chunks(items: Iterable[Any], size: int = BATCH) -> Iterator[list[Any]]:
    iterator = iter(items)
    while batch := list(islice(iterator, size)):
        yield batch


class Command(BaseCommand):
    help = "Create demo players with ratings spread over every game, and optionally rated matches."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--players", type=int, required=True)
        parser.add_argument("--matches", type=int, default=0)
        parser.add_argument("--seed", type=int, default=1)

    def handle(self, *args: Any, players: int, matches: int, seed: int, **options: Any) -> None:
        started = time.perf_counter()
        rng = random.Random(seed)
        now = timezone.now()
        with transaction.atomic():
            users = self.make_players(players, rng, now)
            ratings = self.make_ratings(users, rng)
            played = self.play_matches(matches, ratings, rng, now)
            for batch in chunks(ratings.values()):
                Rating.objects.bulk_create(batch)
            # The triggers wrote one bucket row per rating: add them up, as the worker would.
            for game in GAME_SHARE:
                buckets.fold(game)
        if options["verbosity"]:
            self.stdout.write(
                f"Created {len(users)} players, {len(ratings)} ratings and {played} matches "
                f"in {time.perf_counter() - started:.1f} s."
            )

    def make_players(self, count: int, rng: random.Random, now: datetime) -> list[Any]:
        user_model = get_user_model()
        # Numbering after the highest id keeps names unique when the command runs again.
        first = (user_model.objects.aggregate(top=Max("pk"))["top"] or 0) + 1
        # One unusable password for all: hashing 100 000 real ones would take minutes.
        password = make_password(None)
        users = []
        for batch in chunks(range(first, first + count)):
            users += user_model.objects.bulk_create(
                user_model(
                    username=f"{rng.choice(FIRST_WORDS)}_{rng.choice(SECOND_WORDS)}{n}",
                    password=password,
                    date_joined=now - timedelta(days=rng.uniform(1, 730)),
                )
                for n in batch
            )
        return users

    def make_ratings(self, users: list[Any], rng: random.Random) -> dict[tuple[int, str], Rating]:
        ratings: dict[tuple[int, str], Rating] = {}
        slugs = list(GAME_SHARE)
        for user in users:
            games = [slug for slug in slugs if rng.random() < GAME_SHARE[slug]] or [
                rng.choice(slugs)
            ]
            for game in games:
                value = min(2400.0, max(700.0, rng.gauss(START, 180)))
                played = int(rng.expovariate(1 / 40))
                # Stronger players win more often: about one match in four at 1500.
                share = min(0.9, max(0.0, 0.25 + (value - START) / 1200))
                ratings[user.pk, game] = Rating(
                    user_id=user.pk,
                    game=game,
                    value=value,
                    matches=played,
                    wins=round(played * share),
                    updated_at=user.date_joined,
                )
        return ratings

    def play_matches(
        self,
        count: int,
        ratings: dict[tuple[int, str], Rating],
        rng: random.Random,
        now: datetime,
    ) -> int:
        """Play ``count`` ranked matches with random moves, oldest first, moving the ratings as
        the site would, and store them with their seats, moves and rating changes."""
        if not count:
            return 0
        regulars: dict[str, list[int]] = {}
        for user_id, game in ratings:
            if len(regulars.setdefault(game, [])) < REGULARS:
                regulars[game].append(user_id)
        engines = [e for e in all_engines() if len(regulars.get(e.slug, [])) >= e.min_players]
        if not engines:
            return 0
        step = timedelta(days=60) / count
        played = []
        for index in range(count):
            engine = rng.choice(engines)
            n = rng.randint(engine.min_players, min(engine.max_players, 4))
            user_ids = rng.sample(regulars[engine.slug], min(n, len(regulars[engine.slug])))
            finished = now - timedelta(days=60) + step * (index + 1)
            played.append(self.play_one(engine.slug, user_ids, ratings, rng, finished))
        for batch in chunks(played, 500):
            Match.objects.bulk_create(match for match, *_ in batch)
            Seat.objects.bulk_create(s for match, seats, *_ in batch for s in seats)
            Move.objects.bulk_create(m for match, seats, moves, _ in batch for m in moves)
            RatingChange.objects.bulk_create(c for *_, changes in batch for c in changes)
        return len(played)

    def play_one(
        self,
        game: str,
        user_ids: list[int],
        ratings: dict[tuple[int, str], Rating],
        rng: random.Random,
        finished: datetime,
    ) -> tuple[Match, list[Seat], list[Move], list[RatingChange]]:
        engine = get_engine(game)
        n = len(user_ids)
        options = engine.normalise_options(n, None)
        state = engine.new_game(n, options)
        log: list[tuple[int, int, Any]] = []
        while not engine.is_over(state):
            seat = engine.to_move(state)[0]
            move = engine.random_step(state, seat, rng)
            # Numbered as the services number moves: by the engine's log length before the move.
            log.append((len(state["log"]), seat, move))
            state = engine.apply(state, seat, move)
        result = engine.result(state)
        match = Match(
            game=game,
            mode=Match.Mode.RANKED,
            status=Match.Status.FINISHED,
            options=options,
            seats_count=n,
            version=len(log),
            state=state,
            had_first_move=True,
            created_at=finished - timedelta(minutes=20),
            started_at=finished - timedelta(minutes=20),
            finished_at=finished,
        )
        seats = [
            Seat(
                match=match, index=i, user_id=user_id, score=result.scores[i], rank=result.ranks[i]
            )
            for i, user_id in enumerate(user_ids)
        ]
        moves = [
            Move(match=match, number=number, seat=seat, payload=move, created_at=finished)
            for number, seat, move in log
        ]
        rows = [ratings[user_id, game] for user_id in user_ids]
        before = [r.value for r in rows]
        deltas = rating_deltas(before, result.ranks, [r.matches for r in rows])
        changes = []
        for seat, rating, old, delta in zip(seats, rows, before, deltas, strict=True):
            rating.value = old + delta
            rating.matches += 1
            rating.wins += 1 if seat.rank == 1 else 0
            rating.updated_at = finished
            changes.append(
                RatingChange(
                    match=match,
                    user_id=seat.user_id,
                    game=game,
                    before=old,
                    after=rating.value,
                    delta=delta,
                    rank=seat.rank,
                    created_at=finished,
                )
            )
        return match, seats, moves, changes
