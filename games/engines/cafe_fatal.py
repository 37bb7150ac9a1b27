"""Café Fatal, exactly as ``spec/cafe-fatal.md`` decides.

A state is a JSON object. The food comes from an endless supply: every piece served is a recorded
chance move (``serve``), and so is every roll of the dice (``roll``). Nothing is hidden from
anyone, so a seat's view is the whole table.

A round runs: serve (chance) → for each turn a roll (chance) and a placement (the seat) → share.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterator
from typing import Any

from .base import (
    CHANCE,
    LIST_SEPARATOR,
    SENTENCE_SEPARATOR,
    Column,
    Engine,
    GameResult,
    IllegalMove,
    Move,
    SeatRef,
    Sentence,
    State,
    competition_ranks,
    gettext_noop,
    joined,
    sentence,
)
from .registry import register

SORTS = ("cheese", "pizza", "cake")
SORT_VALUE = {"cheese": 1, "pizza": 2, "cake": 5}
#: "{count} × cheese" and so on: how a log line counts the pieces of one sort.
SORT_COUNTS = {
    "cheese": gettext_noop("{count} × cheese"),
    "pizza": gettext_noop("{count} × pizza"),
    "cake": gettext_noop("{count} × cake"),
}
#: The faces of a die as people see them (⚀ … ⚅).
DIE_FACES = "⚀⚁⚂⚃⚄⚅"
#: The chance of each sort for every piece served: cheese 1/2, pizza 1/3, cake 1/6 (as weights).
SUPPLY_WEIGHTS = {"cheese": 3, "pizza": 2, "cake": 1}
SORT_WEIGHTS = tuple(SUPPLY_WEIGHTS[sort] for sort in SORTS)
SORT_CUM_WEIGHTS = tuple(itertools.accumulate(SORT_WEIGHTS))
SET_SIZE = 5
#: A whole set scores its pieces' values twice: 10 for a cheese wheel, 20 a pizza, 50 a cake.
SET_MULTIPLIER = 2
SET_POINTS = SET_MULTIPLIER * SET_SIZE
DICE_PER_PLAYER = 6
EXTRA_PIECES = 2
WINNING_SCORE = 40
#: The safety limit: the game also ends after the share of the 30th round.
LAST_ROUND = 30
#: Each row's first column and length on the square grid the tables sit on.
GRID_ROWS = {
    "grid": [(0, 3), (0, 3), (0, 3)],
    "diamond": [(2, 1), (1, 3), (0, 5), (1, 3), (2, 1)],
}


def layout_name(n_players: int) -> str:
    return "grid" if n_players <= 3 else "diamond"


def table_positions(layout: str) -> list[tuple[int, int]]:
    """(row, column) of each table on its square grid, numbered row by row."""
    return [
        (row, first + step)
        for row, (first, length) in enumerate(GRID_ROWS[layout])
        for step in range(length)
    ]


def table_neighbours(layout: str) -> list[list[int]]:
    """For each table, the tables sharing a side with it, ascending."""
    positions = table_positions(layout)
    at = {position: table for table, position in enumerate(positions)}
    out = []
    for row, col in positions:
        around = [(row - 1, col), (row, col - 1), (row, col + 1), (row + 1, col)]
        out.append(sorted(at[p] for p in around if p in at))
    return out


POSITIONS = {layout: table_positions(layout) for layout in GRID_ROWS}
NEIGHBOURS = {layout: table_neighbours(layout) for layout in GRID_ROWS}


def fresh_tables(layout: str, own: int) -> tuple[int, ...]:
    """The tables where a value not yet placed may go, ascending, for a seat whose tables this
    round are the bits of ``own``: any table before the first placement, then the tables next to
    one's own that are not one's own (a new value needs a table of its own)."""
    neighbours = NEIGHBOURS[layout]
    if not own:
        return tuple(range(len(neighbours)))
    mine = {t for t in range(len(neighbours)) if own >> t & 1}
    return tuple(sorted({t for o in mine for t in neighbours[o]} - mine))


#: For each number of players and seat, the seats after it round the table, itself last.
SEATS_AFTER = {
    n: [tuple((seat + step) % n for step in range(1, n + 1)) for seat in range(n)]
    for n in range(2, 6)
}
#: ``fresh_tables`` for every set of tables a seat can hold (9 or 13 tables: 512 or 8192 sets),
#: so that listing the moves, which every step of a playout does, looks them up.
FRESH = {
    layout: [fresh_tables(layout, own) for own in range(1 << len(NEIGHBOURS[layout]))]
    for layout in GRID_ROWS
}


def pieces_score(held: dict[str, int]) -> int:
    """Σ over sorts of 10·v·(n // 5) + v·(n mod 5): complete sets count double."""
    total = 0
    for sort, count in held.items():
        sets, loose = divmod(count, SET_SIZE)
        total += SORT_VALUE[sort] * (SET_POINTS * sets + loose)
    return total


def empty_pieces() -> dict[str, int]:
    return dict.fromkeys(SORTS, 0)


#: An empty table or hand, to copy (never to change).
NO_PIECES = empty_pieces()


def complete_sets(held: dict[str, int]) -> int:
    return sum(count // SET_SIZE for count in held.values())


def loose_pieces(held: dict[str, int]) -> int:
    """Pieces that are not part of a complete set of five."""
    return sum(count % SET_SIZE for count in held.values())


def faces(values: list[int]) -> str:
    return " ".join(DIE_FACES[value - 1] for value in values)


def pieces_phrase(pieces: dict[str, int]) -> Any:
    """ "2 × cheese, 1 × cake": the sorts present, in the order cheese, pizza, cake."""
    return joined(
        [sentence(SORT_COUNTS[sort], count=pieces[sort]) for sort in SORTS if pieces[sort]],
        LIST_SEPARATOR,
    )


def table_winner(dice: list[dict[str, int] | None]) -> int | None:
    """The seat that takes a table's pieces: most dice, then the higher value; None when nobody
    played there or the best two are equal in both."""
    # (count, value) compared as one number: a value is below 8.
    best = -1
    winner: int | None = None
    for seat, placed in enumerate(dice):
        if placed is None:
            continue
        key = placed["count"] * 8 + placed["value"]
        if key > best:
            best, winner = key, seat
        elif key == best:
            winner = None
    return winner


class CafeFatal(Engine):
    slug = "cafe-fatal"
    name = "Café Fatal"
    min_players = 2
    max_players = 5
    breakdown_columns = (
        Column("cheese", gettext_noop("Cheese")),
        Column("pizza", gettext_noop("Pizza")),
        Column("cake", gettext_noop("Cake")),
        Column("sets", gettext_noop("Complete sets")),
        Column("loose", gettext_noop("Loose pieces")),
        Column("points", gettext_noop("Points")),
    )

    # --- set-up --------------------------------------------------------------------------------
    def new_game(self, n_players: int, options: dict[str, Any] | None = None) -> State:
        options = self.normalise_options(n_players, options)
        layout = layout_name(n_players)
        tables = len(NEIGHBOURS[layout])
        return {
            "n": n_players,
            "options": options,
            "log": [],
            "layout": layout,
            "round": 0,
            "phase": "serve",
            "tables": [empty_pieces() for _ in range(tables)],
            "dice": [[None] * n_players for _ in range(tables)],
            "remaining": [DICE_PER_PLAYER] * n_players,
            "turn": None,
            "rolled": None,
            "values": [[] for _ in range(n_players)],
            "held": [empty_pieces() for _ in range(n_players)],
            "scores": [0] * n_players,
            "last_share": None,
        }

    def tables_count(self, state: State) -> int:
        return len(state["tables"])

    def neighbours(self, state: State) -> list[list[int]]:
        return NEIGHBOURS[state["layout"]]

    def serve_size(self, state: State) -> int:
        """The pieces a serve puts out: one per table and two extras."""
        return self.tables_count(state) + EXTRA_PIECES

    # --- whose turn ----------------------------------------------------------------------------
    def to_move(self, state: State) -> list[int]:
        phase = state["phase"]
        if phase == "place":
            return [state["turn"]]
        if phase == "over":
            return []
        return [CHANCE]

    def is_over(self, state: State) -> bool:
        return state["phase"] == "over"

    # --- checking moves ------------------------------------------------------------------------
    def check(self, state: State, seat: int, move: Any) -> None:
        if not isinstance(move, dict) or len(move) != 1:
            raise IllegalMove(
                gettext_noop(
                    'A move must be an object such as {"place": {"value": 3, "table": 4}}.'
                )
            )
        if state["phase"] == "over":
            raise IllegalMove(gettext_noop("The game is over."))
        if seat == CHANCE:
            self._check_chance(state, move)
            return
        if state["phase"] != "place":
            raise IllegalMove(gettext_noop("The dice must be rolled before anyone places them."))
        if seat != state["turn"]:
            raise IllegalMove(gettext_noop("It is not your turn."))
        if "place" not in move:
            raise IllegalMove(gettext_noop('Place your dice: {"place": {"value": 3, "table": 4}}.'))
        place = move["place"]
        if (
            not isinstance(place, dict)
            or set(place) != {"value", "table"}
            or not _is_int(place["value"])
            or not _is_int(place["table"])
        ):
            raise IllegalMove(
                gettext_noop('A placement names a value and a table: {"value": 3, "table": 4}.')
            )
        error = self.placement_error(state, seat, place["value"], place["table"])
        if error:
            raise error

    def placement_error(
        self, state: State, seat: int, value: int, table: int
    ) -> IllegalMove | None:
        """Why ``seat`` may not put its rolled ``value`` dice on ``table`` now (None: it may)."""
        if value not in state["rolled"]:
            return IllegalMove(gettext_noop("You did not roll a {value}."), value=value)
        last = self.tables_count(state) - 1
        if not 0 <= table <= last:
            return IllegalMove(gettext_noop("Tables are numbered 0 to {last}."), last=last)
        for placed_value, placed_table in state["values"][seat]:
            if placed_value == value and placed_table != table:
                return IllegalMove(
                    gettext_noop(
                        "You have already placed {value}s on table {table} this round; "
                        "more {value}s can only go there."
                    ),
                    value=value,
                    table=placed_table,
                )
        mine = state["dice"][table][seat]
        if mine is not None and mine["value"] != value:
            return IllegalMove(
                gettext_noop(
                    "Your dice on table {table} show {shown}; all your dice on one table "
                    "must show the same value."
                ),
                table=table,
                shown=mine["value"],
            )
        if mine is not None:
            # Back on one of the seat's own tables, with the value it shows there.
            return None
        own = self.own_tables(state, seat)
        if own and table not in own and not any(t in own for t in self.neighbours(state)[table]):
            return IllegalMove(
                gettext_noop("Table {table} is neither one of your tables nor next to one."),
                table=table,
            )
        return None

    def own_tables(self, state: State, seat: int) -> set[int]:
        """The tables where ``seat`` has dice this round."""
        return {t for t, dice in enumerate(state["dice"]) if dice[seat] is not None}

    def _check_chance(self, state: State, move: Move) -> None:
        if state["phase"] == "serve":
            if "serve" not in move:
                raise IllegalMove(gettext_noop("The food must be served before anyone rolls."))
            self._check_serve(state, move["serve"])
        elif state["phase"] == "roll":
            if "roll" not in move:
                raise IllegalMove(
                    gettext_noop("Seat {seat} must roll the dice now."), seat=state["turn"]
                )
            self._check_roll(state, move["roll"])
        else:
            raise IllegalMove(
                gettext_noop("Seat {seat} must place dice; no chance move is due."),
                seat=state["turn"],
            )

    def _check_serve(self, state: State, serve: Any) -> None:
        size = self.serve_size(state)
        tables = self.tables_count(state)
        if not isinstance(serve, list) or len(serve) != size:
            raise IllegalMove(
                gettext_noop("This serve puts out {size} pieces: list {size} [table, sort] pairs."),
                size=size,
            )
        for index, entry in enumerate(serve):
            if (
                not isinstance(entry, list)
                or len(entry) != 2
                or not _is_int(entry[0])
                or entry[1] not in SORTS
            ):
                raise IllegalMove(
                    gettext_noop("Each piece served is [table, sort], sort cheese, pizza or cake.")
                )
            table = entry[0]
            if index < tables and table != index:
                raise IllegalMove(
                    gettext_noop("Piece {index} of the serve goes on table {index}."), index=index
                )
            if not 0 <= table < tables:
                raise IllegalMove(gettext_noop("Tables are numbered 0 to {last}."), last=tables - 1)
        extras = [table for table, _ in serve[tables:]]
        if len(set(extras)) != len(extras):
            raise IllegalMove(gettext_noop("The two extra pieces go on two different tables."))

    def _check_roll(self, state: State, roll: Any) -> None:
        count = state["remaining"][state["turn"]]
        if (
            not isinstance(roll, list)
            or len(roll) != count
            or not all(_is_int(v) and 1 <= v <= 6 for v in roll)
        ):
            raise IllegalMove(
                gettext_noop("Seat {seat} rolls {count} dice, each showing 1 to 6."),
                seat=state["turn"],
                count=count,
            )

    # --- applying moves ------------------------------------------------------------------------
    def apply(self, state: State, seat: int, move: Any) -> State:
        self.check(state, seat, move)
        new = self.advance(state, seat, move)
        new["log"] = [*state["log"], [seat, move]]
        return new

    def advance(self, state: State, seat: int, move: Move) -> State:
        # A shallow copy; each step below replaces (never edits) the lists it changes, and copies
        # only the row or seat it changes: the states before and after share the rest.
        new = state.copy()
        if seat != CHANCE:
            place = move["place"]
            self._apply_place(new, seat, place["value"], place["table"])
        elif "roll" in move:
            self._apply_roll(new, move["roll"])
        else:
            self._apply_serve(new, move["serve"])
        return new

    def _apply_serve(self, new: State, serve: list[list[Any]]) -> None:
        tables = [pieces.copy() for pieces in new["tables"]]
        for table, sort in serve:
            tables[table][sort] += 1
        new["tables"] = tables
        new["turn"] = new["round"] % new["n"]
        new["phase"] = "roll"

    def _apply_roll(self, new: State, roll: list[int]) -> None:
        new["rolled"] = list(roll)
        new["phase"] = "place"
        if new["values"][new["turn"]] and not self._can_place(new, new["turn"]):
            # The spec's rules always leave a fitting table (a new value can go next to one's own
            # tables, an old one back on its table), but the engine still honours the rule.
            remaining = new["remaining"].copy()
            remaining[new["turn"]] = 0
            new["remaining"] = remaining
            self._next_turn(new)

    def _apply_place(self, new: State, seat: int, value: int, table: int) -> None:
        count = new["rolled"].count(value)
        dice = new["dice"].copy()
        row = dice[table].copy()
        mine = row[seat]
        if mine is None:
            row[seat] = {"value": value, "count": count}
            values = new["values"].copy()
            values[seat] = [*values[seat], [value, table]]
            new["values"] = values
        else:
            row[seat] = {"value": value, "count": count + mine["count"]}
        dice[table] = row
        new["dice"] = dice
        remaining = new["remaining"].copy()
        remaining[seat] -= count
        new["remaining"] = remaining
        new["rolled"] = None
        # The next seat round the table that still has dice rolls next; none left: the share.
        for after in SEATS_AFTER[len(remaining)][seat]:
            if remaining[after]:
                new["turn"] = after
                new["phase"] = "roll"
                return
        self._share(new)

    def _next_turn(self, new: State) -> None:
        """Pass the dice to the next seat that has some, or share when none has."""
        new["rolled"] = None
        remaining = new["remaining"]
        for seat in SEATS_AFTER[len(remaining)][new["turn"]]:
            if remaining[seat]:
                new["turn"] = seat
                new["phase"] = "roll"
                return
        self._share(new)

    def _share(self, new: State) -> None:
        # Only the tables taken and the hands that take them change: copy those alone.
        tables = new["tables"].copy()
        held = new["held"].copy()
        copied = set()
        taken = []
        for table, dice in enumerate(new["dice"]):
            winner = table_winner(dice)
            if winner is None:
                continue
            if winner not in copied:
                held[winner] = held[winner].copy()
                copied.add(winner)
            hand, pieces = held[winner], tables[table]
            for sort, count in pieces.items():
                hand[sort] += count
            taken.append({"table": table, "seat": winner, "pieces": pieces})
            tables[table] = NO_PIECES.copy()
        # What each table gave whom, so that a page can show the share as it happened.
        new["last_share"] = {"round": new["round"], "taken": taken}
        new["tables"] = tables
        new["held"] = held
        new["scores"] = [pieces_score(pieces) for pieces in held]
        new["turn"] = None
        if max(new["scores"]) >= WINNING_SCORE or new["round"] == LAST_ROUND - 1:
            new["phase"] = "over"
            return
        n = new["n"]
        new["round"] += 1
        new["phase"] = "serve"
        new["dice"] = [[None] * n for _ in tables]
        new["remaining"] = [DICE_PER_PLAYER] * n
        new["values"] = [[] for _ in range(n)]

    # --- legal moves ---------------------------------------------------------------------------
    def legal(self, state: State, seat: int) -> Iterator[Move]:
        if state["phase"] != "place" or seat != state["turn"]:
            return
        for value, table in self.placements(state, seat):
            yield {"place": {"value": value, "table": table}}

    def placements(self, state: State, seat: int) -> list[tuple[int, int]]:
        """The legal placements of the seat whose dice are rolled, as (value, table), by value
        then table: the order of ``legal``."""
        fresh, choices = self._choices(state, seat)
        return [
            pair
            for value, table in choices
            for pair in ([(value, t) for t in fresh] if table is None else [(value, table)])
        ]

    def _choices(
        self, state: State, seat: int
    ) -> tuple[tuple[int, ...], list[tuple[int, int | None]]]:
        """What the seat whose dice are rolled may do, compactly: the fresh tables (where a value
        not placed yet may go), and for each value rolled, ascending, (value, None) when it is
        new (it may go on any fresh table) or (value, its table) when it may go back there. A
        value that may go nowhere is left out."""
        placed = state["values"][seat]
        rolled = sorted(set(state["rolled"]))
        if not placed:
            return FRESH[state["layout"]][0], [(value, None) for value in rolled]
        # A new value on a fresh table next to ours: every rule of ``placement_error`` holds there
        # by construction (the property tests check each legal move against ``check``).
        fresh = FRESH[state["layout"]][_own_tables_bits(placed)]
        where = dict(placed)
        row_of = state["dice"]
        choices: list[tuple[int, int | None]] = []
        for value in rolled:
            table = where.get(value)
            if table is None:
                if fresh:
                    choices.append((value, None))
                continue
            # The seat's dice on that table show this value in every state the engine makes;
            # anything else (a position made by hand) gets every rule of ``placement_error``.
            mine = row_of[table][seat] if 0 <= table < len(row_of) else None
            if (mine is not None and mine["value"] == value and len(where) == len(placed)) or (
                self.placement_error(state, seat, value, table) is None
            ):
                choices.append((value, table))
        return fresh, choices

    def _can_place(self, state: State, seat: int) -> bool:
        """Whether ``placements`` lists anything, without listing it."""
        placed = state["values"][seat]
        if not placed:
            return True
        done = {value for value, _ in placed}
        if (
            not done.issuperset(state["rolled"])
            and FRESH[state["layout"]][_own_tables_bits(placed)]
        ):
            return True
        return bool(self._choices(state, seat)[1])

    def random_move(self, state: State, seat: int, rng: random.Random) -> Move:
        """``rng.choice(list(self.legal(state, seat)))``: the same draw from ``rng`` and the same
        move, found by counting instead of listing every move."""
        if state["phase"] != "place" or seat != state["turn"]:
            raise IllegalMove(gettext_noop("It is not your turn."))
        if not state["values"][seat]:
            # The first placement of the round: every value rolled on any table.
            fresh = FRESH[state["layout"]][0]
            spread = len(fresh)
            distinct = sorted(set(state["rolled"]))
            index = rng.choice(range(len(distinct) * spread))
            return {"place": {"value": distinct[index // spread], "table": fresh[index % spread]}}
        fresh, choices = self._choices(state, seat)
        spread = len(fresh)
        total = 0
        for _, table in choices:
            total += spread if table is None else 1
        if not total:
            raise IllegalMove(gettext_noop("It is not your turn."))
        index = rng.choice(range(total))
        for value, table in choices:
            if table is not None:
                if not index:
                    return {"place": {"value": value, "table": table}}
                index -= 1
            elif index < spread:
                return {"place": {"value": value, "table": fresh[index]}}
            else:
                index -= spread
        raise AssertionError("unreachable: the index is below the total")

    # --- chance --------------------------------------------------------------------------------
    def sample_chance(self, state: State, rng: random.Random) -> Move:
        phase = state["phase"]
        if phase == "roll":
            # What ``rng.choices(range(1, 7), k=...)`` draws, one ``random()`` per die.
            draw = rng.random
            return {"roll": [int(draw() * 6) + 1 for _ in range(state["remaining"][state["turn"]])]}
        if phase == "serve":
            return {"serve": self._sample_serve(state, rng)}
        raise IllegalMove(gettext_noop("No chance move is due."))

    def _sample_serve(self, state: State, rng: random.Random) -> list[list[Any]]:
        tables = self.tables_count(state)
        extras = rng.sample(range(tables), EXTRA_PIECES)
        drawn = rng.choices(SORTS, cum_weights=SORT_CUM_WEIGHTS, k=tables + EXTRA_PIECES)
        return [[table, sort] for table, sort in zip([*range(tables), *extras], drawn, strict=True)]

    def random_playout(self, state: State, rng: random.Random) -> list[int]:
        """``Engine.random_playout`` on a lean copy of the state (counts in flat lists, dice as
        ``count * 8 + value``, no dicts copied, no log): the same draws from ``rng``, in the same
        order, as the reference, so the same game and the same scores."""
        return _LeanGame(state).play_out(rng)

    # --- scoring -------------------------------------------------------------------------------
    def partial_scores(self, state: State) -> list[int]:
        return list(state["scores"])

    def pieces_held(self, state: State) -> list[int]:
        return [sum(pieces.values()) for pieces in state["held"]]

    def breakdown(self, state: State) -> list[dict[str, int]]:
        return [
            {
                **{sort: held[sort] for sort in SORTS},
                "sets": complete_sets(held),
                "loose": loose_pieces(held),
                "points": pieces_score(held),
            }
            for held in state["held"]
        ]

    def result(self, state: State) -> GameResult:
        scores = [pieces_score(held) for held in state["held"]]
        loose = [loose_pieces(held) for held in state["held"]]
        # Points first, then loose pieces: no seat holds 100 loose pieces (at most 4 per sort).
        ranks = competition_ranks([100 * s + k for s, k in zip(scores, loose, strict=True)])
        return GameResult(scores, ranks, {"pieces": self.pieces_held(state), "loose": loose})

    # --- views ---------------------------------------------------------------------------------
    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        n = state["n"]
        to_move = self.to_move(state)
        layout = state["layout"]
        return {
            "players": n,
            "you": seat,
            "phase": state["phase"],
            "round": state["round"],
            "turn": state["turn"],
            "starting_seat": state["round"] % n,
            "to_move": [s for s in to_move if s != CHANCE],
            "layout": layout,
            "last_round": LAST_ROUND,
            "rolled": list(state["rolled"]) if state["rolled"] is not None else None,
            "tables": [
                {
                    "table": t,
                    "position": list(POSITIONS[layout][t]),
                    "neighbours": list(NEIGHBOURS[layout][t]),
                    "pieces": dict(state["tables"][t]),
                    "dice": [dict(d) if d else None for d in state["dice"][t]],
                    "leader": table_winner(state["dice"][t]),
                }
                for t in range(self.tables_count(state))
            ],
            "seats": [
                {
                    "seat": s,
                    "remaining": state["remaining"][s],
                    "values": [list(pair) for pair in state["values"][s]],
                    "held": dict(state["held"][s]),
                    "pieces": sum(state["held"][s].values()),
                    "score": state["scores"][s],
                }
                for s in range(n)
            ],
            "choices": list(self.legal(state, seat)) if seat is not None else [],
            "last_share": state["last_share"],
        }

    # --- what happened ---------------------------------------------------------------------------
    def describe_move(self, state: State, seat: int, move: Move) -> Sentence | None:
        after = self.apply(state, seat, move)
        if seat == CHANCE and "serve" in move:
            return self._describe_serve(state, move["serve"])
        if seat == CHANCE:
            line = sentence(
                gettext_noop("{player} rolls {dice}."),
                player=SeatRef(state["turn"]),
                dice=faces(move["roll"]),
            )
            if after["phase"] == "place":
                return line
            line = sentence(
                gettext_noop("{player} rolls {dice}: no value fits, so the dice are set aside."),
                player=SeatRef(state["turn"]),
                dice=faces(move["roll"]),
            )
        else:
            value, table = move["place"]["value"], move["place"]["table"]
            line = sentence(
                gettext_noop("{player} places {count} × {face} on table {table}."),
                player=SeatRef(seat),
                count=state["rolled"].count(value),
                face=DIE_FACES[value - 1],
                table=table,
            )
        if after["last_share"] == state["last_share"]:
            return line
        return joined([line, self._describe_share(after["last_share"])], SENTENCE_SEPARATOR)

    def _describe_serve(self, state: State, serve: list[list[Any]]) -> Sentence:
        served = empty_pieces()
        for _, sort in serve:
            served[sort] += 1
        extras = [str(table) for table, _ in serve[self.tables_count(state) :]]
        return sentence(
            gettext_noop("Food is served: {pieces}; the extra pieces go to tables {extras}."),
            pieces=pieces_phrase(served),
            extras=", ".join(extras),
        )

    def _describe_share(self, share: dict[str, Any]) -> Any:
        if not share["taken"]:
            return sentence(gettext_noop("Nobody takes any food this round."))
        return joined(
            [
                sentence(
                    gettext_noop("{player} takes {pieces} from table {table}."),
                    player=SeatRef(entry["seat"]),
                    pieces=pieces_phrase(entry["pieces"]),
                    table=entry["table"],
                )
                for entry in share["taken"]
            ],
            SENTENCE_SEPARATOR,
        )

    # --- bots ----------------------------------------------------------------------------------
    bot_levels = (1, 2, 3)

    def bot_move(self, view: dict[str, Any], rng: random.Random, level: int = 1) -> Move:
        from .cafe_fatal_bot import bot_move  # the bots import this module

        return bot_move(view, rng, level)

    def sample_state(self, view: dict[str, Any], rng: random.Random) -> State:
        # Nothing is hidden at the table: the view holds the whole state but its history. The
        # state shares the view's lists and dicts, as states share theirs: nothing changes them.
        tables = view["tables"]
        seats = view["seats"]
        return {
            "n": view["players"],
            "options": {},
            "log": [],
            "layout": view["layout"],
            "round": view["round"],
            "phase": view["phase"],
            "tables": [table["pieces"] for table in tables],
            "dice": [table["dice"] for table in tables],
            "remaining": [seat["remaining"] for seat in seats],
            "turn": view["turn"],
            "rolled": view["rolled"],
            "values": [seat["values"] for seat in seats],
            "held": [seat["held"] for seat in seats],
            "scores": [seat["score"] for seat in seats],
            "last_share": view["last_share"],
        }

    def redeal_hidden(self, state: State, seat: int | None, rng: random.Random) -> State:
        # Every seat sees the whole table; only dice not yet rolled are unknown, and they are
        # not in the state.
        return dict(state)


#: What ``rng.choice`` picks the seat to move from in a playout: there is only ever one.
_ONE_SEAT = (0,)
#: ``range(k)`` for the counts of placements a seat can have (6 values × 13 tables at most).
_RANGES = [range(k) for k in range(6 * 13 + 1)]
#: The points of ``count`` pieces of a sort of value 1 (sets count double), for every count a
#: game reaches (30 rounds × 15 pieces at most).
_POINTS = [SET_POINTS * (count // SET_SIZE) + count % SET_SIZE for count in range(30 * 15 + 1)]
_VALUES = tuple(SORT_VALUE[sort] for sort in SORTS)


class _LeanGame:
    """A game as flat lists of ints, played out at random exactly as ``Engine.random_playout``
    plays the state it was made from (same rng calls in the same order). ``tables`` and ``held``
    hold three counts (cheese, pizza, cake) per table or seat; ``dice`` one ``count * 8 + value``
    (0: none) per table and seat; ``where`` each seat's value -> table this round, ``own`` its
    tables as bits."""

    def __init__(self, state: State) -> None:
        n = self.n = state["n"]
        layout = state["layout"]
        self.fresh = FRESH[layout]
        self.tables_count = len(NEIGHBOURS[layout])
        self.round = state["round"]
        self.phase = state["phase"]
        self.turn = state["turn"]
        self.rolled = list(state["rolled"]) if state["rolled"] is not None else None
        self.tables = [pieces[sort] for pieces in state["tables"] for sort in SORTS]
        self.held = [pieces[sort] for pieces in state["held"] for sort in SORTS]
        self.dice = [
            d["count"] * 8 + d["value"] if d else 0 for row in state["dice"] for d in row[:n]
        ]
        self.remaining = list(state["remaining"])
        self.where = [{value: table for value, table in placed} for placed in state["values"]]
        self.own = [_own_tables_bits(placed) for placed in state["values"]]

    def scores(self) -> list[int]:
        held = self.held
        return [
            sum(value * _POINTS[held[3 * seat + i]] for i, value in enumerate(_VALUES))
            for seat in range(self.n)
        ]

    def play_out(self, rng: random.Random) -> list[int]:
        choice, draw = rng.choice, rng.random
        while self.phase != "over":
            choice(_ONE_SEAT)
            phase = self.phase
            if phase == "serve":
                self.serve(rng.sample(_RANGES[self.tables_count], EXTRA_PIECES), draw)
            elif phase == "roll":
                self.roll([int(draw() * 6) + 1 for _ in range(self.remaining[self.turn])])
            else:
                self.place_at_random(choice)
        return self.scores()

    def serve(self, extras: list[int], draw: Callable[[], float]) -> None:
        tables = self.tables
        for table in [*range(self.tables_count), *extras]:
            # ``rng.choices(SORTS, cum_weights=(3, 5, 6))``: one draw per piece.
            x = draw() * 6.0
            tables[3 * table + (0 if x < 3.0 else 1 if x < 5.0 else 2)] += 1
        self.turn = self.round % self.n
        self.phase = "roll"

    def roll(self, rolled: list[int]) -> None:
        self.rolled = rolled
        self.phase = "place"
        where = self.where[self.turn]
        if where and not self.can_place(where, rolled):
            self.remaining[self.turn] = 0
            self.next_turn(self.turn)

    def can_place(self, where: dict[int, int], rolled: list[int]) -> bool:
        if any(value in where for value in rolled):
            return True
        return bool(self.fresh[self.own[self.turn]])

    def place_at_random(self, choice: Callable[[Any], int]) -> None:
        """``CafeFatal.random_move``'s draw, then the placement."""
        seat, rolled = self.turn, self.rolled
        distinct = sorted(set(rolled))
        where = self.where[seat]
        fresh = self.fresh[self.own[seat]]
        spread = len(fresh)
        if not where:
            index = choice(_RANGES[len(distinct) * spread])
            self.place(seat, distinct[index // spread], fresh[index % spread])
            return
        total = 0
        for value in distinct:
            total += 1 if value in where else spread
        index = choice(_RANGES[total])
        for value in distinct:
            table = where.get(value)
            if table is not None:
                if not index:
                    self.place(seat, value, table)
                    return
                index -= 1
            elif index < spread:
                self.place(seat, value, fresh[index])
                return
            else:
                index -= spread

    def place(self, seat: int, value: int, table: int) -> None:
        count = self.rolled.count(value)
        slot = table * self.n + seat
        if self.dice[slot]:
            self.dice[slot] += count * 8
        else:
            self.dice[slot] = count * 8 + value
            self.where[seat][value] = table
            self.own[seat] |= 1 << table
        self.remaining[seat] -= count
        self.rolled = None
        self.next_turn(seat)

    def next_turn(self, seat: int) -> None:
        remaining = self.remaining
        for after in SEATS_AFTER[self.n][seat]:
            if remaining[after]:
                self.turn = after
                self.phase = "roll"
                return
        self.share()

    def share(self) -> None:
        n, dice, tables, held = self.n, self.dice, self.tables, self.held
        for table in range(self.tables_count):
            best, winner = 0, -1
            for seat in range(n):
                key = dice[table * n + seat]
                if key > best:
                    best, winner = key, seat
                elif key == best and key:
                    winner = -1
            if winner >= 0:
                for i in range(3):
                    held[3 * winner + i] += tables[3 * table + i]
                    tables[3 * table + i] = 0
        self.turn = None
        if max(self.scores()) >= WINNING_SCORE or self.round == LAST_ROUND - 1:
            self.phase = "over"
            return
        self.round += 1
        self.phase = "serve"
        self.dice = [0] * (self.tables_count * n)
        self.remaining = [DICE_PER_PLAYER] * n
        self.where = [{} for _ in range(n)]
        self.own = [0] * n


def _own_tables_bits(placed: list[list[int]]) -> int:
    """The tables of a seat's ``values`` this round (one per table) as the bits of a number."""
    own = 0
    for _, table in placed:
        own |= 1 << table
    return own


def _is_int(value: Any) -> bool:
    # A plain int (every number of a move read from JSON) is answered by the first test.
    return type(value) is int or (isinstance(value, int) and not isinstance(value, bool))


ENGINE = register(CafeFatal())
