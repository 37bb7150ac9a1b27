"""The parts' writers read their translations from what is kept per language while a table's
parts are written (``games/translations.py``): Django is asked for each of their messages once
per language, not at every version and viewer, and what they read is exactly Django's
translation, in every language, as the render corpus (``test_render_corpus.py``) checks byte for
byte."""

from __future__ import annotations

from collections import Counter

import pytest
from django.conf import settings
from django.test import override_settings
from django.utils import translation
from django.utils.safestring import SafeData, mark_safe

from games import rendering, translations
from games.templatetags import game_panels

from .factories import started_table

pytestmark = pytest.mark.django_db

MESSAGES = [
    "free",
    "chef",
    "La Marianne",
    "nothing yet",
    "When the time is up, a bot plays the move.",
]


@pytest.fixture
def languages_asked(monkeypatch) -> list[str]:
    """Every time Django is asked for the active language."""
    asked: list[str] = []
    real = translation._trans.get_language

    def counting() -> str:
        asked.append(real())
        return asked[-1]

    monkeypatch.setattr(translation._trans, "get_language", counting)
    return asked


@pytest.fixture
def asked(monkeypatch) -> Counter:
    """Every message Django's translation machinery is asked for, counted (under every
    ``gettext``, whoever imported it)."""
    counted: Counter = Counter()
    real = translation._trans.gettext

    def counting(message: str) -> str:
        counted[message] += 1
        return real(message)

    monkeypatch.setattr(translation._trans, "gettext", counting)
    monkeypatch.setattr(translations, "_kept", {})
    # The panels' headings, written once per language and process: an earlier test that wrote
    # them in one language would keep their messages from being asked (and kept) in it here.
    monkeypatch.setattr(game_panels, "_WRITTEN", {})
    return counted


def _parts(match, users, language: str) -> dict[str, str]:
    with translation.override(language):
        snapshot = rendering.load_table(match.pk)
        return {user.pk: rendering.table_parts(snapshot, user) for user in users}


def test_the_writers_ask_django_for_each_message_once_per_language(asked, languages_asked):
    match, users = started_table()
    first = _parts(match, users, "fr")
    writers_messages = {m for m in asked if m in translations._kept.get("fr", {})}
    assert len(writers_messages) >= 10
    asked.clear()
    languages_asked.clear()
    again = _parts(match, users, "fr")
    assert again == first
    # The language once per viewer's parts (and by what Django itself formats), not at each
    # slice described and each part written.
    assert len(languages_asked) <= 3 * len(users)
    # A second read of the table, three viewers: none of the writers' messages asked again.
    assert not writers_messages & set(asked)
    # Another language keeps its own.
    _parts(match, users, "de")
    assert set(translations._kept["de"]) == set(translations._kept["fr"])
    assert translations._kept["de"] != translations._kept["fr"]


@pytest.mark.parametrize("language", [code for code, _name in settings.LANGUAGES])
def test_a_kept_translation_is_djangos(language, monkeypatch):
    monkeypatch.setattr(translations, "_kept", {})
    with translation.override(language):
        expected = [translation.gettext(m) for m in MESSAGES]
        with translations.kept_translations():
            assert [translations.gettext(m) for m in MESSAGES] == expected
            # From what is kept the second time.
            assert [translations.gettext(m) for m in MESSAGES] == expected
        assert translations._kept[language] == dict(zip(MESSAGES, expected, strict=True))


def test_outside_a_render_it_is_djangos_gettext_and_keeps_nothing(monkeypatch):
    monkeypatch.setattr(translations, "_kept", {})
    with translation.override("it"):
        assert translations.gettext("free") == translation.gettext("free")
    assert translations._kept == {}


def test_each_render_reads_its_own_language_and_gives_it_back():
    with translation.override("fr"), translations.kept_translations():
        french = translations.gettext("free")
        with translation.override("de"), translations.kept_translations():
            assert translations.gettext("free") == translation.gettext("free") != french
        assert translations.gettext("free") == french
    assert getattr(translations._writing, "kept", None) is None


def test_no_language_is_djangos_gettext():
    with translation.override(None), translations.kept_translations():
        assert translations.gettext("free") == "free"


def test_what_is_kept_is_emptied_when_the_catalogs_change(monkeypatch):
    monkeypatch.setattr(translations, "_kept", {"fr": {"free": "libre"}})
    with override_settings(LOCALE_PATHS=settings.LOCALE_PATHS):
        assert translations._kept == {}


def test_a_language_keeps_so_many_messages_at_most(monkeypatch):
    monkeypatch.setattr(translations, "_kept", {})
    monkeypatch.setattr(translations, "KEPT_PER_LANGUAGE", 2)
    with translation.override("en"), translations.kept_translations():
        for message in ["a", "b", "c"]:
            assert translations.gettext(message) == message
    assert translations._kept["en"] == {"c": "c"}


def test_the_language_is_looked_up_once_for_a_render(languages_asked):
    with translation.override("it"):
        languages_asked.clear()
        with translations.kept_translations():
            assert [translations.language() for _ in range(5)] == ["it"] * 5
        assert len(languages_asked) == 1
        assert translations.language() == "it"
        assert len(languages_asked) == 2


def test_text_marked_safe_stays_apart_from_plain_text():
    with translation.override("en"), translations.kept_translations():
        assert isinstance(translations.gettext(mark_safe("free")), SafeData)
        assert not isinstance(translations.gettext("free"), SafeData)
        assert isinstance(translations.gettext(mark_safe("free")), SafeData)
