"""Café Fatal at the table: the café's tables as the 3 × 3 grid or the 13-table diamond, each with
its food by sort and the dice on it by colour and value; the roll of the player to move, the
values they may place and the tables each may go to; every player's pieces, sets and points.

Nothing in Café Fatal is hidden, but everything still comes from the engine's view.
"""

from __future__ import annotations

from typing import Any

from django.http import QueryDict

from ..engines.base import Move, gettext_noop
from ..engines.cafe_fatal import SET_SIZE, SORT_COUNTS, SORT_VALUE, SORTS
from ..translations import gettext as _
from ..translations import ngettext
from .base import Presenter, action_of, number, whole_number
from .registry import register

# --- geometry (SVG user units) -------------------------------------------------------------------
CELL = 120
TABLE = 108
MARGIN = (CELL - TABLE) / 2
DIE = 16
#: Food sits in one row, the dice in two rows of three slots (a table holds up to five colours).
FOOD_STEP = 34
DICE_PER_ROW = 3
DICE_STEP = (34, 22)
DIE_FACES = "⚀⚁⚂⚃⚄⚅"


def sort_name(sort: str) -> str:
    return {"cheese": _("Cheese"), "pizza": _("Pizza"), "cake": _("Cake")}[sort]


def pieces_phrase(pieces: dict[str, int]) -> str:
    """How the log counts food ("2 × cheese, 1 × cake"), or "no food"."""
    parts = [_(SORT_COUNTS[sort]).format(count=pieces[sort]) for sort in SORTS if pieces.get(sort)]
    return ", ".join(parts) if parts else _("no food")


def dice_phrase(name: str, dice: dict[str, int]) -> str:
    return ngettext(
        "%(player)s: %(count)d die showing %(value)d",
        "%(player)s: %(count)d dice showing %(value)d",
        dice["count"],
    ) % {"player": name, "count": dice["count"], "value": dice["value"]}


class CafeFatalPresenter(Presenter):
    slug = "cafe-fatal"
    result_caption = gettext_noop(
        "A piece scores its value (cheese 1, pizza 2, cake 5); a complete set of five scores "
        "double. Equal points go to the player with more loose pieces."
    )

    # --- what everyone sees --------------------------------------------------------------------
    def game_context(self, view: dict[str, Any], names: list[str]) -> dict[str, Any]:
        positions = [table["position"] for table in view["tables"]]
        columns = 1 + max(col for _row, col in positions)
        rows = 1 + max(row for row, _col in positions)
        width, height = columns * CELL, rows * CELL
        turn = view["turn"]
        share = _share(view, names)
        # The tables taken at the last share keep a mark until the new round's first placement.
        fresh = share is not None and not any(seat["values"] for seat in view["seats"])
        return {
            "phase": view["phase"],
            "round_number": view["round"] + 1,
            "layout": view["layout"],
            "turn": turn,
            "turn_name": names[turn] if turn is not None else None,
            "rolled": _roll(view["rolled"]) if view["rolled"] else [],
            "board": {
                "width": width,
                "height": height,
                "view_box": f"0 0 {width} {height}",
                "title": ngettext(
                    "The café: %(count)d table", "The café: %(count)d tables", len(positions)
                )
                % {"count": len(positions)},
                "tables": [
                    _table(table, names, width, height, share if fresh else None)
                    for table in view["tables"]
                ],
            },
            "share": share,
            "sorts": [
                {"sort": sort, "name": sort_name(sort), "value": SORT_VALUE[sort]} for sort in SORTS
            ],
            "players": [_player(entry, names, turn) for entry in view["seats"]],
        }

    # --- what one seat adds ----------------------------------------------------------------------
    def seat_context(
        self, view: dict[str, Any], game: dict[str, Any], you: int, names: list[str]
    ) -> dict[str, Any]:
        if view["phase"] != "place" or view["turn"] != you or not view["rolled"]:
            return {"place": None}
        tables_for: dict[int, list[int]] = {}
        for choice in view["choices"]:
            place = choice["place"]
            tables_for.setdefault(place["value"], []).append(place["table"])
        values = [
            {**die, "tables": tables_for.get(die["value"], []), "legal": die["value"] in tables_for}
            for die in game["rolled"]
        ]
        first = next((v["value"] for v in values if v["legal"]), None)
        values_at = {
            table["table"]: [v for v in sorted(tables_for) if table["table"] in tables_for[v]]
            for table in game["board"]["tables"]
        }
        targets = [
            {**table["box"], "table": table["table"], "values": values_at[table["table"]]}
            for table in game["board"]["tables"]
            if values_at[table["table"]]
        ]
        return {"place": {"values": values, "first": first, "targets": targets}}

    def mark_last_move(self, game: dict[str, Any], seat: int, move: Move) -> bool:
        place = move.get("place") if isinstance(move, dict) else None
        if not isinstance(place, dict):
            return False  # a roll or the food served: the placement before is still marked
        for table in game["board"]["tables"]:
            table["last_move"] = table["table"] == place.get("table")
        return True

    # --- forms → moves ----------------------------------------------------------------------------
    def move_from_post(self, data: QueryDict) -> Move:
        action_of(data, ("place",))
        value = whole_number(data.get("value"), _("Choose a value of your roll."))
        table = whole_number(data.get("table"), _("Choose a table."))
        return {"place": {"value": value, "table": table}}


def _roll(rolled: list[int]) -> list[dict[str, Any]]:
    """The roll grouped by value: each value with how many dice show it."""
    return [
        {"value": value, "count": rolled.count(value), "face": DIE_FACES[value - 1]}
        for value in sorted(set(rolled))
    ]


def _share(view: dict[str, Any], names: list[str]) -> dict[str, Any] | None:
    """The end of the last round: which table gave which food to whom."""
    share = view["last_share"]
    if share is None:
        return None
    by_seat: dict[int, list[dict[str, Any]]] = {}
    for entry in share["taken"]:
        by_seat.setdefault(entry["seat"], []).append(entry)
    return {
        "round_number": share["round"] + 1,
        "takers": [
            {
                "seat": seat,
                "name": names[seat],
                "tables": [
                    {"table": e["table"], "pieces": pieces_phrase(e["pieces"])} for e in entries
                ],
            }
            for seat, entries in sorted(by_seat.items())
        ],
        "by_table": {entry["table"]: entry for entry in share["taken"]},
    }


def _table(
    table: dict[str, Any],
    names: list[str],
    width: int,
    height: int,
    share: dict[str, Any] | None,
) -> dict[str, Any]:
    row, col = table["position"]
    x, y = col * CELL + MARGIN, row * CELL + MARGIN
    food = [
        {
            "sort": sort,
            "count": table["pieces"][sort],
            "x": number(x + 17 + i * FOOD_STEP),
            "text_x": number(x + 29 + i * FOOD_STEP),
            "y": number(y + 38),
        }
        for i, sort in enumerate(s for s in SORTS if table["pieces"][s])
    ]
    dice = []
    for seat, placed in enumerate(table["dice"]):
        if placed is None:
            continue
        k = len(dice)
        dx = x + 6 + (k % DICE_PER_ROW) * DICE_STEP[0]
        dy = y + 58 + (k // DICE_PER_ROW) * DICE_STEP[1]
        dice.append(
            {
                "seat": seat,
                "name": names[seat],
                "value": placed["value"],
                "count": placed["count"],
                "x": number(dx),
                "y": number(dy),
                "cx": number(dx + DIE / 2),
                "cy": number(dy + DIE / 2),
                "text_x": number(dx + DIE + 2),
            }
        )
    leader = table["leader"]
    details = [pieces_phrase(table["pieces"])] + [dice_phrase(d["name"], d) for d in dice]
    title = _("Table %(table)s: %(details)s") % {
        "table": table["table"],
        "details": "; ".join(details),
    }
    if leader is not None:
        title = _("%(table)s; %(player)s leads") % {"table": title, "player": names[leader]}
    taken_by = None
    if share is not None and table["table"] in share["by_table"]:
        taken_by = share["by_table"][table["table"]]["seat"]
        title = _("%(table)s; %(player)s took its food at the end of the last round") % {
            "table": title,
            "player": names[taken_by],
        }
    return {
        "table": table["table"],
        "x": number(x),
        "y": number(y),
        "size": number(TABLE),
        "label_x": number(x + 9),
        "label_y": number(y + 14),
        "food": food,
        "dice": dice,
        "die": number(DIE),
        "leader": leader,
        "taken_by": taken_by,
        "flag_x": number(x + TABLE - 14),
        "flag_y": number(y + 14),
        "title": title,
        "empty": not food and not dice,
        # Where the table sits, as percentages of the drawing (for the buttons laid over it).
        "box": {
            "left": number(100 * x / width, 3),
            "top": number(100 * y / height, 3),
            "width": number(100 * TABLE / width, 3),
            "height": number(100 * TABLE / height, 3),
        },
    }


def _player(entry: dict[str, Any], names: list[str], turn: int | None) -> dict[str, Any]:
    held = entry["held"]
    return {
        "seat": entry["seat"],
        "name": names[entry["seat"]],
        "to_move": entry["seat"] == turn,
        "remaining": entry["remaining"],
        "held": [{"sort": sort, "count": held[sort]} for sort in SORTS],
        "sets": sum(held[sort] // SET_SIZE for sort in SORTS),
        "loose": sum(held[sort] % SET_SIZE for sort in SORTS),
        "score": entry["score"],
    }


PRESENTER = register(CafeFatalPresenter())
