"""The seats' list of the table (``partials/table.html#seats``) and the move log's lines,
written in Python: the seats are rendered for every viewer of every version (each sees their own
"you"), where the template engine spent about a tenth of a millisecond, and the log grows with
the match. Byte for byte what the template wrote (``tests/site/test_render_corpus.py``, and
``tests/site/test_table_parts.py`` for a seat's rating and clock, which the corpus lacks)."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString
from django.utils.translation import gettext_noop

from ..translations import gettext, ngettext
from .boards import _e, _t, _t_plural
from .move_forms import _csrf_input, game_part

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
        elo = _seat_elo(facts) if "elo" in facts else ""
        timer = _seat_clock(clock) if clock else ""
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
    return SafeString("".join(out))


def _seat_elo(facts: dict[str, Any]) -> str:
    """``partials/table_extras.html#seat_elo``: the player's rating, not localized."""
    title = gettext("Elo rating")
    return f'\n<span class="seat-elo" data-testid="elo" title="{title}">{_e(facts["elo"])}</span>\n'


def _seat_clock(clock: Any) -> str:
    """``partials/table_extras.html#seat_clock``: the time left on a running turn, or the time
    each turn has (a ``clocks.Clock``)."""
    text = _e(clock.text)
    if clock.running:
        label = gettext("Time left on this turn")
        return (
            '\n<time class="seat-clock countdown running" data-testid="clock" '
            f'datetime="{_e(clock.deadline.isoformat())}" '
            f'data-seconds-left="{_e(clock.seconds_left)}" aria-label="{label}">{text}</time>\n'
        )
    title = gettext("Time for each turn")
    return f'\n<span class="seat-clock at-rest" data-testid="clock" title="{title}">{text}</span>\n'


@register.filter
def log_items(log: list[dict[str, Any]]) -> SafeString:
    """The move log's lines, newest first (``rendering.log_lines``): a long match's log is
    hundreds of lines, rendered again for every version."""
    return SafeString(
        "".join(
            f'<li value="{_e(line["number"])}" data-seat="{_e(line["seat"])}">{_e(line["text"])}</li>'
            for line in reversed(log)
        )
    )


@register.simple_tag(takes_context=True)
def status_banner(context: template.Context) -> SafeString:
    """The status of the table (``partials/table.html#status``) for its viewer: rendered for
    every seat at every version. The game's own sentence still comes from its partial
    (``parts.status``). A ``{% translate "…" %}`` of a literal is not escaped (the literal is
    safe, and so is its translation), so the ``gettext`` texts here are not either."""
    table = context["table"]
    you = context.get("you")
    game = context.get("game")
    phase = (game.get("phase") if isinstance(game, dict) else None) or ""
    to_move = ",".join(str(seat) for seat in context.get("to_move") or ())
    oob = ' hx-swap-oob="true"' if context.get("oob") else ""
    announced = ""
    if context.get("announced") and not table["is_open"]:
        lines = "".join(f"<li>{_e(line['text'])}</li>" for line in context["announced"])
        announced = f'\n  <ul class="announced" data-testid="announced">{lines}</ul>\n  '
    see_now = gettext("See the table as it is now")
    return SafeString(
        f'<div id="table-status" class="table-status{" your-turn" if context.get("your_turn") else ""}" '
        f'data-version="{_e(table["version"])}" data-status="{_e(table["status"])}" '
        f'data-you="{"" if you is None else _e(you)}" data-to-move="{_e(to_move)}" '
        f'data-phase="{_e(phase)}" role="status" aria-live="polite"{oob}>\n'
        f'  <p class="banner">\n  \n    {_banner(context, table, game)}\n  \n  </p>\n  '
        f"{announced}\n"
        f'  <noscript><p class="version"><a href="{_e(table["url"])}">{see_now}</a></p></noscript>\n'
        "</div>"
    )


def _banner(context: template.Context, table: dict[str, Any], game: Any) -> str:
    """The banner's sentence: waiting for players, closed, over (with the winners), or the
    game's own status."""
    if table["is_open"]:
        return _t(
            gettext_noop("Waiting for players: %(taken)s of %(total)s seats taken."),
            taken=table["taken"],
            total=table["seats_count"],
        )
    if table["is_aborted"]:
        closed = gettext("This table was closed.")
        return f"{closed} {_e(table['end_reason'])}" if table["end_reason"] else closed
    if table["is_finished"]:
        over = gettext("The match is over.")
        winners = context.get("winners") or []
        named = ""
        if winners:
            named = _t_plural(
                lambda: ngettext("Winner: %(names)s.", "Winners: %(names)s.", len(winners)),
                len(winners),
                names=", ".join(str(name) for name in winners),
            )
        return f"<strong>{over}</strong>\n    {named}"
    if game:
        return game_part(context, "status")
    return gettext("The match is being played.")


@register.simple_tag(takes_context=True)
def actions_bar(context: template.Context) -> SafeString:
    """The viewer's own actions (``partials/table.html#actions``): resign a running match,
    play again once it is over. Rendered for every seat at every version."""
    extras = context.get("extras") or {}
    table = context["table"]
    csrf = _csrf_input(context.get("csrf_token"))
    invite = (
        f'<input type="hidden" name="invite" value="{_e(table["invite"])}">'
        if table.get("invite")
        else ""
    )
    resign = _resign_form(extras, table, csrf, invite) if extras.get("can_resign") else ""
    again = extras.get("play_again")
    rematch = f"\n  {_play_again(extras, again, csrf, invite)}\n  " if again else ""
    oob = ' hx-swap-oob="true"' if context.get("oob") else ""
    return SafeString(
        f'<div id="table-actions" class="table-actions"{oob}>\n  {resign}\n  {rematch}\n</div>'
    )


def _resign_form(extras: dict[str, Any], table: dict[str, Any], csrf: str, invite: str) -> str:
    url = _e(extras["resign_url"])
    if table["mode"] == "ranked":
        warning = gettext(
            "Give up this match? You will rank last, as a player who abandoned, and a bot "
            "plays on for your seat."
        )
    else:
        warning = gettext("Give up this match? A bot plays on for your seat.")
    # Not inside the f-strings: makemessages does not find messages there.
    summary, confirm = gettext("Resign…"), gettext("Yes, resign")
    return (
        '\n  <details class="resign" data-testid="resign">\n'
        f"    <summary>{summary}</summary>\n"
        f'    <form method="post" action="{url}" hx-post="{url}" hx-swap="none">{csrf}\n'
        f"      {invite}\n"
        f"      <p>{warning}</p>\n"
        '      <button type="submit" class="danger" data-testid="resign-confirm">'
        f"{confirm}</button>\n"
        "    </form>\n  </details>\n  "
    )


def _play_again(extras: dict[str, Any], again: dict[str, Any], csrf: str, invite: str) -> str:
    """Open a rematch, join it, go to it or watch it (``table_extras._play_again``)."""
    if again["do"] in ("ask", "join"):
        url = _e(extras["rematch_url"])
        if again["do"] == "ask":
            label = gettext("Play again")
            hint = gettext("A new table with the same players and options; the others are invited.")
        else:
            label = gettext("Join the rematch")
            hint = _t(
                gettext_noop("Another player opened table %(id)s to play again."), id=again["id"]
            )
        return (
            f'\n  <form method="post" action="{url}" hx-post="{url}" hx-swap="none" '
            f'class="inline-form">{csrf}\n'
            f"    {invite}\n"
            f'    <button type="submit" class="primary" data-testid="play-again">{label}</button>\n'
            f'    <span class="hint">{hint}</span>\n'
            "  </form>\n  "
        )
    if again["do"] == "go":
        text = _t(gettext_noop("Go to the rematch (table %(id)s)"), id=again["id"])
        link = f'<a class="button primary" href="{_e(again["url"])}" data-testid="go-to-rematch">'
    else:
        text = _t(gettext_noop("Watch the rematch (table %(id)s)"), id=again["id"])
        link = f'<a href="{_e(again["url"])}" data-testid="watch-rematch">'
    return f"\n  <p>{link}{text}</a></p>\n  "
