"""The parts written in Python (games/templatetags/table_parts.py) that the render corpus does
not reach: the corpus's tables have no timer and no request error. Each expected text is what
the part's partial wrote before it was written in Python."""

import pytest
from django.utils import translation

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
