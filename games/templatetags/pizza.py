"""Drawing a pizza as SVG, server-side: the geometry of 13 wedges, their olives, the finisher's
medallion, the rim bands that show the cut's portions and the cut lines. The numbers are computed
here; the markup lives in ``games/partials/pizza_svg.html``."""

from __future__ import annotations

import math
from typing import Any

from django import template

register = template.Library()

SLICES = 13
RADIUS = 130.0
#: Where things sit, as fractions of the radius.
MEDALLION_AT = 0.27
OLIVES_AT = 0.45
CODE_AT = 0.66
ID_AT = 0.87
POSITION_AT = 1.1
PORTION_LABEL_AT = 1.25
BAND_AT = 1.035
OLIVE_SPREAD_DEGREES = 6.5


def _angle(position: float) -> float:
    """The angle (radians) of a position's start edge: position 0 starts at the top, clockwise."""
    return math.radians(-90 + position * 360 / SLICES)


def _point(angle: float, radius: float) -> tuple[float, float]:
    return round(radius * math.cos(angle), 1), round(radius * math.sin(angle), 1)


def wedge_path(position: int, radius: float = RADIUS) -> str:
    """An SVG path for the wedge at ``position``: centre, rim arc, back to the centre."""
    x1, y1 = _point(_angle(position), radius)
    x2, y2 = _point(_angle(position + 1), radius)
    return f"M0 0 L{x1} {y1} A{radius} {radius} 0 0 1 {x2} {y2} Z"


def arc_path(first: int, length: int, radius: float) -> str:
    """An open arc along the rim over ``length`` positions starting at ``first``."""
    x1, y1 = _point(_angle(first) + 0.03, radius)
    x2, y2 = _point(_angle(first + length) - 0.03, radius)
    large = 1 if length * 360 / SLICES > 180 else 0
    r = round(radius, 1)
    return f"M{x1} {y1} A{r} {r} 0 {large} 1 {x2} {y2}"


def slice_geometry(position: int, olives: int) -> dict[str, Any]:
    middle = _angle(position + 0.5)
    spread = math.radians(OLIVE_SPREAD_DEGREES)
    olive_points = [
        _point(middle + (k - (olives - 1) / 2) * spread, OLIVES_AT * RADIUS) for k in range(olives)
    ]
    return {
        "d": wedge_path(position),
        "code_xy": _point(middle, CODE_AT * RADIUS),
        "id_xy": _point(middle, ID_AT * RADIUS),
        "position_xy": _point(middle, POSITION_AT * RADIUS),
        "medallion_xy": _point(middle, MEDALLION_AT * RADIUS),
        "olives_xy": olive_points,
    }


def portion_geometry(first: int, length: int) -> dict[str, Any]:
    middle = _angle(first + length / 2)
    return {
        "band": arc_path(first, length, BAND_AT * RADIUS),
        "label_xy": _point(middle, PORTION_LABEL_AT * RADIUS),
        "cut_xy": _point(_angle(first), RADIUS * 1.06),
    }


@register.inclusion_tag("games/partials/pizza_svg.html")
def pizza_svg(board: dict[str, Any]) -> dict[str, Any]:
    """``board``: ``number``, ``title`` and ``slices`` (13 dicts in position order with
    ``position``, ``olives``…), optionally ``portions`` (dicts with ``index``, ``first`` and
    ``length``)."""
    slices = [{**s, **slice_geometry(s["position"], s["olives"])} for s in board["slices"]]
    portions = [
        {**p, **portion_geometry(p["first"], p["length"])} for p in board.get("portions") or []
    ]
    return {
        "number": board["number"],
        "title": board["title"],
        "slices": slices,
        "portions": portions,
        "radius": RADIUS,
        "dom_id": board.get("dom_id", "pizza"),
    }
