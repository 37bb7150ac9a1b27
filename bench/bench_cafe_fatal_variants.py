"""Café Fatal's level 3 with other playout policies or more candidates, against two level 2 bots.

Bench only: each variant is level 3's search (``searched_placement``) with another rollout or
another number of candidates, played on exactly ``bench/bots.py``'s games (the same seeds, seating,
random numbers and budget as ``bench/bots.py --game cafe-fatal --players 3 --levels 2,3
--iterations K``), so ``main`` here wins the games ``bench/bots.py`` reports.

Variants (``play VARIANT``):

- ``main``: level 3 as it is;
- ``soft-others:T``: the other seats in the playouts draw their placement from a softmax over
  level 1's scores at temperature T points (level 1 plays its best: T → 0);
- ``soft-all:T``: the same for every seat, the bot's own later placements too;
- ``fit-others``: the other seats draw from ``FITTED``, a conditional logit fitted to level 2's
  choices (``record`` then ``fit``);
- ``own-keep:F``: the bot's own later placements in the playouts value a die kept back at F
  (level 1's ``DIE_KEEP_FACTOR``) instead of 0.35;
- ``cands:N``: level 1's best N placements raced instead of 5 (``all``: every legal one);
- ``cut:N``: the search's first halving after N worlds instead of ``search.FIRST_CUT`` (16; at
  200 playouts and 5 candidates ``cut:40`` never halves);
- ``values:N`` (stop 38): level 1's best placement of each value rolled, best first, then its
  next best placements, N in all, raced instead of level 1's best 5 (a race of how many dice to
  place now, rather than of tables for the same value);
- ``budget-cuts`` (stop 38): the search's halvings at equal shares of its budget (sequential
  halving: the five candidates halve once, to two, when half the playouts are spent, never before
  ``search.FIRST_CUT`` worlds), instead of after 16 worlds whatever the budget
  (``budget_share_halving`` in ``search.halving_due``'s place);
- ``late:T:F``: a round that does not end the game but leaves a seat with T points or more is
  judged with ``PROGRESS`` times F (the set bonus a loose piece is on its way to counts less when
  the game is about to end);
- ``left:S:B``: the pieces left on tied tables count for each seat S times what they would add
  to its prospect, and the seat that starts the next round gets B points;
- ``risk:S`` (stop 34): the round judged by ``tanh(margin / spread)``, the spread S points times
  the square root of one plus the rounds the leader still needs to reach 40; a game over 1 won,
  0 tied first, -1 lost;
- ``keep:B`` (stop 35): level 3's reward plus B points for each die the candidate leaves in the
  seat's hand (its later placements in the playouts are level 1's); ``keepv:F``: F times level
  1's worth of a die kept back (``_TableJudge.die_value``) for each;
- ``first:N``: level 1's best N placements raced at the bot's first placement of a round (where
  ``bench/cf_oracle.py`` finds the oracle's best outside level 1's best 5 most often), 5 at the
  others;
- ``maxn:A:C`` (stop 27): max^n open-loop MCTS over the round (``maxn_placement``). Every seat's
  placements in the rest of the round are in one tree whose nodes are the sequences of
  placements so far (the dice are re-drawn in every playout); an arm is level 1's k-th best
  placement for the roll in front of the seat (k = 1..A; level 1's best when the roll has fewer;
  at the root the bot's real placements, level 1's best 5), and each seat chooses at its own nodes
  by UCB1 on its own reward (``round_end_reward`` of every seat at the round's end) with weight C
  points. One node is added a playout; from it level 1 plays the round out. The root's arm with
  the best mean reward for the bot is played;
- ``maxn-visits:A:C``: the same, the most visited root arm played;
- ``maxn-l2:A:C``: the others' reward is level 2's own (their round gain minus the others' mean
  gain), the bot's ``round_end_reward``;
- ``maxn-sh:A:C``, ``maxn-sh-l2:A:C``: the root's arms raced as level 3 races them
  (``search.search_move``'s successive halving, every arm still in the race on the same worlds
  and luck), the tree below each;
- any of these with a third number W (``maxn-sh-l2:3:5:4``): progressive widening below the
  root, a seat at a node choosing among level 1's best 1 + (its visits there) // W only (so a new
  node plays level 1's best, not each arm once).

``record`` writes level 2 self-play decisions (3 players) as JSON lines: each placement's
features (``features``) and how often level 2, asked ``--samples`` times with fresh random numbers,
chose it. ``fit`` fits the conditional logit to them by Newton's method and prints its weights and
how often its best placement is level 2's choice (on the last 30% of the seeds, held out).

Run: ``.venv/bin/python bench/bench_cafe_fatal_variants.py play soft-others:1 --iterations 200
--games 120 --first-seed 0``; ``... record --games 60 --first-seed 1000 > decisions.jsonl``;
``... fit decisions.jsonl``; ``... cost fit-others`` (a variant's playouts per CPU second against
level 3's own, alternating; for a ``maxn`` variant whole decisions of ``--iterations`` playouts,
the tree included).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engines import CHANCE, cafe_fatal_bot, search
from games.engines.base import Move, State
from games.engines.cafe_fatal import ENGINE

PLAYERS = 3
#: A playout's placement for a seat: (state, seat, rng) -> move.
Policy = Callable[[State, int, random.Random], Move]

FEATURES = (
    "score",  # level 1's score
    "gap",  # level 1's score minus its best
    "rank0",
    "rank1",
    "rank2",  # level 1 ranks it first, second, third
    "gain",  # what it changes at its table (level 1's score without the dice it spends)
    "spent",  # dice it places
    "last",  # it places the seat's last dice
    "value",  # the value placed
    "overtake",  # the chance someone still beats the dice there this round (level 1's guess)
    "worth",  # what the food on its table is worth to the seat
    "new",  # a table the seat had no dice on
    "share",  # the share of the seat's dice left it places
    "top5",  # among level 1's best 5 (the only ones level 2 considers)
)
#: The conditional logit fitted by ``fit`` to 2,806 decisions of 60 seeded level 2 self-play games
#: (seeds 1000-1059, level 2 asked 4 times each), in ``FEATURES``' order; "last" is always 0 there
#: (a seat's last dice are never a choice of several placements).
FITTED = (0.1392, 0.0512, 0.7073, 0.1414, -0.0448, 0.0946, 0.0480, 0.0, 0.1056, 0.1952, -0.0873)
FITTED += (-0.4885, -1.7328, 4.4781)


def features(state: State, seat: int) -> list[tuple[Move, list[float]]]:
    """Every legal placement of ``seat`` with its ``FEATURES``, in level 1's order (best first)."""
    scored = cafe_fatal_bot._scored_placements(state, seat)
    judge = cafe_fatal_bot._TableJudge(state, seat)
    rolled, remaining = state["rolled"], state["remaining"][seat]
    best = scored[0][0]
    out = []
    for rank, (score, value, table) in enumerate(scored):
        count = rolled.count(value)
        current = state["dice"][table][seat]
        total = count + (current["count"] if current else 0)
        before = judge.value(table, current["count"], current["value"]) if current else 0.0
        row = [
            score,
            score - best,
            rank == 0,
            rank == 1,
            rank == 2,
            judge.value(table, total, value) - before,
            count,
            remaining == count,
            value,
            judge._overtake_chance(table, total, value),
            judge.worths[table],
            current is None,
            count / remaining,
            rank < 5,
        ]
        out.append(({"place": {"value": value, "table": table}}, [float(x) for x in row]))
    return out


def _draw(moves: Sequence[Move], scores: Sequence[float], rng: random.Random) -> Move:
    """A move drawn with chances exp(score), scores in logits."""
    top = max(scores)
    weights = [math.exp(s - top) for s in scores]
    pick = rng.random() * sum(weights)
    for move, weight in zip(moves, weights, strict=True):
        pick -= weight
        if pick <= 0:
            return move
    return moves[-1]


def softmax_policy(temperature: float) -> Policy:
    """Level 1's placements drawn by a softmax of their scores at ``temperature`` points."""

    def policy(state: State, seat: int, rng: random.Random) -> Move:
        scored = cafe_fatal_bot.placement_scores(state, seat)
        if len(scored) == 1:
            return scored[0][1]
        return _draw([m for _, m in scored], [s / temperature for s, _ in scored], rng)

    return policy


def fitted_policy(weights: Sequence[float] = FITTED) -> Policy:
    """Placements drawn by the conditional logit ``weights`` over ``features``."""

    def policy(state: State, seat: int, rng: random.Random) -> Move:
        rows = features(state, seat)
        if len(rows) == 1:
            return rows[0][0]
        scores = [sum(w * x for w, x in zip(weights, row, strict=True)) for _, row in rows]
        return _draw([m for m, _ in rows], scores, rng)

    return policy


def level1_with(constant: str, value: float) -> Policy:
    """Level 1 with one of its constants (a name in ``cafe_fatal_bot``) set to ``value`` while it
    chooses, and as it was afterwards."""

    def policy(state: State, seat: int, rng: random.Random) -> Move:
        kept = getattr(cafe_fatal_bot, constant)
        setattr(cafe_fatal_bot, constant, value)
        try:
            return cafe_fatal_bot.placement(state, seat, rng)
        finally:
            setattr(cafe_fatal_bot, constant, kept)

    return policy


def keep_policy(factor: float) -> Policy:
    """Level 1 valuing a die kept back at ``factor`` (its ``DIE_KEEP_FACTOR``)."""
    return level1_with("DIE_KEEP_FACTOR", factor)


def denial_policy(share: float) -> Policy:
    """Level 1 valuing what it takes from a table's leader at ``share`` (its ``DENIAL_SHARE``,
    0.1): level 2's reward, its gain less the others' mean gain, weighs a point taken from one of
    two others at a half, where level 1 weighs it at 0.05."""
    return level1_with("DENIAL_SHARE", share)


def round_reward(others: Policy, own: Policy = cafe_fatal_bot.placement) -> search.Rollout:
    """Level 3's reward (``round_end_reward`` at the round's end) with these playout policies."""

    def rollout(state: State, seat: int, rng: random.Random) -> float:
        while state["phase"] in ("roll", "place"):
            [mover] = ENGINE.to_move(state)
            if mover == CHANCE:
                move: Any = ENGINE.sample_chance(state, rng)
            else:
                move = (own if mover == seat else others)(state, mover, rng)
            state = ENGINE.advance(state, mover, move)
        return cafe_fatal_bot.round_end_reward(state, seat)

    return rollout


def judged_reward(judge: Callable[[State, int], float]) -> search.Rollout:
    """Level 3's playouts (the round played out by level 1) judged at the round's end by
    ``judge`` instead of ``round_end_reward``."""

    def rollout(state: State, seat: int, rng: random.Random) -> float:
        state, _ = cafe_fatal_bot._round_played_out(state, seat, rng, ENGINE.advance)
        return judge(state, seat)

    return rollout


def scaled_prospect(held: dict[str, int], factor: float) -> float:
    """``prospect`` with its ``PROGRESS`` times ``factor``."""
    points = cafe_fatal_bot.pieces_score(held)
    return points + factor * (cafe_fatal_bot.prospect(held) - points)


def _against_best(worth: Sequence[float], seat: int) -> float:
    return worth[seat] - max(w for other, w in enumerate(worth) if other != seat)


def late_judge(top: float, factor: float) -> Callable[[State, int], float]:
    """``round_end_reward``, but once a seat has ``top`` points the loose pieces' share of their
    set bonus times ``factor``."""

    def judge(state: State, seat: int) -> float:
        if ENGINE.is_over(state) or max(state["scores"]) < top:
            return cafe_fatal_bot.round_end_reward(state, seat)
        return _against_best([scaled_prospect(h, factor) for h in state["held"]], seat)

    return judge


def leftover_judge(share: float, start: float) -> Callable[[State, int], float]:
    """``round_end_reward`` counting the pieces left on tied tables (``share`` of what they add
    to each seat's prospect) and who starts the next round (``start`` points)."""

    def judge(state: State, seat: int) -> float:
        if ENGINE.is_over(state):
            return cafe_fatal_bot.round_end_reward(state, seat)
        held = state["held"]
        base = [cafe_fatal_bot.prospect(h) for h in held]
        worth = list(base)
        for pieces in state["tables"]:
            if any(pieces.values()):
                for s, hand in enumerate(held):
                    more = {sort: hand[sort] + pieces[sort] for sort in hand}
                    worth[s] += share * (cafe_fatal_bot.prospect(more) - base[s])
        # The share has moved the round on: its number now names the next round's starter.
        worth[state["round"] % state["n"]] += start
        return _against_best(worth, seat)

    return judge


def risk_judge(scale: float) -> Callable[[State, int], float]:
    """A win chance's shape instead of the margin: ``tanh(margin / spread)``, the spread ``scale``
    points times the square root of the rounds the leader still needs to reach 40 (about 10
    points a round), plus one; a game over is 1 won, 0 tied first, -1 lost. So a lead counts for
    less the more of it is already safe, and a deficit late in the game is worth a gamble."""

    def judge(state: State, seat: int) -> float:
        if ENGINE.is_over(state):
            ranks = ENGINE.result(state).ranks
            if ranks[seat] != 1:
                return -1.0
            return 1.0 if ranks.count(1) == 1 else 0.0
        worth = [cafe_fatal_bot.prospect(h) for h in state["held"]]
        left = max(0.0, 40.0 - max(state["scores"]))
        spread = scale * math.sqrt(1.0 + left / 10.0)
        return math.tanh(_against_best(worth, seat) / spread)

    return judge


def kept_dice_reward(worth: Callable[[State, int], float]) -> search.Rollout:
    """Level 3's reward (``_round_reward``) plus ``worth(state, seat)`` for each die the candidate
    left in the seat's hand. The seat's own later placements in a playout are level 1's, weaker
    than level 3's own will be, so the playouts may undervalue the dice a candidate keeps."""

    def rollout(state: State, seat: int, rng: random.Random) -> float:
        kept = state["remaining"][seat]
        bonus = worth(state, seat) * kept if kept else 0.0
        return cafe_fatal_bot._round_reward(state, seat, rng) + bonus

    return rollout


def keep_bonus(bonus: float) -> search.Rollout:
    """``kept_dice_reward`` at ``bonus`` points a die."""
    return kept_dice_reward(lambda state, seat: bonus)


def keep_worth_bonus(factor: float) -> search.Rollout:
    """``kept_dice_reward`` at ``factor`` times what level 1 thinks a die kept back is worth at
    the seat's tables now (``_TableJudge.die_value``): more when the food on the tables is worth
    more to the seat."""
    return kept_dice_reward(
        lambda state, seat: factor * cafe_fatal_bot._TableJudge(state, seat).die_value
    )


#: How many of level 1's best placements the search races: a number, or one per position.
Candidates = int | Callable[[State, int], int]


def first_placement(count: int) -> Callable[[State, int], int]:
    """``count`` candidates at the seat's first placement of a round, 5 at the others."""

    def candidates(state: State, seat: int) -> int:
        return count if not state["values"][seat] else cafe_fatal_bot.SEARCH_CANDIDATES

    return candidates


def variant(name: str) -> tuple[search.Rollout | None, Candidates]:
    """(the rollout, None for level 3's own; the candidates raced) of a variant's name."""
    kind, _, arg = name.partition(":")
    candidates = cafe_fatal_bot.SEARCH_CANDIDATES
    if kind == "main" or decider(name) is not None:
        return None, candidates
    if kind == "soft-others":
        return round_reward(softmax_policy(float(arg))), candidates
    if kind == "soft-all":
        policy = softmax_policy(float(arg))
        return round_reward(policy, policy), candidates
    if kind == "fit-others":
        return round_reward(fitted_policy()), candidates
    if kind == "deny-others":
        return round_reward(denial_policy(float(arg))), candidates
    if kind == "own-keep":
        return round_reward(cafe_fatal_bot.placement, keep_policy(float(arg))), candidates
    if kind == "cands":
        return None, 10**6 if arg == "all" else int(arg)
    if kind == "first":
        return None, first_placement(int(arg))
    if kind in ("cut", "budget-cuts"):
        # The cut itself is set by ``first_cut`` around the games.
        return None, candidates
    if kind == "late":
        top, factor = arg.split(":")
        return judged_reward(late_judge(float(top), float(factor))), candidates
    if kind == "risk":
        return judged_reward(risk_judge(float(arg))), candidates
    if kind == "keep":
        return keep_bonus(float(arg)), candidates
    if kind == "keepv":
        return keep_worth_bonus(float(arg)), candidates
    if kind == "left":
        share, start = arg.split(":")
        return judged_reward(leftover_judge(float(share), float(start))), candidates
    raise ValueError(f"unknown variant {name!r}")


@contextlib.contextmanager
def first_cut(name: str) -> Iterator[None]:
    """The search's halvings as variant ``name`` sets them (``cut:N``, ``budget-cuts``), for the
    block."""
    kind, _, arg = name.partition(":")
    kept = search.FIRST_CUT, search.halving_due
    if kind == "cut":
        search.FIRST_CUT = int(arg)
    if kind == "budget-cuts":
        search.halving_due = budget_share_halving
    try:
        yield
    finally:
        search.FIRST_CUT, search.halving_due = kept


def budget_share_halving(worlds: int, cuts: int, count: int, spent: Callable[[], float]) -> bool:
    """``search.halving_due`` by shares of the budget (sequential halving): the budget spent in
    equal shares, one more than the times the race halves before two candidates are left, the
    worse half of the race dropped after each share but the last (never before
    ``search.FIRST_CUT`` worlds)."""
    shares, left = 1, count
    while left > 2:
        left, shares = max(2, left // 2), shares + 1
    return worlds >= search.FIRST_CUT and spent() >= (cuts + 1) / shares


# --- max^n: open-loop MCTS over the round (stop 27) ---------------------------------------------
#: A level 3 decision: (view, world, rng) -> the bot's placement.
Decide = Callable[[dict[str, Any], State, random.Random], Move]
#: The reward of every seat at the end of a playout: (the round's end, the scores before) -> one
#: reward per seat.
Rewards = Callable[[State, Sequence[int]], list[float]]


def round_end_rewards(state: State, before: Sequence[int]) -> list[float]:
    """``round_end_reward`` of every seat, the hands' prospects worked out once."""
    n = len(state["held"])
    if ENGINE.is_over(state):
        scores = state["scores"]
        ranks = ENGINE.result(state).ranks
        bonus = cafe_fatal_bot.WIN_BONUS
        return [
            float(scores[s] - max(scores[o] for o in range(n) if o != s))
            + (bonus if ranks[s] == 1 else -bonus)
            for s in range(n)
        ]
    worth = [cafe_fatal_bot.prospect(held) for held in state["held"]]
    return [worth[s] - max(worth[o] for o in range(n) if o != s) for s in range(n)]


def level2_rewards(hero: int) -> Rewards:
    """``round_end_rewards`` for ``hero``; for every other seat level 2's own reward (its points
    gained in the round minus the others' mean gain)."""

    def rewards(state: State, before: Sequence[int]) -> list[float]:
        out = round_end_rewards(state, before)
        gains = [a - b for a, b in zip(state["scores"], before, strict=True)]
        total, n = sum(gains), len(gains)
        for s in range(n):
            if s != hero:
                out[s] = gains[s] - (total - gains[s]) / (n - 1)
        return out

    return rewards


class MaxnNode:
    """A node of the open-loop tree: the sequence of placements so far in the round (the dice
    are re-drawn in every playout). Per seat that has placed here (who places at a node can differ
    between playouts: a seat whose roll fits nowhere is skipped), per arm: visits and the sum of
    the reward vector; and the children, by (seat, arm)."""

    __slots__ = ("children", "stats")

    def __init__(self) -> None:
        self.stats: dict[int, tuple[list[int], list[list[float]]]] = {}
        self.children: dict[tuple[int, int], MaxnNode] = {}

    def seat_stats(self, seat: int, arms: int) -> tuple[list[int], list[list[float]]]:
        """``seat``'s visits and reward sums per arm here, made for ``arms`` arms at its first
        choice here (a sum stays empty until its arm's first reward)."""
        stats = self.stats.get(seat)
        if stats is None:
            stats = self.stats[seat] = ([0] * arms, [[] for _ in range(arms)])
        return stats

    def select(self, seat: int, arms: int, c: float, widen: int = 0) -> int:
        """UCB1 on ``seat``'s own reward over ``arms`` arms (an arm never tried first, the
        lowest k first). ``widen``: progressive widening, one arm more every ``widen`` visits
        of the seat here (level 1's best alone at first)."""
        visits, sums = self.seat_stats(seat, arms)
        if widen:
            arms = min(arms, 1 + sum(visits) // widen)
        for k in range(arms):
            if not visits[k]:
                return k
        log_total = math.log(sum(visits))
        best, best_value = 0, -math.inf
        for k in range(arms):
            value = sums[k][seat] / visits[k] + c * math.sqrt(log_total / visits[k])
            if value > best_value:
                best, best_value = k, value
        return best

    def update(self, seat: int, arm: int, rewards: Sequence[float]) -> None:
        """Count ``seat``'s ``arm`` played here (chosen by ``select``, or at the root by the
        race after ``seat_stats``) with the playout's reward vector."""
        visits, sums = self.stats[seat]
        visits[arm] += 1
        if sums[arm]:
            sums[arm] = [a + r for a, r in zip(sums[arm], rewards, strict=True)]
        else:
            sums[arm] = list(rewards)

    def child(self, seat: int, arm: int) -> tuple[MaxnNode, bool]:
        """The child after ``seat`` plays ``arm``, and whether it is new."""
        key = (seat, arm)
        node = self.children.get(key)
        if node is None:
            node = self.children[key] = MaxnNode()
            return node, True
        return node, False


def maxn_iteration(
    root: MaxnNode,
    world: State,
    seat: int,
    moves: Sequence[Move],
    arms: int,
    c: float,
    rewards: Rewards,
    rng: random.Random,
    root_arm: int | None = None,
    widen: int = 0,
) -> None:
    """One playout: down the tree (every seat choosing its arm by UCB1 on its own reward, an arm
    being level 1's k-th best placement for the roll in front of it, its best when the roll has
    fewer), the first new node's rest of the round played by level 1, the reward vector at the
    round's end added along the path. ``root_arm``: the bot's arm at the root, chosen by the
    caller instead of by UCB1. ``widen``: the seats' nodes below the root widen progressively
    (``MaxnNode.select``)."""
    path: list[tuple[MaxnNode, int, int]] = []
    arm = root.select(seat, len(moves), c) if root_arm is None else root_arm
    path.append((root, seat, arm))
    before = world["scores"]
    state = ENGINE.advance(world, seat, moves[arm])
    node, new = root.child(seat, arm)
    while state["phase"] in ("roll", "place"):
        [mover] = ENGINE.to_move(state)
        if mover == CHANCE:
            move: Any = ENGINE.sample_chance(state, rng)
        elif new:
            move = cafe_fatal_bot.placement(state, mover, rng)
        else:
            scored = cafe_fatal_bot._scored_placements(state, mover)
            if len(scored) == 1:
                # No choice: no node either.
                _, value, table = scored[0]
            else:
                arm = node.select(mover, arms, c, widen)
                path.append((node, mover, arm))
                _, value, table = scored[arm if arm < len(scored) else 0]
                node, new = node.child(mover, arm)
            move = {"place": {"value": value, "table": table}}
        state = ENGINE.advance(state, mover, move)
    vector = rewards(state, before)
    for at, mover, chosen in path:
        at.update(mover, chosen, vector)


def maxn_placement(
    arms: int,
    c: float,
    by_visits: bool = False,
    others_level2: bool = False,
    candidates: int = cafe_fatal_bot.SEARCH_CANDIDATES,
    halving: bool = False,
    widen: int = 0,
) -> Decide:
    """Level 3 deciding by max^n open-loop MCTS over the round: the root's arms are level 1's
    best ``candidates`` placements of the real roll, every later placement in the round (the
    bot's and the others') is one of level 1's best ``arms`` for the roll drawn, chosen by its
    seat on its own reward. The same budget as ``search.search_move`` (playouts or seconds);
    the root's arm with the best mean reward for the bot wins (``by_visits``: the most visited).
    ``halving``: the root's arms are raced as ``search.search_move`` races them (every arm still
    in the race plays each world, on the same luck; the worse half dropped each time the worlds
    double), the tree below deciding the rest of the round. ``widen``: progressive widening
    below the root (one arm more every ``widen`` visits of a seat at a node)."""

    def decide(view: dict[str, Any], world: State, rng: random.Random) -> Move:
        seat = view["you"]
        moves = [move for _, move in cafe_fatal_bot.placement_scores(world, seat)[:candidates]]
        if len(moves) == 1:
            return moves[0]
        rewards = level2_rewards(seat) if others_level2 else round_end_rewards
        chosen = search.current_budget()
        deadline = time.perf_counter() + chosen.seconds
        root = MaxnNode()
        playouts = 0
        sample = search.worlds_from_view(ENGINE, view)
        if halving:
            root.seat_stats(seat, len(moves))
            alive = list(range(len(moves)))
            worlds, next_cut = 0, search.FIRST_CUT
            while search._within(chosen, playouts, deadline, worlds):
                world_seed = rng.getrandbits(64)
                state = sample(random.Random(world_seed))
                for index in alive:
                    playout_rng = random.Random(world_seed ^ search.PLAYOUT_SALT)
                    maxn_iteration(
                        root, state, seat, moves, arms, c, rewards, playout_rng, index, widen
                    )
                    playouts += 1
                worlds += 1
                if worlds == next_cut and len(alive) > 2:
                    sums = root.stats[seat][1]
                    alive.sort(key=lambda i: -sums[i][seat])
                    alive = sorted(alive[: max(2, len(alive) // 2)])
                    next_cut *= 2
            sums = root.stats[seat][1]
            return moves[max(alive, key=lambda i: (sums[i][seat], -i))]
        while search._within(chosen, playouts, deadline, playouts // len(moves)):
            world_seed = rng.getrandbits(64)
            state = sample(random.Random(world_seed))
            playout_rng = random.Random(world_seed ^ search.PLAYOUT_SALT)
            maxn_iteration(root, state, seat, moves, arms, c, rewards, playout_rng, None, widen)
            playouts += 1
        visits, sums = root.stats[seat]
        if by_visits:
            best = max(range(len(moves)), key=lambda k: (visits[k], -k))
        else:
            best = max(
                (k for k in range(len(moves)) if visits[k]),
                key=lambda k: (sums[k][seat] / visits[k], -k),
            )
        return moves[best]

    return decide


def decider(name: str) -> Decide | None:
    """The variant's own decision (a search other than ``searched_placement``), or None."""
    kind, _, arg = name.partition(":")
    if kind in ("maxn", "maxn-visits", "maxn-l2", "maxn-sh", "maxn-sh-l2"):
        arms, c, *widen = arg.split(":")
        return maxn_placement(
            int(arms),
            float(c),
            widen=int(widen[0]) if widen else 0,
            by_visits=kind == "maxn-visits",
            others_level2=kind.endswith("-l2"),
            halving=kind.startswith("maxn-sh"),
        )
    if kind == "values":
        return value_placement(int(arg))
    return None


def value_candidates(state: State, seat: int, count: int) -> list[Move]:
    """Level 1's best placement of each value rolled (best value first), then its next best
    placements, ``count`` in all: a race of how many dice to place now rather than of tables."""
    ranked = cafe_fatal_bot.placement_scores(state, seat)
    chosen: list[Move] = []
    seen_values: set[int] = set()
    for _, move in ranked:
        if move["place"]["value"] not in seen_values:
            seen_values.add(move["place"]["value"])
            chosen.append(move)
    for _, move in ranked:
        if len(chosen) >= count:
            break
        if move not in chosen:
            chosen.append(move)
    return chosen[:count]


def value_placement(count: int) -> Decide:
    """Level 3's search and reward over ``value_candidates`` instead of level 1's best 5."""

    def decide(view: dict[str, Any], world: State, rng: random.Random) -> Move:
        seat = view["you"]
        return search.search_move(
            search.worlds_from_view(ENGINE, view),
            lambda state, move: ENGINE.advance(state, seat, move),
            value_candidates(world, seat, count),
            seat,
            cafe_fatal_bot._round_reward,
            rng,
        )

    return decide


def play(
    seed: int,
    rollout: search.Rollout | None,
    candidates: Candidates,
    times: list[float],
    decide: Decide | None = None,
) -> tuple[str, int]:
    """``bench/bots.py``'s game ``seed`` (level 3 in seat seed mod 3, two level 2 bots), the
    hero playing the variant: W (won outright), T (tied first) or L, and its margin over the best
    other seat."""
    rng = random.Random(seed)
    hero = seed % PLAYERS
    state = ENGINE.new_game(PLAYERS)
    while not ENGINE.is_over(state):
        seat = rng.choice(ENGINE.to_move(state))
        if seat == CHANCE:
            move = ENGINE.sample_chance(state, rng)
        elif seat == hero:
            start = time.perf_counter()
            view = ENGINE.view(state, seat)
            # What ``bot_move`` does at level 3, with the variant's rollout and candidates.
            world = ENGINE.sample_state(view, rng)
            if decide is not None:
                move = decide(view, world, rng)
            else:
                count = candidates if isinstance(candidates, int) else candidates(world, seat)
                move = cafe_fatal_bot.searched_placement(view, world, rng, rollout, None, count)
            times.append(time.perf_counter() - start)
        else:
            move = ENGINE.bot_move(ENGINE.view(state, seat), rng, 2)
        state = ENGINE.apply(state, seat, move)
    result = ENGINE.result(state)
    firsts = [s for s, rank in enumerate(result.ranks) if rank == 1]
    rival = max(score for s, score in enumerate(result.scores) if s != hero)
    outcome = "W" if firsts == [hero] else "T" if hero in firsts else "L"
    return outcome, result.scores[hero] - rival


def record(first: int, games: int, samples: int) -> None:
    """Level 2 self-play decisions with a choice, as JSON lines: ``features`` of every placement
    and how often level 2 chose each of ``samples`` times."""
    for seed in range(first, first + games):
        rng = random.Random(seed)
        state = ENGINE.new_game(PLAYERS)
        while not ENGINE.is_over(state):
            [seat] = ENGINE.to_move(state)
            if seat == CHANCE:
                move = ENGINE.sample_chance(state, rng)
            else:
                world = ENGINE.sample_state(ENGINE.view(state, seat), rng)
                rows = features(world, seat)
                if len(rows) > 1:
                    chosen = [
                        cafe_fatal_bot.strong_placement(
                            world, seat, random.Random(f"{seed}:{len(state['log'])}:{k}")
                        )
                        for k in range(samples)
                    ]
                    counts = [chosen.count(m) for m, _ in rows]
                    print(json.dumps({"seed": seed, "x": [r for _, r in rows], "y": counts}))
                move = cafe_fatal_bot.strong_placement(world, seat, rng)
            state = ENGINE.apply(state, seat, move)


def level1_decisions(
    count: int, take: Callable[[State, int, Move], Any], rng: random.Random
) -> list[Any]:
    """The first ``count`` things ``take`` makes of the decisions of level 1 self-play drawn
    from ``rng``: it is given each decision's state, seat and level 1's move; None skips it."""
    found: list[Any] = []
    state = ENGINE.new_game(PLAYERS)
    while len(found) < count:
        if ENGINE.is_over(state):
            state = ENGINE.new_game(PLAYERS)
        [seat] = ENGINE.to_move(state)
        if seat == CHANCE:
            move = ENGINE.sample_chance(state, rng)
        else:
            move = cafe_fatal_bot.placement(state, seat, rng)
            taken = take(state, seat, move)
            if taken is not None:
                found.append(taken)
        state = ENGINE.apply(state, seat, move)
    return found


def playout_cost(name: str, positions: int, playouts: int, rounds: int) -> str:
    """The variant's playouts per CPU second against level 3's own, alternating ``rounds`` times
    over the first ``positions`` decisions of seeded level 1 self-play (seed 2000)."""
    rollout, _ = variant(name)
    own = round_reward(cafe_fatal_bot.placement)
    found = level1_decisions(
        positions,
        lambda state, seat, move: (ENGINE.advance(state, seat, move), seat),
        random.Random(2000),
    )
    rates: dict[str, list[float]] = {"main": [], name: []}
    for _ in range(rounds):
        for label, reward in (("main", own), (name, rollout or own)):
            start = time.process_time()
            for k, (after, seat) in enumerate(found):
                for j in range(playouts):
                    reward(after, seat, random.Random(k * playouts + j))
            rates[label].append(positions * playouts / (time.process_time() - start))
    main_rate, rate = statistics.median(rates["main"]), statistics.median(rates[name])
    return (
        f"{name}: {rate:,.0f} playouts per CPU second, level 3's own {main_rate:,.0f} "
        f"(ratio {rate / main_rate:.2f}, medians of {rounds} alternating rounds)"
    )


def decision_cost(name: str, positions: int, iterations: int, rounds: int) -> str:
    """A decider's playouts per CPU second (whole decisions of ``iterations`` playouts, the tree
    included) against level 3's own search at the same budget, alternating ``rounds`` times over
    the first ``positions`` decisions with a choice of seeded level 1 self-play (seed 2000)."""
    decide = decider(name)
    assert decide is not None
    rng = random.Random(2000)
    found = level1_decisions(
        positions,
        lambda state, seat, _move: (
            ENGINE.view(state, seat)
            if len(cafe_fatal_bot.placement_scores(state, seat)) > 1
            else None
        ),
        rng,
    )

    def level3(view: dict[str, Any], world: State, rng: random.Random) -> Move:
        return cafe_fatal_bot.searched_placement(view, world, rng)

    rates: dict[str, list[float]] = {"main": [], name: []}
    with search.budget(iterations=iterations):
        for _ in range(rounds):
            for label, decision in (("main", level3), (name, decide)):
                start = time.process_time()
                for k, view in enumerate(found):
                    decision(view, ENGINE.sample_state(view, rng), random.Random(k))
                rates[label].append(positions * iterations / (time.process_time() - start))
    main_rate, rate = statistics.median(rates["main"]), statistics.median(rates[name])
    return (
        f"{name}: {rate:,.0f} playouts per CPU second in whole decisions of {iterations}, level "
        f"3's own {main_rate:,.0f} (ratio {rate / main_rate:.2f}, medians of {rounds} "
        f"alternating rounds)"
    )


def fit_logit(
    decisions: Sequence[tuple[list[list[float]], list[float]]], ridge: float = 0.01, steps: int = 30
) -> list[float]:
    """The conditional logit's weights (on standardized features, then put back in raw units)
    that best explain the chosen shares: Newton's method with a small ridge."""
    rows = [x for xs, _ in decisions for x in xs]
    d = len(rows[0])
    mean = [statistics.fmean(r[j] for r in rows) for j in range(d)]
    spread = [statistics.pstdev([r[j] for r in rows]) or 1.0 for j in range(d)]
    data = [
        ([[(x[j] - mean[j]) / spread[j] for j in range(d)] for x in xs], [c / sum(ys) for c in ys])
        for xs, ys in decisions
    ]
    w = [0.0] * d
    for _ in range(steps):
        grad = [-ridge * wj for wj in w]
        hess = [[-ridge * (i == j) for j in range(d)] for i in range(d)]
        for zs, shares in data:
            p = _softmax([sum(wj * zj for wj, zj in zip(w, z, strict=True)) for z in zs])
            mean_z = [sum(pk * z[j] for pk, z in zip(p, zs, strict=True)) for j in range(d)]
            for z, share, pk in zip(zs, shares, p, strict=True):
                centred = [z[j] - mean_z[j] for j in range(d)]
                for i in range(d):
                    grad[i] += (share - pk) * z[i] / len(data)
                    for j in range(d):
                        hess[i][j] -= pk * centred[i] * centred[j] / len(data)
        step = _solve(hess, [-g for g in grad])
        w = [wj + sj for wj, sj in zip(w, step, strict=True)]
        if max(abs(s) for s in step) < 1e-7:
            break
    return [wj / sj for wj, sj in zip(w, spread, strict=True)]


def _softmax(scores: Sequence[float]) -> list[float]:
    top = max(scores)
    weights = [math.exp(s - top) for s in scores]
    total = sum(weights)
    return [x / total for x in weights]


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """x with a x = b (Gaussian elimination with partial pivoting)."""
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(n):
            if r != col and m[col][col]:
                f = m[r][col] / m[col][col]
                m[r] = [x - f * y for x, y in zip(m[r], m[col], strict=True)]
    return [m[i][n] / m[i][i] if m[i][i] else 0.0 for i in range(n)]


def agreement(
    decisions: Sequence[tuple[list[list[float]], list[float]]], weights: list[float]
) -> tuple[float, float]:
    """How often the logit's best placement is level 2's choice (its share of the samples), and
    the mean log-likelihood of level 2's choices under the logit."""
    hits = likelihood = 0.0
    for xs, ys in decisions:
        scores = [sum(w * x for w, x in zip(weights, row, strict=True)) for row in xs]
        hits += ys[scores.index(max(scores))] / sum(ys)
        p = _softmax(scores)
        likelihood += sum(y * math.log(pk + 1e-12) for y, pk in zip(ys, p, strict=True)) / sum(ys)
    return hits / len(decisions), likelihood / len(decisions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("play", "record", "fit", "cost"))
    parser.add_argument("what", nargs="?", default="main", help="play: variant; fit: the file")
    parser.add_argument("--iterations", type=int, default=200, help="level 3's playouts a move")
    parser.add_argument("--games", type=int, default=120)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--samples", type=int, default=4, help="record: level 2 asked this often")
    args = parser.parse_args()
    if args.mode == "record":
        record(args.first_seed, args.games, args.samples)
        return
    if args.mode == "cost":
        if decider(args.what) is not None:
            measured = decision_cost(args.what, 40, args.iterations, 5)
        else:
            measured = playout_cost(args.what, 40, 50, 5)
        print(measured, "load", *(f"{x:.1f}" for x in os.getloadavg()))
        return
    if args.mode == "fit":
        loaded = [json.loads(line) for line in Path(args.what).read_text().splitlines()]
        seeds = sorted({d["seed"] for d in loaded})
        cut = seeds[int(0.7 * len(seeds))]
        split = {True: [], False: []}
        for d in loaded:
            split[d["seed"] < cut].append((d["x"], d["y"]))
        weights = fit_logit(split[True])
        print("weights:", dict(zip(FEATURES, (round(w, 4) for w in weights), strict=True)))
        # Level 1's score alone: its best, and a softmax at 1 point (``soft-others:1``).
        first = [1.0] + [0.0] * (len(FEATURES) - 1)
        for name, part in (("fitted", split[True]), ("held out", split[False])):
            hits, likelihood = agreement(part, weights)
            hits_1, likelihood_1 = agreement(part, first)
            print(
                f"{name}: {len(part)} decisions; the logit's best is level 2's choice {hits:.3f}"
                f" (log-likelihood {likelihood:.3f}), level 1's best {hits_1:.3f} (its softmax"
                f" at 1 point {likelihood_1:.3f})"
            )
        return
    rollout, candidates = variant(args.what)
    decide = decider(args.what)
    times: list[float] = []
    start = time.process_time()
    last = args.first_seed + args.games - 1
    with search.budget(iterations=args.iterations), first_cut(args.what):
        games = [
            play(seed, rollout, candidates, times, decide)
            for seed in range(args.first_seed, args.first_seed + args.games)
        ]
    outcomes = "".join(outcome for outcome, _ in games)
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"{args.what} K={args.iterations} seeds {args.first_seed}-{last}: "
        f"{outcomes.count('W')}/{args.games} margin "
        f"{statistics.mean(m for _, m in games):+.1f} ms/move med {1000 * statistics.median(times):.0f} "
        f"max {1000 * max(times):.0f} cpu {time.process_time() - start:.0f} s load {load} {outcomes}"
    )


if __name__ == "__main__":
    main()
