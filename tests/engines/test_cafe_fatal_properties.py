"""Properties of Café Fatal over thousands of random games (hypothesis)."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engines import CHANCE, Engine
from games.engines.cafe_fatal import ENGINE, LAST_ROUND, SORTS
from games.engines.records import export_record, replay

GAMES = settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def pieces_in_play(state: dict) -> int:
    """The pieces on the tables and in the players' hands."""
    places = [*state["tables"], *state["held"]]
    return sum(place[sort] for place in places for sort in SORTS)


def pieces_served(state: dict) -> int:
    return sum(len(move["serve"]) for _, move in state["log"] if "serve" in move)


def random_game(seed: int, n: int) -> dict:
    rng = random.Random(seed)
    state = ENGINE.new_game(n)
    while not ENGINE.is_over(state):
        [seat] = ENGINE.to_move(state)
        move = ENGINE.random_step(state, seat, rng)
        state = ENGINE.apply(state, seat, move)
    return state


@GAMES
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 5))
def test_random_games_end_and_replay_from_their_record_to_the_same_result(seed, n):
    state = random_game(seed, n)
    assert ENGINE.is_over(state)
    assert pieces_in_play(state) == pieces_served(state)
    record = json.loads(json.dumps(export_record(ENGINE, state, [f"p{i}" for i in range(n)])))
    _, replayed = replay(record)
    assert ENGINE.result(replayed) == ENGINE.result(state)
    result = ENGINE.result(state)
    assert result.extra["pieces"] == [sum(hand.values()) for hand in state["held"]]
    # The game ends on 40 points or after the 30th round, and not a round earlier.
    assert max(result.scores) >= 40 or state["round"] == LAST_ROUND - 1
    assert min(result.ranks) == 1


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 5))
def test_every_listed_move_applies_and_every_other_placement_is_refused(seed, n):
    rng = random.Random(seed)
    state = ENGINE.new_game(n)
    tables = len(state["tables"])
    while not ENGINE.is_over(state):
        assert pieces_in_play(state) == pieces_served(state)
        [seat] = ENGINE.to_move(state)
        if seat == CHANCE:
            before = state
            state = ENGINE.apply(state, seat, ENGINE.sample_chance(state, rng))
            # Under the spec's rules every roll has a placement, so no dice are ever set aside.
            if before["phase"] == "roll":
                assert state["phase"] == "place"
            continue
        listed = list(ENGINE.legal(state, seat))
        assert listed
        wanted = {(m["place"]["value"], m["place"]["table"]) for m in listed}
        for value in range(1, 7):
            for table in range(tables):
                error = ENGINE.placement_error(state, seat, value, table)
                assert (error is None) == ((value, table) in wanted)
        snapshot = json.dumps(state, sort_keys=True)
        for move in rng.sample(listed, min(3, len(listed))):
            after = ENGINE.apply(state, seat, move)
            placed = state["rolled"].count(move["place"]["value"])
            assert sum(after["remaining"]) in (sum(state["remaining"]) - placed, 6 * n)
        assert json.dumps(state, sort_keys=True) == snapshot
        state = ENGINE.apply(state, seat, rng.choice(listed))
        json.dumps(ENGINE.view(state, seat))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 5))
def test_advance_reaches_the_state_apply_reaches_but_for_the_log(seed, n):
    # A search plays with advance; the site with apply. Both must make the same game, and
    # neither may change the state it was given (states share the lists a move leaves alone).
    rng = random.Random(seed)
    checked = lean = ENGINE.new_game(n)
    while not ENGINE.is_over(checked):
        [seat] = ENGINE.to_move(checked)
        move = ENGINE.random_step(checked, seat, rng)
        given = [checked, lean]
        snapshot = json.dumps(given, sort_keys=True)
        checked, lean = ENGINE.apply(checked, seat, move), ENGINE.advance(lean, seat, move)
        assert json.dumps(given, sort_keys=True) == snapshot
        assert {**lean, "log": checked["log"]} == checked
        assert lean["log"] == []
    assert ENGINE.is_over(lean)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 5), draw=st.integers(0, 2**32 - 1))
def test_a_random_move_is_what_a_choice_among_the_legal_moves_draws(seed, n, draw):
    # random_move counts the placements instead of listing them; it must draw the same move
    # from the same generator as rng.choice over the listed moves, and leave it in the same state.
    rng = random.Random(seed)
    state = ENGINE.new_game(n)
    while not ENGINE.is_over(state):
        [seat] = ENGINE.to_move(state)
        if seat == CHANCE:
            state = ENGINE.apply(state, seat, ENGINE.sample_chance(state, rng))
            continue
        counted, listed = random.Random(draw), random.Random(draw)
        move = ENGINE.random_move(state, seat, counted)
        assert move == listed.choice(list(ENGINE.legal(state, seat)))
        assert counted.getstate() == listed.getstate()
        state = ENGINE.apply(state, seat, move)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 5),
    steps=st.integers(0, 400),
    draw=st.integers(0, 2**32 - 1),
)
def test_the_lean_random_playout_plays_the_reference_game_from_any_position(seed, n, steps, draw):
    # Café Fatal plays random_playout on flat lists of counts; from any position it must make the
    # reference's draws (Engine.random_playout, step by step through advance) in the same order,
    # so the same game: the same scores and the generator left in the same state.
    rng = random.Random(seed)
    state = ENGINE.new_game(n)
    for _ in range(steps):
        if ENGINE.is_over(state):
            break
        [seat] = ENGINE.to_move(state)
        state = ENGINE.apply(state, seat, ENGINE.random_step(state, seat, rng))
    snapshot = json.dumps(state, sort_keys=True)
    lean, reference = random.Random(draw), random.Random(draw)
    assert ENGINE.random_playout(state, lean) == Engine.random_playout(ENGINE, state, reference)
    assert lean.getstate() == reference.getstate()
    assert json.dumps(state, sort_keys=True) == snapshot
