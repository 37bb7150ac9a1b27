"""Café Fatal at the table (spec/cafe-fatal.md): the tables as the grid or the diamond with their
food and dice, the roll of the player to move with the tables each value may go to, placing by
clicking a table, the players' pieces, and the share at the end of a round."""

from __future__ import annotations

import random
import re

import pytest
from django.contrib.auth.models import AnonymousUser

from games import rendering
from games.engines import get_engine
from games.engines.cafe_fatal import SORTS
from games.models import Match

from .helpers import part, play_random_move, playout, post_move, user_of_seat

pytestmark = pytest.mark.django_db

ENGINE = get_engine("cafe-fatal")


def fragments(match: Match, viewer) -> str:
    return rendering.render_table_fragments(match, viewer)


def mover(match: Match, users: list):
    seat = ENGINE.to_move(match.state)[0]
    return seat, user_of_seat(match, users, seat)


@pytest.mark.parametrize(
    ("players", "tables", "columns"), [(2, 9, 3), (3, 9, 3), (4, 13, 5), (5, 13, 5)]
)
def test_the_cafe_is_the_grid_or_the_diamond(players, tables, columns):
    (match, _users), *_ = playout("cafe-fatal", players, seed=1, moves=0)
    svg = part(fragments(match, AnonymousUser()), "table-board")
    assert svg.count('<rect class="cloth"') == tables
    xs = {float(x) for x in re.findall(r'<rect class="cloth" x="([\d.]+)"', svg)}
    assert len(xs) == columns
    assert f'data-tables="{tables}"' in svg


def test_each_table_shows_its_food_by_sort_and_the_dice_on_it_by_colour_and_value():
    for number, (match, _users) in enumerate(playout("cafe-fatal", 3, seed=4, moves=9)):
        if number != 9:
            continue
        svg = part(fragments(match, AnonymousUser()), "table-board")
        view = ENGINE.view(match.state, None)
        for table in view["tables"]:
            drawn = svg[svg.index(f'data-table="{table["table"]}"') :]
            drawn = drawn[: drawn.index("</g>\n  \n") if "</g>\n  \n" in drawn else None]
            food = dict(re.findall(r'data-sort="(\w+)" data-count="(\d+)"', drawn))
            assert food == {s: str(table["pieces"][s]) for s in SORTS if table["pieces"][s]}
            dice = re.findall(r'data-seat="(\d)" data-value="(\d)" data-count="(\d)"', drawn)
            expected = [
                (str(seat), str(d["value"]), str(d["count"]))
                for seat, d in enumerate(table["dice"])
                if d is not None
            ]
            assert dice == expected


def test_the_player_to_move_gets_their_roll_and_the_tables_each_value_may_go_to():
    for match, users in playout("cafe-fatal", 3, seed=2, moves=7):
        if match.state["phase"] != "place":
            continue
        seat, user = mover(match, users)
        legal: dict[int, set[int]] = {}
        for move in ENGINE.legal(match.state, seat):
            legal.setdefault(move["place"]["table"], set()).add(move["place"]["value"])
        html = fragments(match, user)
        targets = part(html, "table-targets")
        shown = {
            int(t): {int(v) for v in values.split()}
            for t, values in re.findall(
                r'name="table" value="(\d+)"[^>]*data-values="([\d ]+)"', targets
            )
        }
        assert shown == legal
        rolled = set(match.state["rolled"])
        radios = {int(v) for v in re.findall(r'name="value" value="(\d)"', html)}
        assert radios == rolled
        placeable = {v for values in legal.values() for v in values}
        checked = re.search(r'name="value" value="(\d)" checked', html)
        assert checked and int(checked.group(1)) in placeable
        for other in users:
            if other != user:
                assert 'name="table"' not in fragments(match, other)


def test_clicking_a_table_places_the_chosen_value_there():
    (match, users), *_ = playout("cafe-fatal", 2, seed=3, moves=0)
    seat, user = mover(match, users)
    move = next(ENGINE.legal(match.state, seat))["place"]
    answer = post_move(match, user, action="place", value=move["value"], table=move["table"])
    assert answer.status_code == 302
    match.refresh_from_db()
    assert match.state["dice"][move["table"]][seat]["value"] == move["value"]


@pytest.mark.parametrize(
    ("fields", "sentence"),
    [
        ({"action": "place", "table": "1"}, "Choose a value of your roll."),
        ({"action": "place", "value": "3"}, "Choose a table."),
        ({"action": "place", "value": "7", "table": "1"}, "You did not roll a 7."),
    ],
)
def test_a_forged_cafe_fatal_form_is_refused_with_a_sentence(fields, sentence):
    (match, users), *_ = playout("cafe-fatal", 2, seed=3, moves=0)
    _seat, user = mover(match, users)
    version = match.version
    answer = post_move(match, user, **fields)
    assert answer.status_code == 400 and sentence in answer.content.decode()
    match.refresh_from_db()
    assert match.version == version


def test_the_players_panel_shows_dice_left_pieces_sets_loose_pieces_and_points():
    match, users = next(playout("cafe-fatal", 2, seed=6, moves=0))
    rng = random.Random(6)
    while match.is_playing and match.state["round"] < 3:
        match = play_random_move(match, users, rng)
    panel = part(fragments(match, AnonymousUser()), "table-players")
    for seat, held in enumerate(match.state["held"]):
        row = re.search(rf'<tr data-seat="{seat}"[^>]*>(.*?)</tr>', panel, re.S).group(1)
        cells = [int(c) for c in re.findall(r"<td[^>]*>(\d+)</td>", row)]
        sets = sum(n // 5 for n in held.values())
        loose = sum(n % 5 for n in held.values())
        expected = [match.state["remaining"][seat], *[held[s] for s in SORTS], sets, loose]
        assert cells == [*expected, match.state["scores"][seat]]


def test_the_share_at_the_end_of_a_round_is_shown_table_by_table():
    match, users = next(playout("cafe-fatal", 3, seed=8, moves=0))
    rng = random.Random(8)
    while match.state["round"] == 0:
        match = play_random_move(match, users, rng)
    share = match.state["last_share"]
    notes = part(fragments(match, AnonymousUser()), "table-info")
    assert "The share at the end of round 1" in notes
    for entry in share["taken"]:
        name = user_of_seat(match, users, entry["seat"]).username
        line = re.search(rf'<li data-seat="{entry["seat"]}">(.*?)</li>', notes, re.S).group(1)
        assert f"<strong>{name}</strong>" in line
        served = entry["pieces"]
        pieces = ", ".join(f"{served[sort]} × {sort}" for sort in SORTS if served[sort])
        assert f'<span data-table="{entry["table"]}">table {entry["table"]} ({pieces})' in line
    svg = part(fragments(match, AnonymousUser()), "table-board")
    assert svg.count('class="taken-flag') == len(share["taken"])
    # The marks go once the new round's first dice are placed.
    while not any(match.state["values"]):
        match = play_random_move(match, users, rng)
    assert 'class="taken-flag' not in part(fragments(match, AnonymousUser()), "table-board")
