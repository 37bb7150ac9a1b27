"""What just happened (issue 12): the last move is marked on the board and said under it; after
bots, chance or timeouts moved, the boards in between come with the table so that the page can
show them one after another, each with the sentence of its move."""

from __future__ import annotations

import random
import re
from html import unescape

import pytest
from django.contrib.auth.models import AnonymousUser

from games import rendering, services
from games.engines import get_engine
from tests.site.factories import make_user

pytestmark = pytest.mark.django_db


def against_bots(game: str, bots: int):
    person = make_user()
    match = services.create_table(person, game, seats=bots + 1)
    for _ in range(bots):
        match = services.add_bot(person, match.pk, 1)
    match.refresh_from_db()
    return match, person


def steps_in(html: str) -> list[tuple[int, str, str]]:
    return [
        (int(move), unescape(text), unescape(board))
        for move, text, board in re.findall(
            r'class="playback-step" hidden data-move="(\d+)" data-text="([^"]*)" '
            r'data-board="([^"]*)"',
            html,
        )
    ]


@pytest.mark.parametrize(("game", "bots"), [("part-du-chef", 2), ("cafe-fatal", 2)])
def test_the_boards_between_a_persons_move_and_now_come_with_the_sentences_of_their_moves(
    game, bots
):
    match, person = against_bots(game, bots)
    engine = get_engine(game)
    you = match.seats.get(user=person).index
    rng = random.Random(1)
    while match.is_playing:
        move = engine.random_move(match.state, you, rng)
        match = services.play(match.pk, person, move, match.version)
        html = rendering.render_table_fragments(match, AnonymousUser())
        board = html[html.index('id="table-board"') : html.index('id="table-targets"')]
        log = rendering.log_lines(
            engine,
            match.state,
            rendering._move_rows(match),
            rendering.seat_names({s.index: s for s in match.seats.all()}, bots + 1),
            None,
            {s.index for s in match.seats.all() if s.is_bot},
        )
        automatic = rendering.announced_lines(log)
        steps = steps_in(board)
        assert f'data-last-move="{len(match.state["log"]) - 1}"' in board
        assert f"Last move: {log[-1]['text']}" in unescape(board)
        if len(automatic) >= 2:
            # The person's move, then every automatic move but the last, in order.
            # A roll of dice or food served draws nothing of its own: no board for it.
            expected = [
                line
                for line in [log[log.index(automatic[0]) - 1], *automatic[:-1]]
                if not {"roll", "serve"} & set(match.state["log"][line["move"]][1])
            ]
            if not expected:
                continue
            assert [(m, t) for m, t, _b in steps] == [(x["move"], x["text"]) for x in expected]
            assert all("<svg" in b for _m, _t, b in steps)
            return
    pytest.fail("the bots never played two moves in a row")


def test_the_table_where_dice_were_just_placed_is_marked():
    match, person = against_bots("cafe-fatal", 1)
    engine = get_engine("cafe-fatal")
    you = match.seats.get(user=person).index
    move = engine.random_move(match.state, you, random.Random(2))
    match = services.play(match.pk, person, move, match.version)
    html = rendering.render_table_fragments(match, person)
    board = html[html.index('id="table-board"') : html.index('id="table-targets"')]
    # The rolls and food served since do not draw anything: the last placement stays marked.
    last = next(move for _seat, move in reversed(match.state["log"]) if "place" in move)
    marked = re.findall(r'class="cafe-table[^"]*last-move"\s+data-table="(\d+)"', board)
    assert marked == [str(last["place"]["table"])]
