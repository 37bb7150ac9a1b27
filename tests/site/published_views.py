"""What a viewer gets from the published render and from a read of their own, for the tests
that compare the two (``games/published.py``)."""

from __future__ import annotations

import pytest
from django.utils import translation

from games import published, rendering


@pytest.fixture(autouse=True)
def no_reads_left():
    """Table ids come back in every test's database: no read of an earlier test's table."""
    published._reads.clear()
    yield
    published._reads.clear()


def alone(match_id: int, user, invite: str | None, language: str) -> dict[str, str]:
    """What ``user`` gets from a read and a render of their own, without the timer (it counts
    the seconds left at the moment of the render)."""
    with translation.override(language):
        parts = rendering.table_parts(rendering.load_table(match_id), user, invite)
    return {part: html for part, html in parts.items() if part != "timer"}


def carried(message: dict, user, invite: str | None, language: str) -> dict[str, str] | None:
    """What the published message carries for ``user``, without the timer (None: nothing)."""
    pk = user.pk if user.is_authenticated else None
    field = published.viewer_field(pk, invite, language)
    parts = published.parts_of(message, field, invite, language)
    return None if parts is None else {p: html for p, html in parts.items() if p != "timer"}


def published_while_watching(match, fields: list[str]) -> dict:
    """The doorbell's message of ``match``'s published render while the viewers of ``fields``
    watch it (each stops watching afterwards, whatever happens)."""
    for field in fields:
        published.start_watching(match.pk, field)
    try:
        return {"parts": published.render_for_watchers(match)}
    finally:
        for field in fields:
            published.stop_watching(match.pk, field)
