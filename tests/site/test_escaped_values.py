"""The board writers escape each value as Django's autoescape does, through a table of values
already escaped (issue 10: the same few hundred values at every version): what the table gives
is what ``html.escape`` gives, a value marked safe is written as it is, and the table is emptied
when it is full rather than grow."""

from __future__ import annotations

from html import escape

from django.utils.safestring import mark_safe

from games.templatetags import boards


def test_a_value_is_escaped_the_same_the_first_time_and_from_the_table():
    for value in ["<b>\"Tom\" & 'Jerry'</b>", "12.5", 7, -3, "", "Olive > anchovy"]:
        first = boards._e(value)
        assert first == escape(str(value))
        assert boards._e(value) == first


def test_a_value_marked_safe_is_written_as_it_is():
    assert boards._e(mark_safe("<b>bold</b>")) == "<b>bold</b>"
    assert "<b>bold</b>" not in boards._ESCAPED


def test_the_table_is_emptied_when_full(monkeypatch):
    monkeypatch.setattr(boards, "_ESCAPED", {})
    monkeypatch.setattr(boards, "ESCAPED_KEPT", 3)
    for value in ["a", "b", "c"]:
        boards._e(value)
    assert len(boards._ESCAPED) == 3
    assert boards._e("<d>") == "&lt;d&gt;"
    assert boards._ESCAPED == {"<d>": "&lt;d&gt;"}
