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
every candidate, each judged by the bot's standing against the best of the others when it ends
(hands judged by their ``prospect``, a set on its way counting for part of its bonus), with a bonus
for a round that wins the game.

The rounds played out are most of a bot's thinking, so scoring a placement is kept cheap: the
points pieces add are looked up sort by sort, and what placements on one table share is worked
out once per table (``_TableJudge``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from . import search
from .base import CHANCE, IllegalMove, Move, State, gettext_noop
from .cafe_fatal import (
    ENGINE,
    NEIGHBOURS,
    SET_POINTS,
    SET_SIZE,
    SORT_VALUE,
    pieces_score,
    table_winner,
)

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


#: For each layout and table, the tables next to it as the bits of a number.
NEIGHBOUR_BITS = {
    layout: [sum(1 << t for t in around) for around in neighbours]
    for layout, neighbours in NEIGHBOURS.items()
}
#: The points of n pieces of one sort of value 1 (complete sets count double), for the n a game
#: reaches: ``marginal`` looks them up.
POINTS_OF = [SET_POINTS * (count // SET_SIZE) + count % SET_SIZE for count in range(256)]


def marginal(held: dict[str, int], pieces: dict[str, int]) -> int:
    """The points ``pieces`` would add to a player holding ``held``: sort by sort, since a
    player's points are a sum over sorts (``pieces_score``)."""
    gain = 0
    for sort, count in pieces.items():
        if count:
            have = held[sort]
            if have + count < len(POINTS_OF):
                gain += SORT_VALUE[sort] * (POINTS_OF[have + count] - POINTS_OF[have])
            else:
                gain += pieces_score({sort: have + count}) - pieces_score({sort: have})
    return gain


def placement_scores(state: State, seat: int) -> list[tuple[float, Move]]:
    """Every legal placement with the bot's estimate of what it is worth, best first."""
    return [
        (score, {"place": {"value": value, "table": table}})
        for score, value, table in _scored_placements(state, seat)
    ]


def _scored_placements(state: State, seat: int) -> list[tuple[float, int, int]]:
    """``placement_scores`` as (score, value, table), best first (ties in ``legal``'s order).

    A placement's score is what it changes at its table: the points the food there is worth to
    the bot (sets count, so the fifth piece of a sort is worth a lot), the points it takes away
    from the player leading there, how safe the lead is against the dice the others still hold,
    and the dice it spends."""
    pairs = ENGINE.placements(state, seat) if ENGINE.to_move(state) == [seat] else []
    if not pairs:
        raise IllegalMove(gettext_noop("It is not your turn."))
    judge = _TableJudge(state, seat)
    rolled = state["rolled"]
    remaining = state["remaining"][seat]
    row_of = state["dice"]
    die_value = judge.die_value
    neighbours = NEIGHBOURS[state["layout"]]
    scored = []
    for value, table in pairs:
        count = rolled.count(value)
        current = row_of[table][seat]
        if current is None:
            gain = judge.value(table, count, value) - 0.0
        else:
            gain = judge.value(table, count + current["count"], value) - judge.value(
                table, current["count"], current["value"]
            )
        # Dice kept back can still win tables later this round; the last ones cost nothing.
        score = gain - (die_value * count if remaining > count else 0.0)
        # A central table keeps more tables within reach of the next placements.
        score += 0.01 * len(neighbours[table])
        scored.append((score, value, table))
    scored.sort(key=lambda entry: -entry[0])
    return scored


class _TableJudge:
    """What holding dice on a table is worth to ``seat`` as things stand, with what every
    placement on the same table shares worked out once."""

    def __init__(self, state: State, seat: int) -> None:
        self.state, self.seat = state, seat
        held = state["held"][seat]
        self.worths = [marginal(held, pieces) for pieces in state["tables"]]
        self.die_value = DIE_KEEP_FACTOR * sum(self.worths) / len(self.worths)
        self.neighbour_bits = NEIGHBOUR_BITS[state["layout"]]
        #: The others still holding dice, in seat order: (seat, dice left, their tables as bits).
        self.rivals = [
            (other, left, _table_bits(state["values"][other]))
            for other, left in enumerate(state["remaining"])
            if other != seat and left
        ]
        self.tables: dict[int, tuple[int, float]] = {}

    def _table(self, table: int) -> tuple[int, float]:
        """(the best other dice there as count * 8 + value, 0 if none; what taking the food
        from its leader is worth)."""
        known = self.tables.get(table)
        if known is None:
            state, seat = self.state, self.seat
            row = state["dice"][table]
            best_other = max(
                (d["count"] * 8 + d["value"] for s, d in enumerate(row) if s != seat and d),
                default=0,
            )
            leader = table_winner(row)
            denied = 0
            if leader is not None and leader != seat:
                denied = marginal(state["held"][leader], state["tables"][table])
            known = best_other, DENIAL_SHARE * denied / (state["n"] - 1)
            self.tables[table] = known
        return known

    def value(self, table: int, count: int, value: int) -> float:
        """What holding ``count`` dice of ``value`` on ``table`` is worth."""
        best_other, denial = self._table(table)
        mine = count * 8 + value
        if mine < best_other:
            return 0.0
        hold = 1.0 - self._overtake_chance(table, count, value)
        if mine == best_other:
            # A full tie keeps the food on the table: worth only what it takes from the leader.
            return hold * denial
        return hold * (self.worths[table] + denial)

    def _overtake_chance(self, table: int, count: int, value: int) -> float:
        """A rough chance that someone still holding dice beats ``count`` dice of ``value`` on
        ``table`` this round: each opponent gets one roll of all their dice (an overestimate)
        and takes the chance if it comes."""
        row = self.state["dice"][table]
        around = self.neighbour_bits[table]
        keep = 1.0
        for other, dice_left, own in self.rivals:
            theirs = row[other]
            if theirs is not None:
                # Only more of their own value helps them there.
                needed = count - theirs["count"] + (0 if theirs["value"] > value else 1)
                chances = ONE_VALUE[dice_left]
            else:
                if own and not own & around:
                    continue
                # Counting one die more is safe; a higher value ties the count about half the
                # time.
                needed = count + (1 if value >= 4 else 0)
                chances = ANY_VALUE[dice_left]
            if needed <= dice_left:
                keep *= 1.0 - EAGERNESS * chances[max(needed, 0)]
        return 1.0 - keep


def _table_bits(placed: list[list[int]]) -> int:
    """A seat's tables this round (one per entry of its ``values``) as the bits of a number."""
    bits = 0
    for _, table in placed:
        bits |= 1 << table
    return bits


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
    scored = _scored_placements(state, seat)
    best = scored[0][0]
    value, table = rng.choice([(v, t) for score, v, t in scored if score >= best - 1e-9])
    return {"place": {"value": value, "table": table}}


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
        after = ENGINE.advance(state, seat, move)
        total = sum(_playout(after, seat, random.Random(seed)) for seed in seeds)
        if total > best_value:
            best_move, best_value = move, total
    return best_move


def _playout(state: State, seat: int, rng: random.Random) -> float:
    """Play to the end of this round; the bot's points gained minus the others' mean gain."""
    return _round_played_out(state, seat, rng, ENGINE.advance)[1]


#: Draws a chance move (a serve or a roll) for a state: the engine's ``sample_chance``, or in the
#: benchmarks a known future (``bench/bench_cafe_fatal_ceiling.py``).
Chance = Callable[[State, random.Random], Any]


def _round_played_out(
    state: State,
    seat: int,
    rng: random.Random,
    step: Callable[[State, int, Any], State],
    chance: Chance = ENGINE.sample_chance,
) -> tuple[State, float]:
    """The round played to its end by ``placement`` with moves made by ``step`` and chance drawn
    by ``chance``, and the seat's margin: its points gained minus the others' mean gain."""
    before = list(state["scores"])
    # The share ends the round's dice phase and leaves the next serve (or the end) due.
    while state["phase"] in ("roll", "place"):
        [mover] = ENGINE.to_move(state)
        if mover == CHANCE:
            move: Any = chance(state, rng)
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


def searched_placement(
    view: dict[str, Any],
    state: State,
    rng: random.Random,
    rollout: search.Rollout | None = None,
    budget: search.Budget | None = None,
    candidates: int = SEARCH_CANDIDATES,
) -> Move:
    """Level 3: ``search.search_move`` over ``placement``'s best placements; each iteration rolls
    fresh dice (the only thing the seat cannot know) and plays the round out. ``rollout`` and
    ``budget`` replace the round's reward and the site's budget (the ceiling's benchmark plays
    the same search on the game's real dice)."""
    seat = view["you"]
    moves = [move for _, move in placement_scores(state, seat)[:candidates]]
    return search.search_move(
        search.worlds_from_view(ENGINE, view),
        lambda world, move: ENGINE.advance(world, seat, move),
        moves,
        seat,
        _round_reward if rollout is None else rollout,
        rng,
        budget,
    )


def _round_reward(state: State, seat: int, rng: random.Random) -> float:
    """Play to the end of the round and judge the bot's standing then against the best of the
    others (what decides the game, where level 2 weighs every other seat alike). A round that ends
    the game is judged by its points, plus ``WIN_BONUS`` when the bot is first (minus it when
    another seat is); otherwise by ``prospect``, which counts a set on its way.

    Measured against two level 2 bots at 200 playouts a move (seeds 0-119, seats rotated), where
    this reward won 56 of 120 (47%): playing one more whole round with ``placement`` before
    judging won 51 (42%) at three times the cost of a playout; playing the game out at random
    after the round and rewarding the win won 40 (33%); rewarding the chance of coming first
    (a softmax of the prospects, temperature 8 or 4; 1 for a won game, 0 for a lost one) won 50
    (42%) both times; a ``WIN_BONUS`` of 40 won 60 (50%) here but 109 of 240 (45%) over seeds
    0-239, where this reward wins 45% too. Tried next (the same games; this reward won 56 of
    120 again): adding ``WIN_BONUS`` * (2p - 1) at a round that does not end the game, p the
    seat's chance to win by a model fitted to level 1 self-play, won 49 (41%); the seat's own
    later placements weighing food by ``prospect`` in the round played out won 47 (39%); judging
    against the mean of the best other and the others' mean won 55 (46%); ``PROGRESS`` fitted to
    level 1 self-play won 57, and 108 of 240 (45%); half of ``PROGRESS`` won 52 (43%). At 1,000
    playouts a move (seeds 0-89 and 120-199), the seat's own later placements in the round searched
    by open-loop UCT (level 1's best 3 at each of its turns, UCB1) instead of played by level 1 won
    77 of 170 (45%), as this does; every playout played to the game's end by level 1 and judged by
    the win (``search.outcome_reward``) won 3 of 10 at 750 playouts, and only once a seat has 20
    points (this reward before) 9 of 30. Over seeds 0-399 this reward wins 177 of 400 (44%);
    against the others' mean prospect instead of the best other's it won 179 (45%); the next seat's
    reply played by level 2 in the playouts won 6 of 20 at 100 playouts (30 times the cost of a
    playout); the game played out by level 1 once a seat has 30 points won 14 of 40 (this: 15);
    level 1's score added to the reward as a prior won 92 of 200 (this: 92). On seeds 0-119 again
    (this: 56): the playouts' dice keyed by the world, the round, the seat and its dice left (so
    candidates spending different dice still meet the same later rolls) won 55; a second ply over
    the next other seat's placement (its level-1 best 3 played out on the same luck, weighted as
    often as level 2 plays them) won 47. The same search knowing the round's real dice wins 74%
    (``bench/bench_cafe_fatal_ceiling.py``). Stop 24 (``bench/bench_cafe_fatal_variants.py``,
    seeds 0-119, this: 56): the others in the playouts drawing from a softmax of level 1's scores
    won 56 at 0.5 points, 49 at 1, 53 at 2; every seat so, the bot's own later placements too, 57 at 1;
    the others drawing from a conditional logit fitted to level 2's choices (its best is level 2's
    choice 43.6% of the time, level 1's best 44.1%; half as many playouts a second) won 54; the
    bot's own later placements valuing a kept die at 0.2 won 50; level 1's best 8 raced instead
    of 5 won 61 but 108 of seeds 120-399 (this: 121), 12 won 49, every legal placement 41; at 600
    playouts a move level 1's best 8 won 179 of seeds 0-399 and this 167. Stop 26 (the same bench,
    seeds 0-119, this: 56): judged against an oracle that plays the game to its end by level 1 on
    200-400 worlds (``bench/cf_oracle.py``, 287 decisions of 19 lost games), this reward's best
    loses 0.15 points of win chance a decision among level 1's 5 and none among its best 10-12
    (the bot's own pick at 200 playouts 0.49, level 2's 0.74): the oracle finds no round-end
    judgement wrong, and what it prefers outside level 1's 5 loses real games against level 2
    bots (the wider races of stop 24, and below); the search never halving (``cut:40``)
    won 48; ``PROGRESS`` halved once a seat has 30 points won 52, dropped then 49; the pieces left
    on tied tables and the next round's start counted won 56; level 1's best 10 at the bot's first
    placement of a round (where the oracle's best lies outside level 1's 5 most often) won 53."""
    state, _ = _round_played_out(state, seat, rng, ENGINE.advance)
    return round_end_reward(state, seat)


def round_end_reward(state: State, seat: int) -> float:
    """``_round_reward``'s judgement of a round played to its end (or of the game's end)."""
    if ENGINE.is_over(state):
        scores = state["scores"]
        reward = float(scores[seat] - max(s for other, s in enumerate(scores) if other != seat))
        ranks = ENGINE.result(state).ranks
        return reward + (WIN_BONUS if ranks[seat] == 1 else -WIN_BONUS)
    worth = [prospect(held) for held in state["held"]]
    return worth[seat] - max(w for other, w in enumerate(worth) if other != seat)


#: What k loose pieces of one sort are worth beyond their face value, in units of the sort's
#: value: part of the bonus the fifth piece brings (5 more, the set scoring 10 for 5). Points
#: alone made four cakes (20) look no better than four pizzas and two cheeses, though the fifth
#: cake ends most games: judged by points at the round's end, level 3 won 35% of 120 games
#: against two level 2 bots (200 playouts a move), by these prospects 47% on the same seeds.
PROGRESS = (0.0, 0.5, 1.25, 2.25, 3.5)


def prospect(held: dict[str, int]) -> float:
    """What a hand is worth while the game goes on: its points, and for each sort's loose pieces
    a share of the set bonus they are on their way to (``PROGRESS``)."""
    total = 0.0
    for sort, count in held.items():
        sets, loose = divmod(count, SET_SIZE)
        total += SORT_VALUE[sort] * (SET_POINTS * sets + loose + PROGRESS[loose])
    return total
