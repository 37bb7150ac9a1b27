"""The live parts of a table (``partials/table.html``) that every seat gets at every version,
written in Python: the status, the error area, the timer, the actions, the marks over the board,
the move forms and the log. Each writer writes the whole part, byte for byte what its partial
wrote (``tests/site/test_render_corpus.py``, ``tests/site/test_table_parts.py``); the partials now
only call ``{% table_part "<part>" %}``, so a page and a socket still write the same.

``rendering`` calls the writers directly with its context (a plain dict): a part costs no
template lookup and no Context. The writers read a context the way a template does (``.get`` and
``[]``), so they take either.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import Any

from django import template
from django.template.loader import render_to_string
from django.utils.safestring import SafeString
from django.utils.translation import gettext_noop

from ..translations import gettext
from .boards import _e, _t
from .move_forms import _csrf_input, game_part
from .table_lists import actions_bar, log_items, seat_items, status_banner

register = template.Library()


def _oob(context: Any) -> str:
    return ' hx-swap-oob="true"' if context.get("oob") else ""


def write_status(context: Any) -> str:
    return f"\n{status_banner(context)}\n"


def write_page_error(context: Any) -> str:
    """``partials/errors.html#page_error``: the error of the viewer's last request, if any."""
    error = context.get("error")
    message = f'<p class="message error">{_e(error)}</p>' if error else ""
    return (
        f'<div id="page-error" class="page-error" role="alert" aria-live="assertive"'
        f"{_oob(context)}>{message}</div>"
    )


def write_timer(context: Any) -> str:
    """The time left on the turn, and whose turn it is (the page counts it down)."""
    timer = context.get("timer")
    body = ""
    if timer:
        who = _t(gettext_noop("Time left for %(who)s:"), who=timer["who"])
        hint = gettext("When the time is up, a bot plays the move.")
        body = (
            f"\n  <p>{who}\n"
            f'    <time class="countdown" datetime="{_e(timer["deadline"])}" '
            f'data-seconds-left="{_e(timer["seconds_left"])}">{_e(timer["clock"])}</time>\n'
            f'    <span class="hint">{hint}</span></p>\n  '
        )
    return f'\n<div id="table-timer" class="table-timer"{_oob(context)}>\n  {body}\n</div>\n'


def write_actions(context: Any) -> str:
    return f"\n\n{actions_bar(context)}\n"


def write_targets(context: Any) -> str:
    """The marks laid over the board for the seat to move (the game's own)."""
    marks = game_part(context, "targets") if context.get("moves") else ""
    return f'\n<div id="table-targets" class="table-targets"{_oob(context)}>{marks}</div>\n'


def write_moves(context: Any) -> str:
    """The seat's move forms (the game's own), or what the others are waiting for."""
    forms = game_part(context, "moves") if context.get("moves") else ""
    waiting = ""
    if context["table"]["is_playing"] and not context.get("your_turn"):
        if context.get("you") is None:
            sentence = gettext("You are watching this match.")
        else:
            sentence = gettext("Waiting for the other players…")
        waiting = f'\n  <p class="waiting">{sentence}</p>\n  '
    label = gettext("Your move")
    return (
        f'\n<section id="table-moves" class="table-moves" aria-label="{label}"{_oob(context)}>\n'
        f"  {forms}\n  {waiting}\n</section>\n"
    )


def write_log(context: Any) -> str:
    """The move log as the viewer may read it, newest first, and the record's link."""
    table = context["table"]
    body = ""
    if table["started"]:
        title = gettext("Moves")
        log = context.get("log")
        if log:
            lines = (
                '\n  <ol class="move-log" reversed tabindex="0" aria-labelledby="log-title">\n'
                f"    {log_items(log)}\n  </ol>\n  "
            )
        else:
            none_yet = gettext("No moves yet.")
            lines = f"\n  <p>{none_yet}</p>\n  "
        record = ""
        if not table["is_finished"]:
            so_far = gettext("Download the record so far (JSON)")
            record = f'<p><a href="{_e(table["record_url"])}" download>{so_far}</a></p>'
        body = f'\n  <h2 id="log-title">{title}</h2>\n  {lines}\n  {record}\n  '
    return (
        f'\n<section id="table-log" class="table-log" aria-labelledby="log-title"'
        f"{_oob(context)}>\n  {body}\n</section>\n"
    )


def write_board(context: Any) -> str:
    """The board (the game's own), the last move's sentence and the boards the page plays back
    after automatic moves. The same for every viewer of a version."""
    table = context["table"]
    number = context.get("last_move_number")
    last_number = "" if number is None else f' data-last-move="{_e(number)}"'
    board = ""
    if context.get("game"):
        board = game_part(context, "board")
    elif table["is_open"]:
        starts = gettext("The match starts when every seat is taken.")
        board = f'<p class="waiting">{starts}</p>'
    last = ""
    if context.get("last_move"):
        sentence = _t(gettext_noop("Last move: %(move)s"), move=context["last_move"]["text"])
        last = f'<p class="last-move-line" data-testid="last-move">{sentence}</p>'
    steps = "".join(
        f'<div class="playback-step" hidden data-move="{_e(step["move"])}" '
        f'data-text="{_e(step["text"])}" data-board="{escape(str(step["board"]))}"></div>'
        for step in context.get("playback") or ()
    )
    return (
        f'\n<div id="table-board" class="table-board" data-game="{_e(table["game"])}"'
        f"{last_number}{_oob(context)}>\n  {board}\n  {last}\n  {steps}\n</div>\n"
    )


def write_seats(context: Any) -> str:
    """The seats, and what the viewer may do about them: join, log in, add a bot, invite a
    friend, leave, share the private table's link."""
    table, actions = context["table"], context.get("actions") or {}
    csrf = _csrf_input(context.get("csrf_token"))
    title = gettext("Seats")
    forms = [
        _join_form(table, csrf) if actions.get("can_join") else "",
        _log_in_link(actions) if actions.get("must_log_in") else "",
        _add_bot_form(table, actions, csrf) if actions.get("can_add_bot") else "",
        _invited(actions) if actions.get("invited") else "",
        _invite_friend_form(actions, csrf) if actions.get("friends_to_invite") else "",
        _leave_form(table, csrf) if actions.get("can_leave") else "",
        _invite_link(table) if table.get("invite_url") else "",
    ]
    return (
        f'\n<section id="table-seats" class="table-seats" aria-labelledby="seats-title"'
        f'{_oob(context)}>\n  <h2 id="seats-title">{title}</h2>\n'
        f'  <ol class="seats" start="0">\n    {seat_items(context)}\n  </ol>\n  '
        + "\n  ".join(forms)
        + "\n</section>\n"
    )


_INLINE = ' class="inline-form"'


def _post_form(url: str, csrf: str, extra: str = "") -> str:
    url = _e(url)
    return f'<form method="post" action="{url}" hx-post="{url}" hx-swap="none"{extra}>{csrf}'


def _join_form(table: dict[str, Any], csrf: str) -> str:
    invite = table.get("invite")
    hidden = f'<input type="hidden" name="invite" value="{_e(invite)}">' if invite else ""
    join = gettext("Join this table")
    return (
        f"\n  {_post_form(table['join_url'], csrf)}\n    {hidden}\n"
        f'    <button type="submit" class="primary" data-testid="join">{join}</button>\n'
        "  </form>\n  "
    )


def _log_in_link(actions: dict[str, Any]) -> str:
    log_in = gettext("Log in to join this table.")
    return f'\n  <p><a href="{_e(actions["login_url"])}">{log_in}</a></p>\n  '


def _add_bot_form(table: dict[str, Any], actions: dict[str, Any], csrf: str) -> str:
    label, add = gettext("Bot level"), gettext("Add a bot")
    levels = "".join(
        f'<option value="{_e(level)}">{_t(gettext_noop("Level %(level)s"), level=level)}</option>'
        for level in actions["bot_levels"]
    )
    return (
        f"\n  {_post_form(table['bot_url'], csrf, _INLINE)}\n"
        f'    <label for="bot-level">{label}</label>\n'
        f'    <select id="bot-level" name="level">\n      {levels}\n    </select>\n'
        f'    <button type="submit" data-testid="add-bot">{add}</button>\n  </form>\n  '
    )


def _invited(actions: dict[str, Any]) -> str:
    invited = gettext("Invited:")
    names = ", ".join(_e(name) for name in actions["invited"])
    return f'\n  <p class="muted">{invited} {names}</p>\n  '


def _invite_friend_form(actions: dict[str, Any], csrf: str) -> str:
    label, invite = gettext("Invite a friend"), gettext("Invite")
    friends = "".join(
        f'<option value="{_e(friend.username)}">{_e(friend.username)}</option>'
        for friend in actions["friends_to_invite"]
    )
    return (
        f"\n  {_post_form(actions['invite_friend_url'], csrf, _INLINE)}\n"
        f'    <label for="invite-friend">{label}</label>\n'
        f'    <select id="invite-friend" name="friend">\n      {friends}\n    </select>\n'
        f'    <button type="submit" data-testid="invite-friend">{invite}</button>\n  </form>\n  '
    )


def _leave_form(table: dict[str, Any], csrf: str) -> str:
    leave = gettext("Leave this table")
    return (
        f"\n  {_post_form(table['leave_url'], csrf)}\n"
        f'    <button type="submit" data-testid="leave">{leave}</button>\n  </form>\n  '
    )


def _invite_link(table: dict[str, Any]) -> str:
    share = gettext(
        "Invitation link (this table is private: share it with the players you invite):"
    )
    url = _e(table["invite_url"])
    return (
        f'\n  <p class="invite">{share}\n    <a class="invite-link" href="{url}">{url}</a></p>\n  '
    )


def write_info(context: Any) -> str:
    """What the board shows and its legend (the game's own)."""
    about = gettext("About the board")
    panel = game_part(context, "info") if context.get("game") else ""
    return (
        f'\n<section id="table-info" class="table-info" aria-label="{about}"{_oob(context)}>\n'
        f"  {panel}\n</section>\n"
    )


def write_players(context: Any) -> str:
    """The standings (the game's own)."""
    panel = ""
    if context.get("game"):
        title = gettext("Players and points")
        standings = game_part(context, "players")
        panel = f'\n  <h2 id="players-title">{title}</h2>\n  {standings}\n  '
    return (
        '\n<section id="table-players" class="table-players" aria-labelledby="players-title"'
        f"{_oob(context)}>\n  {panel}\n</section>\n"
    )


def write_result(context: Any) -> str:
    """The match's result: an empty section at every version but the last, written here; the
    result itself (shown once a match) still by its partial."""
    if context.get("result"):
        values = context.flatten() if isinstance(context, template.Context) else context
        return render_to_string("games/partials/table.html#result", values)
    return f'\n<section id="table-result" class="table-result"{_oob(context)}>\n  \n</section>\n'


#: The parts written in Python, by name (``rendering.TABLE_PARTS``).
PART_WRITERS: dict[str, Callable[[Any], str]] = {
    "status": write_status,
    "seats": write_seats,
    "page_error": write_page_error,
    "timer": write_timer,
    "actions": write_actions,
    "board": write_board,
    "targets": write_targets,
    "moves": write_moves,
    "info": write_info,
    "players": write_players,
    "log": write_log,
    "result": write_result,
}


@register.simple_tag(takes_context=True)
def table_part(context: template.Context, part: str) -> SafeString:
    """``{% table_part "timer" %}``: a part as the sockets write it, in a page."""
    return SafeString(PART_WRITERS[part](context))
