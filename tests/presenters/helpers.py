"""Matches of every game played through the services, for the presenter tests."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

from django.contrib.auth.models import AnonymousUser

from games import services
from games.engines import get_engine
from games.models import Match
from tests.site.factories import started_table

#: Every live part of a table page, in the order the fragments come.
LIVE_PARTS = (
    "table-status",
    "page-error",
    "table-timer",
    "table-actions",
    "table-seats",
    "table-board",
    "table-targets",
    "table-moves",
    "table-info",
    "table-players",
    "table-log",
    "table-result",
)

#: Every game and number of players the site offers (Pizza Party's two is the duel).
GAMES = [
    ("part-du-chef", 2),
    ("part-du-chef", 5),
    ("pizza-party", 2),
    ("pizza-party", 3),
    ("cafe-fatal", 2),
    ("cafe-fatal", 4),
]


def seeded_table(game: str, players: int, seed: str) -> tuple[Match, list]:
    """A started table whose chance moves (and seat order) come from ``seed``."""
    from tests.site.factories import make_user

    users = [make_user() for _ in range(players)]
    match = services.create_table(users[0], game, seats=players)
    Match.objects.filter(pk=match.pk).update(seed=seed)
    for user in users[1:]:
        services.join_table(user, match.pk)
    match.refresh_from_db()
    return match, users


def user_of_seat(match: Match, users: list, seat: int):
    user_id = match.seats.get(index=seat).user_id
    return next(u for u in users if u.pk == user_id)


def play_random_move(match: Match, users: list, rng: random.Random) -> Match:
    """One of the seats that may move plays a random legal move through the service."""
    engine = get_engine(match.game)
    seat = rng.choice(engine.to_move(match.state))
    move = engine.random_move(match.state, seat, rng)
    return services.play(match.pk, user_of_seat(match, users, seat), move, match.version)


def playout(game: str, players: int, seed: int, moves: int) -> Iterator[tuple[Match, list]]:
    """A match of people playing at random, yielded after each of its first ``moves`` moves."""
    match, users = started_table(game=game, players=players)
    rng = random.Random(seed)
    yield match, users
    for _ in range(moves):
        if not match.is_playing:
            return
        match = play_random_move(match, users, rng)
        yield match, users


def play_to_the_end(match: Match, users: list, seed: int = 0) -> Match:
    rng = random.Random(seed)
    while match.is_playing:
        match = play_random_move(match, users, rng)
    return match


def viewers(users: list) -> list:
    return [*users, AnonymousUser()]


def part(html: str, dom_id: str) -> str:
    """The element with ``dom_id`` (up to the next live part)."""
    start = html.index(f'id="{dom_id}"')
    following = [html.find(f'id="{other}"', start + 1) for other in LIVE_PARTS]
    ends = [i for i in following if i > start]
    return html[start : min(ends)] if ends else html[start:]


NUMBER = re.compile(r"^-?\d+(\.\d+)?$")
SVG_NUMBER_ATTRIBUTES = re.compile(
    r'\s(x|y|x1|y1|x2|y2|cx|cy|r|rx|width|height|viewBox|points|d|transform|stroke-width)="([^"]*)"'
)
STYLE = re.compile(r'style="([^"]*)"')
DATA_NUMBER = re.compile(
    r"\sdata-(version|you|seat|table|value|values|count|slice-id|position|portion|pizza|tables"
    r'|leader|line|colour|cell|to-move|step|total)="([^"]*)"'
)


def numbers_in(html: str) -> list[str]:
    """Every number written in an SVG drawing, in a style attribute or in a numeric data
    attribute, in order: each must be written the way CSS and SVG read it (no decimal comma)."""
    found = []
    for svg in re.findall(r"<svg\b.*?</svg>", html, re.S):
        for name, value in SVG_NUMBER_ATTRIBUTES.findall(svg):
            if name == "points":
                for pair in value.split():
                    x, y = pair.split(",")  # a localized "33,6" would make more than two
                    found += [x, y]
            else:
                found += [t for t in re.split(r"[\sA-Za-z()]+", value) if t]
    for style in STYLE.findall(html):
        for declaration in filter(None, style.split(";")):
            _property, _colon, value = declaration.partition(":")
            found.append(value.strip().removesuffix("%"))
    for name, value in DATA_NUMBER.findall(html):
        separator = r"[\s,]+" if name in ("cell", "to-move") else r"\s+"
        found += [t for t in re.split(separator, value) if t]
    return found


def client_for(user=None):
    from django.test import Client

    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def post_move(match: Match, user, **fields):
    """Post a move form as the browser would (``fields`` without the version)."""
    from django.urls import reverse

    return client_for(user).post(
        reverse("games:move", args=[match.pk]), {"version": match.version, **fields}
    )
