"""Analysis after the game: one decision set beside the move level 3 would have made.

Pure, like the engines: given what the seat saw (its ``view`` of the state before the move), the
move it played and a budget, ``judge_decision`` asks the engine's strongest bot for its move and
plays both moves out on the same re-dealt worlds (``Engine.sample_state``: what the seat could not
see is dealt anew in each), so the two moves are compared on the same deals and the same luck
(common random numbers). The judgement uses only what the player could know at that moment: the
analysis of a seat never reads the state, only its view.

The worlds are played out to the end of the game by ``Engine.playout_outcome``: by default every
seat with ``Engine.playout_move`` (random) and chance drawn; an engine may play its own cheap,
sensible policy on a lean state (La Part du Chef plays level 3's). Each playout gives the seat's
final rank and score. The site's worker hands rounds of decisions to its thinking pool
(``judge_round``, pure, in a process of its own) and saves what comes back. The loss of a
decision is how much worse the played move's expected rank is than level 3's choice's, and it is
flagged only when it is large and clearly more than the noise of the worlds drawn.
"""

from __future__ import annotations

import json
import logging
import math
import os
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from . import search
from .base import Engine, Move, State
from .registry import get_engine

logger = logging.getLogger(__name__)

#: A decision whose expected rank is worse than level 3's by this much is a mistake ("?")...
MISTAKE_RANK_LOSS = 0.2
#: ... and by this much a blunder ("??").
BLUNDER_RANK_LOSS = 0.4
#: A loss is flagged only when it stands this many standard errors above zero (the worlds drawn
#: are few when the budget is short: a loss that is only noise is not a mistake).
CONFIDENCE_Z = 2.0
#: Fewer worlds than this judge nothing (a loss measured on two deals says nothing).
MIN_WORLDS_TO_FLAG = 4
#: Mixed into a world's seed to draw its playouts' luck (apart from its deal).
PLAYOUT_SALT = 0xA11A


@dataclass(frozen=True)
class Judgement:
    """One decision beside level 3's choice, measured over ``worlds`` re-dealt worlds."""

    best: Move
    same: bool
    played_rank: float
    best_rank: float
    played_score: float
    best_score: float
    worlds: int
    #: The standard error of the mean rank loss (paired over the worlds).
    rank_loss_error: float

    @property
    def rank_loss(self) -> float:
        """How much worse (higher) the played move's expected rank is than level 3's."""
        return self.played_rank - self.best_rank

    @property
    def score_loss(self) -> float:
        return self.best_score - self.played_score

    @property
    def flag(self) -> str:
        """ "??" for a blunder, "?" for a mistake, "" otherwise."""
        if self.same or self.worlds < MIN_WORLDS_TO_FLAG:
            return ""
        if self.rank_loss <= CONFIDENCE_Z * self.rank_loss_error:
            return ""
        if self.rank_loss >= BLUNDER_RANK_LOSS:
            return "??"
        if self.rank_loss >= MISTAKE_RANK_LOSS:
            return "?"
        return ""

    def as_json(self) -> dict[str, Any]:
        return {
            "best": self.best,
            "same": self.same,
            "played_rank": round(self.played_rank, 3),
            "best_rank": round(self.best_rank, 3),
            "played_score": round(self.played_score, 2),
            "best_score": round(self.best_score, 2),
            "rank_loss": round(self.rank_loss, 3),
            "score_loss": round(self.score_loss, 2),
            "worlds": self.worlds,
            "flag": self.flag,
        }


def analysis_level(engine: Engine) -> int:
    """The bot level whose choice a decision is compared with: the engine's strongest."""
    return max(engine.bot_levels)


def same_move(first: Move, second: Move) -> bool:
    return json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)


def judge_decision(
    engine: Engine,
    view: dict[str, Any],
    played: Move,
    chosen: search.Budget,
    rng: random.Random,
) -> Judgement:
    """``played`` (by the seat of ``view``) beside level 3's choice from the same view. Half the
    budget goes to level 3's search, the rest to playing both moves out on the same worlds (at
    least one); ``iterations``, when set, counts each half: search playouts, then worlds."""
    seat = view["you"]
    # The playouts end when the whole budget is spent, so a search that ran over eats into them.
    deadline = time.perf_counter() + chosen.seconds
    half = search.Budget(chosen.seconds / 2, chosen.iterations)
    with search.thinking_for(half):
        best = engine.bot_move(view, random.Random(rng.getrandbits(64)), analysis_level(engine))
    same = same_move(best, played)
    moves = [played] if same else [played, best]
    ranks: list[list[int]] = [[] for _ in moves]
    scores: list[list[int]] = [[] for _ in moves]
    while _within(half, len(ranks[0]), deadline):
        world_seed = rng.getrandbits(64)
        world = engine.sample_state(view, random.Random(world_seed))
        for index, move in enumerate(moves):
            after = engine.advance(world, seat, move)
            end_scores, end_ranks = engine.playout_outcome(
                after, random.Random(world_seed ^ PLAYOUT_SALT)
            )
            ranks[index].append(end_ranks[seat])
            scores[index].append(end_scores[seat])
    best_index = 0 if same else 1
    losses = [p - b for p, b in zip(ranks[0], ranks[best_index], strict=True)]
    return Judgement(
        best=best,
        same=same,
        played_rank=_mean(ranks[0]),
        best_rank=_mean(ranks[best_index]),
        played_score=_mean(scores[0]),
        best_score=_mean(scores[best_index]),
        worlds=len(losses),
        rank_loss_error=_standard_error(losses),
    )


def _within(chosen: search.Budget, worlds: int, deadline: float) -> bool:
    if chosen.iterations is not None:
        return worlds < chosen.iterations
    # Both moves meet at least one world, however short the time.
    return worlds == 0 or time.perf_counter() < deadline


def _mean(values: list[int]) -> float:
    return sum(values) / len(values)


def _standard_error(values: list[int]) -> float:
    if len(values) < 2:
        return math.inf
    mean = _mean(values)
    variance = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return math.sqrt(variance / len(values))


# --- a round of decisions, where the site's worker hands them over (its pool of processes) -------
@dataclass(frozen=True)
class Decision:
    """One decision to judge: the move's number in the record, the seat, the state before the
    move (the match is over: only ``decision_entry`` reads it, to tell level 3's move in words;
    the judgement itself reads the seat's view), the move played and the decision's generator."""

    number: int
    seat: int
    state: State
    move: Any
    rng: random.Random


@dataclass(frozen=True)
class JudgedRound:
    """What ``judge_round`` made of a round: an entry per decision judged, in order, and the
    number of the first decision left for the next round (None: none left)."""

    entries: list[dict[str, Any]]
    next_move: int | None
    spent: float
    pid: int = field(default_factory=os.getpid)
    #: The engine raised: logged where it happened; the analysis is set aside, not retried.
    failed: bool = False


def decision_entry(engine: Engine, decision: Decision, chosen: search.Budget) -> dict[str, Any]:
    """One decision's entry: the judgement of the move from the seat's view before it, and
    level 3's move told in words (``describe_move`` on the same state)."""
    view = engine.view(decision.state, decision.seat)
    judgement = judge_decision(engine, view, decision.move, chosen, decision.rng)
    described = engine.describe_move(decision.state, decision.seat, judgement.best)
    return {
        "move": decision.number,
        "seat": decision.seat,
        "played": decision.move,
        **judgement.as_json(),
        "best_text": described.as_json() if described is not None else None,
    }


def judge_round(
    game: str, decisions: Sequence[Decision], chosen: search.Budget, seconds: float
) -> JudgedRound:
    """Judge ``decisions`` in order for about ``seconds`` (at least one): what a pool process
    runs (pure, no database; the worker saves the entries)."""
    engine = get_engine(game)
    started = time.perf_counter()
    entries: list[dict[str, Any]] = []
    next_move = None
    try:
        for decision in decisions:
            if entries and time.perf_counter() - started >= seconds:
                next_move = decision.number
                break
            entries.append(decision_entry(engine, decision, chosen))
    except Exception:
        logger.exception("the analysis of a %s match failed", game)
        return JudgedRound([], None, time.perf_counter() - started, failed=True)
    return JudgedRound(entries, next_move, time.perf_counter() - started)
