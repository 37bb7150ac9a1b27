"""The parts' plural sentences ("3 olives", "2 chillies") are read from what is kept per language
while a table's parts are written (``translations.ngettext``), as their other messages are: Django
is asked for each message and number once per language, what is read is Django's translation
exactly, and a translation that broke its placeholders still falls back to the English."""

from __future__ import annotations

from collections import Counter

import pytest
from django.utils import translation

from games import rendering, translations
from games.templatetags import boards

from .factories import started_table

pytestmark = pytest.mark.django_db

OLIVE = ("Eat %(slice)s (%(counter)s olive)", "Eat %(slice)s (%(counter)s olives)")


@pytest.fixture
def plurals_asked(monkeypatch) -> Counter:
    """Every plural message Django is asked for, with its number."""
    counted: Counter = Counter()
    real = translation._trans.ngettext

    def counting(singular: str, plural: str, number: int) -> str:
        counted[(singular, number)] += 1
        return real(singular, plural, number)

    monkeypatch.setattr(translation._trans, "ngettext", counting)
    monkeypatch.setattr(translations, "_kept", {})
    return counted


@pytest.mark.parametrize("language", ["en", "fr", "de", "it"])
def test_a_kept_plural_is_django_s_for_every_number(plurals_asked, language):
    with translation.override(language):
        expected = [translation.ngettext(*OLIVE, n) for n in range(6)]
        with translations.kept_translations():
            first = [translations.ngettext(*OLIVE, n) for n in range(6)]
            again = [translations.ngettext(*OLIVE, n) for n in range(6)]
    assert first == again == expected
    # Six asked to make ``expected``, then each number once more to be kept, and no more.
    assert all(plurals_asked[(OLIVE[0], n)] == 2 for n in range(6))


def test_outside_the_writing_a_plural_is_asked_of_django_every_time(plurals_asked):
    with translation.override("fr"):
        translations.ngettext(*OLIVE, 2)
        translations.ngettext(*OLIVE, 2)
    assert plurals_asked[(OLIVE[0], 2)] == 2


def test_a_number_that_is_not_an_int_is_asked_of_django_every_time(plurals_asked):
    with translation.override("fr"), translations.kept_translations():
        translations.ngettext(*OLIVE, True)
        translations.ngettext(*OLIVE, True)
        translations.ngettext(*OLIVE, 1)
        translations.ngettext(*OLIVE, 1)
    assert plurals_asked[(OLIVE[0], 1)] == 3


def test_a_broken_plural_translation_falls_back_to_english_while_writing(monkeypatch):
    monkeypatch.setattr(translations, "_kept", {})
    real = translation._trans.ngettext

    def broken_in_french(singular: str, plural: str, number: int) -> str:
        if translation.get_language() == "fr":
            return "%(nothing)s"
        return real(singular, plural, number)

    monkeypatch.setattr(translation._trans, "ngettext", broken_in_french)
    with translation.override("fr"), translations.kept_translations():
        written = boards._t_plural(lambda: translations.ngettext(*OLIVE, 3), 3, slice="B2")
    assert written == "Eat B2 (3 olives)"


def test_a_table_s_parts_ask_django_for_a_plural_once_per_language(plurals_asked):
    match, users = started_table()
    with translation.override("fr"):
        snapshot = rendering.load_table(match.pk)
        first = {user.pk: rendering.table_parts(snapshot, user) for user in users}
        asked_first = sum(plurals_asked.values())
        plurals_asked.clear()
        snapshot = rendering.load_table(match.pk)
        again = {user.pk: rendering.table_parts(snapshot, user) for user in users}
    assert again == first
    assert asked_first > 0
    assert sum(plurals_asked.values()) == 0
