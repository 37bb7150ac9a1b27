"""Small builders for site tests."""

from __future__ import annotations

import random
from itertools import count

from django.contrib.auth import get_user_model

from games import services
from games.engines import get_engine
from games.models import Match

_names = count()


def make_user(name: str | None = None, password: str = "pizza-pass-123"):
    name = name or f"player{next(_names)}"
    return get_user_model().objects.create_user(username=name, password=password)


def started_table(game: str = "part-du-chef", players: int = 3, **kwargs) -> tuple[Match, list]:
    """A match that has started, and its players in the order of their seats (the site draws
    the seats when the match starts: ``users[i]`` sits at seat i)."""
    users = [make_user() for _ in range(players)]
    match = services.create_table(users[0], game, seats=players, **kwargs)
    for user in users[1:]:
        services.join_table(user, match.pk, invite_code=match.invite_code)
    match.refresh_from_db()
    return match, players_by_seat(match)


def players_by_seat(match: Match) -> list:
    """The users at ``match`` in the order of their seats (None for a bot), read from the table."""
    return [seat.user for seat in match.seats.select_related("user").order_by("index")]


def play_one_move(match: Match, users: list, rng: random.Random) -> Match:
    """The player to move makes a random legal move through the service."""
    engine = get_engine(match.game)
    seat = engine.to_move(match.state)[0]
    user = next(u for u in users if match.seats.get(index=seat).user_id == u.pk)
    move = engine.random_move(match.state, seat, rng)
    return services.play(match.pk, user, move, match.version)


def play_to_the_end(match: Match, users: list, seed: int = 0) -> Match:
    rng = random.Random(seed)
    while match.is_playing:
        match = play_one_move(match, users, rng)
    return match
