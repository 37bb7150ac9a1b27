"""The Pizza Party bots.

All three reason about the cut with counts alone: for a choice of lines, the toppings each colour
keeps after step 3 follow from the per-part counts, so no board is built. A round has only 6 × 6 × 6
line choices, and the bots weigh all of them (``outcome_table``, each outcome's worth to a colour
worked out once per table).

- level 1: picks the cut with the best average outcome against uniformly random picks of the
  others, and places where the best such cut is worth most once the topping stands there.
- level 2: places as level 1, but cuts expecting the other players to pick sensibly (half of
  each one's weight on its own best answer to random picks; the duel's neutral die stays
  uniform); among equally good cuts it takes the one best against random picks. Placing for
  sensible players too beat level 1 more often but lost to random players more often than
  level 1 does; it cannot tell which it faces.
- level 3: foresees each other colour's level-2 cut (``opponent_model``: every way level 2 could
  break a tie counted alike, ``MODEL_LEVEL_2`` of the weight, the rest on any face) and answers it
  exactly; its placement is searched (``search.search_move``) over the cells best against that
  model, each playout placing the round's other toppings at random and weighing the cut exactly.

A bot gets its seat's view, never the state: the others' secret picks are not in it, and the
bots never needed them (they weigh every pick the others could make).

Measured with ``bench/bots.py``'s seeds and seating (seats rotated, outright wins): level 1 wins
92% of 1,000 three-player games against two random players and 91% of 1,000 duels; level 2 92%
and 92% of 600 each, and against level 1 68% of 400 three-player games (two level 1 bots) and
62% of 400 duels. Level 3, thinking 64 playouts a move (about 800 fit in a second of an idle
core), wins 92% of 200 three-player games against two level 2 bots and 71% of 300 duels (73% at 128
playouts).
"""

from __future__ import annotations

import itertools
import math
import random
from typing import Any

from . import search
from .base import IllegalMove, Move, State, gettext_noop
from .pizza_party import (
    COLOURS,
    FACES,
    NEUTRAL,
    PART_OF,
    PARTS,
    TOPPINGS,
    axis_of,
    cell_name,
    placeable_cells,
)

#: A colour that completes its 16 wins outright; the value dwarfs any difference in counts.
WIN_VALUE = 40.0

#: Level 2's share of each opponent's pick on its best answer to random picks (the rest is spread
#: evenly): enough to expect sensible players, not so much that a random one fools it.
SENSIBLE_SHARE = 0.5

#: Every choice of lines, (n_q, n_r, n_s), in a fixed order.
TRIPLES: tuple[tuple[int, int, int], ...] = tuple(PARTS)

# Per triple: how many parts it makes and the part of each cell, flattened for speed.
_PART_COUNT = [len(PARTS[t]) for t in TRIPLES]
_PART_OF = [PART_OF[t] for t in TRIPLES]
#: Per triple: where a topping counts (``3 * part + colour``), by ``3 * cell + colour``.
_SLOT_OF = [tuple(3 * p + colour for p in part_of for colour in range(3)) for part_of in _PART_OF]


def _engine() -> Any:
    from .pizza_party import ENGINE

    return ENGINE


def _resolve_counts(counts: list[int], n_parts: int, on_board: list[int]) -> list[int]:
    """The toppings of each colour on the board after step 3, from per-part counts
    (``counts[3 * part + colour]``) and the counts on the board before it."""
    c0, c1, c2 = counts[0::3], counts[1::3], counts[2::3]
    # A colour with at most one topping in every part is safe: it loses nothing.
    unsafe0, unsafe1, unsafe2 = max(c0) > 1, max(c1) > 1, max(c2) > 1
    if not (unsafe0 or unsafe1 or unsafe2):
        return list(on_board)
    r0 = r1 = r2 = w0 = w1 = w2 = 0
    for a, b, c in zip(c0, c1, c2, strict=True):
        top = a if a > b else b
        if c > top:
            top = c
        # Below the most in a part and not safe: removed. A part whose most is one has no one
        # below a leader.
        if top < 2:
            continue
        lost_a = a if unsafe0 and 0 < a < top else 0
        lost_b = b if unsafe1 and 0 < b < top else 0
        lost_c = c if unsafe2 and 0 < c < top else 0
        r0 += lost_a
        r1 += lost_b
        r2 += lost_c
        # One leader takes the others' cells; two tied leaders only push the third out.
        if a == top:
            if b != top and c != top:
                w0 += lost_b + lost_c
        elif b == top:
            if c != top:
                w1 += lost_a + lost_c
        else:
            w2 += lost_a + lost_b
    left0, left1, left2 = on_board[0] - r0, on_board[1] - r1, on_board[2] - r2
    return [
        left0 + min(w0, TOPPINGS - left0),
        left1 + min(w1, TOPPINGS - left1),
        left2 + min(w2, TOPPINGS - left2),
    ]


class Outcomes(list):
    """The final counts per colour for every line triple, in ``TRIPLES`` order, with what each
    outcome is worth to each colour (``value_for``) worked out once, when first asked."""

    def worths(self, colour: int) -> list[float]:
        cache: dict[int, list[float]] = self.__dict__.setdefault("_worths", {})
        worths = cache.get(colour)
        if worths is None:
            o1, o2 = (c for c in range(COLOURS) if c != colour)
            worths = []
            for final in self:
                mine = final[colour]
                best = final[o1] if final[o1] > final[o2] else final[o2]
                worth = float(mine - best)
                if mine == TOPPINGS:
                    worth += WIN_VALUE
                if best == TOPPINGS:
                    worth -= WIN_VALUE
                worths.append(worth)
            cache[colour] = worths
        return worths


def _chance_of_others_picks(
    lines: tuple[int, int, int],
    axes: list[int],
    colour: int,
    weights: list[list[float]] | None,
) -> float:
    """How likely the other colours are to pick the lines of this triple (1 when picks are
    taken as uniform: every triple then counts alike)."""
    if weights is None:
        return 1.0
    weight = 1.0
    for c in range(COLOURS):
        if c != colour:
            weight *= weights[c][lines[axes[c]] - 1]
    return weight


def value_for(final: list[int], colour: int) -> float:
    """How good an outcome is for ``colour``: winning first, then the lead in toppings."""
    mine = final[colour]
    others = [final[c] for c in range(COLOURS) if c != colour]
    worth = float(mine - max(others))
    if mine == TOPPINGS:
        worth += WIN_VALUE
    if max(others) == TOPPINGS:
        worth -= WIN_VALUE
    return worth


def outcome_table(board: list[int | None]) -> Outcomes:
    """The final counts per colour for every line triple, in ``TRIPLES`` order."""
    toppings = [3 * i + colour for i, colour in enumerate(board) if colour is not None]
    on_board = [board.count(0), board.count(1), board.count(2)]
    table = Outcomes()
    for slot_of, n_parts in zip(_SLOT_OF, _PART_COUNT, strict=True):
        counts = [0] * (3 * n_parts)
        for topping in toppings:
            counts[slot_of[topping]] += 1
        table.append(_resolve_counts(counts, n_parts, on_board))
    return table


def pick_values(
    table: Outcomes,
    colour: int,
    round_number: int,
    weights: list[list[float]] | None = None,
) -> list[float]:
    """The expected value of each pick 1..6 for ``colour``; ``weights[c][face - 1]`` is the chance
    that colour c picks ``face`` (uniform when None: then the values are sums over the 36 picks
    of the others, not averages)."""
    values = [0.0] * 6
    worths = table.worths(colour)
    mine = axis_of(colour, round_number)
    if weights is None:
        for lines, worth in zip(TRIPLES, worths, strict=True):
            values[lines[mine] - 1] += worth
        return values
    o1, o2 = (c for c in range(COLOURS) if c != colour)
    axis1, axis2 = axis_of(o1, round_number), axis_of(o2, round_number)
    w1, w2 = weights[o1], weights[o2]
    for lines, worth in zip(TRIPLES, worths, strict=True):
        values[lines[mine] - 1] += w1[lines[axis1] - 1] * w2[lines[axis2] - 1] * worth
    return values


def _best(values: list[float], rng: random.Random, then: list[float] | None = None) -> int:
    """The index of the highest value; ties broken by the highest of ``then`` if given, then at
    random so the bot is not predictable."""
    top = max(values)
    tied = [k for k, v in enumerate(values) if v >= top - 1e-9]
    if then is not None and len(tied) > 1:
        second = max(then[k] for k in tied)
        tied = [k for k in tied if then[k] >= second - 1e-9]
    return rng.choice(tied)


def _expected_picks(
    state: State, rng: random.Random, table: Outcomes | None = None
) -> list[list[float]]:
    """How likely each colour is to pick each face: half uniform, half its own best answer to
    random picks on the board as it stands; the duel's neutral colour rolls a plain die."""
    table = table if table is not None else outcome_table(state["board"])
    weights = []
    for c in range(COLOURS):
        if c == NEUTRAL and state["n"] == 2:
            weights.append([1 / 6] * 6)
            continue
        answer = _best(pick_values(table, c, state["round"]), rng)
        uniform = (1 - SENSIBLE_SHARE) / 6
        weights.append([uniform + (SENSIBLE_SHARE if k == answer else 0.0) for k in range(6)])
    return weights


def choose_cut(state: State, colour: int, rng: random.Random, strong: bool = False) -> int:
    table = outcome_table(state["board"])
    against_random = pick_values(table, colour, state["round"])
    if not strong:
        return FACES[_best(against_random, rng)]
    values = pick_values(table, colour, state["round"], _expected_picks(state, rng, table))
    return FACES[_best(values, rng, against_random)]


def placement_values(
    board: list[int | None],
    colour: int,
    round_number: int,
    weights: list[list[float]] | None = None,
) -> dict[int, float]:
    """For each cell ``colour`` may take: the value of its best pick (against random picks of
    the others) once a topping stands there. Cells in the same part of a triple give the same
    outcome, so each triple is resolved once per part, not once per cell."""
    cells = placeable_cells(board, colour)
    if not cells:
        return {}
    toppings = [3 * i + c for i, c in enumerate(board) if c is not None]
    on_board = [board.count(0), board.count(1), board.count(2)]
    on_board[colour] += 1
    axes = [axis_of(c, round_number) for c in range(COLOURS)]
    my_axis = axes[colour]
    # sums[cell][face - 1]: summed value over the others' picks when ``colour`` picks face.
    sums = {i: [0.0] * 6 for i in cells}
    for t, lines in enumerate(TRIPLES):
        weight = _chance_of_others_picks(lines, axes, colour, weights)
        part_of = _PART_OF[t]
        n_parts = _PART_COUNT[t]
        slot_of = _SLOT_OF[t]
        counts = [0] * (3 * n_parts)
        for topping in toppings:
            counts[slot_of[topping]] += 1
        by_part: list[float | None] = [None] * n_parts
        face = lines[my_axis] - 1
        for i in cells:
            p = part_of[i]
            worth = by_part[p]
            if worth is None:
                counts[3 * p + colour] += 1
                worth = weight * value_for(_resolve_counts(counts, n_parts, on_board), colour)
                counts[3 * p + colour] -= 1
                by_part[p] = worth
            sums[i][face] += worth
    return {i: max(row) for i, row in sums.items()}


def choose_place(state: State, colour: int, rng: random.Random) -> list[int]:
    """The cell where the best cut against random picks is worth most once the topping stands
    there (levels 1 and 2), ties broken at random."""
    values = placement_values(state["board"], colour, state["round"])
    cells = list(values)
    return cell_name(cells[_best([values[i] for i in cells], rng)])


def bot_move(view: dict[str, Any], rng: random.Random, level: int = 1) -> Move:
    """The move of the bot of ``level`` for the seat of ``view``."""
    colour = view["you"]
    if colour is None or colour not in view["to_move"]:
        raise IllegalMove(gettext_noop("It is not your turn."))
    state = _engine().sample_state(view, rng)
    if level >= 3:
        return searched_move(view, state, rng)
    if state["phase"] == "add":
        # Level 2 places as level 1 does. It cannot tell sensible players from random ones, and
        # placing for sensible ones cost it games that level 1 wins against random players
        # (three-player games: 89.5% of 1,000 won, level 1 92.1%; breaking only level 1's ties
        # by the sensible model, 87.5% of 600); its cut, where the model costs nothing against
        # random players, is what beats level 1.
        return {"place": choose_place(state, colour, rng)}
    return {"cut": choose_cut(state, colour, rng, strong=level >= 2)}


# --- level 3 -----------------------------------------------------------------------------------
#: How many of level 2's cells the search weighs (a cut weighs all six faces).
SEARCH_CANDIDATES = 6
#: A lead of this many toppings counts as a clear one in the reward.
MARGIN_SCALE = 3.0


def searched_move(view: dict[str, Any], state: State, rng: random.Random) -> Move:
    """Level 3: the cut is weighed exactly against ``opponent_model`` (``_cut_against_level_2``);
    a placement is searched (``search.search_move``) over the cells best against that model,
    each playout placing the round's other toppings at random and weighing the cut exactly."""
    colour = view["you"]
    engine = _engine()
    if state["phase"] != "add":
        return {"cut": _cut_against_level_2(state, colour, rng)}
    weights = opponent_model(state, outcome_table(state["board"]), colour)
    values = placement_values(state["board"], colour, state["round"], weights)
    cells = sorted(values, key=lambda i: (-values[i], i))[:SEARCH_CANDIDATES]
    candidates: list[Move] = [{"place": cell_name(i)} for i in cells]
    return search.search_move(
        # While toppings are added nothing is hidden (no pick is made yet): every re-dealt
        # world is the view's own state, so it is built once (``sample_state``), not per world.
        lambda _rng: state,
        lambda world, move: engine.advance(world, colour, move),
        candidates,
        colour,
        _round_reward,
        rng,
    )


def _cut_against_level_2(state: State, colour: int, rng: random.Random) -> int:
    """The cut: the others' picks are few (six faces each), so every combination is weighed
    exactly rather than sampled, against ``opponent_model``."""
    table = outcome_table(state["board"])
    weights = opponent_model(state, table, colour)
    return FACES[_best(pick_values(table, colour, state["round"], weights), rng)]


#: Level 3's model of another colour's pick: this share on its level-2 answer (``choose_cut``), the
#: rest on any face. Measured against level 2: the first level 3 (half the weight on level 2's
#: answer, playouts drawing the picks) won 33 of 60 duels (40 playouts a move); this one, with
#: the playouts weighing the cut exactly, 44 of 60 (24 playouts).
MODEL_LEVEL_2 = 0.85


def _answers(values: list[float], then: list[float] | None = None) -> list[int]:
    """Every face (index) that ``_best`` may pick: the highest values, the highest of ``then``
    among them if given."""
    top = max(values)
    tied = [k for k, v in enumerate(values) if v >= top - 1e-9]
    if then is not None:
        second = max(then[k] for k in tied)
        tied = [k for k in tied if then[k] >= second - 1e-9]
    return tied


def _mixed(shares: list[tuple[float, list[int]]]) -> list[float]:
    """The chance of each face when each share is spread over its faces, the rest over all six."""
    weights = [(1 - sum(share for share, _ in shares)) / 6] * 6
    for share, faces in shares:
        for k in faces:
            weights[k] += share / len(faces)
    return weights


def opponent_model(state: State, table: Outcomes, hero: int) -> list[list[float]]:
    """How likely each other colour is to pick each face (``weights[c][face - 1]``): its level-2
    answer on this board (share ``MODEL_LEVEL_2``), else any face; the duel's neutral colour rolls a plain die. Where a bot would break a tie at
    random, every way it could break it counts alike, so the model draws nothing at random."""
    round_number = state["round"]
    uniform = [1 / 6] * 6
    chance = [c == NEUTRAL and state["n"] == 2 for c in range(COLOURS)]
    against_random = [pick_values(table, c, round_number) for c in range(COLOURS)]
    level_1 = [_answers(values) for values in against_random]
    model = []
    for c in range(COLOURS):
        if chance[c] or c == hero:
            model.append(uniform)
            continue
        weights = [(1 - MODEL_LEVEL_2) / 6] * 6
        for k, chance_of_k in _level_2_answer(table, c, round_number, level_1, chance).items():
            weights[k] += MODEL_LEVEL_2 * chance_of_k
        model.append(weights)
    return model


def _level_2_answer(
    table: Outcomes,
    colour: int,
    round_number: int,
    level_1: list[list[int]],
    chance: list[bool],
) -> dict[int, float]:
    """How likely level 2 (``choose_cut``) is to pick each face for ``colour``: it expects each
    other colour to pick one of its level-1 answers (drawn at random among ties) half of the
    time, so each way of drawing them counts alike."""
    others = [c for c in range(COLOURS) if c != colour and not chance[c]]
    uniform = [1 / 6] * 6
    against_random = pick_values(table, colour, round_number)
    guesses = list(itertools.product(*(level_1[c] for c in others)))
    answer: dict[int, float] = {}
    for guess in guesses:
        expected = [uniform] * COLOURS
        for c, k in zip(others, guess, strict=True):
            expected[c] = _mixed([(SENSIBLE_SHARE, [k])])
        faces = _answers(pick_values(table, colour, round_number, expected), against_random)
        for k in faces:
            answer[k] = answer.get(k, 0.0) + 1 / (len(faces) * len(guesses))
    return answer


def _round_reward(state: State, colour: int, rng: random.Random) -> float:
    """Play the placements left before the round's cut at random, then weigh the cut exactly
    against ``opponent_model`` (the colour picking its best answer to it): 0 to 1 by the
    expected lead in toppings, a win counting ``WIN_VALUE``. A playout's only luck is then the
    placements; a game that ends before the cut is judged by its result."""
    engine = _engine()
    while state["phase"] == "add":
        mover = engine.to_move(state)[0]
        state = engine.advance(state, mover, engine.random_move(state, mover, rng))
    if engine.is_over(state):
        result = engine.result(state)
        return search.outcome_reward(result.scores, result.ranks, colour, MARGIN_SCALE)
    table = outcome_table(state["board"])
    weights = opponent_model(state, table, colour)
    worth = max(pick_values(table, colour, state["round"], weights))
    return 0.5 + 0.5 * math.tanh(worth / (4 * MARGIN_SCALE))
