"""Numbers in drawings, styles and data attributes are never localized (issue 12): in fr, de and
it Django writes 33,6 for 33.6, and a board drawn that way falls apart. Every board of every game
is rendered at the start, after the first move of each kind of step, and at the end, as the page,
the live fragments (the mover's and a spectator's) and the replay, in the four languages; every
number must read as a number and be the same in every language."""

from __future__ import annotations

import random
import re
from html import unescape

import pytest
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.test import Client
from django.urls import reverse
from django.utils import translation

from games import rendering
from games.engines import get_engine
from games.models import Match
from tests.site.factories import started_table

from .helpers import GAMES, NUMBER, numbers_in, user_of_seat

pytestmark = pytest.mark.django_db

LANGUAGES = ("en", "fr", "de", "it")
#: Data attributes that hold words, not numbers.
TEXT_DATA = {
    "data-text",
    "data-board",
    "data-label",
    "data-portion-word",
    "data-chosen-word",
    "data-testid",
    "data-game",
    "data-phase",
    "data-status",
    "data-sort",
}
DATA_ATTRIBUTE = re.compile(r'\s(data-[a-z-]+)="([^"]*)"')


def data_numbers(html: str) -> list[str]:
    """Every data attribute that holds digits: its name and value, in order."""
    return [
        f"{name}={comparable(name, value)}"
        for name, value in DATA_ATTRIBUTE.findall(html)
        if name not in TEXT_DATA and re.search(r"\d", value)
    ]


#: Data attributes that hold the moment of rendering (milliseconds): a plain number in every
#: language, but never the same in two renders.
RENDERING_TIME = frozenset({"data-server-now"})


def comparable(name: str, value: str) -> str:
    if name in RENDERING_TIME:
        return "a plain number" if NUMBER.fullmatch(value) else value
    return value


def with_playback(html: str) -> str:
    """The page and the boards it plays back after automatic moves (kept escaped in
    ``data-board``), so that their numbers are checked too."""
    return html + "".join(unescape(board) for board in re.findall(r'data-board="([^"]*)"', html))


def checkpoints(game: str, players: int, options: dict | None = None, seed: int = 3):
    """The match at its start, right after the first move of each kind (phase and move keys),
    and at its end."""
    match, users = started_table(game=game, players=players, options=options or {})
    engine = get_engine(game)
    rng = random.Random(seed)
    yield "start", match, users
    seen = set()
    while match.is_playing:
        seat = rng.choice(engine.to_move(match.state))
        move = engine.random_move(match.state, seat, rng)
        kind = (match.state.get("phase"), tuple(sorted(move)))
        match = play_random_move_of(match, users, seat, move)
        if kind not in seen:
            seen.add(kind)
            yield f"after {kind}", match, users
    yield "end", match, users


def play_random_move_of(match: Match, users: list, seat: int, move) -> Match:
    from games import services

    return services.play(match.pk, user_of_seat(match, users, seat), move, match.version)


def rendered(match: Match, users: list) -> dict[str, list[str]]:
    """What each language shows: fragments for the first seat to move and a spectator, the
    whole page, and the replay once the match is over."""
    engine = get_engine(match.game)
    mover = engine.to_move(match.state)[0] if match.is_playing else 0
    mover_user = user_of_seat(match, users, mover)
    out = {}
    for language in LANGUAGES:
        pages = []
        with translation.override(language):
            pages.append(rendering.render_table_fragments(match, mover_user))
            pages.append(rendering.render_table_fragments(match, AnonymousUser()))
        client = Client()
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
        client.force_login(mover_user)
        pages.append(client.get(reverse("games:table", args=[match.pk])).content.decode())
        if not match.is_playing:
            replay = reverse("games:replay", args=[match.pk])
            pages.append(client.get(replay, {"step": 3}).content.decode())
        out[language] = pages
    return out


@pytest.mark.parametrize(
    ("game", "players", "options"),
    [(g, p, {}) for g, p in GAMES] + [("part-du-chef", 3, {"marianne": True})],
)
def test_every_board_reads_the_same_numbers_in_every_language(game, players, options):
    states = 0
    for label, match, users in checkpoints(game, players, options):
        states += 1
        pages = rendered(match, users)
        pages = {language: [with_playback(h) for h in htmls] for language, htmls in pages.items()}
        english = [numbers_in(html) for html in pages["en"]]
        english_data = [data_numbers(html) for html in pages["en"]]
        assert any("." in n for page in english for n in page), (label, "no fraction drawn")
        for language, htmls in pages.items():
            for index, html in enumerate(htmls):
                numbers = numbers_in(html)
                wrong = [n for n in numbers if not NUMBER.match(n)]
                assert not wrong, (label, language, index, wrong[:5])
                assert numbers == english[index], (label, language, index)
                assert data_numbers(html) == english_data[index], (label, language, index)
                assert "," not in "".join(re.findall(r'\s(?:cx|cy|r|x|y)="([^"]*)"', html))
    assert states >= 3


def test_the_check_fails_on_a_localized_drawing():
    """The parser itself: a decimal comma in a coordinate or a style is caught."""
    assert not NUMBER.match(numbers_in('<svg><circle cx="33,6" r="3"/></svg>')[0])
    assert not all(NUMBER.match(n) for n in numbers_in('<b style="left:12,5%"></b>'))
