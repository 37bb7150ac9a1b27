"""Translations kept per language while a table's parts are written.

Django's ``gettext`` finds the active language in an ``asgiref`` ``Local`` (a lock, a context
variable and a failed attribute lookup: 1.5-3 µs a call, against 0.1 µs for a dict), then the
message in that language's catalog. The parts' writers (``games/templatetags``) and the
presenters ask for the same hundred literal messages at every version and for every viewer
(about a hundred calls a version, and as many asking for the language).
``rendering.table_parts`` builds a viewer's contexts and writes its parts inside
``kept_translations()``, which looks the language up once: their ``gettext`` then reads a dict
of the translations already found in that language, and ``language()`` that language. Outside it
(a page's templates, a test calling a writer) they are Django's ``gettext`` and
``get_language``.

The same text either way: a message's translation in a language never changes while the process
runs (Django keeps each language's catalog for good), except when a test changes the settings
that make the catalogs, which empties what is kept here too.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.core.signals import setting_changed
from django.utils import translation

#: The settings whose change makes Django build its catalogs again (``django.test.signals``).
CATALOG_SETTINGS = frozenset({"LANGUAGES", "LANGUAGE_CODE", "LOCALE_PATHS"})
#: Messages kept per language at most (the writers' are literals, about a hundred): a caller
#: that passed text of its own could not make this grow without bound.
KEPT_PER_LANGUAGE = 5_000

#: Language → {message: its translation}, and {(singular, plural, number): its translation}.
_kept: dict[str, dict[str, str]] = {}
#: The current thread's dict while it writes parts (the writers run synchronously in one thread:
#: nothing else can run in that thread between the ``with``'s start and end).
_writing = threading.local()


def gettext(message: str) -> str:
    """Django's ``gettext`` of ``message``, read from what is kept for the language while inside
    ``kept_translations()``."""
    kept = getattr(_writing, "kept", None)
    if kept is None or type(message) is not str:
        # Text marked safe translates to text marked safe, which a plain message equal to it
        # must not be given from what is kept.
        return translation.gettext(message)
    text = kept.get(message)
    if text is None:
        if len(kept) >= KEPT_PER_LANGUAGE:
            kept.clear()
        text = kept[message] = translation.gettext(message)
    return text


def ngettext(singular: str, plural: str, number: int) -> str:
    """Django's ``ngettext``, read from what is kept for the language while inside
    ``kept_translations()``: by its two messages and the number (which of the language's plural
    forms a number takes never changes either). The writers' counts are small (olives, chillies,
    portions), so few numbers are kept."""
    kept = getattr(_writing, "kept", None)
    if (
        kept is None
        or type(singular) is not str
        or type(plural) is not str
        or type(number) is not int
    ):
        return translation.ngettext(singular, plural, number)
    key = (singular, plural, number)
    text = kept.get(key)
    if text is None:
        if len(kept) >= KEPT_PER_LANGUAGE:
            kept.clear()
        text = kept[key] = translation.ngettext(singular, plural, number)
    return text


@contextmanager
def not_kept() -> Iterator[None]:
    """Inside it, ``gettext`` and ``ngettext`` are Django's again (for a translation asked in
    another language than the one kept, as ``translation.override`` does)."""
    previous = getattr(_writing, "kept", None)
    _writing.kept = None
    try:
        yield
    finally:
        _writing.kept = previous


def language() -> str | None:
    """Django's ``get_language()``, as looked up once by ``kept_translations()`` inside it."""
    kept = getattr(_writing, "kept", None)
    return translation.get_language() if kept is None else _writing.language


@contextmanager
def kept_translations() -> Iterator[None]:
    """Inside it, ``gettext`` reads the translations kept for the active language and
    ``language()`` that language (looked up once, here). The active language must not change
    inside it; it does not while a viewer's parts are written."""
    active = translation.get_language()
    previous = getattr(_writing, "kept", None), getattr(_writing, "language", None)
    _writing.kept = None if active is None else _kept.setdefault(active, {})
    _writing.language = active
    try:
        yield
    finally:
        _writing.kept, _writing.language = previous


def _catalogs_changed(setting: str, **_signal: Any) -> None:
    if setting in CATALOG_SETTINGS:
        _kept.clear()


setting_changed.connect(_catalogs_changed, dispatch_uid="games.translations.catalogs_changed")
