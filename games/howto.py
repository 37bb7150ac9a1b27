"""How to play: a page per game with small diagrams the templates draw as SVG.

The geometry is computed here and handed to the templates as ready-made strings: numbers in SVG
are never localized (a French page would otherwise write ``cx="33,6"``)."""

from __future__ import annotations

import math

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from .engines import all_engines

#: Each game's page body: templates/games/howto/<slug>.html.
HOWTO_TEMPLATE = "games/howto/{slug}.html"

#: The colours of the slice kinds (as on the table) and of the seats.
KIND_COLOURS = {
    "M": "#e4572e",
    "R": "#f2a7b3",
    "F": "#f6d776",
    "V": "#7cb342",
    "T": "#5d4037",
    "C": "#c62828",
    "B": "#2b2b2b",
}
SEAT_COLOURS = ("#c62828", "#1565c0", "#2e7d32")
PORTION_COLOURS = ("#1565c0", "#ef6c00", "#2e7d32")
FOOD_COLOURS = {"cheese": "#f4c430", "pizza": "#e4572e", "cake": "#f48fb1"}


def num(value: float) -> str:
    """A number as SVG wants it: a dot, at most two decimals, never a locale's comma."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _point(x: float, y: float) -> str:
    return f"{num(x)},{num(y)}"


# --- La Part du Chef: one pizza of 13 slices, cut into three portions ----------------------------
#: An example pizza (positions 0..12 clockwise) and an example cut for three players.
EXAMPLE_PIZZA = ("M2", "R2", "F1", "V1", "B", "M3", "T1", "R2*", "C", "F2", "M2", "R2", "V1")
EXAMPLE_CUT = (0, 4, 9)


def portions_of(cut: tuple[int, ...], slices: int = 13) -> list[list[int]]:
    """The portions of a cut, exactly as the rules say: sorted start positions, each portion runs
    to the next start, the last wraps round to the first."""
    starts = sorted(cut)
    portions = []
    for j, start in enumerate(starts):
        end = starts[(j + 1) % len(starts)]
        length = (end - start) % slices or slices
        portions.append([(start + k) % slices for k in range(length)])
    return portions


def pizza_diagram(
    codes: tuple[str, ...] = EXAMPLE_PIZZA, cut: tuple[int, ...] = EXAMPLE_CUT
) -> dict:
    """Wedges (SVG paths), their labels and the cut lines of a 13-slice pizza."""
    centre, radius = 110.0, 96.0
    step = 2 * math.pi / len(codes)
    portion_of = {p: j for j, portion in enumerate(portions_of(cut, len(codes))) for p in portion}

    def at(angle: float, r: float) -> tuple[float, float]:
        # Position 0 starts at twelve o'clock; positions go clockwise.
        return centre + r * math.sin(angle), centre - r * math.cos(angle)

    wedges = []
    for position, code in enumerate(codes):
        a0, a1 = position * step, (position + 1) * step
        x0, y0 = at(a0, radius)
        x1, y1 = at(a1, radius)
        lx, ly = at((a0 + a1) / 2, radius * 0.68)
        px, py = at((a0 + a1) / 2, radius + 11)
        path = (
            f"M{_point(centre, centre)} L{_point(x0, y0)} "
            f"A{num(radius)},{num(radius)} 0 0,1 {_point(x1, y1)} Z"
        )
        kind = code[0]
        wedges.append(
            {
                "path": path,
                "code": code,
                "fill": KIND_COLOURS[kind],
                "text": "#fff" if kind in "TCB" else "#222",
                "label_x": num(lx),
                "label_y": num(ly),
                "position": position,
                "position_x": num(px),
                "position_y": num(py),
                "portion": portion_of[position],
                "band": PORTION_COLOURS[portion_of[position]],
            }
        )
    cuts = []
    for start in cut:
        x, y = at(start * step, radius + 4)
        cuts.append({"x1": num(centre), "y1": num(centre), "x2": num(x), "y2": num(y)})
    return {
        "size": num(2 * centre),
        "centre": num(centre),
        "radius": num(radius),
        "wedges": wedges,
        "cuts": cuts,
    }


# --- Pizza Party: the hexagonal board and three cut lines -----------------------------------------
START_TOPPINGS = {0: ((3, -3), (3, 0)), 1: ((-3, 3), (0, 3)), 2: ((0, -3), (-3, 0))}
#: Example picks: seat i cuts along axis (q, r, s)[i] in round 0.
EXAMPLE_PICKS = (("q", 2), ("r", 4), ("s", 5))
HEX_SIZE = 17.0


def _hex_centre(q: float, r: float) -> tuple[float, float]:
    origin = 8 * HEX_SIZE
    return origin + HEX_SIZE * math.sqrt(3) * (q + r / 2), origin + HEX_SIZE * 1.5 * r


def board_cells(radius: int = 3) -> list[tuple[int, int]]:
    return [
        (q, r)
        for r in range(-radius, radius + 1)
        for q in range(-radius, radius + 1)
        if max(abs(q), abs(r), abs(q + r)) <= radius
    ]


def cut_line_ends(axis: str, n: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """Line (axis, n) runs between the rows axis = n − 4 and axis = n − 3."""
    c = n - 3.5
    span = 3.7
    if axis == "q":
        ends = ((c, -span), (c, span))
    elif axis == "r":
        ends = ((-span - c / 2, c), (span - c / 2, c))
    else:  # s = c, so q = −c − r
        ends = ((-c + span, -span), (-c - span, span))
    return _hex_centre(*ends[0]), _hex_centre(*ends[1])


def hex_diagram(picks: tuple[tuple[str, int], ...] = EXAMPLE_PICKS) -> dict:
    owner = {cell: seat for seat, cells in START_TOPPINGS.items() for cell in cells}
    cells = []
    for q, r in board_cells():
        x, y = _hex_centre(q, r)
        corners = [
            _point(
                x + HEX_SIZE * math.cos(math.radians(60 * i - 30)),
                y + HEX_SIZE * math.sin(math.radians(60 * i - 30)),
            )
            for i in range(6)
        ]
        seat = owner.get((q, r))
        cells.append(
            {
                "points": " ".join(corners),
                "x": num(x),
                "y": num(y),
                "topping": SEAT_COLOURS[seat] if seat is not None else "",
            }
        )
    lines = []
    for seat, (axis, n) in enumerate(picks):
        (x1, y1), (x2, y2) = cut_line_ends(axis, n)
        lines.append(
            {
                "x1": num(x1),
                "y1": num(y1),
                "x2": num(x2),
                "y2": num(y2),
                "colour": SEAT_COLOURS[seat],
                "axis": axis,
                "n": n,
            }
        )
    return {
        "size": num(16 * HEX_SIZE),
        "cells": cells,
        "lines": lines,
        "topping_r": num(HEX_SIZE * 0.5),
    }


# --- Café Fatal: the 3 × 3 tables with food and dice ---------------------------------------------
#: An example moment of a two-player round: (table, food pieces, dice as (seat, value, count)).
EXAMPLE_TABLES = {
    0: (("cheese",), ()),
    1: (("pizza", "cheese"), ((0, 4, 2),)),
    2: (("cheese",), ()),
    3: (("cake",), ((1, 6, 1),)),
    4: (("pizza", "pizza"), ((0, 2, 3), (1, 5, 2))),
    5: (("cheese",), ()),
    6: (("cheese", "cheese"), ()),
    7: (("pizza",), ()),
    8: (("cheese",), ((1, 1, 1),)),
}


def tables_diagram() -> dict:
    side, gap = 70.0, 8.0
    tables = []
    for index in range(9):
        row, col = divmod(index, 3)
        x, y = gap + col * (side + gap), gap + row * (side + gap)
        food, dice = EXAMPLE_TABLES[index]
        tables.append(
            {
                "index": index,
                "x": num(x),
                "y": num(y),
                "side": num(side),
                "label_x": num(x + 6),
                "label_y": num(y + 14),
                "food": [
                    {"cx": num(x + 14 + 15 * k), "cy": num(y + 32), "fill": FOOD_COLOURS[sort]}
                    for k, sort in enumerate(food)
                ],
                "dice": [
                    {
                        "x": num(x + 5 + 31 * k),
                        "y": num(y + 45),
                        "text_x": num(x + 18.5 + 31 * k),
                        "text_y": num(y + 54.5),
                        "fill": SEAT_COLOURS[seat],
                        "value": value,
                        "count": count,
                    }
                    for k, (seat, value, count) in enumerate(dice)
                ],
            }
        )
    return {"size": num(3 * side + 4 * gap), "tables": tables}


DIAGRAMS = {
    "part-du-chef": lambda: {"pizza": pizza_diagram(), "kinds": KIND_COLOURS},
    "pizza-party": lambda: {"board": hex_diagram()},
    "cafe-fatal": lambda: {"tables": tables_diagram(), "food": FOOD_COLOURS},
}


def _games() -> list[dict]:
    return [
        {"slug": e.slug, "name": e.name, "min": e.min_players, "max": e.max_players}
        for e in all_engines()
    ]


def howto_index(request: HttpRequest) -> HttpResponse:
    return render(request, "games/howto_index.html", {"games": _games()})


def howto(request: HttpRequest, slug: str) -> HttpResponse:
    game = next((g for g in _games() if g["slug"] == slug), None)
    if game is None or slug not in DIAGRAMS:
        raise Http404("There is no such game.")
    context = {
        "game": game,
        "games": _games(),
        "body": HOWTO_TEMPLATE.format(slug=slug),
        **DIAGRAMS[slug](),
    }
    return render(request, "games/howto.html", context)
