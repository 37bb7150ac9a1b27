"""La Part du Chef, rule by rule (spec/part-du-chef.md)."""

from __future__ import annotations

import json
import random

import pytest

from games.engines import CHANCE, IllegalMove, SeatRef, get_engine
from games.engines.base import competition_ranks
from games.engines.part_du_chef import (
    ENGINE,
    SLICE_COUNTS,
    best_chilli_assignment,
    check_pizzas,
    deal_pizzas,
    portions_of_cut,
    random_assignment,
)
from games.engines.records import export_record, replay

from .pdc_helpers import dealt, five_pizzas_two_players, make_deal, play, with_holdings

# Pizza 0 of most tests: positions 0..12.
PIZZA = ["R2", "R2", "M2", "M2", "F1", "F1", "V1", "V1", "T1", "R2*", "C", "M3", "B"]
#       0     1     2     3     4     5     6     7     8     9      10   11    12


def bot_move_for(state: dict, seat: int, level: int) -> dict:
    return ENGINE.bot_move(ENGINE.view(state, seat), random.Random(0), level)


def zero(**counts: int) -> dict[str, int]:
    return {k: counts.get(k, 0) for k in "MRFVT"}


def refused(state: dict, seat: int, move: dict, words: str) -> None:
    before = json.dumps(state, sort_keys=True)
    with pytest.raises(IllegalMove, match=words):
        ENGINE.apply(state, seat, move)
    assert json.dumps(state, sort_keys=True) == before


# --- the engine on the registry ------------------------------------------------------------------
def test_the_registry_finds_the_engine_by_slug():
    assert get_engine("part-du-chef") is ENGINE
    with pytest.raises(KeyError):
        get_engine("chess")


def test_two_to_five_players():
    for n in range(2, 6):
        assert ENGINE.new_game(n)["n"] == n
    for n in (1, 6):
        with pytest.raises(IllegalMove, match="2 to 5 players"):
            ENGINE.new_game(n)


def test_unknown_or_bad_options_are_refused():
    with pytest.raises(IllegalMove, match="no option"):
        ENGINE.new_game(3, {"turbo": True})
    with pytest.raises(IllegalMove, match="must be one of"):
        ENGINE.new_game(3, {"marianne": "yes"})


# --- the deal ------------------------------------------------------------------------------------
def test_the_deal_is_a_chance_move_first():
    state = ENGINE.new_game(3)
    assert ENGINE.to_move(state) == [CHANCE]
    with pytest.raises(IllegalMove):
        ENGINE.apply(state, 0, {"cut": [0, 4, 8]})


def test_the_deal_holds_65_slices_in_five_pizzas_with_one_burnt_and_one_finisher_per_kind():
    import random

    pizzas = deal_pizzas(random.Random(1))
    check_pizzas(pizzas)
    codes = [c for p in pizzas for c in p]
    assert len(codes) == 65
    assert all(p.count("B") == 1 for p in pizzas)
    assert sorted(c[0] for c in codes if c.endswith("*")) == sorted("MRFVT")


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda p: p[0].__setitem__(0, "X9"), "code"),
        (lambda p: p[0].__setitem__(p[0].index("B"), "M2"), "burnt"),
        (lambda p: p.pop(), "5 pizzas"),
        (lambda p: p[1].append("C"), "13 slices"),
    ],
)
def test_a_deal_that_is_not_the_games_slices_is_refused(change, words):
    pizzas = make_deal()
    change(pizzas)
    with pytest.raises(IllegalMove, match=words):
        check_pizzas(pizzas)


def test_a_deal_with_two_finishers_of_a_kind_is_refused():
    pizzas = make_deal()
    plain_m = next((k, i) for k, p in enumerate(pizzas) for i, c in enumerate(p) if c == "M2")
    pizzas[plain_m[0]][plain_m[1]] = "M2*"
    with pytest.raises(IllegalMove, match="one double finisher"):
        check_pizzas(pizzas)


# --- a round -------------------------------------------------------------------------------------
def test_the_chef_of_pizza_k_is_first_chef_plus_k():
    state = dealt(4, PIZZA, first_chef=2)
    assert ENGINE.to_move(state) == [2]
    state = play(state, (2, {"cut": [0, 3, 6, 9]}), (3, {"take": 0}), (0, {"take": 1}))
    state = play(state, (1, {"take": 2}), (2, {"take": 3}))
    assert state["round"] == 1
    assert ENGINE.to_move(state) == [3]


def test_cut_portions_run_from_each_start_and_the_last_wraps_round():
    assert portions_of_cut([0, 4, 9], 0) == [[0, 1, 2, 3], [4, 5, 6, 7, 8], [9, 10, 11, 12]]
    assert portions_of_cut([11, 2, 5], 0) == [[2, 3, 4], [5, 6, 7, 8, 9, 10], [11, 12, 0, 1]]
    assert portions_of_cut([3, 12], 2) == [
        [29, 30, 31, 32, 33, 34, 35, 36, 37],
        [38, 26, 27, 28],
    ]


def test_a_cut_names_n_distinct_positions_from_0_to_12():
    state = dealt(3, PIZZA)
    refused(state, 0, {"cut": [0, 4]}, "3 portions")
    refused(state, 0, {"cut": [0, 4, 4]}, "only once")
    refused(state, 0, {"cut": [0, 4, 13]}, "0 to 12")
    refused(state, 0, {"cut": "0 4 9"}, "list")
    refused(state, 1, {"cut": [0, 4, 9]}, "not your turn")


def test_seats_to_the_chefs_left_choose_in_order_and_the_chef_last():
    state = dealt(4, PIZZA, first_chef=1)
    state = play(state, (1, {"cut": [0, 3, 6, 9]}))
    order = []
    for _ in range(4):
        seat = ENGINE.to_move(state)[0]
        order.append(seat)
        free = next(j for j, owner in enumerate(state["taken_by"]) if owner is None)
        state = ENGINE.apply(state, seat, {"take": free})
    assert order == [2, 3, 0, 1]


def test_the_chef_receives_the_last_portion():
    state = dealt(3, PIZZA)
    state = play(state, (0, {"cut": [0, 4, 8]}), (1, {"take": 2}), (2, {"take": 0}))
    refused(state, 0, {"take": 0}, "already been taken")
    state = play(state, (0, {"take": 1, "eat": [4]}))
    assert state["taken_by"] is None and state["round"] == 1
    assert 5 in state["kept"][0] and 4 in state["eaten"][0]


def test_a_taken_portion_cannot_be_taken_again():
    state = play(dealt(3, PIZZA), (0, {"cut": [0, 4, 8]}), (1, {"take": 2}))
    refused(state, 2, {"take": 2}, "already been taken")


def test_an_eaten_slice_scores_its_olives_at_once_and_every_slice_but_burnt_one_point():
    state = play(dealt(3, PIZZA), (0, {"cut": [0, 4, 8]}))
    state = play(state, (1, {"take": 2, "eat": [8, 11]}))
    # Portion 2 is T1 R2* C M3 B: olives 1 (T1) + 3 (M3); slice points 4 (the burnt one none).
    assert state["olives"][1] == 4
    assert state["slice_points"][1] == 4
    assert state["eaten"][1] == [8, 11]
    assert state["kept"][1] == [9, 10, 12]


def test_chilli_and_burnt_slices_cannot_be_eaten():
    state = play(dealt(3, PIZZA), (0, {"cut": [0, 4, 8]}))
    refused(state, 1, {"take": 2, "eat": [10]}, "chilli cannot be eaten")
    refused(state, 1, {"take": 2, "eat": [12]}, "burnt slice cannot be eaten")
    refused(state, 1, {"take": 2, "eat": [0]}, "not in portion 2")
    refused(state, 1, {"take": 2, "eat": [8, 8]}, "only once")


def test_a_finisher_steals_the_chosen_opponents_kept_slice_of_its_kind_with_the_lowest_id():
    state = play(dealt(3, PIZZA), (0, {"cut": [0, 4, 8]}))
    state = play(state, (1, {"take": 0}))  # seat 1 keeps R2 ids 0 and 1
    state = play(state, (2, {"take": 2, "steal": {"R": 1}}))
    assert state["kept"][1] == [1, 2, 3]
    assert 0 in state["kept"][2]
    assert 9 in state["kept"][2]


def test_a_steal_is_optional():
    state = play(dealt(3, PIZZA), (0, {"cut": [0, 4, 8]}), (1, {"take": 0}))
    state = play(state, (2, {"take": 2}))
    assert state["kept"][1] == [0, 1, 2, 3]


def test_a_steal_needs_an_opponent_who_keeps_a_slice_of_the_kind():
    state = play(dealt(3, PIZZA), (0, {"cut": [0, 4, 8]}))
    refused(state, 1, {"take": 2, "steal": {"R": 2}}, "keeps no Reine")
    refused(state, 1, {"take": 2, "steal": {"R": 1}}, "opponent")
    assert all("steal" not in move for move in ENGINE.legal(state, 1))


def test_a_steal_names_a_kind_by_its_one_letter():
    # "MR" and "" are substrings of "MRFVT" but no kind: refused like any other unknown name.
    state = play(dealt(3, PIZZA), (0, {"cut": [0, 4, 8]}), (1, {"take": 0}))
    for kind in ("MR", "", "X"):
        refused(state, 2, {"take": 2, "steal": {kind: 1}}, "not a kind")


def test_an_eaten_finisher_steals_nothing():
    state = play(dealt(3, PIZZA), (0, {"cut": [0, 4, 8]}), (1, {"take": 0}))
    refused(state, 2, {"take": 2, "eat": [9], "steal": {"R": 1}}, "no Reine finisher")


def test_steals_resolve_after_the_portion_is_placed_in_kind_order():
    pizza = ["M2*", "R2*", "M2", "R2", "F1", "F1", "V1", "V1", "T1", "R2", "C", "M3", "B"]
    state = play(dealt(2, pizza), (0, {"cut": [0, 2]}), (1, {"take": 1}))
    # Seat 1 keeps M2 (2), R2 (3) and more; seat 0's portion holds both finishers.
    state = play(state, (0, {"take": 0, "steal": {"R": 1, "M": 1}}))
    assert {0, 1, 2, 3} <= set(state["kept"][0])
    assert 2 not in state["kept"][1] and 3 not in state["kept"][1]


def test_slice_points_do_not_move_with_steals():
    state = play(dealt(3, PIZZA), (0, {"cut": [0, 4, 8]}), (1, {"take": 0}))
    state = play(state, (2, {"take": 2, "steal": {"R": 1}}))
    assert state["slice_points"][1] == 4
    assert state["slice_points"][2] == 4  # T1 R2* C M3, the burnt one scores none, the steal none


def test_the_game_ends_after_the_fifth_pizza_and_the_chilli_step():
    state = dealt(2, PIZZA)
    for _ in range(5):
        chef = ENGINE.to_move(state)[0]
        state = play(state, (chef, {"cut": [0, 6]}), (1 - chef, {"take": 0}), (chef, {"take": 1}))
    assert sum(len(k) + len(e) for k, e in zip(state["kept"], state["eaten"], strict=True)) == 65
    assert state["phase"] == "chillies"
    refused(state, 0, {"cut": [0, 6]}, "Assign your chillies")
    for seat in ENGINE.to_move(state):
        state = ENGINE.apply(state, seat, {"chillies": ENGINE.suggested_chillies(state, seat)})
    assert ENGINE.is_over(state)
    assert ENGINE.to_move(state) == []
    refused(state, 0, {"cut": [0, 6]}, "over")


# --- La Marianne ---------------------------------------------------------------------------------
def test_without_the_option_la_marianne_cannot_be_played():
    state = play(dealt(3, PIZZA), (0, {"cut": [0, 4, 8]}), (1, {"take": 0}), (2, {"take": 2}))
    swap = {"marianne": {"give": [4, 5], "get": [[1, 0], [2, 8]]}}
    refused(state, 0, swap, "without La Marianne")


def test_la_marianne_passes_to_each_rounds_chef():
    state = dealt(3, PIZZA, marianne=True, first_chef=1)
    assert ENGINE.marianne_holder(state) == 1
    state = play(
        state, (1, {"cut": [0, 4, 8]}), (2, {"take": 0}), (0, {"take": 1}), (1, {"take": 2})
    )
    assert ENGINE.marianne_holder(state) == 2
    assert ENGINE.view(state, 0)["marianne"] == {"in_play": True, "holder": 2}


def test_la_marianne_swaps_two_for_two_then_leaves_the_game():
    state = dealt(3, PIZZA, marianne=True)
    state = play(state, (0, {"cut": [0, 4, 8]}), (1, {"take": 0}), (2, {"take": 2}))
    state = play(state, (0, {"take": 1}))
    assert ENGINE.marianne_holder(state) == 1
    swap = {"marianne": {"give": [13, 14], "get": [[0, 4], [2, 8]]}}
    refused(state, 1, swap, "only give slices you keep")
    state = play(state, (1, {"cut": [0, 4, 8]}), (2, {"take": 0}), (0, {"take": 1}))
    points_before = list(state["slice_points"])
    swap = {"marianne": {"give": [0, 1], "get": [[0, 4], [2, 8]]}}
    state = play(state, (1, swap))
    assert {4, 8} <= set(state["kept"][1])
    assert 0 in state["kept"][0] and 1 in state["kept"][2]
    assert state["slice_points"] == points_before
    assert ENGINE.to_move(state) == [1]  # the card comes before the turn's move
    refused(state, 1, swap, "already been played")
    state = play(state, (1, {"take": 2}))
    assert ENGINE.marianne_holder(state) is None


def test_only_the_holder_plays_la_marianne_and_only_on_their_turn():
    state = dealt(3, PIZZA, marianne=True)
    state = play(state, (0, {"cut": [0, 4, 8]}), (1, {"take": 0}))
    swap = {"marianne": {"give": [0, 1], "get": [[0, 4], [0, 5]]}}
    refused(state, 1, swap, "not your turn")
    refused(state, 2, swap, "Only the chef")


def test_la_marianne_may_swap_burnt_slices_and_chillies():
    state = dealt(3, PIZZA, marianne=True)
    state = play(
        state, (0, {"cut": [0, 4, 8]}), (1, {"take": 2}), (2, {"take": 0}), (0, {"take": 1})
    )
    state = play(state, (1, {"cut": [0, 4, 8]}), (2, {"take": 0}), (0, {"take": 1}))
    swap = {"marianne": {"give": [10, 12], "get": [[0, 4], [2, 0]]}}  # a chilli and the burnt slice
    state = play(state, (1, swap))
    assert 10 in state["kept"][0] and 12 in state["kept"][2]


def test_a_marianne_swap_must_name_two_different_slices_of_other_players():
    state = dealt(3, PIZZA, marianne=True)
    state = play(state, (0, {"cut": [0, 4, 8]}), (1, {"take": 0}), (2, {"take": 2}))
    state = play(
        state, (0, {"take": 1}), (1, {"cut": [0, 4, 8]}), (2, {"take": 0}), (0, {"take": 1})
    )
    refused(state, 1, {"marianne": {"give": [0, 1], "get": [[0, 4], [0, 4]]}}, "different")
    refused(state, 1, {"marianne": {"give": [0, 0], "get": [[0, 4], [0, 5]]}}, "two different")
    refused(state, 1, {"marianne": {"give": [0, 1], "get": [[1, 2], [0, 5]]}}, "other players")
    refused(state, 1, {"marianne": {"give": [0, 1], "get": [[0, 9], [0, 5]]}}, "does not keep")


# --- end scoring ---------------------------------------------------------------------------------
def test_majority_scores_the_kinds_value_for_everyone_tied_at_the_top():
    state = with_holdings(3, [["T1", "T1", "M2"], ["T1", "T1"], ["T1", "M3", "M2"]])
    rows = ENGINE.breakdown(state)
    assert [r["majority"] for r in rows] == [11, 11, 3]


def test_a_kind_nobody_keeps_scores_nothing():
    state = with_holdings(2, [["F1"], []])
    assert [r["majority"] for r in ENGINE.breakdown(state)] == [7, 0]


def test_a_finisher_counts_one_slice_of_its_kind():
    state = dealt(2, PIZZA)
    state = {**state, "kept": [[9], [0]], "phase": "over", "round": 5}
    assert ENGINE.kind_counts(state, 0)["R"] == 1
    assert [r["majority"] for r in ENGINE.breakdown(state)] == [5, 5]


def test_the_variety_bonus_is_five_times_the_smallest_kind_count():
    two_each = ["M2", "M3", "R2", "R2", "F1", "F2", "V1", "V1", "T1", "T1"]
    state = with_holdings(2, [two_each, two_each[:-1]])
    assert [r["variety"] for r in ENGINE.breakdown(state)] == [10, 5]


def test_one_kind_missing_gives_no_variety_bonus():
    state = with_holdings(2, [["M2", "R2", "F1", "V1"], []])
    assert ENGINE.breakdown(state)[0]["variety"] == 0


def test_each_burnt_slice_held_at_the_end_costs_three():
    state = with_holdings(2, [["B", "B"], ["B"]])
    assert [r["burnt"] for r in ENGINE.breakdown(state)] == [-6, -3]


def test_a_chilli_goes_to_the_kind_that_scores_its_holder_most():
    # Alone, seat 0 would be behind on T (0 vs 1); a chilli there ties T for 11.
    assert best_chilli_assignment(zero(M=1), [zero(T=1)], 1) == zero(T=1)
    # On the missing kind a chilli both wins its majority and completes the variety bonus.
    assert best_chilli_assignment(zero(M=2, R=1, F=1, V=1), [zero(M=5, R=5, F=5, V=5)], 1) == zero(
        T=1
    )
    assert best_chilli_assignment(zero(M=3, R=3, F=3, V=3), [zero(T=9)], 1) == zero(T=1)
    # M+2 and M+1 with one more anywhere both score 37; the tie puts the second chilli on T.
    assert best_chilli_assignment(zero(T=1, V=1, F=1, R=1), [zero(M=3)], 2) == zero(M=1, T=1)


def test_a_tie_between_chilli_assignments_goes_to_the_higher_valued_kind():
    # Every assignment scores nothing: the chilli goes to T, then V, ...
    assert best_chilli_assignment(zero(), [zero(M=5, R=5, F=5, V=5, T=5)], 1) == zero(T=1)
    # Two chillies: only R can be won (5 points), with one chilli or two; the spare one goes to T.
    others = [zero(M=9, F=9, T=9, V=3)]
    assert best_chilli_assignment(zero(), others, 2) == zero(R=1, T=1)


def test_suggestions_are_judged_against_counts_without_chillies_then_apply_together():
    # Seats 0 and 1 hold one T and a chilli each; seat 2 leads every other kind. Each is told to
    # put the chilli on T, expecting to lead it 2-1; applied together, T is tied 2-2.
    rest = ["M2", "M2", "R2", "R2", "F1", "F1", "V1", "V1"]
    state = with_holdings(3, [["T1", "C"], ["T1", "C"], rest])
    assert ENGINE.suggested_chillies(state, 0) == {"T": 1} == ENGINE.suggested_chillies(state, 1)
    state = {**state, "chillies": [{"T": 1}, {"T": 1}, None]}
    assert [r["majority"] for r in ENGINE.breakdown(state)] == [11, 11, 3 + 5 + 7 + 9]


def test_the_total_adds_olives_slice_points_majority_variety_and_burnt():
    state = with_holdings(2, [["T1", "B"], ["M2"]], olives=[4, 7], slice_points=[9, 3])
    row = ENGINE.breakdown(state)[0]
    assert row == {
        "olives": 4,
        "slice_points": 9,
        "majority": 11,
        "variety": 0,
        "burnt": -3,
        "total": 21,
    }


def test_equal_totals_share_a_rank():
    assert competition_ranks([50, 61, 50, 40]) == [2, 1, 2, 4]
    state = with_holdings(3, [["T1"], ["T1"], []], olives=[0, 0, 0], slice_points=[1, 1, 0])
    result = ENGINE.result(state)
    assert result.scores == [12, 12, 0]
    assert result.ranks == [1, 1, 3]


# --- what a seat sees ---------------------------------------------------------------------------
def test_views_show_a_pizza_only_from_its_round_on():
    state = dealt(3, PIZZA)
    for seat in (0, 1, 2, None):
        view = ENGINE.view(state, seat)
        assert view["pizzas"] == [PIZZA]
        assert json.dumps(view).count('"B"') == 1
    state = play(
        state, (0, {"cut": [0, 4, 8]}), (1, {"take": 0}), (2, {"take": 1}), (0, {"take": 2})
    )
    assert len(ENGINE.view(state, 1)["pizzas"]) == 2


def test_the_record_of_a_running_game_hides_later_pizzas():
    from games.engines.records import export_record

    state = dealt(3, PIZZA)
    record = export_record(ENGINE, state, ["a", "b", "c"], viewer=0)
    assert record["pizzas"][0] == PIZZA
    assert record["pizzas"][1:] == [None] * 4


# --- the move log --------------------------------------------------------------------------------
def test_the_deal_needs_no_log_line():
    state = ENGINE.new_game(3)
    deal = {"deal": {"first_chef": 0, "pizzas": make_deal(PIZZA)}}
    assert ENGINE.describe_move(state, CHANCE, deal) is None


def test_a_cut_reads_as_the_chef_cutting_pizza_k_at_its_start_positions():
    state = dealt(3, PIZZA)
    line = ENGINE.describe_move(state, 0, {"cut": [8, 0, 4]})
    assert line.template == "{player} cuts pizza {number} at positions {cut}."
    assert line.params == {"player": SeatRef(0), "number": 1, "cut": "0, 4, 8"}
    assert str(line) == "seat 0 cuts pizza 1 at positions 0, 4, 8."


def test_a_take_names_the_portions_slices_what_is_eaten_and_each_steal():
    state = play(dealt(3, PIZZA), (0, {"cut": [0, 4, 8]}), (1, {"take": 0}))
    plain = ENGINE.describe_move(state, 2, {"take": 1})
    assert str(plain) == "seat 2 takes portion 1 (F1, F1, V1, V1)."
    move = {"take": 2, "eat": [11, 8], "steal": {"R": 1}}
    line = ENGINE.describe_move(state, 2, move)
    # Seat 1 keeps R2 slices 0 and 1: the steal takes the lowest id, an R2.
    assert str(line) == (
        "seat 2 takes portion 2 (T1, R2★, C, M3, B) and eats T1, M3. seat 2 takes R2 from seat 1."
    )
    assert line.params["rest"].params["victim"] == SeatRef(1)


def test_la_marianne_reads_as_two_swaps():
    state = dealt(3, PIZZA, marianne=True)
    state = play(
        state, (0, {"cut": [0, 4, 8]}), (1, {"take": 2}), (2, {"take": 0}), (0, {"take": 1})
    )
    state = play(state, (1, {"cut": [0, 4, 8]}), (2, {"take": 0}), (0, {"take": 1}))
    swap = {"marianne": {"give": [10, 12], "get": [[0, 4], [2, 0]]}}
    assert str(ENGINE.describe_move(state, 1, swap)) == (
        "seat 1 plays La Marianne: gives C to seat 0 for F1, and B to seat 2 for R2."
    )


def test_the_breakdown_columns_are_the_replay_keys_in_order():
    keys = [column.key for column in ENGINE.breakdown_columns]
    assert keys == ["olives", "slice_points", "majority", "variety", "burnt", "total"]


# --- the chilli step (revised spec) ----------------------------------------------------------
def test_after_the_last_portion_every_chilli_holder_assigns_chillies_in_one_secret_step():
    state = five_pizzas_two_players()
    assert state["phase"] == "chillies" and not ENGINE.is_over(state)
    assert ENGINE.to_move(state) == [0, 1]  # seat 0 keeps 2 chillies, seat 1 keeps 1
    assert ENGINE.simultaneous_step(state) == "chillies"


def test_only_chilli_holders_assign_and_in_any_order():
    state = five_pizzas_two_players()
    state = ENGINE.apply(state, 1, {"chillies": {"T": 1}})
    assert ENGINE.to_move(state) == [0]
    refused(state, 1, {"chillies": {"T": 1}}, "already assigned")
    state = ENGINE.apply(state, 0, {"chillies": {"V": 2}})
    assert ENGINE.is_over(state) and ENGINE.simultaneous_step(state) is None
    nobody = with_holdings(2, [["C"], ["T1"]])
    nobody = {**nobody, "phase": "chillies", "chillies": [None, None], "chillies_held": [1, 0]}
    assert ENGINE.to_move(nobody) == [0]
    refused(nobody, 1, {"chillies": {}}, "keep no chilli")


@pytest.mark.parametrize(
    "assignment, words",
    [
        ({"X": 2}, "not a kind"),
        ({"MR": 2}, "not a kind"),
        ({"V": "2"}, "whole numbers"),
        ({"V": 1.0, "T": 1}, "whole numbers"),
        ({"V": True, "T": 1}, "whole numbers"),
        ({"V": 3, "T": -1}, "whole numbers"),
        ({"V": 1}, "as many chillies as you keep: 2"),
        ({"V": 2, "T": 1}, "as many chillies as you keep: 2"),
        ([["V", 2]], "maps kind letters"),
    ],
)
def test_a_bad_chilli_assignment_is_refused_with_a_sentence(assignment, words):
    refused(five_pizzas_two_players(), 0, {"chillies": assignment}, words)


def test_a_chilli_assignment_is_the_only_move_of_the_step():
    state = five_pizzas_two_players()
    refused(state, 0, {"chillies": {"V": 2}, "take": 0}, "Assign your chillies")
    refused(state, 0, {"cut": [0, 6]}, "Assign your chillies")
    several = ENGINE.apply(state, 0, {"chillies": {"M": 0, "V": 1, "T": 1}})
    assert several["chillies"][0] == {"V": 1, "T": 1}


def test_until_every_holder_has_chosen_nobody_sees_another_ones_choice():
    state = five_pizzas_two_players()
    suggested = ENGINE.apply(state, 1, {"chillies": {"T": 1}})
    different = ENGINE.apply(state, 1, {"chillies": {"M": 1}})
    for viewer in (0, None):
        assert ENGINE.view(suggested, viewer) == ENGINE.view(different, viewer)
        theirs = export_record(ENGINE, suggested, ["a", "b"], viewer)
        assert theirs == export_record(ENGINE, different, ["a", "b"], viewer)
        assert not any("chillies" in move for move in theirs["moves"])
    seen = ENGINE.view(suggested, 0)["chillies"]
    assert seen["chosen"] == [False, True] and seen["assignments"] == [None, None]
    assert ENGINE.view(different, 1)["chillies"]["assignments"] == [None, {"M": 1}]
    assert export_record(ENGINE, different, ["a", "b"], 1)["moves"][-1] == {
        "seat": 1,
        "chillies": {"M": 1},
    }


def test_once_the_last_choice_is_in_all_are_revealed_and_scored_as_chosen():
    state = five_pizzas_two_players()
    state = play(state, (1, {"chillies": {"M": 1}}), (0, {"chillies": {"V": 2}}))
    for viewer in (0, 1, None):
        assert ENGINE.view(state, viewer)["chillies"]["assignments"] == [{"V": 2}, {"M": 1}]
        moves = export_record(ENGINE, state, ["a", "b"], viewer)["moves"]
        assert moves[-2:] == [{"seat": 1, "chillies": {"M": 1}}, {"seat": 0, "chillies": {"V": 2}}]
    rows = ENGINE.breakdown(state)
    # Seat 1's chilli on M makes M 9 against 8: seat 1 alone scores M (3) and V (9); seat 0
    # keeps R (5), F (7) and T (4 against 3: 11). Had seat 1 followed its suggestion (T), T
    # would be tied 4-4 and M 8-8 (tests below).
    assert [row["majority"] for row in rows] == [5 + 7 + 11, 3 + 9]
    assert [row["variety"] for row in rows] == [5 * 2, 5 * 3]


def test_the_suggested_assignment_is_offered_to_its_holder_only():
    state = five_pizzas_two_players()
    # Seat 0 (M 8, R 8, F 8, V 0, T 4 against M 8, R 6, F 3, V 9, T 3): two chillies on V lift
    # the variety bonus from 0 to 10, more than any majority they could add. Seat 1: one chilli
    # on T ties T 4-4 for 11.
    assert ENGINE.suggested_chillies(state, 0) == {"V": 2}
    assert ENGINE.suggested_chillies(state, 1) == {"T": 1}
    assert ENGINE.view(state, 0)["chillies"]["suggested"] == {"V": 2}
    assert ENGINE.view(state, 1)["chillies"]["suggested"] == {"T": 1}
    assert ENGINE.view(state, None)["chillies"]["suggested"] is None
    after = ENGINE.apply(state, 1, {"chillies": {"M": 1}})
    assert ENGINE.view(after, 1)["chillies"]["suggested"] is None


def test_bots_assign_the_suggestion():
    state = five_pizzas_two_players()
    for level in ENGINE.bot_levels:
        for seat, expected in ((0, {"V": 2}), (1, {"T": 1})):
            move = bot_move_for(state, seat, level)
            assert move == {"chillies": expected}


def test_a_record_that_stops_before_every_holder_has_chosen_is_a_running_match():
    state = ENGINE.apply(five_pizzas_two_players(), 1, {"chillies": {"T": 1}})
    record = export_record(ENGINE, state, ["a", "b"], viewer=1)
    _, replayed = replay(record)
    assert not ENGINE.is_over(replayed) and ENGINE.to_move(replayed) == [0]


def test_a_chilli_assignment_reads_as_counts_per_kind():
    state = five_pizzas_two_players()
    line = ENGINE.describe_move(state, 0, {"chillies": {"T": 1, "V": 1}})
    assert str(line) == "seat 0 assigns their chillies: 1 × Végétarienne, 1 × Truffe."


def test_an_eaten_finisher_scores_its_olives_and_its_slice_point_and_steals_nothing():
    state = play(dealt(3, PIZZA), (0, {"cut": [0, 4, 8]}), (1, {"take": 0}))
    state = play(state, (2, {"take": 2, "eat": [9]}))
    # Portion 2 is T1 R2* C M3 B: R2* eaten scores its 2 olives; slice points for T1, R2*, C and
    # M3 (the burnt one none); seat 1 keeps both its Reines.
    assert state["olives"][2] == 2
    assert state["slice_points"][2] == 4
    assert state["kept"][1] == [0, 1, 2, 3]


# --- what a seat cannot see, re-dealt -------------------------------------------------------------
def test_redeal_hidden_deals_the_unrevealed_pizzas_anew_and_keeps_the_revealed_ones():
    state = play(dealt(3, PIZZA), (0, {"cut": [0, 4, 8]}))
    twin = ENGINE.redeal_hidden(state, 1, random.Random(1))
    assert twin["pizzas"][0] == PIZZA
    assert twin["pizzas"][1:] != state["pizzas"][1:]
    check_pizzas(twin["pizzas"])
    assert twin["log"][0] == [CHANCE, {"deal": {"first_chef": 0, "pizzas": twin["pizzas"]}}]
    assert twin["log"][1:] == state["log"][1:]
    # Every pizza has been seen once the last round starts: nothing is left to re-deal.
    last = {**state, "round": 4}
    assert ENGINE.redeal_hidden(last, 1, random.Random(1))["pizzas"] == state["pizzas"]


def test_redeal_hidden_chooses_again_for_the_others_pending_chilli_choices():
    state = ENGINE.apply(five_pizzas_two_players(), 1, {"chillies": {"M": 1}})
    rng = random.Random(2)
    redealt = [ENGINE.redeal_hidden(state, 0, rng)["chillies"][1] for _ in range(20)]
    assert {"M": 1} in redealt and len({json.dumps(c) for c in redealt}) > 1
    assert all(sum(choice.values()) == 1 for choice in redealt)
    assert ENGINE.redeal_hidden(state, 1, rng)["chillies"] == [None, {"M": 1}]


def test_a_state_sampled_from_a_view_keeps_what_the_view_shows_and_deals_the_rest():
    state = play(dealt(3, PIZZA, marianne=True), (0, {"cut": [0, 4, 8]}), (1, {"take": 0}))
    view = ENGINE.view(state, 2)
    sample = ENGINE.sample_state(view, random.Random(3))
    assert sample["pizzas"][0] == PIZZA and sample["pizzas"][1:] != state["pizzas"][1:]
    check_pizzas(sample["pizzas"])
    for key in ("phase", "round", "cut", "portions", "taken_by", "kept", "eaten", "chillies"):
        assert sample[key] == state[key], key
    assert sample["marianne_used"] is False and sample["log"] == []


# --- the random player's draws -------------------------------------------------------------------
# Random bots, load generators and the playouts draw with int(rng.random() * k) instead of
# rng.choice / rng.sample / rng.shuffle (cheaper): each draw must stay uniform over its choices.
def chi_square(counts: list[int], expected: list[float]) -> float:
    return sum((c - e) ** 2 / e for c, e in zip(counts, expected, strict=True))


def within_chance(observed: int, draws: int, p: float) -> bool:
    """``observed`` successes in ``draws`` within four standard deviations of ``p``."""
    return abs(observed - draws * p) <= 4 * (draws * p * (1 - p)) ** 0.5


def chi_square_bound(categories: int) -> float:
    # About the 0.01% tail of a chi-square with categories - 1 degrees of freedom.
    df = categories - 1
    return df + 4 * (2 * df) ** 0.5


def test_a_random_cut_is_any_set_of_start_positions_equally_likely():
    state = dealt(2, PIZZA)
    rng = random.Random(5)
    draws = 78 * 100  # 78 cuts of 13 positions for two players
    cuts: dict[tuple[int, ...], int] = {}
    for _ in range(draws):
        move = ENGINE.random_move(state, 0, rng)
        ENGINE.check(state, 0, move)
        cuts[tuple(move["cut"])] = cuts.get(tuple(move["cut"]), 0) + 1
    assert len(cuts) == 78
    assert chi_square(list(cuts.values()), [100.0] * 78) < chi_square_bound(78)


def test_a_random_take_draws_the_portion_each_eat_and_each_steal_evenly():
    # Seat 2 chooses between portions 1 and 2; portion 2 holds the R2* and seat 1 keeps Reines.
    state = play(dealt(3, PIZZA), (0, {"cut": [0, 4, 8]}), (1, {"take": 0}))
    rng = random.Random(6)
    draws = 4000
    takes_two = eats_t1 = steals = keeps_finisher = 0
    for _ in range(draws):
        move = ENGINE.random_move(state, 2, rng)
        ENGINE.check(state, 2, move)
        if move["take"] == 2:
            takes_two += 1
            eats_t1 += 8 in move["eat"]
            if 9 not in move["eat"]:
                keeps_finisher += 1
                steals += move.get("steal") == {"R": 1}
    assert within_chance(takes_two, draws, 1 / 2)
    assert within_chance(eats_t1, takes_two, 1 / 2)
    assert within_chance(keeps_finisher, takes_two, 1 / 2)
    assert within_chance(steals, keeps_finisher, 1 / 2)  # steal from seat 1 or not


def test_a_random_chilli_assignment_puts_each_chilli_on_any_kind_evenly():
    rng = random.Random(7)
    counts = dict.fromkeys("MRFVT", 0)
    for _ in range(5000):
        for kind, count in random_assignment(2, rng).items():
            counts[kind] += count
    assert chi_square(list(counts.values()), [2000.0] * 5) < chi_square_bound(5)


def test_the_deal_draws_the_first_chef_each_slice_each_finisher_and_each_burnt_place_evenly():
    rng = random.Random(8)
    deals = 3000
    chefs = [0] * 3
    burnt_at = [0] * 13
    first_slice = dict.fromkeys(SLICE_COUNTS, 0)
    m3_finisher = f2_finisher = 0
    for _ in range(deals):
        deal = ENGINE.sample_chance(ENGINE.new_game(3), rng)["deal"]
        check_pizzas(deal["pizzas"])
        chefs[deal["first_chef"]] += 1
        codes = [code for pizza in deal["pizzas"] for code in pizza]
        m3_finisher += "M3*" in codes
        f2_finisher += "F2*" in codes
        for pizza in deal["pizzas"]:
            burnt_at[pizza.index("B")] += 1
        first = next(code for code in deal["pizzas"][0] if code != "B")
        first_slice[first.rstrip("*")] += 1
    assert chi_square(chefs, [deals / 3] * 3) < chi_square_bound(3)
    assert chi_square(burnt_at, [deals * 5 / 13] * 13) < chi_square_bound(13)
    expected = [deals * count / 60 for count in SLICE_COUNTS.values()]
    assert chi_square(list(first_slice.values()), expected) < chi_square_bound(len(SLICE_COUNTS))
    assert within_chance(m3_finisher, deals, 8 / 16)  # 8 M2 and 8 M3
    assert within_chance(f2_finisher, deals, 5 / 11)  # 6 F1 and 5 F2
