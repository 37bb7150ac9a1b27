"""The ceiling benchmark's clairvoyant level 3 (``bench/bench_cafe_fatal_ceiling.py``) really
plays its playouts on the game's future: the dice its search rolls are the dice the game rolls."""

from __future__ import annotations

import random
from typing import Any

from bench.bench_cafe_fatal_ceiling import PLAYERS, Seat, Tape, clairvoyant, perfect, play
from games.engines import CHANCE
from games.engines.cafe_fatal import ENGINE

SEED = 4


def _real_chance(seed: int, state: dict[str, Any]) -> dict[tuple[Any, ...], Any]:
    """Every chance move the finished game ``state`` made, by its tape key."""
    replay = ENGINE.new_game(PLAYERS)
    real = {}
    for seat, move in state["log"]:
        if seat == CHANCE:
            real[Tape.key(replay)] = move
        replay = ENGINE.advance(replay, seat, move)
    return real


class RecordingTape(Tape):
    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.seen: dict[tuple[Any, ...], Any] = {}

    def chance(self, state, rng=None):
        move = super().chance(state, rng)
        self.seen[self.key(state)] = move
        return move


def _first_decision(state: dict[str, Any], hero: int) -> tuple[dict[str, Any], Any]:
    """The state at the hero's first decision with more than one placement, and the next roll
    the game made after it (another seat's, in the same round)."""
    replay = ENGINE.new_game(PLAYERS)
    log = state["log"]
    for index, (seat, move) in enumerate(log):
        if seat == hero and len(ENGINE.placements(replay, hero)) > 1:
            return replay, next(m for s, m in log[index + 1 :] if s == CHANCE)
        replay = ENGINE.advance(replay, seat, move)
    raise AssertionError("the hero never had a choice")


def test_a_game_plays_its_tape_whatever_the_moves():
    _, _, state = play(SEED, clairvoyant, iterations=20, candidates=5)
    real = _real_chance(SEED, state)
    assert any(key[0] == "roll" for key in real)
    fresh = Tape(SEED)
    # A new tape of the seed knows the game's dice before any move: the future is the seed's.
    for key, move in real.items():
        replay_state = _state_for(key)
        assert fresh.chance(replay_state) == move
    # The engine's own draws are other dice: the tape is what the clairvoyant hero knows more.
    honest = random.Random(0)
    assert any(ENGINE.sample_chance(_state_for(key), honest) != move for key, move in real.items())


def _state_for(key: tuple[Any, ...]) -> dict[str, Any]:
    """A state whose chance move has ``key`` (what ``Tape.chance`` reads of it)."""
    state = ENGINE.new_game(PLAYERS)
    if key[0] == "serve":
        return {**state, "round": key[1]}
    _, round_, seat, left = key
    remaining = [6] * PLAYERS
    remaining[seat] = left
    return {**state, "round": round_, "phase": "roll", "turn": seat, "remaining": remaining}


def test_the_clairvoyant_search_rolls_the_dice_the_game_then_rolls():
    _, _, state = play(SEED, clairvoyant, iterations=20, candidates=5)
    hero = SEED % PLAYERS
    before, next_roll = _first_decision(state, hero)
    real = _real_chance(SEED, state)
    for chooser in (clairvoyant, perfect):
        tape = RecordingTape(SEED)
        rngs = [random.Random(s) for s in range(PLAYERS)]
        chooser(Seat(ENGINE.view(before, hero), tape, rngs), 10, 5)
        # The next seat's roll comes before any other move: every playout meets it.
        assert next_roll in tape.seen.values()
        shared = [key for key in tape.seen if key in real]
        assert shared
        assert all(tape.seen[key] == real[key] for key in shared)
