"""Bots for Café Fatal.

A bot gets its seat's view (``bot_move``) and thinks on the state rebuilt from it: nothing at the
table is hidden, only the dice still to be rolled are unknown.

``placement`` (level 1) scores each legal placement by what it changes at its table: the points the food there
is worth to the bot (sets count, so the fifth piece of a sort is worth a lot), the points it takes
away from the player leading there, how safe the lead is against the dice the others still hold,
and the dice it spends. ``strong_placement`` (level 2) keeps the best few of those placements and plays the
rest of the round out several times for each (everyone playing ``placement``), keeping the placement
whose rounds end best for the bot against the others. ``searched_placement`` (level 3) weighs the
same candidates with ``search.search_move``: many more rounds played out, on the same dice for
every candidate, and a bonus for a round that wins the game.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from . import search
from .base import CHANCE, IllegalMove, Move, State, gettext_noop
from .cafe_fatal import ENGINE, SORTS, pieces_score, table_winner

#: How much the bot values a point the leader of a table loses, next to a point it gains itself
#: (shared among the N - 1 opponents). Measured in 3-player self-play: at a weight of 1 or 2 the
#: bot won 29–33% of 900 games against a copy that ignored denial (which won 40%), so denial only
#: breaks near-ties.
DENIAL_SHARE = 0.1
#: The chance that an opponent who can overtake a lead with one roll chooses to do so.
EAGERNESS = 0.5
#: A die kept back is worth about this fraction of the average table the bot could still win.
DIE_KEEP_FACTOR = 0.35
STRONG_CANDIDATES = 5
STRONG_PLAYOUTS = 12
FACES = 6


def _at_least_of_one_value(dice: int) -> list[float]:
    """p[k]: the chance that one given face shows on at least k of ``dice`` dice."""
    exact = [
        math.comb(dice, j) * (1 / FACES) ** j * (1 - 1 / FACES) ** (dice - j)
        for j in range(dice + 1)
    ]
    return [sum(exact[k:]) for k in range(dice + 1)]


def _at_least_of_any_value(dice: int) -> list[float]:
    """p[k]: the chance that some face shows on at least k of ``dice`` dice. The rolls where every
    face shows fewer than k times are counted as dice! · [x^dice] (Σ_{j<k} x^j / j!)^6."""
    out = []
    for k in range(dice + 1):
        poly = [1.0]
        factor = [1 / math.factorial(j) for j in range(min(k, dice + 1))]
        for _ in range(FACES):
            poly = [
                sum(poly[i] * factor[d - i] for i in range(len(poly)) if 0 <= d - i < len(factor))
                for d in range(dice + 1)
            ]
        below = poly[dice] * math.factorial(dice) / FACES**dice
        out.append(1.0 - below)
    return out


ONE_VALUE = [_at_least_of_one_value(r) for r in range(7)]
ANY_VALUE = [_at_least_of_any_value(r) for r in range(7)]


def marginal(held: dict[str, int], pieces: dict[str, int]) -> int:
    """The points ``pieces`` would add to a player holding ``held``."""
    if not any(pieces.values()):
        return 0
    return pieces_score({s: held[s] + pieces[s] for s in SORTS}) - pieces_score(held)


def _overtake_chance(
    state: State, seat: int, table: int, mine: tuple[int, int], owned: list[set[int]]
) -> float:
    """A rough chance that someone still holding dice beats ``mine`` on ``table`` this round: each
    opponent gets one roll of all their dice (an overestimate) and takes the chance if it comes.
    ``owned`` lists each seat's tables this round."""
    count, value = mine
    neighbours = ENGINE.neighbours(state)[table]
    keep = 1.0
    for other, dice_left in enumerate(state["remaining"]):
        if other == seat or dice_left == 0:
            continue
        theirs = state["dice"][table][other]
        if theirs is not None:
            # Only more of their own value helps them there.
            needed = count - theirs["count"] + (0 if theirs["value"] > value else 1)
            chances = ONE_VALUE[dice_left]
        else:
            own = owned[other]
            if own and not any(t in own for t in neighbours):
                continue
            # Counting one die more is safe; a higher value ties the count about half the time.
            needed = count + (1 if value >= 4 else 0)
            chances = ANY_VALUE[dice_left]
        if needed <= dice_left:
            keep *= 1.0 - EAGERNESS * chances[max(needed, 0)]
    return 1.0 - keep


def _table_value(
    state: State, seat: int, table: int, mine: tuple[int, int] | None, owned: list[set[int]]
) -> float:
    """What holding ``mine`` (count, value) on ``table`` is worth to ``seat`` as things stand."""
    if mine is None:
        return 0.0
    others = [d for s, d in enumerate(state["dice"][table]) if s != seat and d is not None]
    best_other = max(((d["count"], d["value"]) for d in others), default=(0, 0))
    if mine < best_other:
        return 0.0
    leader = table_winner(state["dice"][table])
    pieces = state["tables"][table]
    denied = 0
    if leader is not None and leader != seat:
        denied = marginal(state["held"][leader], pieces)
    denial = DENIAL_SHARE * denied / (state["n"] - 1)
    hold = 1.0 - _overtake_chance(state, seat, table, mine, owned)
    if mine == best_other:
        # A full tie keeps the food on the table: worth only what it takes from the leader.
        return hold * denial
    return hold * (marginal(state["held"][seat], pieces) + denial)


def placement_scores(state: State, seat: int) -> list[tuple[float, Move]]:
    """Every legal placement with the bot's estimate of what it is worth, best first."""
    moves = list(ENGINE.legal(state, seat))
    if not moves:
        raise IllegalMove(gettext_noop("It is not your turn."))
    rolled = state["rolled"]
    remaining = state["remaining"][seat]
    held = state["held"][seat]
    worths = [marginal(held, pieces) for pieces in state["tables"]]
    die_value = DIE_KEEP_FACTOR * sum(worths) / len(worths)
    owned = [ENGINE.own_tables(state, other) for other in range(state["n"])]
    scored = []
    for move in moves:
        value, table = move["place"]["value"], move["place"]["table"]
        count = rolled.count(value)
        current = state["dice"][table][seat]
        before = (current["count"], current["value"]) if current else None
        after = (count + (before[0] if before else 0), value)
        gain = _table_value(state, seat, table, after, owned) - _table_value(
            state, seat, table, before, owned
        )
        # Dice kept back can still win tables later this round; the last ones cost nothing.
        score = gain - (die_value * count if remaining > count else 0.0)
        # A central table keeps more tables within reach of the next placements.
        score += 0.01 * len(ENGINE.neighbours(state)[table])
        scored.append((score, move))
    scored.sort(key=lambda pair: -pair[0])
    return scored


def bot_move(view: dict[str, Any], rng: random.Random, level: int = 1) -> Move:
    """The placement of the bot of ``level`` for the seat of ``view``."""
    state = ENGINE.sample_state(view, rng)
    if level >= 3:
        return searched_placement(view, state, rng)
    if level >= 2:
        return strong_placement(state, view["you"], rng)
    return placement(state, view["you"], rng)


def placement(state: State, seat: int, rng: random.Random) -> Move:
    """A sensible placement: the best by ``placement_scores``, ties broken by ``rng``."""
    scored = placement_scores(state, seat)
    best = scored[0][0]
    return rng.choice([move for score, move in scored if score >= best - 1e-9])


def strong_placement(state: State, seat: int, rng: random.Random) -> Move:
    """The best of ``placement``'s top placements after playing the rest of the round out."""
    scored = placement_scores(state, seat)
    candidates = [move for _, move in scored[:STRONG_CANDIDATES]]
    if len(candidates) == 1:
        return candidates[0]
    # Every candidate meets the same dice (common random numbers), so luck does not pick the move.
    seeds = [rng.getrandbits(64) for _ in range(STRONG_PLAYOUTS)]
    best_move, best_value = candidates[0], float("-inf")
    for move in candidates:
        after = ENGINE.apply(state, seat, move)
        total = sum(_playout(after, seat, random.Random(seed)) for seed in seeds)
        if total > best_value:
            best_move, best_value = move, total
    return best_move


def _playout(state: State, seat: int, rng: random.Random) -> float:
    """Play to the end of this round; the bot's points gained minus the others' mean gain."""
    return _round_played_out(state, seat, rng, ENGINE.apply)[1]


def _round_played_out(
    state: State, seat: int, rng: random.Random, step: Callable[[State, int, Any], State]
) -> tuple[State, float]:
    """The round played to its end by ``placement`` with moves made by ``step``, and the seat's
    margin: its points gained minus the others' mean gain."""
    before = list(state["scores"])
    # The share ends the round's dice phase and leaves the next serve (or the end) due.
    while state["phase"] in ("roll", "place"):
        [mover] = ENGINE.to_move(state)
        if mover == CHANCE:
            move: Any = ENGINE.sample_chance(state, rng)
        else:
            move = placement(state, mover, rng)
        state = step(state, mover, move)
    gains = [after - was for after, was in zip(state["scores"], before, strict=True)]
    others = [gain for other, gain in enumerate(gains) if other != seat]
    return state, gains[seat] - sum(others) / len(others)


# --- level 3 -----------------------------------------------------------------------------------
SEARCH_CANDIDATES = 5
#: What winning the game in the round played out is worth, in points of the round's margin.
WIN_BONUS = 20.0


def searched_placement(view: dict[str, Any], state: State, rng: random.Random) -> Move:
    """Level 3: ``search.search_move`` over ``placement``'s best placements; each iteration rolls
    fresh dice (the only thing the seat cannot know) and plays the round out."""
    seat = view["you"]
    candidates = [move for _, move in placement_scores(state, seat)[:SEARCH_CANDIDATES]]
    return search.search_move(
        search.worlds_from_view(ENGINE, view),
        lambda world, move: ENGINE.advance(world, seat, move),
        candidates,
        seat,
        _round_reward,
        rng,
    )


def _round_reward(state: State, seat: int, rng: random.Random) -> float:
    """Play to the end of the round: the bot's points gained minus the others' mean gain (as
    level 2 judges a round), plus ``WIN_BONUS`` when that round ends the game with the bot first
    (and minus it when another seat is)."""
    state, reward = _round_played_out(state, seat, rng, ENGINE.advance)
    if ENGINE.is_over(state):
        ranks = ENGINE.result(state).ranks
        reward += WIN_BONUS if ranks[seat] == 1 else -WIN_BONUS
    return reward
