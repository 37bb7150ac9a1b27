"""What the template's ``date`` filter prints of a datetime, for many datetimes at once.

Django's ``DateFormat`` checks every datetime for a DST gap or overlap when it is made (for the
few format characters that print the time zone), looks each format character's method up by
name and translates "a.m.", "p.m." and the month's name again for every datetime: a profile
drawn afresh formats some forty dates, and that was 0.6-0.7 ms of it (issue 10). Here a format
is split once per language into small functions of the local datetime, with its words
translated once; the characters that print the time zone (``e I O r T U Z``) still ask
``DateFormat``, so that they print exactly what it does. A test compares both over thousands of
datetimes, four languages and time zones with DST changes (``tests/site/test_dates.py``)."""

from __future__ import annotations

import calendar
from collections.abc import Callable
from datetime import datetime
from functools import lru_cache
from html import escape as html_escape
from operator import attrgetter

from django.utils import dates, timezone
from django.utils.dateformat import DateFormat, re_escaped, re_formatchars
from django.utils.formats import get_format
from django.utils.translation import get_language, gettext

#: A piece of a format: the text it prints of a local datetime.
Piece = Callable[[datetime], str]

#: Format characters that print a number of the local datetime, as ``DateFormat`` prints them:
#: the %-conversion and the attribute.
NUMBERS = {
    "d": ("%02d", "day"),
    "j": ("%d", "day"),
    "m": ("%02d", "month"),
    "n": ("%d", "month"),
    "Y": ("%04d", "year"),
    "G": ("%d", "hour"),
    "H": ("%02d", "hour"),
    "i": ("%02d", "minute"),
    "s": ("%02d", "second"),
    "u": ("%06d", "microsecond"),
}


def date_formatter(format_name: str, *, escaped: bool = False) -> Callable[[datetime], str]:
    """What ``{{ when|date:format_name }}`` prints, as a function of ``when``: in the active
    time zone (aware datetimes; naive ones as they are, as the template leaves them) and the
    active language's format ``format_name`` (or a format string itself, as the filter takes
    it). Build it once for many datetimes: the zone and format are read when it is built.
    ``escaped``: the text HTML-escaped, as the template prints it; its words and literal text
    are escaped once here, the digits need none."""
    template, values = _compiled(str(get_format(format_name)), get_language(), escaped)
    zone = timezone.get_current_timezone()

    def format_date(when: datetime) -> str:
        if when.utcoffset() is not None:
            when = when.astimezone(zone)
        return template % values(when)

    return format_date


@lru_cache(maxsize=128)
def _compiled(
    format_string: str, language: str | None, escaped: bool
) -> tuple[str, Callable[[datetime], tuple]]:
    """``format_string`` as ``DateFormat.format`` reads it, as one %-template and the function
    giving its values: literal text (backslash escapes resolved) goes into the template, each
    format character is a conversion of the template (numbers, as read by one ``attrgetter``
    when the format holds nothing else) and a value. Kept per language: the words are
    translated here, in the language active now, which ``language`` names."""
    text = html_escape if escaped else str
    characters = _characters(text)
    template: list[str] = []
    numbers: list[str] = []
    pieces: list[Piece] = []
    for i, piece in enumerate(re_formatchars.split(format_string)):
        if not i % 2:
            template.append(text(re_escaped.sub(r"\1", piece)).replace("%", "%%"))
        elif piece in NUMBERS:
            conversion, attribute = NUMBERS[piece]
            template.append(conversion)
            numbers.append(attribute)
            pieces.append(attrgetter(attribute))
        else:
            template.append("%s")
            pieces.append(characters.get(piece) or _asked_of_django(piece, text))
    return "".join(template), _values(pieces, numbers)


def _values(pieces: list[Piece], numbers: list[str]) -> Callable[[datetime], tuple]:
    if len(numbers) > 1 and len(numbers) == len(pieces):
        return attrgetter(*numbers)  # one call for them all, giving a tuple
    return lambda when: tuple([piece(when) for piece in pieces])


def _asked_of_django(character: str, text: Callable[[str], str]) -> Piece:
    """A character that prints the time zone: ``DateFormat``'s own answer, which depends on
    whether the datetime falls in a DST gap or overlap."""
    return lambda when: text(str(getattr(DateFormat(when), character)()))


def _characters(text: Callable[[str], str]) -> dict[str, Piece]:
    """Every other format character that prints only the local wall clock and words, as
    ``DateFormat`` prints it, with the words translated in the active language and passed
    through ``text`` (``str``, or ``html.escape``: digits need no escaping)."""
    am, pm = text(gettext("a.m.")), text(gettext("p.m."))
    big_am, big_pm = text(gettext("AM")), text(gettext("PM"))
    midnight, noon = text(gettext("midnight")), text(gettext("noon"))
    months = _words(dates.MONTHS, text)
    months_3 = _words(dates.MONTHS_3, text)
    months_alt = _words(dates.MONTHS_ALT, text)
    months_ap = _words(dates.MONTHS_AP, text)
    weekdays = _words(dates.WEEKDAYS, text)
    weekdays_abbr = _words(dates.WEEKDAYS_ABBR, text)
    # Django titles the three letters before the template escapes them: "M" escapes its own.
    months_3_titled = {number: text(str(word).title()) for number, word in dates.MONTHS_3.items()}

    def twelve_hours(when: datetime) -> str:  # f
        hour, minute = when.hour % 12 or 12, when.minute
        return f"{hour}:{minute:02d}" if minute else str(hour)

    def hours_minutes_meridiem(when: datetime) -> str:  # P
        if when.minute == 0 and when.hour in (0, 12):
            return midnight if when.hour == 0 else noon
        return f"{twelve_hours(when)} {pm if when.hour > 11 else am}"

    return {
        "a": lambda when: pm if when.hour > 11 else am,
        "A": lambda when: big_pm if when.hour > 11 else big_am,
        "b": lambda when: months_3[when.month],
        "c": lambda when: when.isoformat(),
        "D": lambda when: weekdays_abbr[when.weekday()],
        "E": lambda when: months_alt[when.month],
        "f": twelve_hours,
        "F": lambda when: months[when.month],
        "g": lambda when: str(when.hour % 12 or 12),
        "h": lambda when: f"{(when.hour % 12 or 12):02d}",
        "l": lambda when: weekdays[when.weekday()],
        "L": lambda when: str(calendar.isleap(when.year)),
        "M": lambda when: months_3_titled[when.month],
        "N": lambda when: months_ap[when.month],
        "o": lambda when: str(when.isocalendar().year),
        "P": hours_minutes_meridiem,
        "S": _ordinal_suffix,
        "t": lambda when: str(calendar.monthrange(when.year, when.month)[1]),
        "w": lambda when: str((when.weekday() + 1) % 7),
        "W": lambda when: str(when.isocalendar().week),
        "y": lambda when: f"{(when.year % 100):02d}",
        "z": lambda when: str(when.timetuple().tm_yday),
    }


def _words(lazy: dict[int, object], text: Callable[[str], str]) -> dict[int, str]:
    """Django's table of month or weekday names, translated now."""
    return {number: text(str(word)) for number, word in lazy.items()}


def _ordinal_suffix(when: datetime) -> str:  # S, English only, as in Django
    if when.day in (11, 12, 13):
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(when.day % 10, "th")
