"""The watchers' render switches the language once per language watching, not once per viewer
(``published.render_for_watchers``): viewers of one language are rendered one after another in
it, and each still gets exactly what a read of their own gives them."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.utils import translation

from games import published

from .factories import started_table
from .published_views import (  # noqa: F401 (no_reads_left: a fixture)
    alone,
    carried,
    no_reads_left,
    published_while_watching,
)


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
    try:
        message = published_while_watching(match, fields)
    finally:
        monkeypatch.setattr(published.translation, "override", real)
    assert sorted(switched) == ["en", "fr"]
    assert set(message["parts"]["own"]) == set(fields)
    for user, invite, language in viewers:
        assert carried(message, user, invite, language) == alone(match.pk, user, invite, language)
