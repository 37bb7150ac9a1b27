"""The result part is written in Python while a match has no result (every version but the
last), byte for byte what its partial (``partials/table.html#result``) writes; a finished match's
result is still its partial's. A running table's parts render no template at all."""

from __future__ import annotations

import pytest
from django.template import Context
from django.template.loader import render_to_string
from django.utils import translation

from games import rendering
from games.templatetags import table_parts

from .factories import play_to_the_end, started_table

RESULT = "games/partials/table.html#result"


@pytest.mark.parametrize("oob", [True, False])
def test_no_result_is_written_as_its_partial_writes_it(oob: bool) -> None:
    for context in ({"oob": oob}, {"oob": oob, "result": None}, {"oob": oob, "result": {}}):
        assert table_parts.write_result(context) == render_to_string(RESULT, context)


def test_a_template_context_without_a_result_is_written_too() -> None:
    context = Context({"oob": True})
    assert table_parts.write_result(context) == render_to_string(RESULT, {"oob": True})


@pytest.mark.django_db
def test_a_running_table_s_parts_render_no_template(monkeypatch) -> None:
    match, users = started_table()

    def no_template(*args, **kwargs):
        raise AssertionError(f"a template was rendered: {args[:1]}")

    monkeypatch.setattr(rendering, "render_to_string", no_template)
    monkeypatch.setattr(table_parts, "render_to_string", no_template)
    snapshot = rendering.load_table(match.pk)
    for user in [*users, None]:
        parts = rendering.table_parts(snapshot, user)
        assert parts["result"] == (
            '\n<section id="table-result" class="table-result" hx-swap-oob="true">\n'
            "  \n</section>\n"
        )


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_finished_match_s_result_is_its_partial_s(language: str) -> None:
    match, users = started_table()
    match = play_to_the_end(match, users)
    with translation.override(language):
        snapshot = rendering.load_table(match.pk)
        parts = rendering.table_parts(snapshot, users[0])
        context = rendering.table_context(match, None, snapshot=snapshot)
        expected = render_to_string(RESULT, {**context, "oob": True})
    assert context["result"]
    assert parts["result"] == expected
    assert 'id="result-title"' in parts["result"]
