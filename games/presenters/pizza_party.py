"""Pizza Party at the table: the hexagonal pizza of 37 cells with each colour's start marks and
toppings; the axis each colour cuts along this round with its six numbered lines; after the cut,
the three lines, the parts they make and what was replaced; the cells where the player to move
may add a topping; the secret pick of a cut.

Everything comes from the engine's views: a pick is in a view only for its own seat until every
pick is in (``your_pick``); the others see only who has picked.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from django.http import QueryDict

from ..engines.base import Move, gettext_noop
from ..engines.pizza_party import AXES, FACES, PARTS, START_CELLS
from ..translations import gettext as _
from .base import MoveFormError, Presenter, action_of, number, whole_number
from .registry import register

# --- geometry: pointy-top hexagons, SVG user units -------------------------------------------
SIZE = 20.0
SQRT3 = math.sqrt(3)
#: Cut lines run a little past the outer cells, and their numbers a little further.
LINE_REACH = 3.75
TICK_REACH = 4.3
VIEW_BOX = "-150 -140 300 280"
CORNERS = [
    (SIZE * math.cos(math.radians(60 * k - 30)), SIZE * math.sin(math.radians(60 * k - 30)))
    for k in range(6)
]
#: How many tints the parts of a cut are told apart by.
PART_TINTS = 7


# Pure geometry, asked again for every version: remembered (results shared, never changed).
def pixel(q: float, r: float) -> tuple[float, float]:
    return SIZE * SQRT3 * (q + r / 2), SIZE * 1.5 * r


@lru_cache(maxsize=4096)
def hexagon(cx: float, cy: float, scale: float = 1.0) -> str:
    return " ".join(f"{number(cx + scale * dx)},{number(cy + scale * dy)}" for dx, dy in CORNERS)


@lru_cache(maxsize=4096)
def line_ends(axis: int, n: int, reach: float) -> tuple[tuple[float, float], tuple[float, float]]:
    """The two ends (pixels) of cut line ``n`` on ``axis``: the points where the cube coordinate
    ``axis`` is n − 3.5 (between the rows n − 4 and n − 3), out to ``reach`` on the other two."""
    c = n - 3.5
    others = [a for a in range(3) if a != axis]
    low, high = max(-reach, -c - reach), min(reach, -c + reach)
    ends = []
    for t in (low, high):
        cube = [0.0, 0.0, 0.0]
        cube[axis], cube[others[0]], cube[others[1]] = c, t, -c - t
        ends.append(pixel(cube[0], cube[1]))
    return ends[0], ends[1]


def cell_label(cell: list[int]) -> str:
    return f"[{cell[0]}, {cell[1]}]"


class PizzaPartyPresenter(Presenter):
    slug = "pizza-party"
    result_caption = gettext_noop(
        "The first colour with all 16 toppings on the pizza wins; after 60 rounds, the most "
        "toppings. The others rank by toppings on the pizza."
    )

    # --- what everyone sees --------------------------------------------------------------------
    def game_context(self, view: dict[str, Any], names: list[str]) -> dict[str, Any]:
        duel = view["variant"] == "duel"
        colours = [_colour(entry, names, view) for entry in view["colours"]]
        phase = view["phase"]
        cut = _last_cut(view, colours) if phase in ("add", "over") else None
        placing = view["placing"]
        return {
            "phase": phase,
            "duel": duel,
            "round_number": view["round"] + 1,
            "rounds": view["rounds"],
            "placing": placing,
            "placing_name": colours[placing]["name"] if placing is not None else None,
            "colours": colours,
            "pickers": [c for c in colours if not c["neutral"]],
            "waiting_names": [c["name"] for c in colours if c["seat"] in view["to_move"]],
            "picked_names": [
                c["name"] for c in colours if c["picked"] and not c["neutral"] and phase == "cut"
            ],
            "last_cut": cut,
            "board": _board(view, colours, cut),
            "faces": list(FACES),
        }

    # --- what one seat adds ----------------------------------------------------------------------
    def seat_context(
        self, view: dict[str, Any], game: dict[str, Any], you: int, names: list[str]
    ) -> dict[str, Any]:
        moving = you in view["to_move"]
        context: dict[str, Any] = {
            "place": None,
            "pick": None,
            "your_pick": view["your_pick"],
            "your_axis": game["colours"][you]["axis_name"],
        }
        if moving and view["phase"] == "add":
            targets = []
            for cell in view["your_cells"]:
                cx, cy = pixel(*cell)
                targets.append(
                    {
                        "value": f"{cell[0]},{cell[1]}",
                        "label": cell_label(cell),
                        # The button is the cell's box, as percentages of the drawing.
                        "left": number(100 * (cx - SIZE * SQRT3 / 2 + 150) / 300, 3),
                        "top": number(100 * (cy - SIZE + 140) / 280, 3),
                        "width": number(100 * SIZE * SQRT3 / 300, 3),
                        "height": number(100 * 2 * SIZE / 280, 3),
                    }
                )
            context["place"] = {"targets": targets}
        elif moving and view["phase"] == "cut":
            context["pick"] = {"faces": list(FACES), "ticks": _pick_ticks(game["colours"][you])}
        return context

    def mark_last_move(self, game: dict[str, Any], seat: int, move: Move) -> bool:
        return _mark_place(game, move)

    # --- forms → moves ----------------------------------------------------------------------------
    def move_from_post(self, data: QueryDict) -> Move:
        action = action_of(data, ("place", "cut"))
        if action == "cut":
            return {"cut": whole_number(data.get("cut"), _("Pick a number from 1 to 6."))}
        q, comma, r = (data.get("place") or "").partition(",")
        if not comma:
            raise MoveFormError(_("Click a cell to add your topping."))
        message = _("A cell is written as two whole numbers.")
        return {"place": [whole_number(q, message), whole_number(r, message)]}


def _mark_place(game: dict[str, Any], move: Move) -> bool:
    place = move.get("place") if isinstance(move, dict) else None
    if not isinstance(place, list):
        # A pick draws nothing of its own: the cut it completes is drawn until the next picks.
        return "cut" in move if isinstance(move, dict) else True
    for cell in game["board"]["cells"]:
        cell["last_move"] = [cell["q"], cell["r"]] == place
    return True


#: A pick's button on the board: the numbered tick at the end of the cut line.
TICK_BUTTON = 20.0


def _pick_ticks(colour: dict[str, Any]) -> list[dict[str, Any]]:
    """Buttons over the numbered ticks of the player's own axis, as percentages of the drawing."""
    if colour["axis"] is None:
        return []
    axis = AXES.index(colour["axis"])
    ticks = []
    for n in FACES:
        (tx, ty), _far = line_ends(axis, n, TICK_REACH)
        ticks.append(
            {
                "n": n,
                "left": number(100 * (tx - TICK_BUTTON / 2 + 150) / 300, 3),
                "top": number(100 * (ty - TICK_BUTTON / 2 + 140) / 280, 3),
                "width": number(100 * TICK_BUTTON / 300, 3),
                "height": number(100 * TICK_BUTTON / 280, 3),
            }
        )
    return ticks


def _colour(entry: dict[str, Any], names: list[str], view: dict[str, Any]) -> dict[str, Any]:
    colour = entry["colour"]
    neutral = entry["neutral"]
    axis = entry["axis"]
    return {
        "seat": colour,
        "name": _("Neutral colour") if neutral else names[colour],
        "neutral": neutral,
        "on_board": entry["on_board"],
        "supply": entry["supply"],
        "axis": axis,
        "axis_name": axis,
        "picked": entry["picked"],
        "placing": view["placing"] == colour,
    }


def _last_cut(view: dict[str, Any], colours: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The cut that ended the last round: the picks (all revealed together), the lines, the parts
    they made and what was replaced. Shown until the next round's picks begin."""
    cut = view["last_cut"]
    if cut is None:
        return None
    picks = cut["picks"]
    lines = [0, 0, 0]
    for colour, pick in enumerate(picks):
        lines[AXES.index(cut["axes"][colour])] = pick
    parts = PARTS[(lines[0], lines[1], lines[2])]
    colour_at = {tuple(c["cell"]): c["colour"] for c in view["board"]}
    cells = [tuple(c["cell"]) for c in view["board"]]
    filled = {tuple(cell) for cell in cut["filled"]}
    winners = []
    for part in parts:
        won = {colour_at[cells[i]] for i in part if cells[i] in filled}
        winners.append(won.pop() if len(won) == 1 else None)
    gains: dict[int, int] = {}
    for cell in filled:
        gains[colour_at[cell]] = gains.get(colour_at[cell], 0) + 1
    return {
        "round_number": cut["round"] + 1,
        "lines": lines,
        "part_of": {cells[i]: p for p, part in enumerate(parts) for i in part},
        "part_winner": winners,
        "parts": len(parts),
        "picks": [
            {
                "seat": colour,
                "name": colours[colour]["name"],
                "neutral": colours[colour]["neutral"],
                "pick": pick,
                "axis_name": cut["axes"][colour],
            }
            for colour, pick in enumerate(picks)
        ],
        "removed": {tuple(cell) for cell in cut["removed"]},
        "filled": filled,
        "removed_count": len(cut["removed"]),
        "gains": [
            {"seat": seat, "name": colours[seat]["name"], "count": count}
            for seat, count in sorted(gains.items())
            if seat is not None
        ],
    }


def _board(
    view: dict[str, Any], colours: list[dict[str, Any]], cut: dict[str, Any] | None
) -> dict[str, Any]:
    start_of = {cell: colour for colour, cells in enumerate(START_CELLS) for cell in cells}
    cells = []
    for entry in view["board"]:
        q, r = entry["cell"]
        cx, cy = pixel(q, r)
        colour = entry["colour"]
        key = (q, r)
        part = cut["part_of"][key] if cut else None
        won_by = cut["part_winner"][part] if cut else None
        name = cell_label(entry["cell"])
        if colour is not None:
            title = _("Cell %(cell)s: a topping of %(player)s") % {
                "cell": name,
                "player": colours[colour]["name"],
            }
        else:
            title = _("Cell %(cell)s: empty") % {"cell": name}
        cells.append(
            {
                "q": q,
                "r": r,
                "points": hexagon(cx, cy),
                "cx": number(cx),
                "cy": number(cy),
                "colour": colour,
                "neutral": colour is not None and colours[colour]["neutral"],
                "start_of": start_of.get(key),
                "mark": _start_mark(cx, cy) if key in start_of else None,
                "part": part % PART_TINTS if part is not None else None,
                # A part a colour won at the cut is tinted with that colour.
                "won_by": won_by,
                "won_by_neutral": won_by is not None and colours[won_by]["neutral"],
                "removed": bool(cut and key in cut["removed"]),
                "filled": bool(cut and key in cut["filled"]),
                "title": title,
            }
        )
    lines = []
    if cut:
        for axis, n in enumerate(cut["lines"]):
            (x1, y1), (x2, y2) = line_ends(axis, n, LINE_REACH)
            picker = next(p for p in cut["picks"] if p["axis_name"] == AXES[axis])
            lines.append(
                {
                    "seat": picker["seat"],
                    "neutral": picker["neutral"],
                    "n": n,
                    "x1": number(x1),
                    "y1": number(y1),
                    "x2": number(x2),
                    "y2": number(y2),
                }
            )
    ticks = []
    if view["phase"] == "cut":
        for colour in colours:
            if colour["axis"] is None:
                continue
            axis = AXES.index(colour["axis"])
            marks = []
            for n in FACES:
                (x1, y1), (x2, y2) = line_ends(axis, n, LINE_REACH)
                (tx, ty), _far = line_ends(axis, n, TICK_REACH)
                marks.append(
                    {
                        "n": n,
                        "x1": number(x1),
                        "y1": number(y1),
                        "x2": number(x2),
                        "y2": number(y2),
                        "tx": number(tx),
                        "ty": number(ty),
                    }
                )
            ticks.append({"seat": colour["seat"], "neutral": colour["neutral"], "marks": marks})
    title = _("The pizza in round %(number)s: 37 cells") % {"number": view["round"] + 1}
    return {"view_box": VIEW_BOX, "cells": cells, "lines": lines, "ticks": ticks, "title": title}


@lru_cache(maxsize=4096)
def _start_mark(cx: float, cy: float) -> str:
    """An X across the cell: the start mark of a colour."""
    d = SIZE * 0.62
    return (
        f"M{number(cx - d)} {number(cy - d)} L{number(cx + d)} {number(cy + d)} "
        f"M{number(cx - d)} {number(cy + d)} L{number(cx + d)} {number(cy - d)}"
    )


PRESENTER = register(PizzaPartyPresenter())
