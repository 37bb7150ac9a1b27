"""The server-drawn rating-history chart: well-formed SVG that reads without JavaScript."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta
from itertools import pairwise

import pytest
from django.utils import translation

from ratings.charts import HEIGHT, WIDTH, build_chart, render_chart

SVG = "{http://www.w3.org/2000/svg}"
START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def history(values: list[float], days: float = 1.0) -> list[tuple[datetime, float]]:
    return [(START + timedelta(days=i * days), v) for i, v in enumerate(values)]


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def test_no_points_no_chart():
    assert build_chart([]) is None
    assert render_chart([], chart_id="c", title="t") == ""


def test_one_point_per_match_with_a_title_giving_date_and_rating():
    svg = render_chart(history([1500.0, 1523.4, 1511.6]), chart_id="pdc", title="History")
    root = parse(svg)
    circles = root.findall(f".//{SVG}circle")
    assert len(circles) == 3
    titles = [c.find(f"{SVG}title").text for c in circles]
    assert [t.rsplit(" ", 1)[-1] for t in titles] == ["1500", "1523", "1512"]
    assert "2026" in titles[0]
    polyline = root.find(f".//{SVG}polyline")
    assert len(polyline.get("points").split()) == 3


def test_points_stay_inside_the_plot_and_higher_ratings_are_drawn_higher():
    chart = build_chart(history([1200.0, 1900.0, 1500.0], days=3))
    xs = [float(p.x) for p in chart.points]
    ys = [float(p.y) for p in chart.points]
    assert xs == sorted(xs) and xs[0] == float(chart.left) and xs[-1] == float(chart.right)
    assert all(float(chart.top) <= y <= float(chart.bottom) for y in ys)
    assert ys[1] < ys[2] < ys[0]


def test_the_axes_have_a_few_labelled_ticks_spanning_the_ratings():
    chart = build_chart(history([1432.0, 1610.0, 1555.0], days=10))
    levels = [tick.label for tick in chart.y_ticks]
    assert 2 <= len(levels) <= 6
    assert levels[0] <= 1432 and levels[-1] >= 1610
    assert len({b - a for a, b in pairwise(levels)}) == 1
    assert [tick.label for tick in chart.x_ticks] == [
        START,
        START + timedelta(days=10),
        START + timedelta(days=20),
    ]
    svg = render_chart(history([1432.0, 1610.0, 1555.0], days=10), chart_id="c", title="t")
    texts = [t.text for t in parse(svg).iter(f"{SVG}text")]
    assert {str(level) for level in levels} <= set(texts)


def test_a_single_match_sits_in_the_middle_on_a_readable_scale():
    chart = build_chart(history([1530.0]))
    assert float(chart.points[0].x) == pytest.approx((float(chart.left) + float(chart.right)) / 2)
    levels = [tick.label for tick in chart.y_ticks]
    assert levels[0] < 1530 < levels[-1]
    assert len(chart.x_ticks) == 1


def test_matches_stamped_alike_are_spread_evenly():
    same = [(START, 1500.0), (START, 1510.0), (START, 1490.0)]
    xs = [float(p.x) for p in build_chart(same).points]
    assert xs[0] < xs[1] < xs[2]
    assert xs[1] - xs[0] == pytest.approx(xs[2] - xs[1])


def test_coordinates_are_not_localised():
    with translation.override("fr"):
        svg = render_chart(history([1500.5, 1512.25]), chart_id="c", title="Historique")
    root = parse(svg)
    for circle in root.iter(f"{SVG}circle"):
        float(circle.get("cx"))
        float(circle.get("cy"))
    for pair in root.find(f".//{SVG}polyline").get("points").split():
        x, y = pair.split(",")
        float(x), float(y)


def test_it_is_accessible_static_svg():
    svg = render_chart(history([1500.0, 1520.0]), chart_id="history-pdc", title="Rating history")
    root = parse(svg)
    assert root.get("role") == "img"
    assert root.get("viewBox") == f"0 0 {WIDTH} {HEIGHT}"
    labelled = root.get("aria-labelledby").split()
    ids = {el.get("id") for el in root.iter() if el.get("id")}
    assert set(labelled) <= ids
    assert root.find(f"{SVG}title").text == "Rating history"
    assert "from 1500 to 1520" in root.find(f"{SVG}desc").text
    # Nothing runs: no script, no event handlers, no links.
    assert "<script" not in svg
    assert not re.search(r"\son\w+=", svg)
    assert "href" not in svg


def test_the_title_is_escaped():
    svg = render_chart(history([1500.0]), chart_id="c", title='<b onclick="x()">&</b>')
    assert "<b" not in svg
    assert parse(svg).find(f"{SVG}title").text == '<b onclick="x()">&</b>'
    assert "One rated match" in parse(svg).find(f"{SVG}desc").text


def test_a_chart_is_drawn_once_until_what_it_shows_its_title_or_language_change(monkeypatch):
    from ratings import charts

    drawn, loads = [], []
    draw = charts.render_chart

    def counted(points, *, chart_id, title, **words):
        drawn.append(chart_id)
        return draw(points, chart_id=chart_id, title=title, **words)

    monkeypatch.setattr(charts, "render_chart", counted)
    points = {"a": history([1500.0, 1520.0]), "b": history([1500.0])}

    def load():
        loads.append(1)
        return points

    first = charts.render_charts({"a": ((1, 2), "History"), "b": ((1, 1), "History")}, load)
    again = charts.render_charts({"a": ((1, 2), "History"), "b": ((1, 1), "History")}, load)
    assert again == first and drawn == ["a", "b"] and len(loads) == 1
    assert first["a"] == draw(points["a"], chart_id="a", title="History")
    charts.render_charts({"a": ((1, 3), "History")}, load)  # one more rated match
    with translation.override("fr"):
        charts.render_charts({"a": ((1, 2), "History")}, load)
    assert drawn == ["a", "b", "a", "a"] and len(loads) == 3
