"""Pizza Party, rule by rule (spec/pizza-party.md).

Most positions are built directly with ``position``: a state with the given toppings on the board,
in the cut step of a round, so one ``cut`` call shows what step 3 does. With the lines (6, 6, 6) of
round 0 the pizza falls into four parts, which the tests below lean on:

- ``Q`` the row q = 3: [3, -3] [3, -2] [3, -1] [3, 0]
- ``R`` the row r = 3: [-3, 3] [-2, 3] [-1, 3] [0, 3]
- ``S`` the row s = 3: [0, -3] [-1, -2] [-2, -1] [-3, 0]
- ``M`` the 25 cells in the middle.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from games.engines import CHANCE, IllegalMove, get_engine
from games.engines.pizza_party import (
    AXES,
    CELLS,
    ENGINE,
    INDEX,
    PARTS,
    ROUNDS,
    START_CELLS,
    coordinates,
    hex_distance,
    placeable_cells,
)
from games.engines.records import ReplayError, export_record, replay
from tests.golden_io import golden_cases, load_case

State = dict[str, Any]
Cell = tuple[int, int]

A, B, C = 0, 1, 2
EDGES = (6, 6, 6)
Q = [(3, -3), (3, -2), (3, -1), (3, 0)]
R = [(-3, 3), (-2, 3), (-1, 3), (0, 3)]
S = [(0, -3), (-1, -2), (-2, -1), (-3, 0)]
M = [cell for cell in CELLS if cell not in Q + R + S]


def position(
    toppings: dict[int, list[Cell]],
    *,
    n: int = 3,
    round_number: int = 0,
    phase: str = "cut",
) -> State:
    """A state with exactly these toppings on the board; the supplies hold the rest."""
    state = ENGINE.new_game(n)
    board: list[int | None] = [None] * len(CELLS)
    for colour, cells in toppings.items():
        for cell in cells:
            assert board[INDEX[cell]] is None, f"{cell} given twice"
            board[INDEX[cell]] = colour
    return {
        **state,
        "board": board,
        "supply": [16 - board.count(c) for c in range(3)],
        "round": round_number,
        "phase": phase,
        "step": 0,
        "picks": [None, None, None],
        "picks_from": 0 if phase == "cut" else None,
    }


def cut(state: State, picks: tuple[int, int, int]) -> State:
    """Every colour picks (picks[c] for colour c); the neutral colour of a duel by chance."""
    for colour, pick in enumerate(picks):
        seat = CHANCE if colour == C and state["n"] == 2 else colour
        state = ENGINE.apply(state, seat, {"cut": pick})
    return state


def colour_at(state: State, cell: Cell) -> int | None:
    return state["board"][INDEX[cell]]


def cells_of(state: State, colour: int) -> list[Cell]:
    return [cell for i, cell in enumerate(CELLS) if state["board"][i] == colour]


def refused(state: State, seat: int, move: Any, words: str) -> None:
    before = json.dumps(state, sort_keys=True)
    with pytest.raises(IllegalMove, match=words):
        ENGINE.apply(state, seat, move)
    assert json.dumps(state, sort_keys=True) == before


# --- the engine and its options --------------------------------------------------------------
def test_the_registry_finds_the_engine_by_slug():
    assert get_engine("pizza-party") is ENGINE
    assert (ENGINE.name, ENGINE.min_players, ENGINE.max_players) == ("Pizza Party", 2, 3)


def test_three_players_play_the_standard_game():
    assert ENGINE.new_game(3)["options"] == {"variant": "standard"}
    with pytest.raises(IllegalMove, match="duel variant is for two players"):
        ENGINE.new_game(3, {"variant": "duel"})


def test_two_players_play_the_duel():
    assert ENGINE.new_game(2)["options"] == {"variant": "duel"}
    assert ENGINE.new_game(2, {"variant": "duel"})["options"] == {"variant": "duel"}
    with pytest.raises(IllegalMove, match="Two players play the duel variant"):
        ENGINE.new_game(2, {"variant": "standard"})


def test_bad_player_counts_and_options_are_refused():
    for n in (1, 4):
        with pytest.raises(IllegalMove, match="2 to 3 players"):
            ENGINE.new_game(n)
    with pytest.raises(IllegalMove, match="no option"):
        ENGINE.new_game(3, {"turbo": True})
    with pytest.raises(IllegalMove, match="must be one of"):
        ENGINE.new_game(3, {"variant": "solo"})


# --- the board -------------------------------------------------------------------------------
def test_the_board_is_a_hexagon_of_radius_3_with_37_cells():
    assert len(CELLS) == 37
    assert all(max(abs(x) for x in coordinates(cell)) <= 3 for cell in CELLS)
    assert tuple(sorted(CELLS, key=lambda cell: (cell[1], cell[0]))) == CELLS
    assert hex_distance((3, -3), (-3, 3)) == 6
    assert hex_distance((0, 0), (1, -1)) == 1


def test_each_axis_has_6_cut_lines_between_neighbouring_rows():
    for axis in range(3):
        splits = set()
        for n in range(1, 7):
            low = {cell for cell in CELLS if coordinates(cell)[axis] <= n - 4}
            rows = {coordinates(cell)[axis] for cell in CELLS}
            assert {n - 4, n - 3} <= rows  # the line runs between two rows of the pizza
            for lines, parts in PARTS.items():
                if lines[axis] != n:
                    continue
                for part in parts:
                    cells = {CELLS[i] for i in part}
                    assert cells <= low or not cells & low
            splits.add(frozenset(low))
        assert len(splits) == 6


def test_any_three_lines_cut_the_pizza_into_4_to_7_parts():
    assert len(PARTS) == 216
    sizes = set()
    for lines, parts in PARTS.items():
        assert sorted(i for part in parts for i in part) == list(range(37))
        for part in parts:
            sides = {
                tuple(coordinates(CELLS[i])[axis] >= n - 3 for axis, n in enumerate(lines))
                for i in part
            }
            assert len(sides) == 1
        sizes.add(len(parts))
    assert sizes == {4, 5, 6, 7}


def test_each_colour_starts_on_the_two_marks_at_the_ends_of_its_edge():
    state = ENGINE.new_game(3)
    assert cells_of(state, A) == sorted(START_CELLS[A], key=lambda c: (c[1], c[0]))
    assert set(cells_of(state, B)) == {(-3, 3), (0, 3)}
    assert set(cells_of(state, C)) == {(0, -3), (-3, 0)}
    assert state["supply"] == [14, 14, 14]
    assert ENGINE.to_move(state) == [A]


# --- step 1: add -----------------------------------------------------------------------------
def test_a_topping_goes_on_an_empty_cell_at_distance_two_from_your_own():
    state = ENGINE.new_game(3)
    legal = {tuple(move["place"]) for move in ENGINE.legal(state, A)}
    own = [(3, -3), (3, 0)]
    expected = {
        cell
        for cell in CELLS
        if colour_at(state, cell) is None and all(hex_distance(cell, o) >= 2 for o in own)
    }
    assert legal == expected
    assert (3, -1) not in legal  # beside [3, 0]
    assert (1, -2) in legal
    refused(state, A, {"place": [3, -1]}, "at least two cells away from your own")
    refused(state, A, {"place": [3, -3]}, "already holds a topping")
    refused(state, A, {"place": [4, 0]}, "not a cell of the pizza")
    refused(state, A, {"place": [1]}, r"written \[q, r\]")
    refused(state, A, {"cut": 3}, "add a topping")


def test_a_topping_may_go_beside_another_colour():
    state = ENGINE.new_game(3)
    beside_b = [-2, 3]  # next to B's [-3, 3]
    after = ENGINE.apply(state, A, {"place": beside_b})
    assert colour_at(after, (-2, 3)) == A
    assert after["supply"][A] == 13


def test_a_colour_with_no_legal_cell_passes_without_a_move():
    # Seven B toppings touch every other cell of the pizza (q + 3r divisible by 7), so B has
    # toppings left but nowhere to put one.
    b_cells = [cell for cell in CELLS if (cell[0] + 3 * cell[1]) % 7 == 0]
    state = position({A: [(3, -3)], B: b_cells, C: [(-3, 3)]}, phase="add")
    assert state["supply"][B] == 9
    assert placeable_cells(state["board"], B) == []
    assert ENGINE.to_move(state) == [A]
    after = ENGINE.apply(state, A, {"place": [0, -3]})
    assert ENGINE.to_move(after) == [C]
    assert [seat for seat, _ in after["log"]] == [A]


def test_a_colour_with_an_empty_supply_passes_without_a_move():
    state = position({A: [(3, -3)], B: M[:16], C: [(-3, 3)]}, phase="add")
    assert state["supply"][B] == 0
    after = ENGINE.apply(state, A, {"place": [0, -3]})
    assert ENGINE.to_move(after) == [C]
    after = ENGINE.apply(after, C, {"place": [0, 3]})
    assert after["phase"] == "cut"
    assert [seat for seat, _ in after["log"]] == [A, C]


def test_turn_order_rotates_one_seat_each_round():
    state = ENGINE.new_game(3)
    for round_number in range(4):
        order = []
        while state["phase"] == "add":
            (seat,) = ENGINE.to_move(state)
            order.append(seat)
            state = ENGINE.apply(state, seat, ENGINE.random_move(state, seat, random.Random(1)))
        assert order == [(round_number + k) % 3 for k in range(3)]
        assert state["round"] == round_number
        state = cut(state, (1, 1, 1)) if round_number % 2 else cut(state, (6, 6, 6))
        if ENGINE.is_over(state):
            break


# --- step 2: cut -----------------------------------------------------------------------------
def test_every_colour_picks_at_the_same_time():
    state = position({A: [(3, -3)], B: [(-3, 3)], C: [(0, -3)]})
    assert ENGINE.to_move(state) == [A, B, C]
    state = ENGINE.apply(state, B, {"cut": 2})
    assert ENGINE.to_move(state) == [A, C]
    refused(state, B, {"cut": 3}, "already picked")
    refused(state, A, {"cut": 7}, "from 1 to 6")
    refused(state, A, {"cut": True}, "from 1 to 6")
    refused(state, A, {"place": [0, 0]}, "pick your cut")
    refused(state, CHANCE, {"cut": 3}, "No chance move")
    assert [m["cut"] for m in ENGINE.legal(state, A)] == [1, 2, 3, 4, 5, 6]
    assert list(ENGINE.legal(state, B)) == []


def test_the_three_axes_rotate_each_round():
    state = ENGINE.new_game(3)
    rng = random.Random(3)
    for round_number in range(3):
        while state["phase"] == "add":
            (seat,) = ENGINE.to_move(state)
            state = ENGINE.apply(state, seat, ENGINE.random_move(state, seat, rng))
        view_axes = [c["axis"] for c in ENGINE.view(state, None)["colours"]]
        expected = [AXES[(c + round_number) % 3] for c in range(3)]
        assert view_axes == expected
        state = cut(state, (6, 6, 6))
        assert state["last_cut"]["axes"] == expected
        assert state["last_cut"]["round"] == round_number
        if ENGINE.is_over(state):
            break


def test_a_pick_cuts_along_the_colours_axis_of_the_round():
    # Round 1: A cuts along r, B along s, C along q. C's pick 1 cuts off the row q = -3, where
    # A's pair sits alone. Had C cut along s (round 0's axis), the pair would share the middle
    # with B's three toppings and be replaced.
    state = position(
        {A: [(-3, 1), (-3, 2)], B: [(-2, 1), (-1, 1), (0, 0)], C: [(3, -3)]}, round_number=1
    )
    after = cut(state, (6, 6, 1))
    assert after["last_cut"]["axes"] == ["r", "s", "q"]
    assert after["board"] == state["board"]
    unrotated = cut({**state, "round": 0}, (6, 6, 1))
    assert cells_of(unrotated, A) == []


# --- step 3: replace -------------------------------------------------------------------------
def test_strict_majority_replaces_the_others_toppings_in_the_part():
    state = position({A: [(3, -3), (3, -2)], B: [(3, 0), (0, 0), (1, 1)], C: [(-3, 0)]})
    after = cut(state, EDGES)
    assert colour_at(after, (3, 0)) == A
    assert after["supply"] == [13, 14, 15]
    assert after["last_cut"]["removed"] == [[3, 0]]
    assert after["last_cut"]["filled"] == [[3, 0]]


def test_a_safe_colour_keeps_every_topping():
    # In Q A leads; B (one topping per part) is safe, C (two in S) is not.
    state = position({A: [(3, -3), (3, -2)], B: [(3, 0), (0, 0)], C: [(3, -1), (0, -3), (-3, 0)]})
    after = cut(state, EDGES)
    assert colour_at(after, (3, 0)) == B
    assert colour_at(after, (3, -1)) == A
    assert after["supply"][B] == 14


def test_counts_are_taken_once_before_anything_moves():
    # B loses both its toppings in M, which would leave it with one topping in S: it is still
    # not safe there, because safety is judged on the counts before the cut.
    state = position(
        {
            A: [(0, 0), (1, 0), (2, 0)],
            B: [(0, 1), (1, 1), (-1, -2)],
            C: [(0, -3), (-3, 0)],
        }
    )
    after = cut(state, EDGES)
    assert cells_of(after, B) == []
    assert colour_at(after, (-1, -2)) == C
    assert set(cells_of(after, A)) == {(0, 0), (1, 0), (2, 0), (0, 1), (1, 1)}


def test_removed_toppings_go_back_to_the_supply_before_any_cell_is_filled():
    # A has all 16 on the board and no supply; it loses [3, -1] in Q and wins [0, 0] in M, which
    # it fills with the topping that just came back.
    a_cells = [(3, -1), *[cell for cell in M if cell != (0, 0)][:15]]
    state = position({A: a_cells, B: [(3, -3), (3, -2)], C: [(0, 0), (0, -3), (-3, 0)]})
    assert state["supply"][A] == 0
    after = cut(state, EDGES)
    assert colour_at(after, (3, -1)) == B
    assert colour_at(after, (0, 0)) == A
    assert after["supply"][A] == 0


def test_fill_order_is_ascending_r_then_q_over_the_whole_board_while_the_supply_lasts():
    # A wins [3, -1] in Q and [0, 1], [1, 1] in M, but has only two toppings left: the cells
    # are filled by (r, q) over the whole board — [3, -1] first although M comes before Q.
    spare = [cell for cell in M if cell not in [(0, 1), (1, 1)]]
    state = position(
        {
            A: [(3, -3), (3, -2), *spare[:12]],
            B: [(3, -1), (0, 1), (1, 1), (-3, 3), (-2, 3)],
            C: [(0, -3)],
        }
    )
    assert state["supply"][A] == 2
    after = cut(state, EDGES)
    assert colour_at(after, (3, -1)) == A
    assert colour_at(after, (0, 1)) == A
    assert colour_at(after, (1, 1)) is None
    assert after["last_cut"]["filled"] == [[3, -1], [0, 1]]
    assert after["supply"] == [0, 14, 15]


def test_a_two_way_tie_removes_the_third_colour_and_leaves_its_cells_empty():
    state = position(
        {
            A: [(0, 0), (2, 0)],
            B: [(0, 1), (-2, 2)],
            C: [(1, -1), (0, -3), (-3, 0)],
        }
    )
    after = cut(state, EDGES)
    assert colour_at(after, (1, -1)) is None
    assert cells_of(after, A) == cells_of(state, A)
    assert cells_of(after, B) == cells_of(state, B)
    assert after["supply"][C] == 14


def test_a_two_way_tie_spares_a_safe_third_colour():
    state = position({A: [(0, 0), (2, 0)], B: [(0, 1), (-2, 2)], C: [(1, -1), (0, -3)]})
    after = cut(state, EDGES)
    assert colour_at(after, (1, -1)) == C
    assert after["board"] == state["board"]


def test_a_three_way_tie_changes_nothing():
    state = position(
        {A: [(0, 0), (2, 0)], B: [(0, 1), (-2, 2)], C: [(1, -1), (-1, 0)]},
    )
    after = cut(state, EDGES)
    assert after["board"] == state["board"]
    assert after["last_cut"]["removed"] == []


# --- step 4: the end -------------------------------------------------------------------------
def tied_sixteens() -> dict[int, list[Cell]]:
    """A and B with 16 each and a tie in every part; C with one safe topping."""
    return {
        A: Q[:2] + R[:2] + S[:2] + M[:10],
        B: Q[2:] + R[2:] + S[2:] + M[10:20],
        C: [M[20]],
    }


def test_every_colour_with_16_toppings_on_the_board_wins():
    state = position(tied_sixteens())
    after = cut(state, EDGES)
    assert ENGINE.is_over(after)
    result = ENGINE.result(after)
    assert result.as_json() == {"scores": [16, 16, 1], "ranks": [1, 1, 3], "winners": [0, 1]}
    assert ENGINE.to_move(after) == []
    refused(after, A, {"cut": 1}, "The game is over")


def test_the_game_ends_only_at_the_end_of_a_round():
    # A puts its 16th topping on the board, then loses one in the cut: play goes on.
    a_cells = [*Q[:2], *M[:13]]
    state = position({A: a_cells, B: R[:2], C: [S[0]]}, phase="add")
    assert state["supply"][A] == 1
    state = ENGINE.apply(state, A, {"place": [0, 3]})  # R: now one A against two B
    assert state["supply"][A] == 0 and not ENGINE.is_over(state)
    state = ENGINE.apply(state, B, {"place": [-2, -1]})  # S: a tie with C, nothing happens
    state = ENGINE.apply(state, C, {"place": [3, 0]})  # Q: C is safe
    state = cut(state, EDGES)
    assert colour_at(state, (0, 3)) == B
    assert colour_at(state, (3, 0)) == C
    assert state["supply"][A] == 1
    assert not ENGINE.is_over(state)
    assert state["round"] == 1


def test_the_round_limit_ends_the_game_and_the_most_toppings_win():
    toppings = {A: [Q[0], Q[1], M[0]], B: R[:2], C: S[:2]}
    before_limit = cut(position(toppings, round_number=ROUNDS - 2), EDGES)
    assert not ENGINE.is_over(before_limit)
    assert before_limit["round"] == ROUNDS - 1
    after = cut(position(toppings, round_number=ROUNDS - 1), (6, 6, 6))
    assert ENGINE.is_over(after)
    assert after["end"] == "limit"
    assert ENGINE.result(after).as_json() == {
        "scores": [3, 2, 2],
        "ranks": [1, 2, 2],
        "winners": [0],
    }


def test_the_round_limit_lets_equal_leaders_share_the_win():
    toppings = {A: Q[:2], B: R[:2], C: S[:1]}
    after = cut(position(toppings, round_number=ROUNDS - 1), EDGES)
    assert ENGINE.result(after).as_json() == {
        "scores": [2, 2, 1],
        "ranks": [1, 1, 3],
        "winners": [0, 1],
    }


def test_losers_are_ranked_by_toppings_on_the_board():
    toppings = {A: Q[:2] + M[:14], B: R[:3], C: [*S[:1], M[20]]}
    after = cut(position(toppings), EDGES)
    assert ENGINE.result(after).as_json() == {
        "scores": [16, 3, 2],
        "ranks": [1, 2, 3],
        "winners": [0],
    }


def test_the_result_is_not_ready_before_the_end():
    with pytest.raises(IllegalMove, match="not over"):
        ENGINE.result(ENGINE.new_game(3))
    assert ENGINE.partial_scores(ENGINE.new_game(3)) == [2, 2, 2]
    assert ENGINE.partial_scores(ENGINE.new_game(2)) == [2, 2]


# --- the duel --------------------------------------------------------------------------------
def test_duel_neutral_colour_places_on_a_uniformly_random_legal_cell():
    state = ENGINE.new_game(2)
    state = ENGINE.apply(state, A, {"place": [1, -2]})
    state = ENGINE.apply(state, B, {"place": [0, 1]})
    assert ENGINE.to_move(state) == [CHANCE]
    refused(state, C, {"place": [1, 1]}, "not your turn")
    outcomes = ENGINE.chance_outcomes(state)
    cells = [tuple(move["place"]) for move, _ in outcomes]
    assert cells == [CELLS[i] for i in placeable_cells(state["board"], C)]
    assert len({p for _, p in outcomes}) == 1
    assert sum(p for _, p in outcomes) == pytest.approx(1)
    refused(state, CHANCE, {"place": [0, -2]}, "two cells away")  # beside [0, -3]
    move = ENGINE.sample_chance(state, random.Random(4))
    state = ENGINE.apply(state, CHANCE, move)
    assert colour_at(state, tuple(move["place"])) == C
    assert export_record(ENGINE, state, ["ann", "bob"])["moves"][-1] == {"chance": move}


def test_duel_neutral_colour_places_first_in_round_two():
    state = position({A: Q[:2], B: R[:2], C: S[:2]}, n=2, round_number=2, phase="add")
    assert ENGINE.to_move(state) == [CHANCE]


def test_duel_neutral_colour_picks_by_die_after_both_players():
    state = position({A: Q[:2], B: R[:2], C: S[:2]}, n=2)
    assert ENGINE.to_move(state) == [A, B]
    refused(state, CHANCE, {"cut": 3}, "No chance move")
    state = ENGINE.apply(state, B, {"cut": 2})
    state = ENGINE.apply(state, A, {"cut": 5})
    assert ENGINE.to_move(state) == [CHANCE]
    outcomes = ENGINE.chance_outcomes(state)
    assert outcomes == [({"cut": face}, 1 / 6) for face in range(1, 7)]
    state = ENGINE.apply(state, CHANCE, {"cut": 4})
    assert state["last_cut"]["picks"] == [5, 2, 4]
    assert export_record(ENGINE, state, ["ann", "bob"])["moves"] == [
        {"seat": 1, "cut": 2},
        {"seat": 0, "cut": 5},
        {"chance": {"cut": 4}},
    ]


def test_duel_when_the_neutral_colour_completes_its_16_both_players_get_rank_2():
    toppings = {A: Q[:2] + R[:2], B: [M[0]], C: M[1:17]}
    state = position(toppings, n=2)
    after = cut(state, EDGES)
    assert ENGINE.is_over(after)
    assert ENGINE.result(after).as_json() == {"scores": [4, 1], "ranks": [2, 2], "winners": []}


def test_duel_neutral_colour_beats_a_player_who_completes_16_at_the_same_time():
    state = position(tied_sixteens(), n=2)
    swapped = {A: tied_sixteens()[A], C: tied_sixteens()[B], B: tied_sixteens()[C]}
    after = cut(position(swapped, n=2), EDGES)
    assert ENGINE.result(after).as_json() == {"scores": [16, 1], "ranks": [2, 2], "winners": []}
    after = cut(state, EDGES)
    assert ENGINE.result(after).as_json() == {
        "scores": [16, 16],
        "ranks": [1, 1],
        "winners": [0, 1],
    }


def test_duel_round_limit_with_the_neutral_colour_among_the_most_both_get_rank_2():
    toppings = {A: Q[:2], B: R[:1], C: S[:2]}
    after = cut(position(toppings, n=2, round_number=ROUNDS - 1), EDGES)
    assert ENGINE.result(after).as_json() == {"scores": [2, 1], "ranks": [2, 2], "winners": []}


def test_duel_player_wins_and_the_other_is_second():
    toppings = {A: Q[:2], B: R[:1], C: S[:1]}
    after = cut(position(toppings, n=2, round_number=ROUNDS - 1), EDGES)
    assert ENGINE.result(after).as_json() == {"scores": [2, 1], "ranks": [1, 2], "winners": [0]}


# --- hidden information ----------------------------------------------------------------------
def with_pick(state: State, seat: int, pick: int) -> State:
    return ENGINE.apply(state, seat, {"cut": pick})


def test_views_show_a_pending_pick_to_its_owner_only():
    state = position({A: Q[:2], B: R[:2], C: S[:2]})
    for seat in (A, B):
        views = {}
        for pick in range(1, 7):
            picked = with_pick(state, A, pick)
            view = ENGINE.view(picked, seat)
            views[pick] = json.dumps(view, sort_keys=True)
            assert [c["picked"] for c in view["colours"]] == [True, False, False]
            assert view["your_pick"] == (pick if seat == A else None)
        distinct = len(set(views.values()))
        assert distinct == (6 if seat == A else 1)
    spectator = {json.dumps(ENGINE.view(with_pick(state, A, p), None)) for p in range(1, 7)}
    assert len(spectator) == 1


def test_records_show_a_pending_pick_to_its_owner_only():
    state = ENGINE.apply(position({A: Q[:2], B: R[:2], C: S[:2]}), B, {"cut": 3})
    for pick in range(1, 7):
        picked = with_pick(state, A, pick)
        mine = export_record(ENGINE, picked, ["a", "b", "c"], viewer=A)["moves"]
        assert mine == [{"seat": 0, "cut": pick}]
        for viewer in (B, C, None):
            theirs = export_record(ENGINE, picked, ["a", "b", "c"], viewer=viewer)["moves"]
            assert theirs == ([{"seat": 1, "cut": 3}] if viewer == B else [])


def test_picks_are_revealed_to_everyone_once_all_are_in():
    state = position({A: Q[:2], B: R[:2], C: S[:2]})
    state = cut(state, (2, 5, 1))
    for viewer in (A, B, C, None):
        moves = export_record(ENGINE, state, ["a", "b", "c"], viewer=viewer)["moves"]
        assert moves == [{"seat": 0, "cut": 2}, {"seat": 1, "cut": 5}, {"seat": 2, "cut": 1}]
        assert ENGINE.view(state, viewer)["last_cut"]["picks"] == [2, 5, 1]


def test_duel_picks_stay_secret_until_the_neutral_die_is_rolled():
    state = position({A: Q[:2], B: R[:2], C: S[:2]}, n=2)
    views = set()
    for pick in range(1, 7):
        picked = with_pick(with_pick(state, A, pick), B, 4)
        assert ENGINE.to_move(picked) == [CHANCE]
        views.add(json.dumps(ENGINE.view(picked, B)))
        assert export_record(ENGINE, picked, ["a", "b"], viewer=B)["moves"] == [
            {"seat": 1, "cut": 4}
        ]
    assert len(views) == 1


def test_a_record_for_another_viewer_replays_while_picks_are_pending():
    # Stop a random game half-way through a cut step and replay what seat 1 may see.
    rng = random.Random(8)
    state = ENGINE.new_game(3)
    while state["phase"] == "add":
        (seat,) = ENGINE.to_move(state)
        state = ENGINE.apply(state, seat, ENGINE.random_move(state, seat, rng))
    state = ENGINE.apply(state, A, {"cut": 6})
    _, replayed = replay(export_record(ENGINE, state, ["a", "b", "c"], viewer=B))
    assert replayed["picks"] == [None, None, None]
    assert replayed["board"] == state["board"]
    assert ENGINE.view(replayed, B)["colours"][A]["picked"] is False


# --- records ---------------------------------------------------------------------------------
def test_the_record_format_is_the_specs():
    state = ENGINE.new_game(3)
    state = ENGINE.apply(state, A, {"place": [1, -2]})
    state = ENGINE.apply(state, B, {"place": [0, 1]})
    state = ENGINE.apply(state, C, {"place": [-1, 0]})
    state = ENGINE.apply(state, B, {"cut": 4})
    state = ENGINE.apply(state, A, {"cut": 2})
    state = ENGINE.apply(state, C, {"cut": 6})
    record = export_record(ENGINE, state, ["ann", "bob", "cat"])
    assert record == {
        "format": "game-record/1",
        "game": "pizza-party",
        "players": ["ann", "bob", "cat"],
        "options": {"variant": "standard"},
        "moves": [
            {"seat": 0, "place": [1, -2]},
            {"seat": 1, "place": [0, 1]},
            {"seat": 2, "place": [-1, 0]},
            {"seat": 1, "cut": 4},
            {"seat": 0, "cut": 2},
            {"seat": 2, "cut": 6},
        ],
    }
    _, replayed = replay({**record, "options": {}})
    assert replayed == state


def test_apply_never_changes_the_state_it_is_given():
    rng = random.Random(11)
    state = ENGINE.new_game(2)
    while not ENGINE.is_over(state):
        before = copy.deepcopy(state)
        seat = rng.choice(ENGINE.to_move(state))
        move = ENGINE.random_step(state, seat, rng)
        after = ENGINE.apply(state, seat, move)
        assert state == before
        state = after
    assert json.loads(json.dumps(state)) == state


@pytest.mark.parametrize("path", golden_cases("pizza-party"), ids=lambda p: p.stem)
def test_golden_playthrough_replays_to_its_result(path):
    case = load_case(path)
    if "result" in case:
        engine, state = replay(case["record"])
        assert engine is ENGINE
        assert ENGINE.is_over(state)
        assert ENGINE.result(state).as_json() == case["result"]
    elif case["error"].endswith("the record ends before the game is over"):
        _, state = replay(case["record"])
        assert not ENGINE.is_over(state)
    else:
        with pytest.raises(ReplayError) as caught:
            replay(case["record"])
        assert str(caught.value) == case["error"]


# --- the move log and the breakdown ----------------------------------------------------------
def test_a_placement_reads_as_adding_a_topping_on_its_cell():
    state = ENGINE.new_game(2)
    assert str(ENGINE.describe_move(state, A, {"place": [1, -2]})) == (
        "seat 0 adds a topping on [1, -2]."
    )
    state = ENGINE.apply(ENGINE.apply(state, A, {"place": [1, -2]}), B, {"place": [0, 1]})
    assert str(ENGINE.describe_move(state, CHANCE, {"place": [-1, -1]})) == (
        "The neutral colour adds a topping on [-1, -1]."
    )


def test_the_pick_that_closes_the_step_also_tells_what_the_cut_did():
    state = position({A: [(3, -3), (3, -2)], B: [(3, 0), (0, 0), (1, 1)], C: [(-3, 0)]})
    assert str(ENGINE.describe_move(state, B, {"cut": 6})) == "seat 1 picks cut 6."
    state = ENGINE.apply(ENGINE.apply(state, A, {"cut": 6}), B, {"cut": 6})
    # Strict majority of A in the row q = 3: B's [3, 0] goes, A fills it.
    assert str(ENGINE.describe_move(state, C, {"cut": 6})) == (
        "seat 2 picks cut 6. Toppings removed by the cut: 1; cells refilled: 1."
    )
    calm = position({A: [(3, -3)], B: [(-3, 3)], C: [(0, -3)]}, n=2)
    calm = ENGINE.apply(ENGINE.apply(calm, A, {"cut": 6}), B, {"cut": 6})
    assert str(ENGINE.describe_move(calm, CHANCE, {"cut": 6})) == (
        "The neutral colour's die shows 6. The cut changes nothing."
    )


def test_the_picks_of_a_round_are_one_simultaneous_step():
    state = position({A: [(3, -3)], B: [(-3, 3)], C: [(0, -3)]}, round_number=4)
    assert ENGINE.simultaneous_step(state) == "cut-4"
    state = ENGINE.apply(ENGINE.apply(state, A, {"cut": 6}), B, {"cut": 6})
    assert ENGINE.simultaneous_step(state) == "cut-4"
    after = ENGINE.apply(state, C, {"cut": 6})
    assert after["phase"] == "add" and ENGINE.simultaneous_step(after) is None
    duel = position({A: [(3, -3)], B: [(-3, 3)], C: [(0, -3)]}, n=2)
    duel = ENGINE.apply(ENGINE.apply(duel, A, {"cut": 6}), B, {"cut": 6})
    assert ENGINE.to_move(duel) == [CHANCE] and ENGINE.simultaneous_step(duel) is None


def test_the_variant_follows_from_the_number_of_players_so_a_table_chooses_no_option():
    assert ENGINE.table_options(2) == () == ENGINE.table_options(3)


def test_the_breakdown_counts_toppings_on_the_board_cells_won_and_toppings_lost():
    state = position({A: [(3, -3), (3, -2)], B: [(3, 0), (0, 0), (1, 1)], C: [(-3, 0)]})
    after = cut(state, EDGES)
    assert ENGINE.breakdown(after) == [
        {"on_board": 3, "won": 1, "lost": 0},
        {"on_board": 2, "won": 0, "lost": 1},
        {"on_board": 1, "won": 0, "lost": 0},
    ]


# --- what a seat cannot see, re-dealt ---------------------------------------------------------
def test_redeal_hidden_draws_the_other_colours_pending_picks_again():
    state = position({A: [(3, -3)], B: [(-3, 3)], C: [(0, -3)]})
    state = ENGINE.apply(ENGINE.apply(state, A, {"cut": 2}), B, {"cut": 5})
    rng = random.Random(1)
    for_a = [ENGINE.redeal_hidden(state, A, rng) for _ in range(20)]
    assert all(twin["picks"][A] == 2 and twin["picks"][C] is None for twin in for_a)
    assert len({twin["picks"][B] for twin in for_a}) > 1
    assert all(twin["log"][-1] == [B, {"cut": twin["picks"][B], "secret": True}] for twin in for_a)
    spectator = [ENGINE.redeal_hidden(state, None, rng)["picks"][A] for _ in range(20)]
    assert len(set(spectator)) > 1


def test_a_state_sampled_from_a_view_keeps_your_pick_and_draws_the_others():
    state = position({A: [(3, -3)], B: [(-3, 3)], C: [(0, -3)]}, round_number=3)
    state = ENGINE.apply(ENGINE.apply(state, A, {"cut": 2}), B, {"cut": 5})
    sample = ENGINE.sample_state(ENGINE.view(state, A), random.Random(2))
    assert sample["picks"][A] == 2 and sample["picks"][B] in range(1, 7)
    assert sample["picks"][C] is None
    for key in ("board", "supply", "round", "phase", "won", "lost", "options"):
        assert sample[key] == state[key], key
