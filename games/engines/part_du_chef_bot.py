"""Bots for La Part du Chef.

A bot gets its seat's view, never the state: it thinks on states sampled from the view
(``ENGINE.sample_state``), where the pizzas it has not seen are dealt at random.

Level 1 is a greedy player: it cuts to balance the portions (the chef gets the one nobody wanted),
then takes the portion whose keep/eat split leaves it furthest ahead of its best rival by the
scores as they would stand if the game ended now, plus the chances it keeps for majorities still
open. Level 2 samples playouts: for its best few level-1 candidates it samples many states from
the view, plays every seat to the end with a fast policy and keeps the move that wins most. Level 3
(``searched_move``) weighs level 1's best eight with ``search.search_move``: in each re-dealt
world every seat finishes the round as level 1 would, then the game is played out fast. All
assign their chillies as suggested.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

from . import search
from .base import Move, State
from .part_du_chef import (
    BURNT,
    CHILLI,
    ENGINE,
    KINDS,
    MAJORITY_VALUE,
    SLICES_PER_PIZZA,
    VALID_CODES,
    is_edible,
    is_finisher,
    kind_of,
    olives_of,
    slice_code,
)

#: How much a majority still to be fought for is worth, as a share of its value.
OPEN_MAJORITY_WEIGHT = 0.35
CANDIDATES_FOR_PLAYOUTS = 5
PLAYOUTS_PER_CANDIDATE = 12


def bot_move(view: dict[str, Any], rng: random.Random, level: int = 1) -> Move:
    """A sensible legal move for the seat of ``view`` (level 1 greedy, level 2 playouts)."""
    seat = view["you"]
    state = ENGINE.sample_state(view, rng)
    if state["phase"] == "chillies":
        return {"chillies": ENGINE.suggested_chillies(state, seat)}
    if level >= 3:
        return searched_move(view, state, rng)
    if level >= 2:
        return playout_move(view, state, rng)
    return ranked_moves(state, seat)[0][1]


# --- level 1 -----------------------------------------------------------------------------------
def ranked_moves(state: State, seat: int) -> list[tuple[float, Move]]:
    """Candidate moves with their greedy worth, best first."""
    if state["phase"] == "cut":
        values = _pizza_values(state)
        scored = [(_cut_worth_of(values, cut), {"cut": list(cut)}) for cut in _cuts(state)]
    else:
        scored = [
            (position_worth(after, seat), move) for move, after in _take_candidates(state, seat)
        ]
    scored.sort(key=lambda pair: pair[0], reverse=True)
    if ENGINE.may_play_marianne(state, seat):
        swap = best_marianne(state, seat)
        if swap is not None:
            return [swap, *scored]
    return scored


def _cuts(state: State) -> list[tuple[int, ...]]:
    return CUTS[state["n"]]


#: Every cut for each number of players (start positions, ascending).
CUTS = {n: list(itertools.combinations(range(SLICES_PER_PIZZA), n)) for n in range(2, 6)}


def cut_worth(state: State, seat: int, cut: tuple[int, ...]) -> float:
    """The chef receives the portion the others leave, so a good cut makes the worst portion
    as good as possible for the chef."""
    return _cut_worth_of(_pizza_values(state), cut)


def _cut_worth_of(pizza_values: list[float], cut: tuple[int, ...] | list[int]) -> float:
    values = sorted(_portion_values(pizza_values, cut))
    # The chef's portion is usually the least valuable one; break ties towards even portions.
    return values[0] + 0.01 * values[1] if len(values) > 1 else values[0]


def _pizza_values(state: State) -> list[float]:
    """``quick_slice_value`` of each slice of this round's pizza, by position."""
    return [SLICE_VALUE[code] for code in state["pizzas"][state["round"]]]


def _portion_values(values: list[float], cut: tuple[int, ...] | list[int]) -> list[float]:
    """The summed slice values of each portion of ``cut`` (start positions, ascending), in the
    order of ``portions_of_cut``; the last portion wraps round."""
    starts = sorted(cut)
    sums = []
    for j, start in enumerate(starts):
        end = starts[j + 1] if j + 1 < len(starts) else starts[0] + SLICES_PER_PIZZA
        sums.append(sum(values[i % SLICES_PER_PIZZA] for i in range(start, end)))
    return sums


def quick_slice_value(state: State, seat: int, code: str) -> float:
    """What one slice is roughly worth to the taker, ignoring the rest of the pizza."""
    return SLICE_VALUE[code]


def _slice_value(code: str) -> float:
    if code == BURNT:
        return -3.0
    if code == CHILLI:
        return 3.0
    kind = kind_of(code)
    value = 1.0 + max(olives_of(code), MAJORITY_VALUE[kind] / 4)
    return value + (1.5 if is_finisher(code) else 0.0)


SLICE_VALUE = {code: _slice_value(code) for code in VALID_CODES}


def _take_candidates(state: State, seat: int) -> list[tuple[Move, State]]:
    """For each free portion: eat or keep each kind wholesale, and steal from the rival who
    leads the kind (the one a steal hurts most)."""
    out = []
    for index, owner in enumerate(state["taken_by"]):
        if owner is not None:
            continue
        portion = state["portions"][index]
        kinds_in_portion = sorted(
            {kind_of(slice_code(state, i)) for i in portion if is_edible(slice_code(state, i))},
            key=KINDS.index,
        )
        for eaten_kinds in _subsets(kinds_in_portion):
            eat = [i for i in portion if kind_of(slice_code(state, i)) in eaten_kinds]
            move: Move = {"take": index, "eat": eat}
            steal = _best_steals(state, seat, portion, eat)
            if steal:
                move["steal"] = steal
            out.append((move, ENGINE.apply(state, seat, move)))
    return out


def _subsets(items: list[Any]) -> list[tuple[Any, ...]]:
    return [c for size in range(len(items) + 1) for c in itertools.combinations(items, size)]


def _best_steals(state: State, seat: int, portion: list[int], eat: list[int]) -> dict[str, int]:
    eaten = set(eat)
    steal = {}
    for slice_id in portion:
        code = slice_code(state, slice_id)
        if slice_id in eaten or not is_finisher(code):
            continue
        kind = kind_of(code)
        targets = ENGINE.steal_targets(state, seat, kind)
        if targets:
            steal[kind] = max(targets, key=lambda t: ENGINE.kind_counts(state, t)[kind])
    return steal


def position_worth(state: State, seat: int) -> float:
    """How far ``seat`` is ahead of its best rival if the game ended now, plus the majorities
    it can still hope for with the slices not yet served."""
    projected = _projected_totals(state)
    mine = projected[seat]
    best_rival = max(p for s, p in enumerate(projected) if s != seat)
    return mine - best_rival + _open_majority_hope(state, seat)


def _projected_totals(state: State) -> list[float]:
    return [row["total"] for row in ENGINE.breakdown(state)]


def _open_majority_hope(state: State, seat: int) -> float:
    if state["phase"] == "over":
        return 0.0
    unseen = _unserved_counts(state)
    counts = [ENGINE.kind_counts(state, s) for s in range(state["n"])]
    hope = 0.0
    for kind in KINDS:
        mine = counts[seat][kind]
        rival = max(counts[s][kind] for s in range(state["n"]) if s != seat)
        if mine < rival <= mine + unseen[kind] // state["n"] + 1:
            hope += OPEN_MAJORITY_WEIGHT * MAJORITY_VALUE[kind]
    return hope


def _unserved_counts(state: State) -> dict[str, int]:
    """Slices of each kind not yet taken by anyone (in later pizzas or untaken portions).
    Counting later pizzas is no leak: the game's totals are public, and what was served is seen."""
    totals = {"M": 16, "R": 14, "F": 11, "V": 9, "T": 7}
    for seat in range(state["n"]):
        for slice_id in (*state["kept"][seat], *state["eaten"][seat]):
            kind = kind_of(slice_code(state, slice_id))
            if kind:
                totals[kind] -= 1
    return totals


def best_marianne(state: State, seat: int) -> tuple[float, Move] | None:
    """The most useful swap of two of the bot's slices for two of its rivals', if it helps."""
    before = position_worth(state, seat)
    mine = state["kept"][seat]
    theirs = [
        (other, i) for other in range(state["n"]) if other != seat for i in state["kept"][other]
    ]
    if len(mine) < 2 or len(theirs) < 2:
        return None
    give = sorted(mine, key=lambda i: quick_slice_value(state, seat, slice_code(state, i)))[:3]
    distinct: dict[tuple[int, str], tuple[int, int]] = {}
    for other, slice_id in theirs:
        distinct.setdefault((other, slice_code(state, slice_id)), (other, slice_id))
    wanted = sorted(
        distinct.values(),
        key=lambda pair: quick_slice_value(state, seat, slice_code(state, pair[1])),
        reverse=True,
    )[:4]
    best: tuple[float, Move] | None = None
    for pair_give in itertools.combinations(give, 2):
        for pair_get in itertools.permutations(wanted, 2):
            if pair_get[0][1] == pair_get[1][1]:
                continue
            move = {"marianne": {"give": list(pair_give), "get": [list(g) for g in pair_get]}}
            worth = position_worth(ENGINE.apply(state, seat, move), seat) - before
            if worth > 2 and (best is None or worth > best[0]):
                best = (worth, move)
    return best


# --- level 2 -----------------------------------------------------------------------------------
def playout_move(view: dict[str, Any], state: State, rng: random.Random) -> Move:
    """The best of the level-1 candidates over playouts, each from its own sample of the view.
    (Comparing them on the same worlds, as level 3 does, measured no better here: 16 duels of
    24 won against level 1, 19 this way.)"""
    seat = view["you"]
    candidates = ranked_moves(state, seat)[:CANDIDATES_FOR_PLAYOUTS]
    if len(candidates) == 1:
        return candidates[0][1]
    best_move, best_score = candidates[0][1], float("-inf")
    for _, move in candidates:
        total = 0.0
        for _ in range(PLAYOUTS_PER_CANDIDATE):
            world = ENGINE.advance(ENGINE.sample_state(view, rng), seat, move)
            total += _playout_margin(world, seat, rng)
        if total > best_score:
            best_move, best_score = move, total
    return best_move


def _playout_margin(state: State, seat: int, rng: random.Random) -> float:
    while not ENGINE.is_over(state):
        mover = ENGINE.to_move(state)[0]
        state = ENGINE.advance(state, mover, fast_move(state, mover, rng))
    scores = ENGINE.result(state).scores
    best_rival = max(s for other, s in enumerate(scores) if other != seat)
    return scores[seat] - best_rival


def fast_move(state: State, seat: int, rng: random.Random) -> Move:
    """A cheap, sensible policy for playouts: a sampled cut, the richest portion, eat where the
    kind is out of reach."""
    if state["phase"] == "chillies":
        return {"chillies": ENGINE.suggested_chillies(state, seat)}
    if state["phase"] == "cut":
        cuts = _cuts(state)
        sample = rng.sample(cuts, min(20, len(cuts)))
        values = _pizza_values(state)
        return {"cut": list(max(sample, key=lambda c: _cut_worth_of(values, c)))}
    values = _pizza_values(state)
    free = [j for j, owner in enumerate(state["taken_by"]) if owner is None]
    index = max(
        free,
        key=lambda j: sum(values[i % SLICES_PER_PIZZA] for i in state["portions"][j]),
    )
    portion = state["portions"][index]
    counts = [ENGINE.kind_counts(state, s) for s in range(state["n"])]
    eat = []
    for slice_id in portion:
        kind = kind_of(slice_code(state, slice_id))
        if kind and max(c[kind] for c in counts) - counts[seat][kind] >= 3:
            eat.append(slice_id)
    move: Move = {"take": index, "eat": eat}
    steal = _best_steals(state, seat, portion, eat)
    if steal:
        move["steal"] = steal
    return move


# --- level 3 -----------------------------------------------------------------------------------
#: How many of level 1's candidates the search weighs (cuts: the best by ``cut_worth``).
SEARCH_CANDIDATES = 8
#: A lead of this many points counts as a clear one in the search's reward.
MARGIN_SCALE = 12.0


def searched_move(view: dict[str, Any], state: State, rng: random.Random) -> Move:
    """Level 3: the search of ``search.search_move`` over level 1's best candidates, each world
    re-dealt from the view and played out by every seat with ``fast_move``."""
    seat = view["you"]
    candidates = [move for _, move in ranked_moves(state, seat)[:SEARCH_CANDIDATES]]
    return search.search_move(
        search.worlds_from_view(ENGINE, view),
        lambda world, move: ENGINE.advance(world, seat, move),
        candidates,
        seat,
        _rollout_reward,
        rng,
    )


def _rollout_reward(state: State, seat: int, rng: random.Random) -> float:
    """Every seat finishes the round as level 1 would (the chef's cut is judged by the portions
    the others leave it); then the rest of the game is played out with ``fast_move``."""
    round_now = state["round"]
    while not ENGINE.is_over(state):
        mover = ENGINE.to_move(state)[0]
        if state["round"] == round_now and state["phase"] == "take":
            move = _greedy_take(state, mover)
        else:
            move = fast_move(state, mover, rng)
        state = ENGINE.advance(state, mover, move)
    result = ENGINE.result(state)
    return search.outcome_reward(result.scores, result.ranks, seat, MARGIN_SCALE)


def _greedy_take(state: State, seat: int) -> Move:
    return max(
        ((position_worth(after, seat), move) for move, after in _take_candidates(state, seat)),
        key=lambda pair: pair[0],
    )[1]
