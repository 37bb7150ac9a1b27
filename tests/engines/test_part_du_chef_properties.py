"""Properties of La Part du Chef over thousands of random games (hypothesis)."""

from __future__ import annotations

import itertools
import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engines import CHANCE, Engine
from games.engines.part_du_chef import ENGINE, PIZZAS
from games.engines.records import export_record, replay

from .pdc_helpers import random_game

GAMES = settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def sample_legal(state: dict, seat: int, rng: random.Random, k: int = 3) -> list[dict]:
    """A few of the listed legal moves, drawn from the start of the list and from anywhere in it."""
    moves = list(itertools.islice(ENGINE.legal(state, seat), 5000))
    return moves[:2] + rng.sample(moves, min(k, len(moves)))


@GAMES
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 5), marianne=st.booleans())
def test_random_games_end_with_every_slice_accounted_for_and_replay_to_the_same_result(
    seed, n, marianne
):
    state = random_game(seed, n, marianne)
    assert ENGINE.is_over(state)
    held = [i for seat in range(n) for i in (*state["kept"][seat], *state["eaten"][seat])]
    assert sorted(held) == list(range(65))
    # The deal, a cut and n takes per pizza, La Marianne once, a chilli move per holder (3 at most).
    assert len(state["log"]) <= 1 + PIZZAS * (1 + n) + 1 + min(n, 3)
    assert state["log"][-1][1].keys() == {"chillies"}
    record = json.loads(json.dumps(export_record(ENGINE, state, [f"p{i}" for i in range(n)])))
    _, replayed = replay(record)
    assert ENGINE.result(replayed) == ENGINE.result(state)
    result = ENGINE.result(state)
    assert result.scores == [row["total"] for row in result.extra["breakdown"]]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 5), marianne=st.booleans())
def test_every_listed_legal_move_applies_and_no_view_shows_an_unrevealed_pizza(seed, n, marianne):
    rng = random.Random(seed)
    state = ENGINE.new_game(n, {"marianne": marianne})
    while not ENGINE.is_over(state):
        seat = ENGINE.to_move(state)[0]
        if seat == CHANCE:
            state = ENGINE.apply(state, CHANCE, ENGINE.sample_chance(state, rng))
            continue
        for move in sample_legal(state, seat, rng):
            ENGINE.apply(state, seat, move)
        for viewer in (*range(n), None):
            twin = ENGINE.redeal_hidden(state, viewer, rng)
            assert ENGINE.view(state, viewer) == ENGINE.view(twin, viewer)
            seen = export_record(ENGINE, state, ["x"] * n, viewer)
            assert seen == export_record(ENGINE, twin, ["x"] * n, viewer)
        state = ENGINE.apply(state, seat, ENGINE.random_move(state, seat, rng))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 5), marianne=st.booleans())
def test_bots_of_both_levels_play_only_legal_moves(seed, n, marianne):
    rng = random.Random(seed)
    state = ENGINE.new_game(n, {"marianne": marianne})
    while not ENGINE.is_over(state):
        seat = ENGINE.to_move(state)[0]
        if seat == CHANCE:
            move = ENGINE.sample_chance(state, rng)
        else:
            level = 1 + seat % 2 if seed % 7 == 0 else 1
            move = ENGINE.bot_move(ENGINE.view(state, seat), rng, level)
        state = ENGINE.apply(state, seat, move)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 5), marianne=st.booleans())
def test_advance_gives_the_state_apply_gives_but_for_the_log(seed, n, marianne):
    """What a search plays (``advance``, unchecked) and what the site plays (``apply``) agree on
    everything the rules read, move after move, and neither changes the state it was given."""
    rng = random.Random(seed)
    state = ENGINE.new_game(n, {"marianne": marianne})
    while not ENGINE.is_over(state):
        seat = ENGINE.to_move(state)[0]
        move = ENGINE.random_step(state, seat, rng)
        before = json.dumps(state)
        applied = ENGINE.apply(state, seat, move)
        advanced = ENGINE.advance(state, seat, move)
        assert json.dumps(state) == before
        assert {**advanced, "log": None} == {**applied, "log": None}
        state = applied


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 5))
def test_level_3_playouts_score_a_finished_game_as_the_engine_does(seed, n):
    """The lean playout keeps counts, not slices: at the end of the last pizza its totals (with
    the suggested chillies) are the engine's."""
    from games.engines import part_du_chef_bot as bots

    rng = random.Random(seed)
    state = ENGINE.new_game(n)
    while state["phase"] != "chillies":
        seat = ENGINE.to_move(state)[0]
        move = ENGINE.random_step(state, seat, rng)
        state = ENGINE.apply(state, seat, move)
    lean = bots._lean_scores(*bots.lean_tallies(state))
    while not ENGINE.is_over(state):
        seat = ENGINE.to_move(state)[0]
        state = ENGINE.apply(state, seat, {"chillies": ENGINE.suggested_chillies(state, seat)})
    assert lean == ENGINE.result(state).scores


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 5))
def test_the_bots_projected_totals_are_the_engines_breakdown_during_play(seed, n):
    """Level 1 judges every take by the totals if the game ended now, counted the lean way."""
    from games.engines.part_du_chef_bot import _projected_totals

    rng = random.Random(seed)
    state = ENGINE.new_game(n)
    while state["phase"] != "chillies":
        seat = ENGINE.to_move(state)[0]
        if seat == CHANCE:
            move = ENGINE.sample_chance(state, rng)
        else:
            move = ENGINE.random_move(state, seat, rng)
            assert _projected_totals(state) == [row["total"] for row in ENGINE.breakdown(state)]
        state = ENGINE.apply(state, seat, move)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 5),
    marianne=st.booleans(),
    moves_in=st.integers(0, 40),
)
def test_the_lean_random_playout_scores_what_the_reference_random_game_scores(
    seed, n, marianne, moves_in
):
    # From the deal or from any position of a random game (a cut, a take half-way through a
    # round, the chilli step with some choices made, the end), the engine's lean playout draws
    # what the reference draws through random_step and advance, so the scores are the same.
    rng = random.Random(seed)
    state = ENGINE.new_game(n, {"marianne": marianne})
    for _ in range(moves_in):
        if ENGINE.is_over(state):
            break
        seat = rng.choice(ENGINE.to_move(state))
        state = ENGINE.apply(state, seat, ENGINE.random_step(state, seat, rng))
    before = json.dumps(state, sort_keys=True)
    reference = Engine.random_playout(ENGINE, state, random.Random(seed ^ 0x5A))
    assert ENGINE.random_playout(state, random.Random(seed ^ 0x5A)) == reference
    assert json.dumps(state, sort_keys=True) == before
