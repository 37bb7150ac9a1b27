"""The parts written in Python (games/templatetags/table_parts.py) that the render corpus does
not reach: the corpus's tables have no timer, clock, rating or request error. Each expected text is what
the part's partial wrote before it was written in Python."""

from datetime import UTC, datetime

import pytest
from django.utils import translation

from games.clocks import Clock
from games.templatetags.table_lists import _seat_clock, _seat_elo
from games.templatetags.table_parts import write_page_error, write_timer

TIMER = {
    "who": "a<b, c",
    "deadline": "2026-12-04T15:00:00+00:00",
    "seconds_left": 75,
    "clock": "1:15",
}


def test_the_timer_says_whose_turn_and_how_long_escaping_the_names() -> None:
    with translation.override("en"):
        html = write_timer({"timer": TIMER, "oob": True})
    assert html == (
        '\n<div id="table-timer" class="table-timer" hx-swap-oob="true">\n  \n'
        "  <p>Time left for a&lt;b, c:\n"
        '    <time class="countdown" datetime="2026-12-04T15:00:00+00:00" '
        'data-seconds-left="75">1:15</time>\n'
        '    <span class="hint">When the time is up, a bot plays the move.</span></p>\n  \n'
        "</div>\n"
    )


@pytest.mark.parametrize("language", ["fr", "de", "it"])
def test_the_timer_is_translated(language: str) -> None:
    with translation.override(language):
        html = write_timer({"timer": TIMER})
        assert translation.gettext("When the time is up, a bot plays the move.") in html
    assert "Time left for" not in html
    assert "hx-swap-oob" not in html


def test_an_empty_timer_keeps_its_place() -> None:
    html = write_timer({"timer": None, "oob": True})
    assert html == '\n<div id="table-timer" class="table-timer" hx-swap-oob="true">\n  \n</div>\n'


def test_the_error_area_escapes_the_error() -> None:
    assert write_page_error({"error": "<b>no</b>", "oob": True}) == (
        '<div id="page-error" class="page-error" role="alert" aria-live="assertive" '
        'hx-swap-oob="true"><p class="message error">&lt;b&gt;no&lt;/b&gt;</p></div>'
    )
    assert write_page_error({}) == (
        '<div id="page-error" class="page-error" role="alert" aria-live="assertive"></div>'
    )


def test_a_seat_clock_running_and_at_rest() -> None:
    running = Clock(
        seat=1, running=True, seconds_left=4000, deadline=datetime(2026, 12, 4, 15, 0, tzinfo=UTC)
    )
    at_rest = Clock(seat=0, running=False, seconds_left=120, deadline=None)
    with translation.override("en"):
        assert _seat_clock(running) == (
            '\n<time class="seat-clock countdown running" data-testid="clock" '
            'datetime="2026-12-04T15:00:00+00:00" data-seconds-left="4000" '
            'aria-label="Time left on this turn">1:06:40</time>\n'
        )
        assert _seat_clock(at_rest) == (
            '\n<span class="seat-clock at-rest" data-testid="clock" '
            'title="Time for each turn">2:00</span>\n'
        )


def test_a_seat_rating_is_not_localized() -> None:
    with translation.override("de"):
        html = _seat_elo({"elo": 1512})
        title = translation.gettext("Elo rating")
    assert html == f'\n<span class="seat-elo" data-testid="elo" title="{title}">1512</span>\n'
