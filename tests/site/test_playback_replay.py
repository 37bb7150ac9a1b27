"""The boards a page plays back after automatic moves are replayed from the state kept at the
previous version's playback (games/rendering.py, ``_REPLAYED``), not from the deal: they must be
the boards a replay from the deal gives, and a kept state whose last move is no longer the
table's (a test database that reuses an id and a seed) must not be used."""

from __future__ import annotations

import random

import pytest

from games import rendering, services
from games.engines import get_engine
from games.models import Match, Move
from tests.site.test_render_corpus import corpus_match

pytestmark = pytest.mark.django_db


def playback(match: Match) -> list[dict]:
    rendering._PLAYBACK_CACHE.clear()
    snapshot = rendering.load_table(match.pk)
    return rendering.table_context(snapshot.match, None, snapshot=snapshot)["playback"]


def from_the_deal(match: Match) -> list[dict]:
    rendering._REPLAYED.clear()
    return playback(match)


def test_playback_from_the_kept_state_is_the_playback_from_the_deal() -> None:
    match, _users = corpus_match("cafe-fatal", 3, "replay-1")
    engine = get_engine(match.game)
    by_user = {s.index: s.user for s in match.seats.select_related("user")}
    rng = random.Random(1)
    compared = 0
    for _ in range(24):
        seat = engine.to_move(match.state)[0]
        move = engine.random_move(match.state, seat, rng)
        match = services.play(match.pk, by_user[seat], move, match.version)
        kept = playback(match)
        assert kept == from_the_deal(match)
        compared += bool(kept)
    assert compared > 5, "the match had too few playbacks to compare"


def test_a_kept_state_after_another_move_is_not_used() -> None:
    match, _users = corpus_match("cafe-fatal", 3, "replay-2")
    engine = get_engine(match.game)
    by_user = {s.index: s.user for s in match.seats.select_related("user")}
    rng = random.Random(2)
    steps: list[dict] = []
    while not steps:
        seat = engine.to_move(match.state)[0]
        match = services.play(
            match.pk, by_user[seat], engine.random_move(match.state, seat, rng), match.version
        )
        steps = from_the_deal(match)
    # A kept state after another match's first move (its number is before every step's).
    first = Move.objects.get(match=match, number=0)
    other = {"not": "this table's move"}
    assert first.payload != other and min(step["move"] for step in steps) > 0
    rendering._REPLAYED[(match.pk, match.seed)] = ((0, first.seat, other), {"broken": True})
    assert playback(match) == steps
