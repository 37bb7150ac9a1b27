"""Properties of Pizza Party over thousands of random games (hypothesis).

Each example plays one three-player game and one duel from its seed, so 1,000 examples make 2,000
games.
"""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engines import CHANCE, Engine
from games.engines.pizza_party import (
    CELLS,
    COLOURS,
    ENGINE,
    FACES,
    ROUNDS,
    SEARCH_BITS,
    TOPPINGS,
    board_bits,
    hex_distance,
    near_bits,
    placeable_cells,
)
from games.engines.records import export_record, replay

State = dict[str, Any]

#: Each example plays two whole games and replays each from every viewer's record (about 70 ms):
#: 300 of them (fresh seeds on every run) take about 20 s under load; 1,000 took 70 s, the suite's
#: second longest test.
GAMES = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
#: No game can need more moves than 60 rounds of three placements and three picks.
MAX_MOVES = ROUNDS * 2 * COLOURS


def players(n: int) -> list[str]:
    return ["ann", "bob", "cat"][:n]


def with_other_pick(state: State, seat: int, pick: int) -> State:
    """The same state, except that ``seat``'s pending pick is ``pick``."""
    picks = list(state["picks"])
    picks[seat] = pick
    start = state["picks_from"]
    log = [
        [s, {**move, "cut": pick}] if s == seat else [s, move] for s, move in state["log"][start:]
    ]
    return {**state, "picks": picks, "log": [*state["log"][:start], *log]}


def check_pending_picks_are_hidden(state: State, rng: random.Random) -> None:
    """Nothing another seat (or a spectator) gets depends on a pick that is still secret."""
    n = state["n"]
    for seat in range(n):
        mine = state["picks"][seat]
        if mine is None:
            continue
        other = with_other_pick(state, seat, rng.choice([f for f in FACES if f != mine]))
        for viewer in [*range(n), None]:
            if viewer == seat:
                continue
            seen = json.dumps(ENGINE.view(state, viewer), sort_keys=True)
            assert seen == json.dumps(ENGINE.view(other, viewer), sort_keys=True)
            record = export_record(ENGINE, state, players(n), viewer)
            assert record == export_record(ENGINE, other, players(n), viewer)
        assert ENGINE.view(state, seat)["your_pick"] == mine
    pending = [s for s in range(n) if state["picks"][s] is not None]
    for viewer in [*range(n), None]:
        moves = export_record(ENGINE, state, players(n), viewer)["moves"]
        assert len(moves) == len(state["log"]) - sum(1 for s in pending if s != viewer)


def check_invariants(state: State) -> None:
    board = state["board"]
    for colour in range(COLOURS):
        assert board.count(colour) + state["supply"][colour] == TOPPINGS
    due = ENGINE.to_move(state)
    assert due == sorted(due)
    if state["phase"] == "cut":
        assert all(state["picks"][s] is None for s in due if s != CHANCE)


def play_checked(n: int, seed: int) -> None:
    rng = random.Random(seed)
    state = ENGINE.new_game(n)
    snapshot_at = rng.randrange(40)
    for played in range(MAX_MOVES + 1):
        if ENGINE.is_over(state):
            break
        check_invariants(state)
        seat = rng.choice(ENGINE.to_move(state))
        if seat == CHANCE:
            outcomes = ENGINE.chance_outcomes(state)
            assert abs(sum(p for _, p in outcomes) - 1) < 1e-9
            move = ENGINE.sample_chance(state, rng)
        else:
            move = rng.choice(list(ENGINE.legal(state, seat)))
        state = ENGINE.apply(state, seat, move)
        if state["phase"] == "cut":
            check_pending_picks_are_hidden(state, rng)
        if played == snapshot_at:
            # A record taken mid-game, by any viewer, is a valid record of a game so far.
            viewer = rng.choice([*range(n), None])
            _, replayed = replay(export_record(ENGINE, state, players(n), viewer))
            assert replayed["board"] == state["board"]
    assert ENGINE.is_over(state), "the game did not end"
    result = ENGINE.result(state)
    assert len(result.scores) == len(result.ranks) == n
    assert set(result.extra) == {"winners"}
    assert all(result.ranks[s] == 1 for s in result.extra["winners"])
    for viewer in [*range(n), None]:
        record = export_record(ENGINE, state, players(n), viewer)
        json.dumps(ENGINE.view(state, viewer))
        _, replayed = replay(json.loads(json.dumps(record)))
        assert ENGINE.result(replayed) == result
        assert replayed == state


@GAMES
@given(seed=st.integers(0, 2**32 - 1))
def test_random_games_apply_every_sampled_legal_move_end_and_replay_to_the_same_result(seed):
    play_checked(3, seed)
    play_checked(2, seed)


#: What a state made by ``advance`` may lack or add: the log (and where the open picks start in
#: it) is the site's, the bits are the search's.
NOT_COMPARED = {"log", "picks_from", SEARCH_BITS}


def same_game(applied: State, advanced: State) -> bool:
    keys = (set(applied) | set(advanced)) - NOT_COMPARED
    return all(applied.get(key) == advanced.get(key) for key in keys)


def play_both_ways(n: int, seed: int) -> None:
    """One game played with ``apply`` and, move for move, with ``advance``: each random move is
    drawn twice from twin generators, once on each state, and must be the same."""
    rng, twin = random.Random(seed), random.Random(seed)
    applied = advanced = ENGINE.new_game(n)
    log = applied["log"]
    while not ENGINE.is_over(applied):
        assert ENGINE.to_move(advanced) == ENGINE.to_move(applied)
        seat = rng.choice(ENGINE.to_move(applied))
        assert twin.choice(ENGINE.to_move(advanced)) == seat
        if seat == CHANCE:
            move = ENGINE.sample_chance(applied, rng)
            assert ENGINE.sample_chance(advanced, twin) == move
        else:
            move = ENGINE.random_move(applied, seat, rng)
            assert ENGINE.random_move(advanced, seat, twin) == move
        applied = ENGINE.apply(applied, seat, move)
        advanced = ENGINE.advance(advanced, seat, move)
        assert same_game(applied, advanced)
        # A search's move neither copies the log nor adds to it.
        assert advanced["log"] is log
        assert SEARCH_BITS not in applied
        assert advanced[SEARCH_BITS] == board_bits(advanced["board"])
        placing = ENGINE.placing_colour(advanced)
        if placing is not None:
            assert placeable_cells(advanced["board"], placing) == [
                i for i, _ in enumerate(advanced["board"]) if brute_force_placeable(advanced, i)
            ]
    assert ENGINE.is_over(advanced)
    assert ENGINE.result(advanced) == ENGINE.result(applied)


def brute_force_placeable(state: State, index: int) -> bool:
    """The rule read literally: an empty cell at distance 2 or more from the colour's own."""
    board, colour = state["board"], ENGINE.placing_colour(state)
    return board[index] is None and all(
        hex_distance(CELLS[index], CELLS[j]) >= 2 for j, here in enumerate(board) if here == colour
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_advance_plays_the_same_game_as_apply_without_the_log(seed):
    play_both_ways(3, seed)
    play_both_ways(2, seed)


def reference_playout(state: State, rng: random.Random) -> list[int]:
    """The random game ``Engine.random_playout`` defines, played through ``apply``."""
    while not ENGINE.is_over(state):
        seat = rng.choice(ENGINE.to_move(state))
        state = ENGINE.apply(state, seat, ENGINE.random_step(state, seat, rng))
    return list(ENGINE.result(state).scores)


def position(n: int, seed: int, step: Any) -> State:
    """A seeded random game after ``moves`` of its moves (or at its end), played with ``step``
    (``apply``: the site's states; ``advance``: a search's, with their bits)."""
    rng = random.Random(seed)
    state = ENGINE.new_game(n)
    for _ in range(rng.randrange(3 * MAX_MOVES // 4)):
        if ENGINE.is_over(state):
            break
        seat = rng.choice(ENGINE.to_move(state))
        state = step(state, seat, ENGINE.random_step(state, seat, rng))
    return state


def check_lean_playout(n: int, seed: int, step: Any) -> None:
    state = position(n, seed, step)
    before = json.dumps(state, sort_keys=True)
    rng, twin = random.Random(seed + 1), random.Random(seed + 1)
    assert ENGINE.random_playout(state, rng) == reference_playout(state, twin)
    # The same draws, not merely the same scores: a search mixing both stays in step.
    assert rng.getstate() == twin.getstate()
    assert json.dumps(state, sort_keys=True) == before


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_the_lean_random_playout_draws_and_scores_exactly_as_the_reference_game(seed):
    for n in (2, 3):
        check_lean_playout(n, seed, ENGINE.apply)
        check_lean_playout(n, seed, ENGINE.advance)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_a_chance_draw_is_the_one_its_listed_outcomes_give(seed):
    # ``sample_chance`` skips building ``chance_outcomes``; with the same generator it must draw
    # what the base class draws from them (uniform over the neutral's cells and the die).
    state = position(2, seed, ENGINE.apply)
    while not ENGINE.is_over(state) and CHANCE not in ENGINE.to_move(state):
        seat = ENGINE.to_move(state)[0]
        state = ENGINE.apply(state, seat, ENGINE.random_move(state, seat, random.Random(seed)))
    if ENGINE.is_over(state):
        return
    rng, twin = random.Random(seed), random.Random(seed)
    assert ENGINE.sample_chance(state, rng) == Engine.sample_chance(ENGINE, state, twin)
    assert rng.getstate() == twin.getstate()


@settings(max_examples=300, deadline=None)
@given(cells=st.sets(st.integers(0, len(CELLS) - 1)))
def test_the_cells_next_to_a_set_are_those_next_to_one_of_its_cells(cells):
    own = sum(1 << i for i in cells)
    expected = sum(
        1 << j
        for j in range(len(CELLS))
        if any(hex_distance(CELLS[i], CELLS[j]) == 1 for i in cells)
    )
    assert near_bits(own) == expected
