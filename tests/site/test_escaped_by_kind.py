"""The board writers' escape (``boards._e``) looks plain text and ints up by the value itself:
text marked safe, though equal to text already escaped, is still written as it is; ``True`` and
``1.0``, though equal to ``1`` for a dict, are written as ``str`` writes them; ints are kept
apart from the text of their digits only in what is kept, never in what is written."""

from __future__ import annotations

from html import escape

from django.utils.safestring import mark_safe

from games.templatetags import boards


def test_text_marked_safe_is_written_as_it_is_after_the_same_text_was_escaped(monkeypatch):
    monkeypatch.setattr(boards, "_ESCAPED", {})
    assert boards._e("<b>bold</b>") == "&lt;b&gt;bold&lt;/b&gt;"
    assert boards._e(mark_safe("<b>bold</b>")) == "<b>bold</b>"
    assert boards._e("<b>bold</b>") == "&lt;b&gt;bold&lt;/b&gt;"


def test_values_equal_to_an_int_are_written_as_their_own_kind(monkeypatch):
    monkeypatch.setattr(boards, "_ESCAPED", {})
    assert boards._e(1) == "1"
    assert boards._e(True) == "True"
    assert boards._e(1.0) == "1.0"
    assert boards._e(0) == "0"
    assert boards._e(False) == "False"
    assert boards._e(1) == "1"


def test_an_int_and_its_digits_are_written_alike_from_the_table(monkeypatch):
    monkeypatch.setattr(boards, "_ESCAPED", {})
    for value in [7, "7", -3, "-3", 10**20]:
        assert boards._e(value) == escape(str(value))
        assert boards._e(value) == escape(str(value))
