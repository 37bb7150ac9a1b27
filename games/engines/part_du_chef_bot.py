"""Bots for La Part du Chef.

A bot gets its seat's view, never the state: it thinks on states sampled from the view
(``ENGINE.sample_state``), where the pizzas it has not seen are dealt at random.

Level 1 is a greedy player: it cuts to balance the portions (the chef gets the one nobody wanted),
then takes the portion whose keep/eat split leaves it furthest ahead of its best rival by the
scores as they would stand if the game ended now, plus the chances it keeps for majorities still
open. Level 2 samples playouts: for its best few level-1 candidates it samples many states from
the view, plays every seat to the end with a fast policy and keeps the move that wins most. Level 3
(``searched_move``) weighs level 1's best eight (for a cut, level 1's best four and the six cuts
that leave the chef most) with ``search.search_move``: in each re-dealt world every seat finishes
the round as level 1 would, then the game is played out on lean counts (``lean_rollout_reward``),
hundreds of games a second. All assign their chillies as suggested.
"""

from __future__ import annotations

import functools
import itertools
import math
import random
from collections.abc import Callable
from typing import Any

from . import search
from .base import Move, State
from .part_du_chef import (
    BURNT,
    CHILLI,
    CHILLI_TIE_ORDER,
    ENGINE,
    KIND_INDEX_OF_CODE,
    KINDS,
    MAJORITY_VALUE,
    PIZZAS,
    SLICE_COUNTS,
    SLICES_PER_PIZZA,
    VALID_CODES,
    chilli_assignments,
    is_edible,
    is_finisher,
    kind_of,
    lean_tallies,
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
            out.append((move, ENGINE.advance(state, seat, move)))  # legal by construction
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
    """The engine's totals if the game ended now. Before the chilli step every chilli counts as
    suggested, so the lean count gives the same numbers as ``ENGINE.breakdown`` (tested), in a
    fraction of the time: level 1 asks for every take it weighs, level 3 for every answer."""
    if state["chillies"] is None:
        return _lean_scores(*lean_tallies(state))
    return [row["total"] for row in ENGINE.breakdown(state)]


def _open_majority_hope(state: State, seat: int) -> float:
    if state["phase"] == "over":
        return 0.0
    n = state["n"]
    unseen = _left_to_serve(state)
    counts = lean_tallies(state)[0]
    hope = 0.0
    for kind in range(len(KINDS)):
        mine = counts[seat][kind]
        rival = max(counts[s][kind] for s in range(n) if s != seat)
        if mine < rival <= mine + unseen[kind] // n + 1:
            hope += OPEN_MAJORITY_WEIGHT * _MAJORITY[kind]
    return hope


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
    re-dealt from the view and played out by every seat with the lean policy below."""
    seat = view["you"]
    candidates = [move for _, move in ranked_moves(state, seat)[:SEARCH_CANDIDATES]]
    if state["phase"] == "cut" and "marianne" not in candidates[0]:
        left = left_for_chef(state, seat)[: CUT_CANDIDATES_LEFT[state["n"] == 2]]
        candidates = _merged(candidates[:CUT_CANDIDATES_BY_VALUE], left)
    return search.search_move(
        search.worlds_from_view(ENGINE, view),
        _round_finisher(seat),
        candidates,
        seat,
        lean_rollout_reward,
        rng,
    )


def _round_finisher(seat: int) -> Callable[[State, Move], State]:
    """Plays the hero's move in a world, then the rest of this round's takes as level 1 would
    (``_greedy_take``): the others' answer to the move, modelled on how the bots at the table
    choose. Those takes depend only on what every seat sees (this pizza, the slices held), not on
    the re-dealt later pizzas, so each candidate's are worked out in the first world and replayed
    in the others."""
    answers: dict[tuple[int, bool], list[tuple[int, Move]]] = {}
    worlds: dict[int, int] = {}

    def advance(world: State, move: Move) -> State:
        after = ENGINE.advance(world, seat, move)
        every = SURPRISE_EVERY.get(after["n"], 0)
        worlds[id(move)] = seen = worlds.get(id(move), 0) + 1
        key = (id(move), bool(every) and seen % every == 0)
        if key not in answers:
            answers[key] = _rest_of_round(after, surprise=key[1])
        for mover, answer in answers[key]:
            after = ENGINE.advance(after, mover, answer)
        return after

    return advance


#: In a duel, every so many worlds the other seat answers with its best take of the portion
#: level 1 would not choose: the bot at the table may judge the portions otherwise, and a cut
#: that is good only if it does not must show it. (Measured, 300 playouts a move against
#: level 2: 24 of 40 duels won without, 32 of 41 with.)
SURPRISE_EVERY = {2: 4}


def _rest_of_round(state: State, surprise: bool = False) -> list[tuple[int, Move]]:
    """The takes that finish this round when every seat takes as level 1 would (with
    ``surprise``, the first taker takes another portion than level 1's, if there is one)."""
    moves = []
    round_now = state["round"]
    while state["phase"] == "take" and state["round"] == round_now:
        mover = ENGINE.to_move(state)[0]
        move = _greedy_take(state, mover, avoid=surprise)
        surprise = False
        moves.append((mover, move))
        state = ENGINE.advance(state, mover, move)
    return moves


def _greedy_take(state: State, seat: int, avoid: bool = False) -> Move:
    """Level 1's take; with ``avoid``, its best take of another portion (if any is free)."""
    ranked = sorted(
        ((position_worth(after, seat), move) for move, after in _take_candidates(state, seat)),
        key=lambda pair: -pair[0],
    )
    best = ranked[0][1]
    if avoid:
        others = [move for _, move in ranked if move["take"] != best["take"]]
        if others:
            return others[0]
    return best


#: Of the cuts, the search weighs level 1's best few by slice values and the best by what the
#: others leave the chef in ``left_for_chef``: 6 at a table of three or more, 10 in a duel, where
#: the cut is all the chef decides in its round (measured: 30 of 48 duels won with 6).
CUT_CANDIDATES_BY_VALUE = 4
CUT_CANDIDATES_LEFT = (6, 10)


def _merged(first: list[Move], second: list[Move]) -> list[Move]:
    return first + [move for move in second if move not in first]


def left_for_chef(state: State, seat: int) -> list[Move]:
    """Every cut, best first by the worth to the chef of the portion the others leave it, when
    each of them in turn takes the portion worth most to them (``_keep_worths``)."""
    counts, _, _, _ = lean_tallies(state)
    left = _left_to_serve(state)
    n = state["n"]
    pizza = state["pizzas"][state["round"]]
    prefixes = {}
    for chooser in {(seat + turn) % n for turn in range(n)}:
        values = _slice_worths(pizza, _keep_worths(counts, chooser, left))
        prefix, total = [0.0], 0.0
        for value in values + values:
            total += value
            prefix.append(total)
        prefixes[chooser] = prefix
    choosers = [(seat + turn) % n for turn in range(1, n)]
    scored = []
    for cut in CUTS[n]:
        spans = list(_spans(cut))
        for chooser in choosers:
            prefix = prefixes[chooser]
            spans.remove(max(spans, key=lambda span: prefix[span[1]] - prefix[span[0]]))
        [(start, end)] = spans
        scored.append((prefixes[seat][end] - prefixes[seat][start], cut))
    scored.sort(key=lambda pair: -pair[0])
    return [{"cut": list(cut)} for _, cut in scored]


# --- the lean playout ----------------------------------------------------------------------------
# A playout needs only what scores: each seat's kept slices per kind, its points so far, its burnt
# slices and its chillies. Which slice a steal takes never changes a score (a finisher counts 1
# like any slice of its kind), so the playout counts instead of moving slice ids about, and plays
# a whole game in the time the engine's states take for a few moves.

_OLIVES = {code: olives_of(code) for code in VALID_CODES}
_FINISHER = {code: is_finisher(code) for code in VALID_CODES}
_MAJORITY = [MAJORITY_VALUE[kind] for kind in KINDS]
#: What a kept slice adds for the variety bonus when it raises the keeper's smallest count.
_VARIETY_HOPE = 1.0
#: A chilli counts for the kind of its holder's choosing at the end.
_CHILLI_WORTH = 5.0
#: Cuts a chef weighs in a playout (sampled from every cut).
_PLAYOUT_CUTS = 24


def lean_rollout_reward(state: State, seat: int, rng: random.Random) -> float:
    """Plays the world out from ``state`` with every seat on ``_lean_take`` and ``_lean_cut``
    and says how good the end is for ``seat`` (``search.outcome_reward``)."""
    if state["phase"] not in ("cut", "take"):
        return _engine_reward(state, seat, rng)
    scores = lean_playout_scores(state, rng)
    if state["n"] == 2:
        return _duel_reward(scores[seat] - scores[1 - seat])
    ranks = [1 + sum(1 for other in scores if other > mine) for mine in scores]
    return search.outcome_reward(scores, ranks, seat, MARGIN_SCALE)


def lean_playout_scores(state: State, rng: random.Random) -> list[int]:
    """The final scores of ``state`` played out with every seat on ``_lean_take`` and
    ``_lean_cut`` and the chillies assigned as suggested (past the last pizza, ``fast_move``
    on the engine's states): level 3's playouts, and the analysis's (``playout_outcome``)."""
    phase = state["phase"]
    if phase not in ("cut", "take"):
        while not ENGINE.is_over(state):
            mover = ENGINE.to_move(state)[0]
            state = ENGINE.advance(state, mover, fast_move(state, mover, rng))
        return list(ENGINE.result(state).scores)
    n = state["n"]
    pizzas = state["pizzas"]
    counts, points, burnt, chillies = lean_tallies(state)
    left = _left_to_serve(state)
    round_number = state["round"]
    if phase == "take":
        pizza = pizzas[round_number]
        free = [
            [pizza[i % SLICES_PER_PIZZA] for i in portion]
            for portion, owner in zip(state["portions"], state["taken_by"], strict=True)
            if owner is None
        ]
        first = ENGINE.chooser(state)
        for turn in range(len(free)):
            _lean_take(free, (first + turn) % n, counts, points, burnt, chillies, left)
        round_number += 1
    first_chef = state["first_chef"]
    cuts = CUT_SPANS[n]
    while round_number < len(pizzas):
        chef = (first_chef + round_number) % n
        free = _lean_cut(pizzas[round_number], chef, counts, cuts, rng, left)
        for turn in range(1, n + 1):
            _lean_take(free, (chef + turn) % n, counts, points, burnt, chillies, left)
        round_number += 1
    return _lean_scores(counts, points, burnt, chillies)


def _duel_reward(margin: int) -> float:
    """In a duel winning is leading: a smooth step of the margin tells a near miss from a rout,
    which a count of wins over a few hundred playouts cannot."""
    return 0.5 + 0.5 * math.tanh(margin / DUEL_MARGIN_SCALE)


#: The margin that counts as a clear lead in a duel's reward.
DUEL_MARGIN_SCALE = 6.0


def _engine_reward(state: State, seat: int, rng: random.Random) -> float:
    while not ENGINE.is_over(state):
        mover = ENGINE.to_move(state)[0]
        state = ENGINE.advance(state, mover, fast_move(state, mover, rng))
    result = ENGINE.result(state)
    return search.outcome_reward(result.scores, result.ranks, seat, MARGIN_SCALE)


def _keep_worths(counts: list[list[int]], seat: int, left: list[int]) -> list[float]:
    """What keeping one more slice of each kind is worth to ``seat``: the majority's value times
    how much the slice raises the chance to hold it at the end, judged from the lead over the
    best rival and the slices of the kind still to be served (``left``). (Measured as a policy on
    its own against two level 1 bots: 58 wins in 150 games, 54 with a fixed share by lead.)"""
    mine = counts[seat]
    lowest = min(mine)
    n = len(counts)
    if n == 2:
        rivals = counts[1 - seat]
    else:
        rivals = list(map(max, *(other for s, other in enumerate(counts) if s != seat)))
    known = _MAJORITY_WORTHS
    worths = []
    for kind in range(5):
        key = (kind, mine[kind] - rivals[kind], left[kind], n)
        worth = known.get(key)
        if worth is None:
            worth = known[key] = _majority_worth(*key)
        if mine[kind] == lowest:
            worth += _VARIETY_HOPE
        worths.append(worth)
    return worths


def _majority_worth(kind: int, lead: int, left: int, n: int) -> float:
    """The majority's value times how much one more slice of ``kind`` raises the chance to hold
    it, ``lead`` ahead of the best rival with ``left`` slices of it to serve at a table of ``n``."""
    spread = _SPREAD * math.sqrt(1 + left / n)
    share = _hold_chance(lead + 1, spread) - _hold_chance(lead, spread)
    return _MAJORITY[kind] * share


#: ``_majority_worth`` by its arguments, worked out once each (a few thousand of them): playouts
#: ask for it five times a take.
_MAJORITY_WORTHS: dict[tuple[int, int, int, int], float] = {}


def _hold_chance(lead: int, spread: float) -> float:
    """The chance that a count ``lead`` ahead of the best rival's (0: level) is still at least
    the rival's at the end, when what is left to serve moves the lead by about ``spread``."""
    return 0.5 * (1 + math.erf((lead + 0.5) / (spread * math.sqrt(2))))


#: How far the rest of the game moves a lead, per slice of the kind left per seat (square root).
_SPREAD = 1.2
#: Slices of each kind in the game.
_KIND_TOTALS = [sum(n for code, n in SLICE_COUNTS.items() if code[0] == kind) for kind in KINDS]


def _left_to_serve(state: State) -> list[int]:
    """Slices of each kind nobody has received yet (later pizzas and untaken portions): the
    game's totals are public and every slice served is seen, so this is no leak."""
    pizzas = state["pizzas"]
    left = list(_KIND_TOTALS)
    for held in (*state["kept"], *state["eaten"]):
        for slice_id in held:
            kind = KIND_INDEX_OF_CODE[
                pizzas[slice_id // SLICES_PER_PIZZA][slice_id % SLICES_PER_PIZZA]
            ]
            if kind >= 0:
                left[kind] -= 1
    return left


def _slice_worths(codes: list[str], worths: list[float]) -> list[float]:
    """Each slice's worth to a seat whose ``_keep_worths`` are ``worths`` (kept or eaten,
    whichever is worth more, plus its slice point)."""
    out = []
    for code in codes:
        kind = KIND_INDEX_OF_CODE[code]
        if kind >= 0:
            keep = worths[kind] * (2 if _FINISHER[code] else 1)
            olives = _OLIVES[code]
            out.append(1 + (olives if olives > keep else keep))
        elif code == BURNT:
            out.append(-3.0)
        else:
            out.append(1 + _CHILLI_WORTH)
    return out


def _lean_take(
    free: list[list[str]],
    seat: int,
    counts: list[list[int]],
    points: list[int],
    burnt: list[int],
    chillies: list[int],
    left: list[int],
) -> None:
    """``seat`` takes the free portion worth most to it, eats what is worth more eaten, steals
    with each finisher it keeps from the rival who leads the kind."""
    worths = _keep_worths(counts, seat, left)
    best = max(range(len(free)), key=lambda j: sum(_slice_worths(free[j], worths)))
    portion = free.pop(best)
    mine = counts[seat]
    steals = []
    for code in portion:
        kind = KIND_INDEX_OF_CODE[code]
        if kind < 0:
            if code == BURNT:
                burnt[seat] += 1
            else:
                points[seat] += 1
                chillies[seat] += 1
            continue
        points[seat] += 1
        left[kind] -= 1
        if _OLIVES[code] > worths[kind] * (2 if _FINISHER[code] else 1):
            points[seat] += _OLIVES[code]
        else:
            mine[kind] += 1
            if _FINISHER[code]:
                steals.append(kind)
    for kind in steals:
        victims = [s for s in range(len(counts)) if s != seat and counts[s][kind]]
        if victims:
            victim = max(victims, key=lambda s: counts[s][kind])
            counts[victim][kind] -= 1
            mine[kind] += 1


def _lean_cut(
    pizza: list[str],
    chef: int,
    counts: list[list[int]],
    cuts: list[tuple[tuple[int, int], ...]],
    rng: random.Random,
    left: list[int],
) -> list[list[str]]:
    """The chef's cut in a playout: of a sample of cuts, the one whose least worthy portion (the
    one the chef will be left with) is worth most to the chef."""
    values = _slice_worths(pizza, _keep_worths(counts, chef, left))
    prefix = [0.0]
    total = 0.0
    for value in values + values:
        total += value
        prefix.append(total)
    best, best_worth = cuts[0], float("-inf")
    # An even spread of the cuts from a random first one: as varied as a sample, fewer draws.
    count = len(cuts)
    tried = min(_PLAYOUT_CUTS, count)
    first, stride = rng.randrange(count), count // tried
    for step in range(tried):
        spans = cuts[(first + step * stride) % count]
        if len(spans) == 3:  # the usual table, without building and sorting a list
            (s0, e0), (s1, e1), (s2, e2) = spans
            low, mid, high = (
                prefix[e0] - prefix[s0],
                prefix[e1] - prefix[s1],
                prefix[e2] - prefix[s2],
            )
            if low > mid:
                low, mid = mid, low
            if mid > high:
                mid = high
            if low > mid:
                low, mid = mid, low
            worth = low + 0.01 * mid
        else:
            sums = sorted([prefix[end] - prefix[start] for start, end in spans])
            worth = sums[0] + 0.01 * sums[1]
        if worth > best_worth:
            best, best_worth = spans, worth
    return [[pizza[i % SLICES_PER_PIZZA] for i in range(start, end)] for start, end in best]


def _spans(cut: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """A cut as the (start, end) positions of its portions, the last one wrapping past 12."""
    n = len(cut)
    return tuple(
        (start, cut[j + 1] if j + 1 < n else cut[0] + SLICES_PER_PIZZA)
        for j, start in enumerate(cut)
    )


def _even_enough(spans: tuple[tuple[int, int], ...]) -> bool:
    """Portions within two slices of an even share: a playout's chef does not weigh a cut that
    leaves one portion of 1 slice and another of 11."""
    share = SLICES_PER_PIZZA / len(spans)
    return all(share - 2.5 <= end - start <= share + 2.5 for start, end in spans)


#: The cuts a playout's chef chooses from, for each number of players.
CUT_SPANS = {
    n: [spans for spans in map(_spans, cuts) if _even_enough(spans)] for n, cuts in CUTS.items()
}


@functools.lru_cache(maxsize=1 << 16)
def _chilli_split(mine: tuple[int, ...], rivals: tuple[int, ...], chillies: int) -> tuple[int, ...]:
    """The spec's suggested chilli assignment (``best_chilli_assignment``) judged against the
    best rival count of each kind, which is all it depends on: chillies per kind."""
    best, best_points = _CHILLI_SPLITS[chillies][0], -1
    for split in _CHILLI_SPLITS[chillies]:
        points, lowest = 0, SLICES_PER_PIZZA * PIZZAS
        for kind in range(5):
            count = mine[kind] + split[kind]
            if count >= 1 and count >= rivals[kind]:
                points += _MAJORITY[kind]
            if count < lowest:
                lowest = count
        points += 5 * lowest
        if points > best_points:  # the splits come in the tie order: the first best wins
            best, best_points = split, points
    return best


#: Every split of 1 to 3 chillies over the kinds, the spec's tie order first (most on T, …).
_CHILLI_SPLITS = {
    count: sorted(
        (tuple(split[kind] for kind in KINDS) for split in chilli_assignments(count)),
        key=lambda split: tuple(split[KINDS.index(kind)] for kind in CHILLI_TIE_ORDER),
        reverse=True,
    )
    for count in range(1, 4)
}


def _lean_scores(
    counts: list[list[int]], points: list[int], burnt: list[int], chillies: list[int]
) -> list[int]:
    """The totals at the end: chillies assigned as suggested, then majorities and variety."""
    n = len(counts)
    final = [list(mine) for mine in counts]
    for seat in range(n):
        if chillies[seat]:
            others = [other for s, other in enumerate(counts) if s != seat]
            rivals = others[0] if n == 2 else list(map(max, *others))
            assignment = _chilli_split(tuple(counts[seat]), tuple(rivals), chillies[seat])
            for kind, extra in enumerate(assignment):
                final[seat][kind] += extra
    scores = []
    for seat in range(n):
        mine = final[seat]
        total = points[seat] - 3 * burnt[seat] + 5 * min(mine)
        for kind in range(5):
            if mine[kind] >= 1 and all(mine[kind] >= final[s][kind] for s in range(n) if s != seat):
                total += _MAJORITY[kind]
        scores.append(total)
    return scores
