"""Rating-history charts drawn on the server as SVG, so they read without JavaScript: a polyline
over labelled axes, and one point per match whose ``<title>`` tells its date and rating on hover.

``build_chart`` computes the geometry and ``chart_svg`` writes the markup in Python, escaping
whatever it prints, byte for byte what ``templates/ratings/chart.html`` draws (a test compares
both in every language): the template engine took most of a profile drawn afresh. Coordinates are
formatted as plain strings because the template engine would localise floats ("12,5" in French),
which SVG cannot read."""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from html import escape as html_escape
from typing import Any, NamedTuple

from django.db import connection
from django.utils import timezone, translation
from django.utils.safestring import SafeString
from django.utils.translation import gettext, ngettext

from pdc_site.dates import date_formatter

from .kept import KeptInProcess

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


# Points and ticks are named tuples rather than frozen dataclasses: a chart makes one per match
# and per gridline, and a frozen dataclass costs several times a tuple to make.
class ChartPoint(NamedTuple):
    #: Coordinates as ``_num`` prints them: digits, a point and a sign, nothing to escape.
    x: str
    y: str
    when: datetime
    value: int


class Tick(NamedTuple):
    #: A coordinate as ``_num`` prints it.
    at: str
    label: int | datetime
    #: One of "start", "middle", "end".
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
    points: Sequence[tuple[datetime, float]],
    *,
    chart_id: str,
    title: str,
    words: ChartWords | None = None,
) -> SafeString:
    """The chart as an ``<svg>`` element (empty when there are no points). ``chart_id`` prefixes
    the ids of its title and description, so keep it unique on the page. ``words``: the
    charts' words and date formats, when several charts are drawn together."""
    chart = build_chart(points)
    if chart is None:
        return SafeString("")
    return chart_svg(chart, chart_id=chart_id, title=title, words=words)


class ChartWords:
    """What every chart prints the same in the active language and time zone: the points'
    title and the dates' formats (escaped, as the template prints them), looked up once for a
    profile's charts rather than once a chart."""

    def __init__(self) -> None:
        self.point_title = gettext("%(when)s: rating %(rating)s")
        self.tick_text = date_formatter("SHORT_DATE_FORMAT", escaped=True)
        self.when_text = date_formatter("SHORT_DATETIME_FORMAT", escaped=True)


def chart_svg(
    chart: Chart, *, chart_id: str, title: str, words: ChartWords | None = None
) -> SafeString:
    """The markup of ``templates/ratings/chart.html`` for ``chart``, written in Python: the
    template engine spent about 40 µs a point on it. Every text printed is escaped, except what
    the chart computes itself and holds nothing to escape (coordinates, anchors, whole ratings:
    escaping them was half the drawing of a profile's charts); dates are in the active
    language's formats and time zone, as the template's ``date`` filter gives them."""
    cid = escape(chart_id)
    left, right, top, bottom = chart.left, chart.right, chart.top, chart.bottom
    parts = [
        f'<svg class="rating-chart" xmlns="http://www.w3.org/2000/svg"'
        f' viewBox="0 0 {chart.width} {chart.height}" role="img"'
        f' aria-labelledby="{cid}-title {cid}-desc" font-size="12"'
        ' font-family="system-ui, sans-serif">\n'
        f'  <title id="{cid}-title">{escape(title)}</title>\n'
        f'  <desc id="{cid}-desc">{_description(chart)}</desc>\n'
        '  <g class="chart-axis chart-y" aria-hidden="true">\n    '
    ]
    for at, label, anchor in chart.y_ticks:
        parts.append(
            f'\n    <line class="chart-grid" x1="{left}" x2="{right}" y1="{at}" y2="{at}"'
            ' stroke="#ddd" stroke-width="1"/>'
            f'\n    <text x="{left}" y="{at}" dx="-6" dy="0.35em"'
            f' text-anchor="{anchor}" fill="#555">{label}</text>\n    '
        )
    parts.append(
        f'\n    <line x1="{left}" x2="{left}" y1="{top}" y2="{bottom}" stroke="#888"'
        ' stroke-width="1"/>\n  </g>\n  <g class="chart-axis chart-x" aria-hidden="true">\n'
        f'    <line x1="{left}" x2="{right}" y1="{bottom}" y2="{bottom}" stroke="#888"'
        ' stroke-width="1"/>\n    '
    )
    words = words or ChartWords()
    tick_text = words.tick_text
    for at, label, anchor in chart.x_ticks:
        parts.append(
            f'\n    <text x="{at}" y="{bottom}" dy="1.4em" text-anchor="{anchor}" fill="#555">'
            f"{tick_text(label)}</text>\n    "
        )
    parts.append(
        f'\n  </g>\n  <polyline class="chart-line" points="{chart.polyline}" fill="none"'
        ' stroke="#b3261e" stroke-width="2" stroke-linejoin="round"/>\n'
        '  <g class="chart-points" fill="#b3261e">\n    '
    )
    point_title, when_text = words.point_title, words.when_text
    for x, y, when, value in chart.points:
        shown = point_title % {"when": when_text(when), "rating": value}
        parts.append(
            f'\n    <circle cx="{x}" cy="{y}" r="3.5"'
            f' stroke="transparent" stroke-width="8"><title>{shown}</title></circle>\n    '
        )
    parts.append("\n  </g>\n</svg>\n")
    return SafeString("".join(parts))


def escape(value: Any) -> str:
    """What Django's ``escape`` (and autoescape) prints of a value: ``html.escape`` of its
    text. Without Django's wrapper for lazy text, which cost twice the escaping itself on a
    chart's few hundred values. A whole number is printed as it is: it holds nothing to escape,
    and a profile's tables print dozens of them."""
    if value.__class__ is int:
        return str(value)
    return html_escape(str(value))


def _description(chart: Chart) -> str:
    """The chart's ``<desc>``: its count of matches, first, last, lowest and highest rating."""
    text = ngettext(
        "One rated match: rating %(last)s.",
        "%(matches)s rated matches: from %(first)s to %(last)s, lowest %(low)s, highest %(high)s.",
        chart.count,
    )
    return text % {
        "matches": chart.count,
        "first": chart.first,
        "last": chart.last,
        "low": chart.low,
        "high": chart.high,
    }


#: Drawings kept per process (charts and profiles' recent matches, a few KB each).
DRAWINGS_KEPT = 512


#: HTML drawn once and kept in this process under a key that names everything it shows.
#: Nothing is ever invalidated: what changes a drawing changes its key, so every process serves
#: what a fresh drawing would give. Kept here rather than in the shared cache: writing a
#: profile's drawings to Redis cost 1.6 ms of CPU, more than drawing them.
DRAWN: KeptInProcess[Hashable, str] = KeptInProcess(DRAWINGS_KEPT)


def chart_keys(charts: dict[str, tuple[Hashable, str]]) -> dict[str, Hashable]:
    """The key of each chart of ``render_charts`` in ``DRAWN``, for a caller that reads them
    together with keys of its own: what it shows, its title, the database, language and time
    zone (these three looked up once for all the charts)."""
    around = (
        connection.settings_dict["NAME"],
        translation.get_language(),
        timezone.get_current_timezone_name(),
    )
    return {
        chart_id: ("rating-chart", chart_id, shown, title, *around)
        for chart_id, (shown, title) in charts.items()
    }


def render_charts(
    charts: dict[str, tuple[Hashable, str]],
    load_points: Callable[[], dict[str, Sequence[tuple[datetime, float]]]],
) -> dict[str, SafeString]:
    """Several charts, ``chart_id -> (what it shows, title)``, each rendered once and kept in the
    process (``DRAWN``) under what it shows (any value that changes whenever its points do),
    its title, the database, language and time zone: a player's chart changes only when they
    play a rated match, and a busy profile is read far more often than that. ``load_points``
    (chart_id -> points) is called only when one of them must be drawn."""
    keys = chart_keys(charts)
    found = DRAWN.get_many(keys.values())
    missing = missing_charts(keys, found)
    points = load_points() if missing else {}
    svgs, drawn = draw_charts(charts, keys, found, points)
    DRAWN.set_many(drawn)
    return svgs


def missing_charts(keys: dict[str, Hashable], found: Mapping[Hashable, Any]) -> list[str]:
    """The ids of the charts (``keys``: ``chart_keys``) that ``DRAWN`` did not hold (``found``:
    what was read of it)."""
    return [chart_id for chart_id, key in keys.items() if key not in found]


def draw_charts(
    charts: dict[str, tuple[Hashable, str]],
    keys: dict[str, Hashable],
    found: Mapping[Hashable, Any],
    points: Mapping[str, Sequence[tuple[datetime, float]]],
) -> tuple[dict[str, SafeString], dict[Hashable, str]]:
    """``render_charts`` without reading or keeping: each chart from ``found`` (what was read of
    ``DRAWN`` under ``keys``, from ``chart_keys``) or drawn from ``points``; and what was drawn,
    by key, for the caller to keep with whatever else it keeps."""
    svgs = {chart_id: SafeString(found[key]) for chart_id, key in keys.items() if key in found}
    drawn = {}
    words = ChartWords() if len(svgs) < len(charts) else None
    for chart_id in charts:
        if chart_id not in svgs:
            svgs[chart_id] = render_chart(
                points.get(chart_id, []), chart_id=chart_id, title=charts[chart_id][1], words=words
            )
            drawn[keys[chart_id]] = str(svgs[chart_id])
    return svgs, drawn
