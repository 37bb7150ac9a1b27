"""The watchers' render switches the language once per language watching, not once per viewer
(``published.render_for_watchers``): viewers of one language are rendered one after another in
it, and each still gets exactly what a read of their own gives them."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.utils import translation

from games import published, rendering

from .factories import started_table


def alone(match_id: int, user, invite: str | None, language: str) -> dict[str, str]:
    """What ``user`` gets from a read and a render of their own (the timer aside)."""
    with translation.override(language):
        parts = rendering.table_parts(rendering.load_table(match_id), user, invite)
    return {part: html for part, html in parts.items() if part != "timer"}


def carried(message: dict, user, invite: str | None, language: str) -> dict[str, str] | None:
    pk = user.pk if user.is_authenticated else None
    field = published.viewer_field(pk, invite, language)
    parts = published.parts_of(message, field, invite, language)
    return None if parts is None else {p: html for p, html in parts.items() if p != "timer"}


@pytest.fixture(autouse=True)
def no_reads_left():
    published._reads.clear()
    yield
    published._reads.clear()


@pytest.mark.django_db
def test_viewers_of_one_language_are_rendered_under_one_switch(monkeypatch):
    match, users = started_table(players=3)
    viewers = [(user, None, "en") for user in users] + [
        (users[0], None, "fr"),
        (AnonymousUser(), None, "fr"),
        (AnonymousUser(), match.invite_code, "en"),
    ]
    fields = [
        published.viewer_field(user.pk if user.is_authenticated else None, invite, language)
        for user, invite, language in viewers
    ]
    switched: list[str] = []
    real = translation.override

    def counted(language, *args, **kwargs):
        switched.append(language)
        return real(language, *args, **kwargs)

    monkeypatch.setattr(published.translation, "override", counted)
    for field in fields:
        published.start_watching(match.pk, field)
    try:
        message = {"parts": published.render_for_watchers(match)}
    finally:
        for field in fields:
            published.stop_watching(match.pk, field)
        monkeypatch.setattr(published.translation, "override", real)
    assert sorted(switched) == ["en", "fr"]
    assert set(message["parts"]["own"]) == set(fields)
    for user, invite, language in viewers:
        assert carried(message, user, invite, language) == alone(match.pk, user, invite, language)
