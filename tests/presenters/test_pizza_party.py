"""Pizza Party at the table (spec/pizza-party.md): the hexagonal pizza, adding a topping by
clicking a cell, the secret pick of six buttons, the cut revealed with what it replaced, the duel's
neutral colour, and bots at friendly tables."""

from __future__ import annotations

import random
import re

import pytest
from django.contrib.auth.models import AnonymousUser

from games import rendering, services, worker
from games.engines import CHANCE, get_engine
from games.engines.pizza_party import CELLS, START_CELLS
from games.models import Match
from tests.site.factories import make_user, started_table

from .helpers import part, post_move, user_of_seat

pytestmark = pytest.mark.django_db

ENGINE = get_engine("pizza-party")


def fragments(match: Match, viewer) -> str:
    return rendering.render_table_fragments(match, viewer)


def to_the_picks(match: Match, users: list) -> Match:
    """Play the add step of the round with the first cell each colour may take."""
    while match.state["phase"] == "add":
        seat = ENGINE.to_move(match.state)[0]
        move = next(ENGINE.legal(match.state, seat))
        match = services.play(match.pk, user_of_seat(match, users, seat), move, match.version)
    return match


def test_the_pizza_has_37_cells_the_start_marks_and_every_topping_on_it():
    match, _users = started_table(game="pizza-party", players=3)
    svg = part(fragments(match, AnonymousUser()), "table-board")
    assert svg.count('<polygon class="hex"') == len(CELLS) == 37
    assert svg.count('class="start-mark') == sum(len(cells) for cells in START_CELLS) == 6
    for colour in range(3):
        on_board = sum(1 for cell in match.state["board"] if cell == colour)
        assert svg.count(f'class="topping seat-{colour}') == on_board
    for q, r in START_CELLS[0]:
        assert re.search(rf'data-cell="{q},{r}" data-colour="0"', svg)


def test_only_the_player_adding_a_topping_gets_the_engines_cells_to_click():
    match, users = started_table(game="pizza-party", players=3)
    placer = ENGINE.to_move(match.state)[0]
    allowed = sorted(f"{m['place'][0]},{m['place'][1]}" for m in ENGINE.legal(match.state, placer))
    for seat in range(3):
        html = fragments(match, user_of_seat(match, users, seat))
        targets = part(html, "table-targets")
        shown = sorted(re.findall(r'data-cell="(-?\d+,-?\d+)"', targets))
        assert shown == (allowed if seat == placer else [])
        assert ('form="move-form" name="place"' in targets) == (seat == placer)
    assert 'name="place"' not in fragments(match, AnonymousUser())


def test_clicking_a_cell_adds_the_topping_there():
    match, users = started_table(game="pizza-party", players=3)
    placer = ENGINE.to_move(match.state)[0]
    q, r = next(ENGINE.legal(match.state, placer))["place"]
    answer = post_move(match, user_of_seat(match, users, placer), action="place", place=f"{q},{r}")
    assert answer.status_code == 302
    match.refresh_from_db()
    assert match.state["board"][CELLS.index((q, r))] == placer


@pytest.mark.parametrize(
    ("fields", "sentence"),
    [
        ({"action": "place"}, "Click a cell to add your topping."),
        ({"action": "place", "place": "a,b"}, "A cell is written as two whole numbers."),
        ({"action": "place", "place": "9,9"}, "[9, 9] is not a cell of the pizza."),
        ({"action": "cut", "cut": "x"}, "Pick a number from 1 to 6."),
        ({"action": "fly"}, "This form does not describe a move."),
    ],
)
def test_a_forged_pizza_party_form_is_refused_with_a_sentence(fields, sentence):
    match, users = started_table(game="pizza-party", players=3)
    placer = ENGINE.to_move(match.state)[0]
    version = match.version
    answer = post_move(match, user_of_seat(match, users, placer), **fields)
    assert answer.status_code == 400 and sentence in answer.content.decode()
    match.refresh_from_db()
    assert match.version == version


def test_each_picker_gets_six_buttons_and_only_the_picker_sees_their_pick():
    match, users = started_table(game="pizza-party", players=3)
    match = to_the_picks(match, users)
    for seat in range(3):
        html = fragments(match, user_of_seat(match, users, seat))
        # Six buttons on the numbered ticks of the picker's own axis, six in the form.
        assert re.findall(r'name="cut" value="(\d)"', html) == list("123456") * 2
        on_board = re.findall(r'form="move-form" name="cut" value="(\d)"', html)
        assert on_board == list("123456")
    picker = 1
    answer = post_move(match, user_of_seat(match, users, picker), action="cut", cut="4")
    assert answer.status_code == 302
    match.refresh_from_db()
    mine = fragments(match, user_of_seat(match, users, picker))
    assert 'data-testid="your-pick"' in mine and "Your secret pick: 4." in mine
    assert 'name="cut"' not in mine
    name = user_of_seat(match, users, picker).username
    for seat in (0, 2):
        html = fragments(match, user_of_seat(match, users, seat))
        assert 'data-testid="your-pick"' not in html
        assert f"{name} has picked." in html
        assert 'name="cut" value="6"' in html


def test_when_the_last_pick_is_in_every_pick_is_shown_with_the_lines_and_what_was_replaced():
    match, users = started_table(game="pizza-party", players=3)
    match = to_the_picks(match, users)
    picks = {0: 2, 1: 5, 2: 3}
    for seat, pick in picks.items():
        match = services.play(
            match.pk, user_of_seat(match, users, seat), {"cut": pick}, match.version
        )
    cut = match.state["last_cut"]
    html = fragments(match, AnonymousUser())
    notes = part(html, "table-info")
    for seat, pick in picks.items():
        name = user_of_seat(match, users, seat).username
        axis = cut["axes"][seat]
        assert f"{name} picked {pick} (along {axis})" in notes
    lines = re.findall(r'class="cut-line seat-(\d)[^"]*"[^>]*data-line="(\d)"', html)
    assert sorted((int(s), int(n)) for s, n in lines) == sorted(picks.items())
    svg = part(html, "table-board")
    assert svg.count('class="filled-ring"') == len(cut["filled"])
    if cut["removed"]:
        assert f"{len(cut['removed'])} topping" in notes
    else:
        assert "Nothing was replaced." in notes


def test_the_duels_neutral_colour_is_drawn_distinctly_and_its_die_is_shown():
    match, users = started_table(game="pizza-party", players=2)
    html = fragments(match, users[0])
    assert "Neutral colour" in part(html, "table-players")
    neutral = sum(1 for cell in match.state["board"] if cell == 2)
    assert part(html, "table-board").count('class="topping seat-2 neutral"') == neutral
    match = to_the_picks(match, users)
    for seat in (0, 1):
        match = services.play(match.pk, user_of_seat(match, users, seat), {"cut": 3}, match.version)
    die = match.state["last_cut"]["picks"][2]
    notes = part(fragments(match, users[0]), "table-info")
    assert f"Neutral colour's die: {die}" in notes


@pytest.mark.parametrize("level", ENGINE.bot_levels)
def test_bots_of_every_level_play_at_a_friendly_table(level, settings):
    # The worker thinks in its own job here; the thinking pool has tests of its own.
    settings.BOT_POOL_SIZE = 0
    host = make_user()
    match = services.create_table(host, "pizza-party", seats=3)
    for _ in range(2):
        match = services.add_bot(host, match.pk, level)
    match.refresh_from_db()
    assert match.is_playing
    rng = random.Random(level)
    host_seat = match.seats.get(user=host).index
    for _ in range(8):
        if level >= services.WORKER_BOT_LEVEL:
            # A level-3 bot thinks in the worker, one move per job (issue 13).
            while match.is_playing and host_seat not in ENGINE.to_move(match.state):
                assert worker.play_expired_turns() == 1
                match.refresh_from_db()
        assert host_seat in ENGINE.to_move(match.state) or not match.is_playing
        if not match.is_playing:
            break
        move = ENGINE.random_move(match.state, host_seat, rng)
        match = services.play(match.pk, host, move, match.version)
    bots = match.moves.filter(by_bot=True).exclude(seat=CHANCE)
    assert bots.count() >= 8


def test_a_part_won_at_the_cut_is_tinted_with_its_winners_colour():
    for seed in range(20):
        match, users = started_table(game="pizza-party", players=3)
        match = to_the_picks(match, users)
        picks = {0: 1 + seed % 6, 1: 1 + (seed // 6) % 6, 2: 4}
        for seat, pick in picks.items():
            match = services.play(
                match.pk, user_of_seat(match, users, seat), {"cut": pick}, match.version
            )
        if match.state["last_cut"]["filled"]:
            break
    cut = match.state["last_cut"]
    assert cut["filled"], "no pick of the list makes a colour take over a cell"
    svg = part(fragments(match, AnonymousUser()), "table-board")
    for q, r in cut["filled"]:
        winner = match.state["board"][CELLS.index((q, r))]
        cell = re.search(rf'<g class="([^"]*)" data-cell="{q},{r}"', svg).group(1)
        assert f"won-by seat-{winner}" in cell and "filled" in cell
