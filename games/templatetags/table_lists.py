"""The seats' list of the table (``partials/table.html#seats``) and the move log's lines,
written in Python: the seats are rendered for every viewer of every version (each sees their own
"you"), where the template engine spent about a tenth of a millisecond, and the log grows with
the match. Byte for byte what the template wrote (``tests/site/test_render_corpus.py``); a
seat's rating and clock still come from their partials in ``partials/table_extras.html``."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, gettext_noop

from .boards import _e, _t

register = template.Library()


def _badge(text: str) -> str:
    return f'<span class="badge">{text}</span>'


@register.simple_tag(takes_context=True)
def seat_items(context: template.Context) -> SafeString:
    """The ``<li>`` of every seat in ``seats``, marking ``to_move``."""
    to_move = context.get("to_move") or ()
    out = []
    for seat in context.get("seats") or ():
        index = seat["index"]
        moving = index in to_move
        classes = ("you" if seat["is_you"] else "") + (" to-move" if moving else "")
        if seat["empty"]:
            free = gettext("free seat")
            name = f'<span class="empty">{free}</span>'
        elif seat["bot_url"]:
            name = f'<a href="{_e(seat["bot_url"])}">{_e(seat["name"])}</a>'
        else:
            name = _e(seat["name"])
        you = _badge(gettext("you")) if seat["is_you"] else ""
        abandoned = _badge(gettext("abandoned")) if seat["abandoned"] else ""
        facts, clock = seat.get("facts") or {}, seat.get("clock")
        elo = _partial(context, "seat_elo", facts=facts) if "elo" in facts else ""
        timer = _partial(context, "seat_clock", clock=clock) if clock else ""
        turn = ""
        if moving:
            to_move_text = gettext("to move")
            turn = f'<span class="badge turn">{to_move_text}</span>'
        rank = ""
        if seat["rank"]:
            points = _t(
                gettext_noop("rank %(rank)s, %(score)s points"),
                rank=seat["rank"],
                score=seat["score"],
            )
            rank = f'<span class="badge">{points}</span>'
        out.append(
            f'\n    <li data-seat="{_e(index)}" class="{classes}">\n'
            f"      {name}\n"
            f"      {you}\n"
            f"      {abandoned}\n"
            f"      {turn}\n"
            f"      {elo}\n"
            f"      {timer}\n"
            f"      {rank}\n"
            "    </li>\n    "
        )
    return mark_safe("".join(out))


def _partial(context: template.Context, name: str, **values: Any) -> str:
    """A partial of ``partials/table_extras.html``, as ``{% include … with … %}`` renders it."""
    partial = context.template.engine.get_template(f"games/partials/table_extras.html#{name}")
    with context.push(**values):
        return partial.render(context)


@register.filter
def log_items(log: list[dict[str, Any]]) -> SafeString:
    """The move log's lines, newest first (``rendering.log_lines``): a long match's log is
    hundreds of lines, rendered again for every version."""
    return mark_safe(
        "".join(
            f'<li value="{_e(line["number"])}" data-seat="{_e(line["seat"])}">{_e(line["text"])}</li>'
            for line in reversed(log)
        )
    )
