"""How far could Café Fatal's level 3 go? A clairvoyant level 3 against two level 2 bots.

Bench only, never a bot: the clairvoyant hero knows the game's real future. Every chance move of a
game comes from its ``Tape``, fixed by the seed before the game starts (the serve of round r, and
the roll of a seat in round r with k dice left: k dice drawn for that key alone), so the future does
not depend on the moves played and a playout can meet exactly the dice the game will roll. Every
seat's bot has its own random numbers (drawn from the seed and the seat), so a hero's choice
changes nothing of the others' luck either.

Heroes (``--hero``), each against two level 2 bots, the hero's seat rotating with the seed:

- ``honest``: main's level 3 (``bot_move`` at level 3), the baseline on these games;
- ``clairvoyant``: the same search, reward and budget, its playouts rolling the tape's dice;
- ``clairvoyant-own`` / ``clairvoyant-others``: the same, knowing only its own rolls in the
  round / only the others' (the rest drawn as level 3 draws them), to see which knowledge counts;
- ``perfect``: the tape's dice and the others playing in the playouts exactly as the real level
  2 bots would (their own random numbers copied), the hero's later placements by level 1; with
  nothing unknown one world a candidate is enough (``--iterations`` counts playouts).

``--candidates N`` races N of level 1's best placements (level 3 races 5). Prints the hero's
outright wins with a 95% Wilson interval, its mean margin over the best other, the CPU seconds
per game, and each seed's result (W won, T tied first, L lost) so chunks can be compared seed by
seed.

Run: ``.venv/bin/python bench/bench_cafe_fatal_ceiling.py --hero clairvoyant --iterations 200
--games 100 --first-seed 0``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bots import wilson

from games.engines import CHANCE, search
from games.engines.base import Move, State
from games.engines.cafe_fatal import ENGINE
from games.engines.cafe_fatal_bot import (
    _round_played_out,
    placement,
    round_end_reward,
    searched_placement,
    strong_placement,
)

PLAYERS = 3
OTHERS_LEVEL = 2


class Tape:
    """The chance moves of one seeded game, fixed before it starts: whatever is played, the serve
    of round r and a seat's roll with k dice left in round r are always the same."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._known: dict[tuple[Any, ...], Move] = {}

    @staticmethod
    def key(state: State) -> tuple[Any, ...]:
        """What fixes the chance move due in ``state``: the round, and for a roll the seat and
        its dice left (they only go down in a round, so a seat never rolls twice with as many)."""
        if state["phase"] == "serve":
            return ("serve", state["round"])
        seat = state["turn"]
        return ("roll", state["round"], seat, state["remaining"][seat])

    def chance(self, state: State, rng: random.Random | None = None) -> Move:
        """The chance move due in ``state`` (``rng`` is ignored: the signature of
        ``Engine.sample_chance``)."""
        key = self.key(state)
        move = self._known.get(key)
        if move is None:
            draws = random.Random(":".join(map(str, (self.seed, *key))))
            move = ENGINE.sample_chance(state, draws)
            self._known[key] = move
        return move


@dataclass
class Seat:
    """What a hero may be told at its turn: the view (all an honest bot gets) and, for the
    clairvoyant ones, the game's tape and every seat's random numbers."""

    view: dict[str, Any]
    tape: Tape
    rngs: list[random.Random]


Hero = Callable[[Seat, int, int], Move]


def honest(seat: Seat, iterations: int, candidates: int) -> Move:
    """Main's level 3, which sees the view only."""
    with search.budget(iterations=iterations):
        return ENGINE.bot_move(seat.view, seat.rngs[seat.view["you"]], 3)


def clairvoyant(seat: Seat, iterations: int, candidates: int) -> Move:
    """Level 3's search, reward and budget, its playouts rolling the game's real dice."""
    tape = seat.tape

    def rollout(state: State, me: int, rng: random.Random) -> float:
        ended, _ = _round_played_out(state, me, rng, ENGINE.advance, tape.chance)
        return round_end_reward(ended, me)

    return _search(seat, rollout, iterations, candidates)


def clairvoyant_own(seat: Seat, iterations: int, candidates: int) -> Move:
    """The clairvoyant search knowing its own rolls only (the others' drawn as level 3 does)."""
    return _partly_clairvoyant(seat, iterations, candidates, own=True)


def clairvoyant_others(seat: Seat, iterations: int, candidates: int) -> Move:
    """The clairvoyant search knowing the others' rolls only (its own drawn as level 3 does)."""
    return _partly_clairvoyant(seat, iterations, candidates, own=False)


def _partly_clairvoyant(seat: Seat, iterations: int, candidates: int, own: bool) -> Move:
    tape = seat.tape

    def chance(state: State, rng: random.Random) -> Move:
        if state["phase"] == "roll" and (state["turn"] == seat.view["you"]) == own:
            return tape.chance(state)
        return ENGINE.sample_chance(state, rng)

    def rollout(state: State, me: int, rng: random.Random) -> float:
        ended, _ = _round_played_out(state, me, rng, ENGINE.advance, chance)
        return round_end_reward(ended, me)

    return _search(seat, rollout, iterations, candidates)


def perfect(seat: Seat, iterations: int, candidates: int) -> Move:
    """The real dice and the others' real replies (level 2 with its own random numbers copied) in
    every playout; the hero's later placements by level 1."""
    tape, rngs = seat.tape, seat.rngs

    def rollout(state: State, me: int, rng: random.Random) -> float:
        copies = {other: _copy(rngs[other]) for other in range(PLAYERS) if other != me}
        while state["phase"] in ("roll", "place"):
            [mover] = ENGINE.to_move(state)
            if mover == CHANCE:
                move = tape.chance(state)
            elif mover == me:
                move = placement(state, me, rng)
            else:
                move = strong_placement(state, mover, copies[mover])
            state = ENGINE.advance(state, mover, move)
        return round_end_reward(state, me)

    return _search(seat, rollout, iterations, candidates)


def _copy(rng: random.Random) -> random.Random:
    twin = random.Random()
    twin.setstate(rng.getstate())
    return twin


def _search(seat: Seat, rollout: search.Rollout, iterations: int, candidates: int) -> Move:
    view = seat.view
    me = view["you"]
    state = ENGINE.sample_state(view, seat.rngs[me])
    budget = search.Budget(iterations=iterations)
    return searched_placement(view, state, seat.rngs[me], rollout, budget, candidates)


HEROES: dict[str, Hero] = {
    "honest": honest,
    "clairvoyant": clairvoyant,
    "clairvoyant-own": clairvoyant_own,
    "clairvoyant-others": clairvoyant_others,
    "perfect": perfect,
}


@dataclass
class Results:
    outcomes: list[str] = field(default_factory=list)
    margins: list[int] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)


def play(seed: int, hero: Hero, iterations: int, candidates: int) -> tuple[str, int, State]:
    """One game on the seed's tape, the hero in seat ``seed % 3``: its outcome (W, T or L), its
    margin over the best other, and the final state."""
    hero_seat = seed % PLAYERS
    tape = Tape(seed)
    rngs = [random.Random(f"{seed}:bot:{s}") for s in range(PLAYERS)]
    state = ENGINE.new_game(PLAYERS)
    while not ENGINE.is_over(state):
        [mover] = ENGINE.to_move(state)
        if mover == CHANCE:
            move = tape.chance(state)
        else:
            view = ENGINE.view(state, mover)
            if mover == hero_seat:
                move = hero(Seat(view, tape, rngs), iterations, candidates)
            else:
                move = ENGINE.bot_move(view, rngs[mover], OTHERS_LEVEL)
        state = ENGINE.apply(state, mover, move)
    result = ENGINE.result(state)
    firsts = [s for s, rank in enumerate(result.ranks) if rank == 1]
    outcome = "W" if firsts == [hero_seat] else "T" if hero_seat in firsts else "L"
    rival = max(score for s, score in enumerate(result.scores) if s != hero_seat)
    return outcome, result.scores[hero_seat] - rival, state


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hero", choices=sorted(HEROES), default="clairvoyant")
    parser.add_argument("--iterations", type=int, default=200, help="playouts a move")
    parser.add_argument("--candidates", type=int, default=5, help="level 1's best N raced")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--first-seed", type=int, default=0)
    args = parser.parse_args()
    results = Results()
    for seed in range(args.first_seed, args.first_seed + args.games):
        start = time.process_time()
        outcome, margin, _ = play(seed, HEROES[args.hero], args.iterations, args.candidates)
        results.cpu.append(time.process_time() - start)
        results.outcomes.append(outcome)
        results.margins.append(margin)
    wins = results.outcomes.count("W")
    low, high = wilson(wins, args.games)
    last = args.first_seed + args.games - 1
    print(
        f"{args.hero} K={args.iterations} candidates={args.candidates} seeds {args.first_seed}-"
        f"{last}: {wins}/{args.games} {100 * wins / args.games:.0f}% [{100 * low:.0f}, "
        f"{100 * high:.0f}] margin {statistics.mean(results.margins):+.1f} "
        f"cpu/game {statistics.mean(results.cpu):.2f} s {''.join(results.outcomes)}",
        flush=True,
    )


if __name__ == "__main__":
    main()
