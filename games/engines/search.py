"""The level-3 bots' search: determinized Monte Carlo over the seat's information set.

A bot sees its seat's view, not the state. Each iteration of the search re-deals what the seat
cannot see (``Engine.sample_state``: a world the seat cannot tell from the real one), plays one of
its candidate moves there and plays the world out with a cheap policy; the candidates share the
iterations by UCB1, so the promising ones are looked at most, and the move played is the one
looked at most. Every iteration draws a new world, so no candidate is judged on one lucky deal,
and nothing the seat cannot see steers the choice (this is the root of an information-set MCTS).

The budget is either a number of iterations (reproducible: tests use it) or a time per move (the
site: ``BOT_LEVEL3_BUDGET`` seconds, default 1). Reading the clock is the bots' business, never the
rules': the engines stay pure.
"""

from __future__ import annotations

import contextlib
import math
import random
import time
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from .base import Move, State


@dataclass(frozen=True)
class Budget:
    """How long a level-3 bot thinks about one move: ``seconds`` of wall time, or exactly
    ``iterations`` re-dealt worlds when set (the same seed then gives the same move)."""

    seconds: float = 1.0
    iterations: int | None = None


#: The budget of a search outside any ``budget`` block (the site sets it once, at start-up).
_default_budget = Budget()
_BUDGET: ContextVar[Budget | None] = ContextVar("level3_budget", default=None)

#: The exploration constant of UCB1 on rewards between 0 and 1.
EXPLORATION = 0.6


def current_budget() -> Budget:
    return _BUDGET.get() or _default_budget


def set_default_budget(chosen: Budget) -> None:
    """The budget of every search outside a ``budget`` block, in every thread (the site sets it
    at start-up from ``BOT_LEVEL3_BUDGET``)."""
    global _default_budget
    _default_budget = chosen


@contextlib.contextmanager
def budget(seconds: float = 1.0, iterations: int | None = None) -> Iterator[Budget]:
    """Think with this budget inside the block: ``with budget(iterations=64): ...``."""
    chosen = Budget(seconds, iterations)
    token = _BUDGET.set(chosen)
    try:
        yield chosen
    finally:
        _BUDGET.reset(token)


#: Plays one world out after the hero's move and says how good it ended for the hero, 0 to 1.
Rollout = Callable[[State, int, random.Random], float]


def search_move(
    sample: Callable[[random.Random], State],
    advance: Callable[[State, Move], State],
    candidates: Sequence[Move],
    seat: int,
    rollout: Rollout,
    rng: random.Random,
    chosen: Budget | None = None,
) -> Move:
    """The candidate that UCB1 looked at most over re-dealt worlds. ``sample(rng)`` re-deals a
    world from the view, ``advance(world, move)`` plays the hero's move there."""
    if len(candidates) == 1:
        return candidates[0]
    chosen = chosen or current_budget()
    visits = [0] * len(candidates)
    totals = [0.0] * len(candidates)
    deadline = time.perf_counter() + chosen.seconds
    done = 0
    while True:
        if chosen.iterations is not None:
            if done >= chosen.iterations:
                break
        elif done >= len(candidates) and time.perf_counter() >= deadline:
            break
        pick = _ucb_pick(visits, totals, done)
        world = advance(sample(rng), candidates[pick])
        totals[pick] += rollout(world, seat, rng)
        visits[pick] += 1
        done += 1
    # The most visited is the most robust choice; the mean breaks ties.
    best = max(range(len(candidates)), key=lambda i: (visits[i], totals[i] / max(visits[i], 1), -i))
    return candidates[best]


def _ucb_pick(visits: list[int], totals: list[float], done: int) -> int:
    for index, count in enumerate(visits):
        if count == 0:
            return index
    log_done = math.log(done)
    return max(
        range(len(visits)),
        key=lambda i: totals[i] / visits[i] + EXPLORATION * math.sqrt(log_done / visits[i]),
    )


def outcome_reward(scores: Sequence[float], ranks: Sequence[int], seat: int, scale: float) -> float:
    """How good an ended game is for ``seat``, 0 to 1: mostly whether it came first (a tie for
    first shares the win), partly its margin over its best rival (``scale`` points is a clear
    lead), so that among moves that win alike the one that wins by more is preferred."""
    first = [s for s, rank in enumerate(ranks) if rank == 1]
    win = 1.0 / len(first) if seat in first else 0.0
    rival = max(score for s, score in enumerate(scores) if s != seat)
    margin = (scores[seat] - rival) / scale
    return 0.75 * win + 0.25 * (0.5 + 0.5 * math.tanh(margin))


def worlds_from_view(engine: Any, view: dict[str, Any]) -> Callable[[random.Random], State]:
    return lambda rng: engine.sample_state(view, rng)
