"""``pdc_site.dates.date_formatter`` prints what the template's ``date`` filter prints."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.template import Context, Template
from django.utils import timezone, translation
from django.utils.html import escape

from pdc_site.dates import date_formatter

LANGUAGES = ("en", "fr", "de", "it")
#: DST changes forward and back (Paris, New York, Santiago in the south, Lord Howe by half an
#: hour), none (UTC, Kolkata at +05:30).
ZONES = (
    "UTC",
    "Europe/Paris",
    "America/New_York",
    "America/Santiago",
    "Australia/Lord_Howe",
    "Asia/Kolkata",
)
#: The formats the site prints, and one with every format character Django knows (backslashes
#: escape a character, as in Django), and one with text to escape.
FORMATS = (
    "DATE_FORMAT",
    "SHORT_DATE_FORMAT",
    "SHORT_DATETIME_FORMAT",
    "DATETIME_FORMAT",
    "aAbcdDeEfFgGhHiIjlLmMnNoOPrsStTuUwWyYzZ",
    r"\Y\e\s: jS \o\f F, P <&> 'M' \"N\"",
)


def datetimes(seed: int, count: int) -> list[datetime]:
    """Random datetimes over forty years, with the hours around every DST change of 2025 in
    the zones above, midnight and noon (which ``P`` names) and whole hours (which ``f`` prints
    without minutes)."""
    rng = random.Random(seed)
    start = datetime(1995, 1, 1, tzinfo=UTC)
    found = [start + timedelta(seconds=rng.randrange(40 * 366 * 86_400)) for _ in range(count)]
    found += [
        datetime(2026, rng.randrange(1, 13), rng.randrange(1, 29), hour, minute, tzinfo=UTC)
        for hour in range(24)
        for minute in (0, 30)
    ]
    for name in ZONES:
        zone = ZoneInfo(name)
        instant = datetime(2025, 1, 1, tzinfo=UTC)
        while instant.year == 2025:
            after = instant + timedelta(hours=1)
            if instant.astimezone(zone).utcoffset() != after.astimezone(zone).utcoffset():
                found += [after + timedelta(minutes=m) for m in range(-90, 91, 15)]
            instant = after
    return found


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_formatter_prints_what_the_date_filter_prints(language):
    whens = datetimes(seed=LANGUAGES.index(language), count=400)
    # Naive datetimes are printed as they are, by the template and by the formatter.
    whens += [when.replace(tzinfo=None) for when in whens[:50]]
    compared = 0
    with translation.override(language):
        for zone in ZONES:
            with timezone.override(ZoneInfo(zone)):
                for format_name in FORMATS:
                    template = Template("{% for when in whens %}{{ when|date:f }}\n{% endfor %}")
                    drawn = template.render(Context({"whens": whens, "f": format_name}))
                    formatter = date_formatter(format_name)
                    mine = "".join(f"{escape(formatter(when))}\n" for when in whens)
                    assert mine.splitlines() == drawn.splitlines(), (language, zone, format_name)
                    escaped = date_formatter(format_name, escaped=True)
                    mine = "".join(f"{escaped(when)}\n" for when in whens)
                    assert mine.splitlines() == drawn.splitlines(), (language, zone, format_name)
                    compared += len(whens)
    assert compared > 20_000


def test_the_words_are_those_of_the_language_active_when_it_is_built():
    noon_in_july = datetime(2026, 7, 14, 12, 0, tzinfo=UTC)
    with timezone.override(ZoneInfo("UTC")):
        with translation.override("fr"):
            french = date_formatter("F P")
        with translation.override("de"):
            german = date_formatter("F P")
        assert french(noon_in_july) == "juillet midi"
        assert german(noon_in_july) == "Juli Mittag"
