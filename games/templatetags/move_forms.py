"""Move forms (and a game's sentence in the status) written in Python: the form a seat plays
with is rendered for the seat to move at every version, where the template engine spent about
half a millisecond on Café Fatal's (a radio button per value of the roll, a button per table,
each with its translated sentence). Byte for byte what the template wrote
(``tests/site/test_render_corpus.py``), from the same presenter data
(``presenters.cafe_fatal.seat_context``), with the same messages."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, gettext_noop, ngettext

from .boards import _e, _t, _t_plural

register = template.Library()


def move_hidden(context: template.Context) -> str:
    """``partials/table.html#move_hidden``: the CSRF token (when the page has a request), the
    version the move answers and the invitation code."""
    table = context.get("table") or {}
    csrf = _csrf_input(context.get("csrf_token"))
    invite = table.get("invite")
    hidden_invite = f'<input type="hidden" name="invite" value="{_e(invite)}">' if invite else ""
    version = _e(table.get("version", ""))
    return f'{csrf}<input type="hidden" name="version" value="{version}">{hidden_invite}'


def _csrf_input(token: Any) -> str:
    """What ``{% csrf_token %}`` writes: nothing without a request (the sockets' renders)."""
    if not token or token == "NOTPROVIDED":
        return ""
    return format_html('<input type="hidden" name="csrfmiddlewaretoken" value="{}">', token)


def _values_attribute(values: list[int]) -> str:
    return _e(" ".join(str(value) for value in values))


# --- Café Fatal -----------------------------------------------------------------------------------
@register.filter
def cafe_targets(moves: dict[str, Any] | None) -> SafeString:
    """The buttons laid over the café's tables for the seat placing dice (empty otherwise)."""
    place = (moves or {}).get("place")
    if not place:
        return mark_safe("")
    buttons = []
    for t in place["targets"]:
        table = _e(t["table"])
        label = _t(gettext_noop("Put the chosen dice on table %(table)s"), table=t["table"])
        buttons.append(
            f'\n<button type="submit" form="move-form" name="table" value="{table}" '
            f'class="target table-target" style="left:{_e(t["left"])}%;top:{_e(t["top"])}%;'
            f'width:{_e(t["width"])}%;height:{_e(t["height"])}%" data-table="{table}" '
            f'data-values="{_values_attribute(t["values"])}" data-testid="table-{table}">\n'
            f'  <span class="sr-only">{label}</span>\n</button>\n'
        )
    return mark_safe("\n" + "".join(buttons) + "\n")


@register.simple_tag(takes_context=True)
def cafe_place_form(context: template.Context) -> SafeString:
    """The form of the seat placing dice: a value of its roll, then a table (empty otherwise)."""
    place = (context.get("moves") or {}).get("place")
    if not place:
        return mark_safe("")
    move_url = _e(context["table"]["move_url"])
    choices = "".join(_die_choice(v, place["first"]) for v in place["values"])
    buttons = "".join(
        f'<button type="submit" name="table" value="{_e(t["table"])}" '
        f'data-values="{_values_attribute(t["values"])}">{_table_label(t["table"])}</button>'
        for t in place["targets"]
    )
    legend = gettext("Your roll: choose a value")
    hint = gettext("Then click a highlighted table on the board, or choose it here:")
    return mark_safe(
        "\n"
        '<form id="move-form" class="move-form place-form" method="post" '
        f'action="{move_url}" hx-post="{move_url}" hx-swap="none" data-testid="place-form">\n'
        f'  {move_hidden(context)}<input type="hidden" name="action" value="place">\n'
        '  <fieldset class="roll">\n'
        f"    <legend>{legend}</legend>\n"
        f"    {choices}\n"
        "  </fieldset>\n"
        f'  <p class="hint">{hint}</p>\n'
        '  <div class="table-buttons">\n'
        f"    {buttons}\n"
        "  </div>\n"
        "</form>\n"
    )


def _table_label(table: int) -> str:
    # Not inside an f-string: makemessages does not find messages there.
    return _t(gettext_noop("Table %(table)s"), table=table)


def _die_choice(v: dict[str, Any], first: int | None) -> str:
    """One value of the roll: its radio button, how many dice show it and where they may go."""
    legal = v["legal"]
    count = _t_plural(
        lambda: ngettext(
            "%(counter)s die showing %(value)s", "%(counter)s dice showing %(value)s", v["count"]
        ),
        v["count"],
        value=v["value"],
    )
    if legal:
        tables = ", ".join(str(table) for table in v["tables"])
        hint = _t(gettext_noop("tables %(tables)s"), tables=tables)
    else:
        hint = gettext("cannot be placed")
    return (
        f'\n    <label class="die-choice{"" if legal else " unplaceable"}">\n'
        f'      <input type="radio" name="value" value="{_e(v["value"])}"'
        f"{' checked' if v['value'] == first else ''}{'' if legal else ' disabled'}>\n"
        f'      <span class="face" aria-hidden="true">{_e(v["face"])}</span>\n'
        f"      {count}\n"
        f'      <span class="hint">{hint}</span>\n'
        "    </label>\n    "
    )


@register.simple_tag(takes_context=True)
def cafe_status(context: template.Context) -> SafeString:
    """Café Fatal's sentence in the status banner (``cafe-fatal/table.html#status``): the round,
    then whose turn it is. Rendered for every seat at every version."""
    game = context["game"]
    round_number = _t(gettext_noop("Round %(number)s."), number=game["round_number"])
    turn = ""
    if context.get("your_turn"):
        your_turn = gettext(
            "Your turn: choose a value of your roll, then click a table to put those dice on it."
        )
        turn = f"\n  {your_turn}\n"
    elif game.get("turn_name"):
        if game["phase"] == "place":
            sentence = _t(gettext_noop("%(player)s is placing dice."), player=game["turn_name"])
        else:
            sentence = _t(gettext_noop("%(player)s rolls the dice."), player=game["turn_name"])
        turn = f"\n  {sentence}\n"
    return mark_safe(f"<strong>{round_number}</strong>\n{turn}")
