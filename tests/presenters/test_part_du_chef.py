"""La Part du Chef at the table: the pizza drawn slice by slice, the cut, take and La Marianne
forms, the log's sentences, the points and the final breakdown."""

from __future__ import annotations

import random
import re
from html import escape

import pytest
from django.contrib.auth.models import AnonymousUser

from games import rendering, services
from games.engines import get_engine
from games.engines.part_du_chef import code_label
from tests.site.factories import play_one_move, play_to_the_end, started_table

from .helpers import post_move, seeded_table, user_of_seat

pytestmark = pytest.mark.django_db

ENGINE = get_engine("part-du-chef")


def test_the_pizza_is_drawn_with_every_slice_labelled():
    match, _ = started_table(players=3)
    html = rendering.render_table_fragments(match, AnonymousUser())
    pizza = match.state["pizzas"][0]
    svg = html[html.index("<svg") : html.index("</svg>")]
    assert svg.count('class="wedge"') == 13 and svg.count("<title") == 14
    olives = sum(int(code[1]) for code in pizza if code[0] in "MRFVT")
    assert svg.count('class="olive"') == olives
    assert svg.count('class="medallion"') == sum(code.endswith("*") for code in pizza)
    assert svg.count('class="slice kind-B') == 1
    assert svg.count('class="slice kind-C') == pizza.count("C")
    for slice_id in range(13):
        assert f'data-slice-id="{slice_id}"' in svg
    # Slice ids are for the API: a player reads slices by their kind and olives.
    assert ">#" not in svg and "slice ids" not in html and "Table version" not in html


def test_the_cut_shows_portions_and_the_take_forms():
    match, users = started_table(players=3)
    chef = ENGINE.to_move(match.state)[0]
    chef_user = users[chef]
    match = services.play(match.pk, chef_user, {"cut": [0, 4, 9]}, match.version)
    html = rendering.render_table_fragments(match, AnonymousUser())
    svg = html[html.index("<svg") : html.index("</svg>")]
    assert svg.count('class="band"') == 3 and svg.count('class="cut-line"') == 3
    assert svg.count('data-portion="0"') == 4 + 1  # four slices and the portion's own group
    chooser = ENGINE.to_move(match.state)[0]
    forms = rendering.render_table_fragments(match, users[chooser])
    assert forms.count('data-testid="take-form"') == 1
    assert 'data-testid="cut-form"' not in forms
    # Each free portion's number on the board is a radio of the take form; each edible slice
    # carries a bite mark naming its portion.
    targets = re.findall(r'name="take" value="(\d)" form="take-form"', forms)
    assert targets == ["0", "1", "2"]
    edible = [i for i in range(13) if match.state["pizzas"][0][i][0] in "MRFVT"]
    bites = re.findall(r'name="eat" value="(\d):(\d+)" form="take-form"', forms)
    assert sorted(int(i) for _p, i in bites) == edible
    portions = match.state["portions"]
    assert all(int(i) in portions[int(p)] for p, i in bites)
    for viewer in (chef_user, AnonymousUser()):
        assert 'data-testid="take-form"' not in rendering.render_table_fragments(match, viewer)


def test_the_move_log_reads_the_engines_sentences_and_never_shows_the_deal():
    match, users = started_table(players=3)
    chef = ENGINE.to_move(match.state)[0]
    match = services.play(
        match.pk, user_of_seat(match, users, chef), {"cut": [0, 4, 9]}, match.version
    )
    chooser = ENGINE.to_move(match.state)[0]
    pizza = match.state["pizzas"][0]
    portion = match.state["portions"][1]
    eat = [i for i in portion if pizza[i][0] in "MRFVT"][:1]
    match = services.play(
        match.pk, user_of_seat(match, users, chooser), {"take": 1, "eat": eat}, match.version
    )
    html = rendering.render_table_fragments(match, AnonymousUser())
    log = html[html.index('id="table-log"') :]
    chef_name = user_of_seat(match, users, chef).username
    chooser_name = user_of_seat(match, users, chooser).username
    assert f"{chef_name} cuts pizza 1 at positions 0, 4, 9." in log
    slices = ", ".join(code_label(pizza[i]) for i in portion)
    if eat:
        expected = (
            f"{chooser_name} takes portion 1 ({slices}) and eats {code_label(pizza[eat[0]])}."
        )
    else:
        expected = f"{chooser_name} takes portion 1 ({slices})."
    assert expected in log
    assert log.count("<li ") == 2  # the deal has no line


def test_the_points_are_the_olives_and_slice_points_of_the_view():
    match, users = started_table(players=3)
    rng = random.Random(4)
    for _ in range(8):
        match = play_one_move(match, users, rng)
    html = rendering.render_table_fragments(match, users[0])
    points = [int(p) for p in re.findall(r'data-testid="points">(-?\d+)<', html)]
    assert points == ENGINE.partial_scores(match.state)


def test_the_final_breakdown_comes_from_the_engine_and_the_seats():
    match, users = started_table(players=3)
    match = play_to_the_end(match, users, seed=9)
    html = rendering.render_table_fragments(match, AnonymousUser())
    result = html[html.index('id="table-result"') :]
    breakdown = ENGINE.breakdown(match.state)
    for seat in match.seats.all():
        row = re.search(rf'<tr data-seat="{seat.index}">(.*?)</tr>', result, re.S).group(1)
        cells = re.findall(r"<td[^>]*>(-?\d+)</td>", row)
        expected = breakdown[seat.index]
        assert [int(c) for c in cells] == [
            seat.rank,
            expected["olives"],
            expected["slice_points"],
            expected["majority"],
            expected["variety"],
            expected["burnt"],
            seat.score,
        ]
    assert "The match is over." in html
    assert 'data-testid="take-form"' not in html


def test_la_marianne_is_offered_to_its_holder_only():
    match, users = started_table(players=3, options={"marianne": True})
    rng = random.Random(6)
    for _ in range(40):
        seat = ENGINE.to_move(match.state)[0]
        if ENGINE.may_play_marianne(match.state, seat) and len(match.state["kept"][seat]) >= 2:
            break
        move = ENGINE.random_move(match.state, seat, rng)
        if "marianne" in move:
            move = next(m for m in ENGINE.legal(match.state, seat) if "marianne" not in m)
        match = services.play(match.pk, users[seat], move, match.version)
    else:
        pytest.skip("La Marianne never became playable")
    for index, user in enumerate(users):
        html = rendering.render_table_fragments(match, user)
        assert ('data-testid="marianne-form"' in html) == (index == seat)
    html = rendering.render_table_fragments(match, users[seat])
    kept = match.state["kept"]
    gives = re.findall(r'name="give" value="(\d+)"', html)
    assert sorted(int(i) for i in gives) == sorted(kept[seat])
    gets = re.findall(r'name="get" value="(\d):(\d+)"', html)
    others = sorted((other, i) for other in range(3) if other != seat for i in kept[other])
    assert sorted((int(o), int(i)) for o, i in gets) == others
    # Each slice listed under the table is named like its box, so a click there ticks it.
    for _owner, slice_id in others:
        assert f'id="marianne-{slice_id}" name="get"' in html
        assert f'class="kept-slice" data-slice-id="{slice_id}"' in html
    assert "La Marianne is with" in html


# --- the chilli step -------------------------------------------------------------------------------
def at_the_chilli_step(holders: int = 2) -> tuple:
    """A three-player match played at random up to its chilli step, with ``holders`` players or
    more keeping chillies: the first seed of a fixed list that gives that."""
    for number in range(40):
        match, users = seeded_table("part-du-chef", 3, f"chillies-{number}")
        rng = random.Random(number)
        while match.state["phase"] not in ("chillies", "over"):
            seat = ENGINE.to_move(match.state)[0]
            move = ENGINE.random_move(match.state, seat, rng)
            match = services.play(match.pk, user_of_seat(match, users, seat), move, match.version)
        if len(ENGINE.to_move(match.state)) >= holders:
            return match, users
    raise AssertionError("no seed of the list leads to that many chilli holders")


def test_the_chilli_form_preselects_each_holders_suggested_assignment():
    match, users = at_the_chilli_step()
    holders = ENGINE.to_move(match.state)
    for seat in range(3):
        html = rendering.render_table_fragments(match, user_of_seat(match, users, seat))
        if seat not in holders:
            assert 'data-testid="chilli-form"' not in html
            continue
        suggested = ENGINE.suggested_chillies(match.state, seat)
        expected = [kind for kind in "MRFVT" for _count in range(suggested.get(kind, 0))]
        checked = re.findall(r'name="chilli_(\d)" value="([MRFVT])" checked', html)
        assert [kind for _number, kind in checked] == expected
        assert len(checked) == ENGINE.held(match.state, seat, "C")
        assert "Your turn: choose the kind each of your chillies counts for." in html
    spectator = rendering.render_table_fragments(match, AnonymousUser())
    assert 'data-testid="chilli-form"' not in spectator
    assert spectator.count("choosing…") == len(holders)


def test_a_holder_keeps_or_changes_the_suggestion_and_the_others_see_only_that_they_chose():
    match, users = at_the_chilli_step()
    first, second = ENGINE.to_move(match.state)[:2]
    held = ENGINE.held(match.state, first, "C")
    fields = {f"chilli_{n + 1}": "M" for n in range(held)}
    answer = post_move(match, user_of_seat(match, users, first), action="chillies", **fields)
    assert answer.status_code == 302
    match.refresh_from_db()
    assert match.state["chillies"][first] == {"M": held}
    mine = rendering.render_table_fragments(match, user_of_seat(match, users, first))
    assert f"Your chillies count for: {held} × Margherita." in mine
    name = user_of_seat(match, users, first).username
    for viewer in (user_of_seat(match, users, second), AnonymousUser()):
        html = rendering.render_table_fragments(match, viewer)
        step = html[html.index('data-testid="chilli-step"') :]
        line = re.search(rf'<li data-seat="{first}">(.*?)</li>', step, re.S).group(1)
        assert name in line and "has chosen" in line and "Margherita" not in line
    # The last choice reveals every assignment and ends the match.
    for seat in ENGINE.to_move(match.state):
        suggested = ENGINE.suggested_chillies(match.state, seat)
        match = services.play(
            match.pk, user_of_seat(match, users, seat), {"chillies": suggested}, match.version
        )
    assert match.status == "finished"
    html = rendering.render_table_fragments(match, AnonymousUser())
    line = re.search(
        rf'<li data-seat="{first}">(.*?)</li>', html[html.index("chilli-step") :], re.S
    )
    assert f"{held} × Margherita" in line.group(1)


@pytest.mark.parametrize(
    ("fields", "sentence"),
    [
        ({}, "Choose a kind for each of your chillies."),
        ({"chilli_1": "X"}, "'X' is not a kind: use one of M, R, F, V, T."),
    ],
)
def test_a_forged_chilli_form_is_refused_with_a_sentence(fields, sentence):
    match, users = at_the_chilli_step(holders=1)
    seat = ENGINE.to_move(match.state)[0]
    version = match.version
    answer = post_move(match, user_of_seat(match, users, seat), action="chillies", **fields)
    assert answer.status_code == 400 and escape(sentence) in answer.content.decode()
    match.refresh_from_db()
    assert match.version == version


# --- the board's controls ----------------------------------------------------------------------
def test_the_chef_cuts_by_ticking_cut_marks_on_the_rim_each_labelled_with_its_two_slices():
    match, users = started_table(players=3)
    chef = ENGINE.to_move(match.state)[0]
    html = rendering.render_table_fragments(match, users[chef])
    marks = re.findall(
        r'name="cut" value="(\d+)" form="cut-form"><span class="sr-only">([^<]*)<', html
    )
    assert [int(p) for p, _label in marks] == list(range(13))
    pizza = match.state["pizzas"][0]
    _position, label = marks[4]
    assert label == f"Cut between {code_label(pizza[3])} and {code_label(pizza[4])} (position 4)"
    for viewer in (users[(chef + 1) % 3], AnonymousUser()):
        assert 'name="cut"' not in rendering.render_table_fragments(match, viewer)
    answer = post_move(match, users[chef], action="cut", cut=["9", "0", "4"])
    assert answer.status_code == 302
    match.refresh_from_db()
    assert match.state["cut"] == [0, 4, 9]


def test_a_portion_is_taken_with_the_bites_and_steals_ticked_on_it_and_not_on_another():
    match, users = started_table(players=3)
    chef = ENGINE.to_move(match.state)[0]
    match = services.play(match.pk, users[chef], {"cut": [0, 4, 9]}, match.version)
    chooser = ENGINE.to_move(match.state)[0]
    pizza = match.state["pizzas"][0]
    portions = match.state["portions"]
    edible = {
        p: [i for i in portions[p] if pizza[i][0] in "MRFVT" and not pizza[i].endswith("*")]
        for p in range(3)
    }
    take = next(p for p in range(3) if edible[p])
    other = next(p for p in range(3) if p != take)
    # The player ticked a bite on another portion first, then changed their mind.
    stale = [f"{other}:{i}" for i in edible[other][:1]]
    answer = post_move(
        match,
        users[chooser],
        action="take",
        take=str(take),
        eat=[f"{take}:{edible[take][0]}", *stale],
        **{f"steal_{other}_M": "0"},
    )
    assert answer.status_code == 302, answer.content
    match.refresh_from_db()
    assert match.state["taken_by"][take] == chooser
    assert edible[take][0] in match.state["eaten"][chooser]
    assert not set(edible[other]) & set(match.state["eaten"][chooser])


@pytest.mark.parametrize(
    ("fields", "sentence"),
    [
        ({}, "Choose a portion."),
        ({"take": "1", "eat": ["1:x"]}, "A slice must be named by its number."),
    ],
)
def test_a_forged_take_form_is_refused_and_changes_nothing(fields, sentence):
    match, users = started_table(players=3)
    chef = ENGINE.to_move(match.state)[0]
    match = services.play(match.pk, users[chef], {"cut": [0, 4, 9]}, match.version)
    chooser = ENGINE.to_move(match.state)[0]
    version = match.version
    answer = post_move(match, users[chooser], action="take", **fields)
    assert answer.status_code == 400 and escape(sentence) in answer.content.decode()
    match.refresh_from_db()
    assert match.version == version


def test_la_marianne_needs_exactly_two_slices_ticked_on_each_side():
    from django.http import QueryDict

    from games.presenters import get_presenter
    from games.presenters.base import MoveFormError

    presenter = get_presenter("part-du-chef")
    move = presenter.move_from_post(QueryDict("action=marianne&give=3&give=5&get=1:14&get=2:20"))
    assert move == {"marianne": {"give": [3, 5], "get": [[1, 14], [2, 20]]}}
    with pytest.raises(MoveFormError, match="Choose two slices to give"):
        presenter.move_from_post(QueryDict("action=marianne&give=3&get=1:14&get=2:20"))
    with pytest.raises(MoveFormError, match="Choose two slices to get"):
        presenter.move_from_post(QueryDict("action=marianne&give=3&give=4&get=1:14"))


def test_a_chilli_choice_is_told_in_the_kinds_order_whatever_order_its_keys_were_stored_in():
    """PostgreSQL's jsonb gives an object's keys back in an order of its own (shorter first, then
    by bytes), SQLite as written: the sentence must read the same on both."""
    from django.utils import translation

    from games.presenters.part_du_chef import assignment_phrase

    with translation.override("en"):
        written = assignment_phrase({"M": 1, "R": 0, "F": 2})
        from_jsonb = assignment_phrase({"F": 2, "M": 1, "R": 0})
    assert written == from_jsonb == "1 × Margherita, 2 × 4 Fromages"
