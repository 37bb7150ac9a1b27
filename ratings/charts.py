"""Rating-history charts drawn on the server as SVG, so they read without JavaScript: a polyline
over labelled axes, and one point per match whose ``<title>`` tells its date and rating on hover.

This module only computes geometry; ``templates/ratings/chart.html`` writes the markup (and so
escapes whatever it prints). Coordinates are formatted here as plain strings because the template
engine would localise floats ("12,5" in French), which SVG cannot read."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core.cache import cache
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.safestring import SafeString

WIDTH = 640
HEIGHT = 240
LEFT, RIGHT, TOP, BOTTOM = 56, 20, 16, 36
#: A flat history still gets a readable vertical scale of at least this many points.
MIN_SPAN = 50
#: Candidate distances between rating gridlines; the first giving at most MAX_Y_TICKS is used.
Y_STEPS = (10, 20, 25, 50, 100, 200, 250, 500, 1000)
MAX_Y_TICKS = 5
#: Below this time span, dates on the x axis would repeat: one label only.
ONE_DAY = 86_400.0


@dataclass(frozen=True)
class ChartPoint:
    x: str
    y: str
    when: datetime
    value: int


@dataclass(frozen=True)
class Tick:
    at: str
    label: int | datetime
    anchor: str = "middle"


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    left: str
    right: str
    top: str
    bottom: str
    points: list[ChartPoint]
    polyline: str
    y_ticks: list[Tick]
    x_ticks: list[Tick]

    @property
    def count(self) -> int:
        return len(self.points)

    @property
    def first(self) -> int:
        return self.points[0].value

    @property
    def last(self) -> int:
        return self.points[-1].value

    @property
    def low(self) -> int:
        return min(p.value for p in self.points)

    @property
    def high(self) -> int:
        return max(p.value for p in self.points)


def _num(value: float) -> str:
    return f"{value:.1f}"


def _y_scale(low: float, high: float) -> tuple[float, float, int]:
    """Axis bounds on whole gridlines and the gridline step."""
    if high - low < MIN_SPAN:
        middle = (high + low) / 2
        low, high = middle - MIN_SPAN / 2, middle + MIN_SPAN / 2
    step = next((s for s in Y_STEPS if (high - low) / s <= MAX_Y_TICKS), Y_STEPS[-1])
    bottom = math.floor(low / step) * step
    top = math.ceil(high / step) * step
    return bottom, top, step


def build_chart(points: Sequence[tuple[datetime, float]]) -> Chart | None:
    """The geometry of a chart of ratings over time (points oldest first); None without points."""
    if not points:
        return None
    plot_left, plot_right = LEFT, WIDTH - RIGHT
    plot_top, plot_bottom = TOP, HEIGHT - BOTTOM
    values = [value for _, value in points]
    y_low, y_high, step = _y_scale(min(values), max(values))

    def y_of(value: float) -> float:
        return plot_bottom - (value - y_low) / (y_high - y_low) * (plot_bottom - plot_top)

    start = points[0][0].timestamp()
    span = points[-1][0].timestamp() - start

    def x_of(index: int, when: datetime) -> float:
        if span <= 0:
            # Matches all stamped alike (a seeded database): spread them evenly instead.
            if len(points) == 1:
                return (plot_left + plot_right) / 2
            return plot_left + index / (len(points) - 1) * (plot_right - plot_left)
        return plot_left + (when.timestamp() - start) / span * (plot_right - plot_left)

    chart_points = [
        ChartPoint(_num(x_of(i, when)), _num(y_of(value)), when, round(value))
        for i, (when, value) in enumerate(points)
    ]
    y_ticks = [
        Tick(_num(y_of(level)), level, "end") for level in range(int(y_low), int(y_high) + 1, step)
    ]
    first, last = points[0][0], points[-1][0]
    if span < ONE_DAY:
        x_ticks = [Tick(chart_points[0].x, first, "middle" if span <= 0 else "start")]
    else:
        middle = datetime.fromtimestamp(start + span / 2, tz=first.tzinfo)
        x_ticks = [
            Tick(_num(plot_left), first, "start"),
            Tick(_num((plot_left + plot_right) / 2), middle, "middle"),
            Tick(_num(plot_right), last, "end"),
        ]
    return Chart(
        width=WIDTH,
        height=HEIGHT,
        left=_num(plot_left),
        right=_num(plot_right),
        top=_num(plot_top),
        bottom=_num(plot_bottom),
        points=chart_points,
        polyline=" ".join(f"{p.x},{p.y}" for p in chart_points),
        y_ticks=y_ticks,
        x_ticks=x_ticks,
    )


def render_chart(
    points: Sequence[tuple[datetime, float]], *, chart_id: str, title: str
) -> SafeString:
    """The chart as an ``<svg>`` element (empty when there are no points). ``chart_id`` prefixes
    the ids of its title and description, so keep it unique on the page."""
    chart = build_chart(points)
    if chart is None:
        return SafeString("")
    return render_to_string(
        "ratings/chart.html", {"chart": chart, "chart_id": chart_id, "title": title}
    )


#: A rendered chart is kept this long; a new rated match changes its points, hence its key.
CACHE_SECONDS = 24 * 3600


def chart_keys(charts: dict[str, tuple[Hashable, str]]) -> dict[str, str]:
    """The cache key of each chart of ``render_charts``, for a caller that reads them from the
    cache together with keys of its own."""
    return {
        chart_id: _cache_key(chart_id, shown, title) for chart_id, (shown, title) in charts.items()
    }


def render_charts(
    charts: dict[str, tuple[Hashable, str]],
    load_points: Callable[[], dict[str, Sequence[tuple[datetime, float]]]],
    cached: Mapping[str, Any] | None = None,
) -> dict[str, SafeString]:
    """Several charts, ``chart_id -> (what it shows, title)``, each rendered once and kept in the
    cache under what it shows (any value that changes whenever its points do), its title,
    language and time zone: a player's chart changes only when they play a rated match, and a
    busy profile is read far more often than that. One cache round trip for all of them, or
    none when the caller read their keys (``chart_keys``) already: ``cached``. ``load_points``
    (chart_id -> points) is called only when one of them must be drawn."""
    keys = chart_keys(charts)
    found = cache.get_many(list(keys.values())) if cached is None else cached
    svgs = {chart_id: SafeString(found[key]) for chart_id, key in keys.items() if key in found}
    missing = [chart_id for chart_id in charts if chart_id not in svgs]
    if missing:
        points = load_points()
        for chart_id in missing:
            svgs[chart_id] = render_chart(
                points.get(chart_id, []), chart_id=chart_id, title=charts[chart_id][1]
            )
        cache.set_many({keys[chart_id]: str(svgs[chart_id]) for chart_id in missing}, CACHE_SECONDS)
    return svgs


def _cache_key(chart_id: str, shown: Hashable, title: str) -> str:
    key = repr(
        (chart_id, shown, title, translation.get_language(), timezone.get_current_timezone_name())
    )
    return "rating-chart:" + hashlib.sha256(key.encode()).hexdigest()
