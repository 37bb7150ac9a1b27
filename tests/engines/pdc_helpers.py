"""Building La Part du Chef positions for the rule tests."""

from __future__ import annotations

import random
from collections import Counter

from games.engines import CHANCE
from games.engines.part_du_chef import (
    BURNT,
    ENGINE,
    KINDS,
    PIZZAS,
    SLICE_COUNTS,
    kind_of,
)


def make_deal(*first_pizzas: list[str]) -> list[list[str]]:
    """A valid deal whose first pizzas are exactly the given ones (13 codes each, a ``*`` marking a
    finisher); the remaining slices fill the later pizzas in a fixed order, burnt slice last.
    Kinds whose finisher the given pizzas do not place get it on their first remaining slice."""
    used = Counter(code.rstrip("*") for pizza in first_pizzas for code in pizza if code != BURNT)
    rest = []
    for code, count in SLICE_COUNTS.items():
        rest += [code] * (count - used[code])
    starred = {kind_of(code[:-1]) for pizza in first_pizzas for code in pizza if code.endswith("*")}
    for kind in KINDS:
        if kind not in starred:
            index = next(i for i, code in enumerate(rest) if kind_of(code) == kind)
            rest[index] += "*"
    pizzas = [list(p) for p in first_pizzas]
    while len(pizzas) < PIZZAS:
        pizzas.append([*rest[:12], BURNT])
        rest = rest[12:]
    return pizzas


def dealt(n: int, *first_pizzas: list[str], first_chef: int = 0, marianne: bool = False) -> dict:
    state = ENGINE.new_game(n, {"marianne": marianne})
    deal = {"first_chef": first_chef, "pizzas": make_deal(*first_pizzas)}
    return ENGINE.apply(state, CHANCE, {"deal": deal})


def play(state: dict, *moves: tuple[int, dict]) -> dict:
    for seat, move in moves:
        state = ENGINE.apply(state, seat, move)
    return state


def random_game(seed: int, n: int, marianne: bool = False) -> dict:
    rng = random.Random(seed)
    state = ENGINE.new_game(n, {"marianne": marianne})
    while not ENGINE.is_over(state):
        seat = ENGINE.to_move(state)[0]
        move = ENGINE.random_step(state, seat, rng)
        state = ENGINE.apply(state, seat, move)
    return state


def with_holdings(n: int, kept: list[list[str]], **extra: list[int]) -> dict:
    """A finished-looking state where seat s keeps slices with the given codes (end scoring tests).
    The codes are looked up in a standard deal so that their ids are real."""
    state = dealt(n, first_chef=0)
    by_code: dict[str, list[int]] = {}
    for slice_id in range(65):
        code = state["pizzas"][slice_id // 13][slice_id % 13]
        by_code.setdefault(code.rstrip("*"), []).append(slice_id)
    holdings = []
    for codes in kept:
        ids = [by_code[code].pop() for code in codes]
        holdings.append(sorted(ids))
    state = {**state, "kept": holdings, "round": PIZZAS, "phase": "over"}
    for key, values in extra.items():
        state[key] = values
    return state


#: Positions 0..12 of pizza 0: one chilli (10), the Reine finisher (9) and the burnt slice (12).
PIZZA_WITH_A_CHILLI = ["R2", "R2", "M2", "M2", "F1", "F1", "V1", "V1", "T1", "R2*", "C", "M3", "B"]


def five_pizzas_two_players(first_takes: tuple[int, ...] = (1, 0, 0, 0, 0)) -> dict:
    """A two-player game of ``make_deal(PIZZA_WITH_A_CHILLI)`` played to the chilli step: every
    pizza is cut at [0, 6] (portion 0 is positions 0..5, portion 1 is 6..12), the first chooser
    takes ``first_takes[k]``, the chef the other portion; nobody eats or steals.

    With the default takes, seat 0 keeps M 8, R 8, F 8, V 0, T 4, 2 chillies and 2 burnt slices;
    seat 1 keeps M 8, R 6, F 3, V 9, T 3, 1 chilli and 3 burnt slices (worked out in
    ``tests/engines/golden/part-du-chef/2p-hand-chillies.json``)."""
    state = dealt(2, PIZZA_WITH_A_CHILLI, first_chef=0)
    for take in first_takes:
        chef = ENGINE.to_move(state)[0]
        state = play(state, (chef, {"cut": [0, 6]}), (1 - chef, {"take": take}))
        state = play(state, (chef, {"take": 1 - take}))
    return state
