"""The site speaks English, French, German and Italian.

The catalogs live in ``locale/<lang>/LC_MESSAGES``; the .mo files are committed so the site runs
without GNU gettext. These tests catch an entry left untranslated or fuzzy after
``makemessages``, a forgotten ``compilemessages``, a translation that lost a placeholder, and an
engine sentence that was never marked for extraction.
"""

from __future__ import annotations

import ast
import gettext
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.utils import translation

from games.engines import IllegalMove, get_engine
from games.services import explain
from players.models import ApiToken

from .factories import started_table

LANGUAGES = ("fr", "de", "it")
LOCALE = Path(settings.LOCALE_PATHS[0])
ENGINES = Path(settings.BASE_DIR) / "games" / "engines"
PLURAL_FORMS = {
    "fr": "nplurals=2; plural=(n > 1);",
    "de": "nplurals=2; plural=(n != 1);",
    "it": "nplurals=2; plural=(n != 1);",
}


# --- a small .po reader ---------------------------------------------------------------------------
@dataclass
class Entry:
    msgid: str = ""
    msgid_plural: str | None = None
    msgctxt: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    line: int = 0

    @property
    def translations(self) -> list[str]:
        return [self.msgstr[i] for i in sorted(self.msgstr)]


_KEYWORD = re.compile(r'^(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?)\s+(".*")$')


def _unquote(text: str) -> str:
    """A quoted .po string: C escapes (\\n, \\", \\\\) read the same as Python's."""
    value = ast.literal_eval(text)
    assert isinstance(value, str)
    return value


def read_po(path: Path) -> tuple[dict[str, str], list[Entry]]:
    """The header fields and the live entries of a .po file (obsolete ``#~`` ones are skipped)."""
    entries: list[Entry] = []
    current = Entry()
    target: tuple[str, int] | None = None
    started = False

    def finish() -> None:
        nonlocal current, started, target
        if started:
            entries.append(current)
        current, started, target = Entry(), False, None

    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line:
            finish()
        elif line.startswith("#~"):
            continue
        elif line.startswith("#,"):
            current.flags |= {flag.strip() for flag in line[2:].split(",")}
        elif line.startswith("#"):
            continue
        elif match := _KEYWORD.match(line):
            keyword, index, text = match.groups()
            if not started:
                started, current.line = True, number
            if keyword.startswith("msgstr"):
                target = ("msgstr", int(index) if index is not None else 0)
                current.msgstr[target[1]] = _unquote(text)
            else:
                target = (keyword, 0)
                setattr(current, keyword, _unquote(text))
        elif line.startswith('"') and target is not None:
            if target[0] == "msgstr":
                current.msgstr[target[1]] += _unquote(line)
            else:
                setattr(current, target[0], getattr(current, target[0]) + _unquote(line))
        else:
            raise AssertionError(f"{path}:{number}: cannot read {raw!r}")
    finish()
    [header] = [entry for entry in entries if entry.msgid == "" and entry.msgctxt is None]
    fields = dict(line.split(": ", 1) for line in header.msgstr[0].splitlines() if ": " in line)
    return fields, [entry for entry in entries if entry is not header]


def po_path(language: str) -> Path:
    return LOCALE / language / "LC_MESSAGES" / "django.po"


def mo_path(language: str) -> Path:
    return LOCALE / language / "LC_MESSAGES" / "django.mo"


# --- the catalogs ---------------------------------------------------------------------------------
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_entry_is_translated_and_none_is_fuzzy(language):
    header, entries = read_po(po_path(language))
    assert header["Language"] == language
    assert header["Plural-Forms"] == PLURAL_FORMS[language]
    assert len(entries) > 100
    fuzzy = [entry.msgid for entry in entries if "fuzzy" in entry.flags]
    assert not fuzzy, f"fuzzy in {language}: {fuzzy}"
    untranslated = [
        entry.msgid
        for entry in entries
        if not entry.translations or not all(text.strip() for text in entry.translations)
    ]
    assert not untranslated, f"untranslated in {language}: {untranslated}"
    plural_counts = {len(entry.msgstr) for entry in entries if entry.msgid_plural is not None}
    assert plural_counts <= {2}


def _placeholders(text: str) -> set[str]:
    return set(re.findall(r"%\(\w+\)[sdr]|\{\w*(?:![rsa])?\}", text))


@pytest.mark.parametrize("language", LANGUAGES)
def test_translations_keep_their_placeholders_and_links(language):
    _, entries = read_po(po_path(language))
    for entry in entries:
        sources = [entry.msgid] if entry.msgid_plural is None else [entry.msgid, entry.msgid_plural]
        wanted = set().union(*map(_placeholders, sources))
        for index, text in enumerate(entry.translations):
            found = _placeholders(text)
            assert found <= wanted, (language, entry.msgid, text)
            # The last form (or the only one) names every placeholder; a singular may say "one".
            if index == len(entry.translations) - 1:
                assert found == wanted, (language, entry.msgid, text)
            assert text.count("<a ") == entry.msgid.count("<a "), (language, entry.msgid)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_compiled_catalog_matches_the_po_file(language):
    """A .po edited without ``compilemessages`` leaves a stale .mo: the site would not show it."""
    _, entries = read_po(po_path(language))
    with mo_path(language).open("rb") as handle:
        catalog = gettext.GNUTranslations(handle)
    stale = []
    for entry in entries:
        if entry.msgid_plural is None:
            if entry.msgctxt is None:
                got = catalog.gettext(entry.msgid)
            else:
                got = catalog.pgettext(entry.msgctxt, entry.msgid)
            if got != entry.msgstr[0]:
                stale.append(entry.msgid)
            continue
        for n in (0, 1, 2, 5):
            if entry.msgctxt is None:
                got = catalog.ngettext(entry.msgid, entry.msgid_plural, n)
            else:
                got = catalog.npgettext(entry.msgctxt, entry.msgid, entry.msgid_plural, n)
            if got != entry.msgstr[catalog.plural(n)]:
                stale.append(f"{entry.msgid} (n={n})")
    assert not stale, f"run compilemessages: {language} .mo differs for {stale}"


def _marked_engine_sentences() -> set[str]:
    sentences = set()
    for path in sorted(ENGINES.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            if node.func.id == "gettext_noop":
                [argument] = node.args
                assert isinstance(argument, ast.Constant), f"{path.name}:{node.lineno}"
                sentences.add(argument.value)
            elif node.func.id == "IllegalMove":
                # The template is marked where it is written, or chosen from marked ones.
                [template] = node.args
                marked = isinstance(template, ast.Call) and getattr(template.func, "id", "") == (
                    "gettext_noop"
                )
                assert marked or isinstance(template, ast.Name), f"{path.name}:{node.lineno}"
    return sentences


def test_every_engine_refusal_is_marked_and_in_the_catalogs():
    sentences = _marked_engine_sentences()
    assert "Slice {slice} is not in portion {portion}." in sentences
    for language in LANGUAGES:
        _, entries = read_po(po_path(language))
        missing = sentences - {entry.msgid for entry in entries}
        assert not missing, f"run makemessages: {language} lacks {sorted(missing)}"


# --- what a player sees ---------------------------------------------------------------------------
NAVIGATION = {
    "fr": ("Jouer", "Classements", "Tables ouvertes"),
    "de": ("Spielen", "Ranglisten", "Offene Tische"),
    "it": ("Gioca", "Classifiche", "Tavoli aperti"),
}


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_lobby_speaks_the_language_of_the_cookie(language):
    client = Client()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    page = client.get("/play/").content.decode()
    assert f'<html lang="{language}">' in page
    for word in NAVIGATION[language]:
        assert word in page, (language, word)
    assert "Open tables" not in page


@pytest.mark.django_db
def test_the_lobby_stays_english_by_default():
    page = Client().get("/play/").content.decode()
    assert '<html lang="en">' in page and "Open tables" in page


def _refused_cut(cut: list[int], **headers: str) -> tuple[int, str, str]:
    """A cut through the JSON API on a started two-player table: (status, error, English)."""
    match, users = started_table(players=2)
    engine = get_engine(match.game)
    chef = engine.to_move(match.state)[0]
    move = {"cut": cut}
    with pytest.raises(IllegalMove) as refusal:
        engine.check(match.state, chef, move)
    _, raw = ApiToken.issue(users[chef], "test")
    response = Client().post(
        f"/api/tables/{match.pk}/moves",
        json.dumps({"version": match.version, "move": move}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {raw}",
        **headers,
    )
    return response.status_code, response.json()["error"], str(refusal.value)


REFUSALS = {
    "fr": (
        "Chaque position de départ ne peut être indiquée qu'une fois.",
        "Coupez la pizza en 2 portions : indiquez 2 positions de départ.",
    ),
    "de": (
        "Jede Startposition darf nur einmal genannt werden.",
        "Schneide die Pizza in 2 Portionen: Nenne 2 Startpositionen.",
    ),
    "it": (
        "Ogni posizione di inizio può essere indicata una sola volta.",
        "Taglia la pizza in 2 porzioni: indica 2 posizioni di inizio.",
    ),
}


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_an_engine_refusal_comes_back_in_the_accept_language(language):
    repeated, with_numbers = REFUSALS[language]
    status, message, english = _refused_cut([0, 0], HTTP_ACCEPT_LANGUAGE=language)
    assert (status, message) == (400, repeated)
    assert english == "Each start position may be named only once."
    status, message, english = _refused_cut([0], HTTP_ACCEPT_LANGUAGE=language)
    assert (status, message) == (400, with_numbers)
    assert english == "Cut the pizza into 2 portions: name 2 start positions."


@pytest.mark.django_db
def test_an_engine_refusal_follows_the_language_cookie_too():
    match, users = started_table(players=2)
    chef = get_engine(match.game).to_move(match.state)[0]
    _, raw = ApiToken.issue(users[chef], "test")
    client = Client()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    response = client.post(
        f"/api/tables/{match.pk}/moves",
        json.dumps({"version": match.version, "move": {"cut": [0, 0]}}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {raw}",
    )
    assert response.json() == {
        "error": "Chaque position de départ ne peut être indiquée qu'une fois."
    }


def test_explain_translates_the_template_and_fills_it_while_str_stays_english():
    error = IllegalMove("Slice {slice} is not in portion {portion}.", slice=14, portion=2)
    assert str(error) == error.args[0] == "Slice 14 is not in portion 2."
    assert error.template == "Slice {slice} is not in portion {portion}."
    assert error.params == {"slice": 14, "portion": 2}
    with translation.override("de"):
        assert explain(error) == "Stück 14 ist nicht in Portion 2."
    with translation.override("it"):
        assert explain(error) == "La fetta 14 non è nella porzione 2."
    with translation.override("en"):
        assert explain(error) == "Slice 14 is not in portion 2."
    # A template without parameters may hold literal braces (a JSON example).
    plain = IllegalMove('A move must be an object such as {"cut": [...]}.')
    with translation.override("fr"):
        assert explain(plain) == 'Un coup doit être un objet tel que {"cut": [...]}.'
    # A sentence nobody translated comes back in English.
    unknown = IllegalMove("No catalog knows {this}.", this="that")
    with translation.override("fr"):
        assert explain(unknown) == "No catalog knows that."
