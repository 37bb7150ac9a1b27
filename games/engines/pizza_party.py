"""Pizza Party, exactly as ``spec/pizza-party.md`` decides.

A state is a JSON object. The board is a list of 37 entries (a colour or None), one per cell, in
ascending (r, q) order: the order in which a majority colour fills the cells it won, so that order
is simply the list's order. Colours are seats 0, 1 and 2; in the duel, colour 2 is the neutral
colour and chance plays it.

A pick is secret until the step's picks are all in. While a step is open its picks sit in the log
marked ``"secret": True`` and ``record_move`` shows them to their owner only; the move that
completes the step rewrites those log entries without the mark, which reveals them to everyone.

``advance`` (a search's step) plays the same game as ``apply`` without the log, and its states
carry the board as sets of bits (``SEARCH_BITS``) so that placing and cutting need no walk round
the board; states the site stores never carry them.
"""

from __future__ import annotations

import functools
import itertools
import operator
import random
from collections.abc import Iterator
from typing import Any

from .base import (
    CHANCE,
    SENTENCE_SEPARATOR,
    Column,
    Engine,
    GameResult,
    IllegalMove,
    Move,
    OptionSpec,
    SeatRef,
    Sentence,
    State,
    gettext_noop,
    joined,
    sentence,
)
from .registry import register

RADIUS = 3
COLOURS = 3
TOPPINGS = 16
ROUNDS = 60
FACES = tuple(range(1, 7))
AXES = ("q", "r", "s")
NEUTRAL = 2
SECRET = "secret"

#: Every cell as (q, r), in ascending (r, q) order.
CELLS: tuple[tuple[int, int], ...] = tuple(
    sorted(
        (
            (q, r)
            for q in range(-RADIUS, RADIUS + 1)
            for r in range(-RADIUS, RADIUS + 1)
            if abs(q + r) <= RADIUS
        ),
        key=lambda cell: (cell[1], cell[0]),
    )
)
INDEX: dict[tuple[int, int], int] = {cell: i for i, cell in enumerate(CELLS)}

#: The two X marks of each colour, where it starts.
START_CELLS: tuple[tuple[tuple[int, int], ...], ...] = (
    ((3, -3), (3, 0)),
    ((-3, 3), (0, 3)),
    ((0, -3), (-3, 0)),
)


def coordinates(cell: tuple[int, int]) -> tuple[int, int, int]:
    q, r = cell
    return q, r, -q - r


def hex_distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    return max(abs(x - y) for x, y in zip(coordinates(a), coordinates(b), strict=True))


#: For each cell, the cells at distance 1 (a new topping may not go there beside its own colour).
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(j for j, other in enumerate(CELLS) if hex_distance(cell, other) == 1) for cell in CELLS
)

# Sets of cells as bits of an int (bit i: cell i), so that "free of my neighbours" is one OR per
# topping rather than a loop round each one: placing is most of what a playout does.
_BIT: tuple[int, ...] = tuple(1 << i for i in range(len(CELLS)))
_ALL_CELLS = (1 << len(CELLS)) - 1
_NEIGHBOUR_BITS: tuple[int, ...] = tuple(sum(_BIT[j] for j in cells) for cells in NEIGHBOURS)
#: The cells of each byte value of a cell set, per byte of the set (5 bytes hold 37 cells).
_CELLS_OF_BYTE: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(
        tuple(8 * k + j for j in range(8) if value >> j & 1 and 8 * k + j < len(CELLS))
        for value in range(256)
    )
    for k in range((len(CELLS) + 7) // 8)
)

#: The cells next to any cell of each byte value of a cell set, per byte (as ``_CELLS_OF_BYTE``):
#: where a colour may not place, from its cells, in five lookups.
_NEAR_OF_BYTE: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        functools.reduce(operator.or_, (_NEIGHBOUR_BITS[i] for i in cells), 0) for cells in of_byte
    )
    for of_byte in _CELLS_OF_BYTE
)
#: The cumulative weights ``rng.choices`` builds from ``weights=[1 / n] * n`` (n equally likely
#: outcomes), by n: passed ready-made, the draw is the same and nothing is summed per draw.
_EVEN_CUMULATIVE: tuple[tuple[float, ...], ...] = tuple(
    tuple(itertools.accumulate([1 / n] * n)) if n else () for n in range(len(CELLS) + 1)
)
#: A list of one seat: ``rng.choice`` among ``to_move`` when one seat moves (the draw still
#: consumes the generator, and a lean playout must consume it alike).
_ONE_SEAT = (0,)


def side_of_line(cell: tuple[int, int], axis: int, n: int) -> int:
    """0 on the low side of line (axis, n), 1 on the high side: the line runs between the rows
    axis = n - 4 and axis = n - 3."""
    return int(coordinates(cell)[axis] >= n - 3)


def _parts_of_lines(lines: tuple[int, int, int]) -> tuple[tuple[int, ...], ...]:
    by_sides: dict[tuple[int, ...], list[int]] = {}
    for i, cell in enumerate(CELLS):
        key = tuple(side_of_line(cell, axis, n) for axis, n in enumerate(lines))
        by_sides.setdefault(key, []).append(i)
    return tuple(tuple(cells) for _, cells in sorted(by_sides.items()))


#: The parts (tuples of cell indices) for every choice of lines, keyed by (n_q, n_r, n_s).
PARTS: dict[tuple[int, int, int], tuple[tuple[int, ...], ...]] = {
    (nq, nr, ns): _parts_of_lines((nq, nr, ns)) for nq in FACES for nr in FACES for ns in FACES
}


def _part_of_each_cell(parts: tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
    owner = [0] * len(CELLS)
    for p, cells in enumerate(parts):
        for i in cells:
            owner[i] = p
    return tuple(owner)


#: The part index of each cell, for every choice of lines (the bot counts with this).
PART_OF: dict[tuple[int, int, int], tuple[int, ...]] = {
    lines: _part_of_each_cell(parts) for lines, parts in PARTS.items()
}

#: The parts of every choice of lines as sets of bits (a cut counts with these).
PART_BITS: dict[tuple[int, int, int], tuple[int, ...]] = {
    lines: tuple(sum(_BIT[i] for i in cells) for cells in parts) for lines, parts in PARTS.items()
}


def cell_name(index: int) -> list[int]:
    return list(CELLS[index])


def axis_of(colour: int, round_number: int) -> int:
    """The rotating pizza gives each colour a new direction every round."""
    return (colour + round_number) % COLOURS


def lines_of_picks(picks: list[int], round_number: int) -> tuple[int, int, int]:
    """The line number on each axis (q, r, s) once every colour has picked."""
    lines = [0, 0, 0]
    for colour, pick in enumerate(picks):
        lines[axis_of(colour, round_number)] = pick
    return lines[0], lines[1], lines[2]


#: ``lines_of_picks`` of every round (the axes turn every three) and picks, by
#: ``36 * p0 + 6 * p1 + p2 - 43``; and each colour's axis name per round.
_LINES_OF_PICKS: tuple[tuple[tuple[int, int, int], ...], ...] = tuple(
    tuple(lines_of_picks([p0, p1, p2], r) for p0 in FACES for p1 in FACES for p2 in FACES)
    for r in range(COLOURS)
)
_AXES_OF_ROUND: tuple[tuple[str, ...], ...] = tuple(
    tuple(AXES[axis_of(c, r)] for c in range(COLOURS)) for r in range(COLOURS)
)


def placeable_bits(board: list[int | None], colour: int) -> int:
    """The cells ``colour`` may take (empty, at distance 2 or more from every topping of its
    own), as a set of bits: bit i is cell i."""
    taken = blocked = 0
    for i, here in enumerate(board):
        if here is not None:
            taken |= _BIT[i]
            if here == colour:
                blocked |= _NEIGHBOUR_BITS[i]
    return _ALL_CELLS & ~(taken | blocked)


#: The key under which a state made by ``advance`` (never one the site stores) keeps its board as
#: sets of bits, [taken, next to colour 0, next to 1, next to 2, colour 0's, 1's, 2's], kept up to
#: date move by move: then where a colour may place is one expression instead of a walk round the
#: board, and a cut counts each part's toppings with a few ANDs.
SEARCH_BITS = "_bits"


def board_bits(board: list[int | None]) -> list[int]:
    """[cells taken, cells next to a topping of colour 0, of 1, of 2, cells of colour 0, of 1,
    of 2] as sets of bits."""
    taken = 0
    near = [0, 0, 0]
    own = [0, 0, 0]
    for i, here in enumerate(board):
        if here is not None:
            taken |= _BIT[i]
            near[here] |= _NEIGHBOUR_BITS[i]
            own[here] |= _BIT[i]
    return [taken, *near, *own]


def near_bits(own: int) -> int:
    """The cells at distance 1 from any cell of ``own`` (a set of bits)."""
    n0, n1, n2, n3, n4 = _NEAR_OF_BYTE
    return (
        n0[own & 255]
        | n1[own >> 8 & 255]
        | n2[own >> 16 & 255]
        | n3[own >> 24 & 255]
        | n4[own >> 32]
    )


def cells_of_bits(bits: int) -> list[int]:
    """The cells of a set of bits, in ascending order."""
    b0, b1, b2, b3, b4 = _CELLS_OF_BYTE
    return [
        *b0[bits & 255],
        *b1[bits >> 8 & 255],
        *b2[bits >> 16 & 255],
        *b3[bits >> 24 & 255],
        *b4[bits >> 32],
    ]


def placeable_cells(board: list[int | None], colour: int) -> list[int]:
    """Empty cells at distance 2 or more from every topping of ``colour``, in ascending order."""
    return cells_of_bits(placeable_bits(board, colour))


def cut_masks(own: list[int] | tuple[int, ...], lines: tuple[int, int, int]) -> tuple[int, ...]:
    """What the cut along ``lines`` does to a board whose colours hold the cells ``own`` (sets of
    bits): (cells whose topping is removed, cells colour 0 wins, 1 wins, 2 wins). A won cell is
    refilled only while its colour has supply left, in ascending order (the caller's part)."""
    own0, own1, own2 = own
    parts = PART_BITS[lines]
    # Counts are taken once, before anything moves: safety and every part's outcome use them.
    c0 = [(own0 & part).bit_count() for part in parts]
    c1 = [(own1 & part).bit_count() for part in parts]
    c2 = [(own2 & part).bit_count() for part in parts]
    # A colour with at most one topping in every part is safe.
    unsafe0, unsafe1, unsafe2 = max(c0) > 1, max(c1) > 1, max(c2) > 1
    removed = won0 = won1 = won2 = 0
    if unsafe0 or unsafe1 or unsafe2:
        for a, b, c, part in zip(c0, c1, c2, parts, strict=True):
            most = a if a > b else b
            if c > most:
                most = c
            # A part whose most is one topping has no colour below a leader: nothing moves.
            if most < 2:
                continue
            # Below the most (one leader: the others; two tied: the third), not safe: removed.
            taken = 0
            if unsafe0 and 0 < a < most:
                taken |= own0 & part
            if unsafe1 and 0 < b < most:
                taken |= own1 & part
            if unsafe2 and 0 < c < most:
                taken |= own2 & part
            if not taken:
                continue
            removed |= taken
            # One leader fills the cells; two tied leaders leave them empty.
            if a == most:
                if b != most and c != most:
                    won0 |= taken
            elif b == most:
                if c != most:
                    won1 |= taken
            else:
                won2 |= taken
    return removed, won0, won1, won2


def resolve_cut(
    board: list[int | None],
    supply: list[int],
    lines: tuple[int, int, int],
    own: list[int] | None = None,
) -> tuple[list[int | None], list[int], list[int], list[int]]:
    """Step 3 of a round: the board and supply after the cut along ``lines``, with the cells
    whose topping was removed and the cells that were filled (both as cell indices, ascending).
    ``own``, each colour's cells as bits, is worked out from the board unless given."""
    if own is None:
        own = board_bits(board)[4:]
    removed, won0, won1, won2 = cut_masks(own, lines)
    if not removed:
        return list(board), list(supply), [], []
    new_board = list(board)
    new_supply = list(supply)
    removed_cells = cells_of_bits(removed)
    for i in removed_cells:
        new_supply[board[i]] += 1
        new_board[i] = None
    filled: list[int] = []
    for colour, won in enumerate((won0, won1, won2)):
        for i in cells_of_bits(won):
            if new_supply[colour] == 0:
                break
            new_board[i] = colour
            new_supply[colour] -= 1
            filled.append(i)
    return new_board, new_supply, removed_cells, sorted(filled)


class PizzaParty(Engine):
    slug = "pizza-party"
    name = "Pizza Party"
    min_players = 2
    max_players = 3
    option_specs = (
        OptionSpec(
            "variant",
            "standard",
            ("standard", "duel"),
            gettext_noop("Variant (duel: 2 players)"),
            choice_labels=(
                gettext_noop("Standard (3 players)"),
                gettext_noop("Duel (2 players and a neutral colour)"),
            ),
            help=gettext_noop(
                "Three players play the standard game; two play the duel, where chance plays "
                "a neutral third colour."
            ),
        ),
    )
    breakdown_columns = (
        Column("on_board", gettext_noop("Toppings on the board")),
        Column("won", gettext_noop("Cells won from others")),
        Column("lost", gettext_noop("Toppings lost")),
    )

    def table_options(self, n_players: int) -> tuple[OptionSpec, ...]:
        # The number of players decides the variant: nothing is left to choose.
        return ()

    # --- set-up --------------------------------------------------------------------------------
    def normalise_options(self, n_players: int, options: dict[str, Any] | None) -> dict[str, Any]:
        # Two players can only play the duel, so a table of two need not say so.
        if n_players == 2 and (options is None or isinstance(options, dict)):
            options = {"variant": "duel", **(options or {})}
        return super().normalise_options(n_players, options)

    def check_options_for_players(self, n_players: int, options: dict[str, Any]) -> None:
        if n_players == 2 and options["variant"] != "duel":
            raise IllegalMove(
                gettext_noop(
                    "Two players play the duel variant, where chance plays a neutral third colour."
                )
            )
        if n_players == 3 and options["variant"] != "standard":
            raise IllegalMove(
                gettext_noop("The duel variant is for two players; three play the standard game.")
            )

    def new_game(self, n_players: int, options: dict[str, Any] | None = None) -> State:
        options = self.normalise_options(n_players, options)
        board: list[int | None] = [None] * len(CELLS)
        for colour, cells in enumerate(START_CELLS):
            for cell in cells:
                board[INDEX[cell]] = colour
        state: State = {
            "n": n_players,
            "options": options,
            "log": [],
            "round": 0,
            "phase": "add",
            "step": 0,
            "board": board,
            "supply": [TOPPINGS - len(cells) for cells in START_CELLS],
            "picks": [None] * COLOURS,
            "picks_from": None,
            "last_cut": None,
            "won": [0] * COLOURS,
            "lost": [0] * COLOURS,
            "end": None,
        }
        self._skip_passes(state)
        return state

    def is_duel(self, state: State) -> bool:
        return state["options"]["variant"] == "duel"

    # --- whose turn ----------------------------------------------------------------------------
    def turn_order(self, state: State) -> list[int]:
        """Seats t, t+1, t+2: the rotation moves "1st" one seat on each round."""
        return [(state["round"] + k) % COLOURS for k in range(COLOURS)]

    def placing_colour(self, state: State) -> int | None:
        if state["phase"] != "add":
            return None
        return (state["round"] + state["step"]) % COLOURS

    def _is_chance_colour(self, state: State, colour: int) -> bool:
        return colour == NEUTRAL and self.is_duel(state)

    def to_move(self, state: State) -> list[int]:
        phase = state["phase"]
        if phase == "add":
            colour = (state["round"] + state["step"]) % COLOURS
            return [CHANCE] if colour == NEUTRAL and state["n"] == 2 else [colour]
        if phase == "cut":
            picks = state["picks"]
            waiting = [s for s in range(state["n"]) if picks[s] is None]
            # The neutral colour's die is rolled only after both players have picked.
            return waiting or [CHANCE]
        return []

    def is_over(self, state: State) -> bool:
        return state["phase"] == "over"

    def _colour_of_mover(self, state: State, seat: int) -> int:
        return NEUTRAL if seat == CHANCE else seat

    def simultaneous_step(self, state: State) -> str | None:
        if state["phase"] == "cut" and any(s != CHANCE for s in self.to_move(state)):
            return f"cut-{state['round']}"
        return None

    # --- checking moves ------------------------------------------------------------------------
    def check(self, state: State, seat: int, move: Any) -> None:
        if state["phase"] == "over":
            raise IllegalMove(gettext_noop("The game is over."))
        due = self.to_move(state)
        if seat not in due:
            if seat == CHANCE:
                raise IllegalMove(gettext_noop("No chance move is due."))
            if state["phase"] == "cut" and _is_int(seat) and 0 <= seat < state["n"]:
                raise IllegalMove(gettext_noop("You have already picked your cut this round."))
            raise IllegalMove(gettext_noop("It is not your turn."))
        if not isinstance(move, dict):
            raise IllegalMove(
                gettext_noop('A move must be an object such as {"place": [0, 0]} or {"cut": 3}.')
            )
        if state["phase"] == "add":
            self._check_place(state, self._colour_of_mover(state, seat), move)
        else:
            self._check_cut(move)

    def _check_place(self, state: State, colour: int, move: Move) -> None:
        if set(move) != {"place"}:
            raise IllegalMove(gettext_noop('Now add a topping: {"place": [q, r]}.'))
        cell = move["place"]
        if not isinstance(cell, list) or len(cell) != 2 or not all(_is_int(x) for x in cell):
            raise IllegalMove(gettext_noop("A cell is written [q, r], two whole numbers."))
        index = INDEX.get((cell[0], cell[1]))
        if index is None:
            raise IllegalMove(
                gettext_noop("[{q}, {r}] is not a cell of the pizza."), q=cell[0], r=cell[1]
            )
        board = state["board"]
        if board[index] is not None:
            raise IllegalMove(gettext_noop("That cell already holds a topping."))
        if any(board[j] == colour for j in NEIGHBOURS[index]):
            raise IllegalMove(
                gettext_noop("A new topping must be at least two cells away from your own.")
            )

    def _check_cut(self, move: Move) -> None:
        if set(move) != {"cut"}:
            raise IllegalMove(gettext_noop('Now pick your cut: {"cut": n} with n from 1 to 6.'))
        pick = move["cut"]
        if not _is_int(pick) or pick not in FACES:
            raise IllegalMove(gettext_noop("A cut is a number from 1 to 6."))

    # --- applying moves ------------------------------------------------------------------------
    def apply(self, state: State, seat: int, move: Any) -> State:
        self.check(state, seat, move)
        return self._play(state, seat, move, keep_log=True)

    def advance(self, state: State, seat: int, move: Move) -> State:
        # The rules read the log only to reveal the secret picks; a search has no one to reveal
        # them to, so it goes without (and without copying a log that grows every move).
        return self._play(state, seat, move, keep_log=False)

    def _play(self, state: State, seat: int, move: Move, keep_log: bool) -> State:
        new = dict(state)
        colour = NEUTRAL if seat == CHANCE else seat
        if keep_log:
            # The site's states stay as the spec shows them; only a search's carry the bits.
            new.pop(SEARCH_BITS, None)
        elif SEARCH_BITS not in new:
            new[SEARCH_BITS] = board_bits(state["board"])
        if state["phase"] == "add":
            if keep_log:
                new["log"] = [*state["log"], [seat, move]]
            self._apply_place(new, colour, move["place"])
        else:
            self._apply_cut(new, seat, colour, move["cut"], keep_log)
        return new

    def _apply_place(self, new: State, colour: int, cell: list[int]) -> None:
        board = list(new["board"])
        index = INDEX[(cell[0], cell[1])]
        board[index] = colour
        supply = list(new["supply"])
        supply[colour] -= 1
        new["board"] = board
        new["supply"] = supply
        new["step"] += 1
        bits = new.get(SEARCH_BITS)
        if bits is not None:
            bits = list(bits)
            bits[0] |= _BIT[index]
            bits[1 + colour] |= _NEIGHBOUR_BITS[index]
            bits[4 + colour] |= _BIT[index]
            new[SEARCH_BITS] = bits
        self._skip_passes(new)

    def _skip_passes(self, new: State) -> None:
        """Pass every colour that cannot add a topping (no cell or no supply), without a move;
        when nobody is left to add, the cut starts."""
        supply, board, round_number = new["supply"], new["board"], new["round"]
        bits = new.get(SEARCH_BITS)
        step = new["step"]
        while step < COLOURS:
            colour = (round_number + step) % COLOURS
            if supply[colour] > 0 and (
                _ALL_CELLS & ~(bits[0] | bits[1 + colour])
                if bits is not None
                else placeable_bits(board, colour)
            ):
                new["step"] = step
                return
            step += 1
        new["step"] = step
        new["phase"] = "cut"
        new["picks"] = [None] * COLOURS
        new["picks_from"] = len(new["log"])

    def _apply_cut(self, new: State, seat: int, colour: int, pick: int, keep_log: bool) -> None:
        picks = list(new["picks"])
        picks[colour] = pick
        new["picks"] = picks
        if None in picks:
            # A player's pick waits in the log, marked secret, until the step is complete.
            if keep_log:
                new["log"] = [*new["log"], [seat, {"cut": pick, SECRET: True}]]
            return
        if keep_log:
            start = new["picks_from"]
            revealed = [[s, {"cut": m["cut"]}] for s, m in new["log"][start:]]
            new["log"] = [*new["log"][:start], *revealed, [seat, {"cut": pick}]]
        self._end_round(new, picks)

    def _end_round(self, new: State, picks: list[int]) -> None:
        round_number = new["round"]
        p0, p1, p2 = picks
        lines = _LINES_OF_PICKS[round_number % COLOURS][36 * p0 + 6 * p1 + p2 - 43]
        bits = new.get(SEARCH_BITS)
        own = None if bits is None else bits[4:]
        board, supply, removed, filled = resolve_cut(new["board"], new["supply"], lines, own)
        if removed and bits is not None:
            new[SEARCH_BITS] = board_bits(board)
        lost, won = list(new["lost"]), list(new["won"])
        for i in removed:
            lost[new["board"][i]] += 1
        for i in filled:
            won[board[i]] += 1
        new["lost"], new["won"] = lost, won
        new["board"] = board
        new["supply"] = supply
        new["last_cut"] = {
            "round": round_number,
            "picks": list(picks),
            "axes": list(_AXES_OF_ROUND[round_number % COLOURS]),
            "removed": [list(CELLS[i]) for i in removed],
            "filled": [list(CELLS[i]) for i in filled],
        }
        new["picks"] = [None] * COLOURS
        new["picks_from"] = None
        if 0 in supply:
            new["phase"] = "over"
            new["end"] = "sixteen"
        elif round_number == ROUNDS - 1:
            new["phase"] = "over"
            new["end"] = "limit"
        else:
            new["round"] = round_number + 1
            new["phase"] = "add"
            new["step"] = 0
            self._skip_passes(new)

    # --- legal moves ---------------------------------------------------------------------------
    def legal(self, state: State, seat: int) -> Iterator[Move]:
        if seat not in self.to_move(state):
            return
        if state["phase"] == "add":
            colour = self._colour_of_mover(state, seat)
            for i in placeable_cells(state["board"], colour):
                yield {"place": cell_name(i)}
        else:
            for face in FACES:
                yield {"cut": face}

    def random_move(self, state: State, seat: int, rng: random.Random) -> Move:
        if state["phase"] == "add":
            # ``to_move`` without building its list: a playout asks this on every placement.
            colour = (state["round"] + state["step"]) % COLOURS
            if seat != (CHANCE if colour == NEUTRAL and state["n"] == 2 else colour):
                raise IllegalMove(gettext_noop("It is not your turn."))
            return {"place": list(CELLS[rng.choice(_free_cells(state, colour))])}
        if seat not in self.to_move(state):
            raise IllegalMove(gettext_noop("It is not your turn."))
        return {"cut": rng.choice(FACES)}

    # --- chance --------------------------------------------------------------------------------
    def chance_outcomes(self, state: State) -> list[tuple[Move, float]] | None:
        if CHANCE not in self.to_move(state):
            raise IllegalMove(gettext_noop("No chance move is due."))
        moves = list(self.legal(state, CHANCE))
        return [(move, 1 / len(moves)) for move in moves]

    def sample_chance(self, state: State, rng: random.Random) -> Move:
        # What the base class draws from ``chance_outcomes`` (the same weights, so the same
        # outcome for the same seed), without building a move for every outcome first.
        if CHANCE not in self.to_move(state):
            raise IllegalMove(gettext_noop("No chance move is due."))
        if state["phase"] == "cut":
            return {"cut": rng.choices(FACES, cum_weights=_EVEN_CUMULATIVE[len(FACES)])[0]}
        cells = _free_cells(state, NEUTRAL)
        cell = rng.choices(cells, cum_weights=_EVEN_CUMULATIVE[len(cells)])[0]
        return {"place": list(CELLS[cell])}

    # --- playouts ------------------------------------------------------------------------------
    def random_playout(self, state: State, rng: random.Random) -> list[int]:
        # The reference game (``Engine.random_playout``) on ints and sets of bits: the same draws
        # in the same order (the seat among ``to_move``, then ``random_move`` or
        # ``sample_chance``), with no state, move or log built on the way. Only the supplies make
        # the scores, so the won and lost counts are not kept.
        n = state["n"]
        supply = list(state["supply"])
        if state["phase"] == "over":
            return [TOPPINGS - left for left in supply[:n]]
        taken, *near, own0, own1, own2 = state.get(SEARCH_BITS) or board_bits(state["board"])
        own = [own0, own1, own2]
        round_number = state["round"]
        if state["phase"] == "add":
            step, picks = state["step"], [None, None, None]
        else:
            step, picks = COLOURS, list(state["picks"])
        duel = n == 2
        choice, choices = rng.choice, rng.choices
        while True:
            while step < COLOURS:
                colour = (round_number + step) % COLOURS
                free = _ALL_CELLS & ~(taken | near[colour])
                # A colour without supply or room passes without a draw.
                if supply[colour] and free:
                    choice(_ONE_SEAT)
                    cells = cells_of_bits(free)
                    if duel and colour == NEUTRAL:
                        cell = choices(cells, cum_weights=_EVEN_CUMULATIVE[len(cells)])[0]
                    else:
                        cell = choice(cells)
                    taken |= _BIT[cell]
                    own[colour] |= _BIT[cell]
                    near[colour] |= _NEIGHBOUR_BITS[cell]
                    supply[colour] -= 1
                step += 1
            waiting = [seat for seat in range(n) if picks[seat] is None]
            while waiting:
                seat = choice(waiting)
                picks[seat] = choice(FACES)
                waiting.remove(seat)
            if duel:
                choice(_ONE_SEAT)
                picks[NEUTRAL] = choices(FACES, cum_weights=_EVEN_CUMULATIVE[len(FACES)])[0]
            p0, p1, p2 = picks
            lines = _LINES_OF_PICKS[round_number % COLOURS][36 * p0 + 6 * p1 + p2 - 43]
            removed, *won = cut_masks(own, lines)
            if removed:
                for colour in range(COLOURS):
                    lost = own[colour] & removed
                    if lost:
                        supply[colour] += lost.bit_count()
                        own[colour] ^= lost
                for colour in range(COLOURS):
                    if won[colour]:
                        filled = _lowest_cells(won[colour], supply[colour])
                        own[colour] |= filled
                        supply[colour] -= filled.bit_count()
                taken = own[0] | own[1] | own[2]
                near = [near_bits(cells) for cells in own]
            if 0 in supply or round_number == ROUNDS - 1:
                return [TOPPINGS - left for left in supply[:n]]
            round_number += 1
            step, picks = 0, [None, None, None]

    # --- the end -------------------------------------------------------------------------------
    def on_board(self, state: State) -> list[int]:
        """Toppings on the board per colour (all three, the neutral one included)."""
        return [TOPPINGS - left for left in state["supply"]]

    def partial_scores(self, state: State) -> list[int]:
        return self.on_board(state)[: state["n"]]

    def leading_colours(self, state: State) -> list[int]:
        """The colours that won the game: all 16 on the board, or the most at the round limit."""
        counts = self.on_board(state)
        if state["end"] == "sixteen":
            return [c for c in range(COLOURS) if counts[c] == TOPPINGS]
        most = max(counts)
        return [c for c in range(COLOURS) if counts[c] == most]

    def winners(self, state: State) -> list[int]:
        """The winning seats; empty when the duel's neutral colour won."""
        leaders = self.leading_colours(state)
        if self.is_duel(state) and NEUTRAL in leaders:
            return []
        return leaders

    def breakdown(self, state: State) -> list[dict[str, int]]:
        on_board = self.on_board(state)
        return [
            {"on_board": on_board[seat], "won": state["won"][seat], "lost": state["lost"][seat]}
            for seat in range(state["n"])
        ]

    def result(self, state: State) -> GameResult:
        if state["phase"] != "over":
            raise IllegalMove(gettext_noop("The game is not over yet."))
        n = state["n"]
        scores = self.partial_scores(state)
        winners = self.winners(state)
        if not winners:
            # The neutral colour won the duel: both players share the last rank.
            return GameResult(scores, [n] * n, {"winners": []})
        ranks = []
        for seat in range(n):
            if seat in winners:
                ranks.append(1)
            else:
                better = sum(1 for o in range(n) if o not in winners and scores[o] > scores[seat])
                ranks.append(1 + len(winners) + better)
        return GameResult(scores, ranks, {"winners": winners})

    # --- what a seat may see -------------------------------------------------------------------
    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        n = state["n"]
        you = seat if _is_int(seat) and 0 <= seat < n else None
        counts = self.on_board(state)
        playing = state["phase"] != "over"
        placing = self.placing_colour(state)
        your_cells: list[list[int]] = []
        if you is not None and placing == you:
            your_cells = [cell_name(i) for i in placeable_cells(state["board"], you)]
        return {
            "variant": state["options"]["variant"],
            "players": n,
            "you": you,
            "phase": state["phase"],
            "round": state["round"],
            "rounds": ROUNDS,
            "order": self.turn_order(state) if playing else [],
            "placing": placing,
            "to_move": [s for s in self.to_move(state) if s != CHANCE],
            "chance_next": CHANCE in self.to_move(state),
            "board": [
                {"cell": list(cell), "colour": state["board"][i]} for i, cell in enumerate(CELLS)
            ],
            "colours": [
                {
                    "colour": c,
                    "neutral": self._is_chance_colour(state, c),
                    "on_board": counts[c],
                    "supply": state["supply"][c],
                    "axis": AXES[axis_of(c, state["round"])] if playing else None,
                    "picked": state["picks"][c] is not None,
                    "won": state["won"][c],
                    "lost": state["lost"][c],
                }
                for c in range(COLOURS)
            ],
            "your_pick": state["picks"][you] if you is not None else None,
            "your_cells": your_cells,
            "last_cut": state["last_cut"],
            "result": None if playing else self.result(state).as_json(),
        }

    # --- what happened ---------------------------------------------------------------------------
    def describe_move(self, state: State, seat: int, move: Move) -> Sentence | None:
        if "place" in move:
            cell = f"[{move['place'][0]}, {move['place'][1]}]"
            if seat == CHANCE:
                return sentence(
                    gettext_noop("The neutral colour adds a topping on {cell}."), cell=cell
                )
            return sentence(
                gettext_noop("{player} adds a topping on {cell}."), player=SeatRef(seat), cell=cell
            )
        if seat == CHANCE:
            line = sentence(
                gettext_noop("The neutral colour's die shows {pick}."), pick=move["cut"]
            )
        else:
            line = sentence(
                gettext_noop("{player} picks cut {pick}."), player=SeatRef(seat), pick=move["cut"]
            )
        after = self.apply(state, seat, move)
        if after["last_cut"] == state["last_cut"]:
            return line
        removed, filled = after["last_cut"]["removed"], after["last_cut"]["filled"]
        if removed:
            outcome = sentence(
                gettext_noop("Toppings removed by the cut: {removed}; cells refilled: {filled}."),
                removed=len(removed),
                filled=len(filled),
            )
        else:
            outcome = sentence(gettext_noop("The cut changes nothing."))
        return joined([line, outcome], SENTENCE_SEPARATOR)

    # --- records -------------------------------------------------------------------------------
    def record_move(self, seat: int, move: Move, viewer: int | None, final: bool) -> Move | None:
        if seat == CHANCE:
            return {"chance": dict(move)}
        if move.get(SECRET):
            # An unrevealed pick: its owner sees it, everyone else does not even learn it exists
            # from the record (the view says who has picked).
            if viewer != seat and not final:
                return None
            return {"seat": seat, "cut": move["cut"]}
        return {"seat": seat, **move}

    # --- bots ----------------------------------------------------------------------------------
    bot_levels = (1, 2, 3)

    def bot_move(self, view: dict[str, Any], rng: random.Random, level: int = 1) -> Move:
        from .pizza_party_bot import bot_move  # the bots import this module

        return bot_move(view, rng, level)

    def sample_state(self, view: dict[str, Any], rng: random.Random) -> State:
        colours = view["colours"]
        you = view["you"]
        phase = view["phase"]
        # Another colour's pick is secret until all are in: the view only says it was made.
        picks = [
            view["your_pick"] if c == you else rng.choice(FACES) if colour["picked"] else None
            for c, colour in enumerate(colours)
        ]
        end = None
        if phase == "over":
            end = "sixteen" if any(c["on_board"] == TOPPINGS for c in colours) else "limit"
        return {
            "n": view["players"],
            "options": {"variant": view["variant"]},
            "log": [],
            "round": view["round"],
            "phase": phase,
            "step": (view["placing"] - view["round"]) % COLOURS if phase == "add" else COLOURS,
            "board": [entry["colour"] for entry in view["board"]],
            "supply": [colour["supply"] for colour in colours],
            "picks": picks,
            "picks_from": 0 if phase == "cut" else None,
            "last_cut": view["last_cut"],
            "won": [colour["won"] for colour in colours],
            "lost": [colour["lost"] for colour in colours],
            "end": end,
        }

    def redeal_hidden(self, state: State, seat: int | None, rng: random.Random) -> State:
        if state["phase"] != "cut":
            return dict(state)
        picks = list(state["picks"])
        log = list(state["log"])
        for index in range(state["picks_from"], len(log)):
            mover, move = log[index]
            if move.get(SECRET) and mover != seat:
                picks[mover] = rng.choice(FACES)
                log[index] = [mover, {"cut": picks[mover], SECRET: True}]
        return {**state, "picks": picks, "log": log}


def _free_cells(state: State, colour: int) -> list[int]:
    """``placeable_cells`` of the state's board, from the bits a search's state keeps."""
    bits = state.get(SEARCH_BITS)
    if bits is None:
        return placeable_cells(state["board"], colour)
    return cells_of_bits(_ALL_CELLS & ~(bits[0] | bits[1 + colour]))


def _lowest_cells(cells: int, count: int) -> int:
    """The ``count`` lowest cells of a set of bits (all of them if it has no more): a colour
    refills the cells it won in ascending order while its supply lasts."""
    if cells.bit_count() <= count:
        return cells
    kept = 0
    for _ in range(count):
        lowest = cells & -cells
        kept |= lowest
        cells ^= lowest
    return kept


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


ENGINE = register(PizzaParty())
