"""Seeded positions of Café Fatal for the bench's tests: level 1 self-play at 3 players."""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import islice

from games.engines import CHANCE, cafe_fatal_bot
from games.engines.cafe_fatal import ENGINE


def self_play(seed: int) -> Iterator[tuple[dict, int, dict]]:
    """The steps of endless seeded level 1 self-play (a new game after each): the state, who
    moves (a seat or chance), the state after the move."""
    rng = random.Random(seed)
    state = ENGINE.new_game(3)
    while True:
        if ENGINE.is_over(state):
            state = ENGINE.new_game(3)
        [mover] = ENGINE.to_move(state)
        if mover == CHANCE:
            move = ENGINE.sample_chance(state, rng)
        else:
            move = cafe_fatal_bot.placement(state, mover, rng)
        after = ENGINE.apply(state, mover, move)
        yield state, mover, after
        state = after


def decisions(count: int, seed: int) -> list[tuple[dict, int]]:
    """The first ``count`` states where the seat to place has a choice, with that seat."""
    found = (
        (state, mover)
        for state, mover, _after in self_play(seed)
        if mover != CHANCE and len(ENGINE.placements(state, mover)) > 1
    )
    return list(islice(found, count))


def shared_rounds(count: int, seed: int) -> list[dict]:
    """The first ``count`` states just after a round's share (the next serve due, or the end)."""
    found = (
        after
        for _state, _mover, after in self_play(seed)
        if after["phase"] in ("serve", "over") and after["round"] > 0
    )
    return list(islice(found, count))
