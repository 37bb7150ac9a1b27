"""Move forms (and a game's sentence in the status) written in Python: the form a seat plays
with is rendered for the seat to move at every version, where the template engine spent about
half a millisecond on Café Fatal's (a radio button per value of the roll, a button per table,
each with its translated sentence). Byte for byte what the template wrote
(``tests/site/test_render_corpus.py``), from the same presenter data
(``presenters.cafe_fatal.seat_context``), with the same messages."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import template
from django.template.loader import render_to_string
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext_noop

from ..translations import gettext, ngettext
from .boards import _e, _t, _t_plural, cafe_board, pdc_board, pdc_targets, pizza_party_board
from .game_panels import (
    cafe_info,
    cafe_players,
    pdc_info,
    pdc_players,
    pizza_party_panel,
    pizza_party_players,
)

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
        return SafeString("")
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
    return SafeString("\n" + "".join(buttons) + "\n")


@register.simple_tag(takes_context=True)
def cafe_place_form(context: template.Context) -> SafeString:
    """The form of the seat placing dice: a value of its roll, then a table (empty otherwise)."""
    place = (context.get("moves") or {}).get("place")
    if not place:
        return SafeString("")
    move_url = _e(context["table"]["move_url"])
    choices = "".join(_die_choice(v, place["first"]) for v in place["values"])
    buttons = "".join(
        f'<button type="submit" name="table" value="{_e(t["table"])}" '
        f'data-values="{_values_attribute(t["values"])}">{_table_label(t["table"])}</button>'
        for t in place["targets"]
    )
    legend = gettext("Your roll: choose a value")
    hint = gettext("Then click a highlighted table on the board, or choose it here:")
    return SafeString(
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
    return SafeString(f"<strong>{round_number}</strong>\n{turn}")


def _of(data: Any, key: str) -> Any:
    """``{{ data.key }}`` as a template resolves it: "" when ``data`` or its key is missing."""
    return data.get(key, "") if isinstance(data, dict) else ""


def _names(names: list[Any]) -> SafeString:
    """``names|join:", "``: each name escaped, the list marked safe for a blocktranslate."""
    return SafeString(", ".join(_e(name) for name in names))


def _form_head(context: Any, form: str, classes: str, action: str, extra: str = "") -> str:
    """A seat's move form's opening tag and hidden fields, as the games' partials write them."""
    move_url = _e(context["table"]["move_url"])
    return (
        f'\n<form id="{form}" class="move-form {classes}" method="post" action="{move_url}" '
        f'hx-post="{move_url}" hx-swap="none" data-testid="{classes}"{extra}>\n'
        f'  {move_hidden(context)}<input type="hidden" name="action" value="{action}">\n'
    )


# --- La Part du Chef ------------------------------------------------------------------------------
@register.simple_tag(takes_context=True)
def pdc_status(context: template.Context) -> SafeString:
    """La Part du Chef's sentence in the status banner (``part-du-chef/table.html#status``):
    the chillies' step, or the pizza and whose turn it is. Rendered for every seat."""
    game, moves = context["game"], context.get("moves")
    if game.get("phase") == "chillies":
        return SafeString(f"\n{_pdc_chillies_status(context, game, moves)}\n")
    number = _t(
        gettext_noop("Pizza %(number)s of %(total)s."),
        number=_of(game, "round_number"),
        total=_of(game, "rounds"),
    )
    if context.get("your_turn"):
        if game.get("phase") == "cut":
            count = game.get("players_count")
            turn = _t_plural(
                lambda: ngettext(
                    "Your turn: you are the chef, cut the pizza into %(counter)s portion.",
                    "Your turn: you are the chef, cut the pizza into %(counter)s portions.",
                    count,
                ),
                count,
            )
        else:
            turn = gettext("Your turn: choose a portion.")
        turn = f"\n    {turn}\n  "
    elif game.get("phase") == "cut":
        turn = _t(
            gettext_noop("%(chef)s, the chef, is cutting the pizza."), chef=_of(game, "chef_name")
        )
    else:
        turn = _t(
            gettext_noop("%(player)s is choosing a portion."),
            player=_names(game.get("to_move_names") or []),
        )
    return SafeString(f"\n\n<strong>{number}</strong>\n\n  {turn}\n\n\n")


def _pdc_chillies_status(context: Any, game: dict[str, Any], moves: Any) -> str:
    shared_out = gettext("Every pizza is shared out.")
    yours = ""
    if context.get("your_turn"):
        yours = gettext("Your turn: choose the kind each of your chillies counts for.")
    elif _of(moves, "your_chillies"):
        yours = _t(
            gettext_noop(
                "Your chillies count for: %(choice)s. The choices are revealed together when "
                "everyone has chosen."
            ),
            choice=moves["your_chillies"],
        )
    waiting = _of(_of(game, "chillies"), "waiting_names")
    others = ""
    if waiting:
        others = _t_plural(
            lambda: ngettext(
                "%(names)s is choosing what their chillies count for.",
                "%(names)s are choosing what their chillies count for.",
                len(waiting),
            ),
            len(waiting),
            names=_names(waiting),
        )
    return f"\n<strong>{shared_out}</strong>\n{yours}\n{others}\n"


@register.simple_tag(takes_context=True)
def pdc_moves(context: template.Context) -> SafeString:
    """The forms of La Part du Chef's seat to move (``part-du-chef/table.html#moves``): the
    chillies, La Marianne, the cut, the take."""
    moves = context.get("moves") or {}
    chillies = ""
    if moves.get("chilli_form"):
        chillies = _pdc_chilli_form(context, moves["chilli_form"])
    elif moves.get("your_chillies"):
        choice = _t(
            gettext_noop("Your chillies count for: %(choice)s."), choice=moves["your_chillies"]
        )
        chillies = f'\n<p class="your-chillies" data-testid="your-chillies">{choice}</p>\n'
    marianne = (
        _pdc_marianne_form(context, moves["marianne_form"]) if moves.get("marianne_form") else ""
    )
    cut = _pdc_cut_form(context, moves["cut_form"]) if moves.get("cut_form") else ""
    take = _pdc_take_form(context, moves["take_form"]) if moves.get("take_form") else ""
    return SafeString(f"\n{chillies}\n{marianne}\n\n{cut}\n\n{take}\n")


def _pdc_chilli_form(context: Any, form: dict[str, Any]) -> str:
    hint = gettext(
        "The suggestion is chosen for you: the kinds that give you the most majority and "
        "variety points against the others' slices. Change it if you like."
    )
    fieldsets = "".join(_pdc_chilli_fieldset(chilli, form["kinds"]) for chilli in form["chillies"])
    submit = gettext("Assign my chillies")
    return (
        _form_head(context, "chilli-form", "chilli-form", "chillies")
        + f'  <p class="hint">{hint}</p>\n  {fieldsets}\n'
        f'  <button type="submit" class="primary">{submit}</button>\n</form>\n'
    )


def _pdc_chilli_fieldset(chilli: dict[str, Any], kinds: list[dict[str, Any]]) -> str:
    number = _e(chilli["number"])
    legend = _t(gettext_noop("Chilli %(number)s counts for"), number=chilli["number"])
    labels = []
    for kind in kinds:
        letter = _e(kind["letter"])
        checked = " checked" if kind["letter"] == chilli.get("suggested") else ""
        kept = _t(
            gettext_noop("(you keep %(kept)s; majority %(value)s)"),
            kept=kind["kept"],
            value=kind["value"],
        )
        labels.append(
            f'\n    <label><input type="radio" name="chilli_{number}" value="{letter}"{checked} '
            f'required> <span class="chip kind-{letter}">{_e(kind["name"])}</span> {kept}</label>\n    '
        )
    return (
        f'\n  <fieldset class="chilli">\n    <legend>{legend}</legend>\n    {"".join(labels)}\n'
        "  </fieldset>\n  "
    )


def _slice_chip(s: dict[str, Any]) -> str:
    return f'<span class="chip kind-{_e(s["letter"])}" title="{_e(s["title"])}">{_e(s["label"])}</span>'


def _pdc_marianne_form(context: Any, form: dict[str, Any]) -> str:
    name = gettext("La Marianne")
    swap = gettext(
        "Before your move you may swap: give two of your slices and get two slices from other "
        "players."
    )
    give, get = gettext("Give two of your slices"), gettext("Get two slices from the others")
    mine = "".join(
        f'<label class="slice-pick" data-testid="give-{_e(s["id"])}"><input type="checkbox" '
        f'id="marianne-{_e(s["id"])}" name="give" value="{_e(s["id"])}">{_slice_chip(s)}'
        f'<span class="sr-only">{_e(s["title"])}</span></label>'
        for s in form["mine"]
    )
    others = "".join(_pdc_marianne_row(o) for o in form["others"])
    submit = gettext("Play La Marianne")
    return (
        _form_head(context, "marianne-form", "marianne-form", "marianne")
        + f"  <p><strong>{name}</strong> {swap}</p>\n"
        '  <fieldset class="slice-picks" data-pick="2">\n'
        f"    <legend>{give}</legend>\n    {mine}\n  </fieldset>\n"
        '  <fieldset class="slice-picks" data-pick="2">\n'
        f"    <legend>{get}</legend>\n    {others}\n  </fieldset>\n"
        f'  <button type="submit">{submit}</button>\n</form>\n'
    )


def _pdc_marianne_row(other: dict[str, Any]) -> str:
    picks = []
    for s in other["slices"]:
        from_whom = _t(
            gettext_noop("%(slice)s, from %(player)s"), player=other["name"], slice=s["title"]
        )
        picks.append(
            f'<label class="slice-pick" data-testid="get-{_e(s["id"])}"><input type="checkbox" '
            f'id="marianne-{_e(s["id"])}" name="get" value="{_e(s["value"])}">{_slice_chip(s)}'
            f'<span class="sr-only">{from_whom}</span></label>'
        )
    return (
        f'\n    <p class="pick-row" data-seat="{_e(other["seat"])}"><span class="pick-owner">'
        f"{_e(other['name'])}</span>\n      {''.join(picks)}</p>\n    "
    )


def _pdc_cut_form(context: Any, form: dict[str, Any]) -> str:
    n = form["n"]
    # Translations of literals, as {% translate %} writes them in an attribute: not escaped.
    portion_word, chosen_word = (
        gettext("Portion {index}:"),
        gettext("{chosen} of {wanted} cuts chosen."),
    )
    words = f' data-portions="{_e(n)}" data-portion-word="{portion_word}" data-chosen-word="{chosen_word}"'
    click = _t_plural(
        lambda: ngettext(
            "Click %(counter)s cut mark on the rim of the pizza.",
            "Click %(counter)s cut marks on the rim of the pizza: each portion runs clockwise "
            "from one cut to the next.",
            n,
        ),
        n,
    )
    submit = gettext("Cut the pizza")
    return (
        _form_head(context, "cut-form", "cut-form", "cut", words) + f"  <p>{click}</p>\n"
        '  <p class="board-preview" data-testid="cut-preview" aria-live="polite"></p>\n'
        f'  <button type="submit" class="primary">{submit}</button>\n</form>\n'
    )


def _pdc_take_form(context: Any, form: dict[str, Any]) -> str:
    eat_word = gettext("You eat:")
    click = gettext(
        "Click a portion's number on the pizza, then the slices you eat now: an eaten slice "
        "scores its olives but does not count for majorities."
    )
    steals = "".join(
        _pdc_steal(p["index"], steal) for p in form["portions"] for steal in p["steals"]
    )
    submit = gettext("Take the portion")
    return (
        _form_head(context, "take-form", "take-form", "take", f' data-eat-word="{eat_word}"')
        + f"  <p>{click}</p>\n  {steals}\n"
        '  <p class="board-preview" data-testid="take-preview" aria-live="polite"></p>\n'
        f'  <button type="submit" class="primary">{submit}</button>\n</form>\n'
    )


def _pdc_steal(index: Any, steal: dict[str, Any]) -> str:
    """A finisher's steal: from whom a seat keeping that finisher takes a slice."""
    legend = _t(
        gettext_noop(
            "If you keep the %(name)s finisher of portion %(index)s, take a %(name)s slice from"
        ),
        name=steal["name"],
        index=index,
    )
    if steal.get("targets"):
        field = f"steal_{_e(index)}_{_e(steal['kind'])}"
        nobody = gettext("nobody")
        targets = "".join(_pdc_steal_target(field, steal["name"], t) for t in steal["targets"])
        body = (
            f'\n    <label><input type="radio" name="{field}" value="" checked> {nobody}</label>\n'
            f"    {targets}\n    "
        )
    else:
        nothing = _t(
            gettext_noop("Nobody else keeps a %(name)s slice: the finisher has nothing to take."),
            name=steal["name"],
        )
        body = f'\n    <p class="hint">{nothing}</p>\n    '
    return (
        f'\n  <fieldset class="steal" data-portion="{_e(index)}">\n'
        f"    <legend>{legend}</legend>\n    {body}\n  </fieldset>\n  "
    )


def _pdc_steal_target(field: str, name: Any, target: dict[str, Any]) -> str:
    keeps = _t_plural(
        lambda: ngettext(
            "%(player)s (keeps %(counter)s %(name)s)",
            "%(player)s (keeps %(counter)s %(name)s)",
            target["count"],
        ),
        target["count"],
        player=target["name"],
        name=name,
    )
    seat = _e(target["seat"])
    return (
        f'<label data-seat="{seat}"><input type="radio" name="{field}" value="{seat}"> '
        f"{keeps}</label>"
    )


# --- Pizza Party ----------------------------------------------------------------------------------
@register.simple_tag(takes_context=True)
def pizza_party_status(context: template.Context) -> SafeString:
    """Pizza Party's sentence in the status banner (``pizza-party/table.html#status``): the
    round, then who adds a topping or who still picks a cut. Rendered for every seat."""
    game, moves = context["game"], context.get("moves")
    number = _t(
        gettext_noop("Round %(number)s of %(total)s."),
        number=_of(game, "round_number"),
        total=_of(game, "rounds"),
    )
    turn = ""
    if game.get("phase") == "add":
        if context.get("your_turn"):
            adding = gettext(
                "Your turn: add a topping on a highlighted cell (at least two cells away from "
                "your own toppings)."
            )
        else:
            adding = _t(
                gettext_noop("%(player)s is adding a topping."), player=_of(game, "placing_name")
            )
        turn = f"\n  {adding}\n"
    elif game.get("phase") == "cut":
        turn = f"\n  {_pizza_party_picks(context, game, moves)}\n"
    return SafeString(f"\n<strong>{number}</strong>\n{turn}\n")


def _pizza_party_picks(context: Any, game: dict[str, Any], moves: Any) -> str:
    yours = ""
    if context.get("your_turn"):
        yours = _t(
            gettext_noop("Your turn: pick your cut along the %(axis)s axis, in secret."),
            axis=_of(moves, "your_axis"),
        )
    elif _of(moves, "your_pick"):
        yours = _t(
            gettext_noop(
                "You picked %(pick)s; the picks are revealed together when everyone has picked."
            ),
            pick=moves["your_pick"],
        )
    picked, waiting = game.get("picked_names"), game.get("waiting_names")
    have = ""
    if picked:
        have = _t_plural(
            lambda: ngettext("%(names)s has picked.", "%(names)s have picked.", len(picked)),
            len(picked),
            names=_names(picked),
        )
    still = ""
    if waiting:
        still = _t_plural(
            lambda: ngettext(
                "Still picking: %(names)s.", "Still picking: %(names)s.", len(waiting)
            ),
            len(waiting),
            names=_names(waiting),
        )
    return f"{yours}\n  {have}\n  {still}"


@register.simple_tag(takes_context=True)
def pizza_party_targets(context: template.Context) -> SafeString:
    """The cells (or a cut's lines) laid over the board for Pizza Party's seat to move
    (``pizza-party/table.html#targets``); numbers are not localized."""
    moves = context.get("moves") or {}
    if moves.get("place"):
        buttons = "".join(_cell_target(t) for t in moves["place"]["targets"])
    elif moves.get("pick"):
        seat, axis = _e(context.get("you")), moves.get("your_axis", "")
        buttons = "".join(_pick_target(t, seat, axis) for t in moves["pick"]["ticks"])
    else:
        return SafeString("\n\n")
    return SafeString(f"\n\n{buttons}\n\n")


def _target_style(t: dict[str, Any]) -> str:
    return (
        f'style="left:{_e(t["left"])}%;top:{_e(t["top"])}%;'
        f'width:{_e(t["width"])}%;height:{_e(t["height"])}%"'
    )


def _cell_target(t: dict[str, Any]) -> str:
    value = _e(t["value"])
    label = _t(gettext_noop("Add a topping on cell %(cell)s"), cell=t["label"])
    return (
        f'\n<button type="submit" form="move-form" name="place" value="{value}" '
        f'class="target cell-target" {_target_style(t)} data-cell="{value}" '
        f'data-testid="cell-{value}">\n  <span class="sr-only">{label}</span>\n</button>\n'
    )


def _pick_target(t: dict[str, Any], seat: str, axis: Any) -> str:
    n = _e(t["n"])
    label = _t(gettext_noop("Cut along line %(pick)s of the %(axis)s axis"), pick=t["n"], axis=axis)
    return (
        f'\n<button type="submit" form="move-form" name="cut" value="{n}" '
        f'class="target pick-target seat-{seat}" {_target_style(t)} '
        f'data-testid="pick-on-board-{n}"><span aria-hidden="true">{n}</span>'
        f'<span class="sr-only">{label}</span></button>\n'
    )


@register.simple_tag(takes_context=True)
def pizza_party_moves(context: template.Context) -> SafeString:
    """Pizza Party's forms of the seat to move (``pizza-party/table.html#moves``): the cell to
    add a topping on, or the secret pick of a cut."""
    moves = context.get("moves") or {}
    place = ""
    if moves.get("place"):
        count = len(moves["place"]["targets"])
        click = _t_plural(
            lambda: ngettext(
                "Click one of the %(counter)s highlighted cell to add your topping.",
                "Click one of the %(counter)s highlighted cells to add your topping.",
                count,
            ),
            count,
        )
        place = (
            _form_head(context, "move-form", "place-form", "place") + f"  <p>{click}</p>\n</form>\n"
        )
    pick = ""
    if moves.get("pick"):
        legend = _t(
            gettext_noop(
                "Your secret cut along the %(axis)s axis: the numbered lines in your colour"
            ),
            axis=moves.get("your_axis", ""),
        )
        faces = "".join(
            f'<button type="submit" name="cut" value="{_e(face)}" class="pick" '
            f'data-testid="pick-{_e(face)}">{_e(face)}</button>'
            for face in moves["pick"]["faces"]
        )
        pick = (
            _form_head(context, "move-form", "pick-form", "cut")
            + f"  <fieldset>\n    <legend>{legend}</legend>\n"
            f'    <div class="pick-buttons">\n      {faces}\n    </div>\n  </fieldset>\n</form>\n'
        )
    elif moves.get("your_pick"):
        secret = _t(gettext_noop("Your secret pick: %(pick)s."), pick=moves["your_pick"])
        pick = f'\n<p class="your-pick" data-testid="your-pick">{secret}</p>\n'
    return SafeString(f"\n{place}\n{pick}\n")


# --- each game's parts, by the game's slug -------------------------------------------------------
def _pdc_targets(context: Any) -> str:
    return f"\n{pdc_targets(context.get('moves'))}\n"


def _cafe_status(context: Any) -> str:
    return f"\n{cafe_status(context)}\n"


def _cafe_moves(context: Any) -> str:
    return f"\n{cafe_place_form(context)}\n"


def _cafe_targets(context: Any) -> str:
    return f"\n{cafe_targets(context.get('moves'))}\n"


#: What each game's partial (``templates/games/<slug>/table.html#<part>``) writes, in Python.
GAME_PARTS: dict[str, dict[str, Callable[[Any], str]]] = {
    "part-du-chef": {
        "status": pdc_status,
        "moves": pdc_moves,
        "targets": _pdc_targets,
        "board": pdc_board,
        "info": pdc_info,
        "players": pdc_players,
    },
    "pizza-party": {
        "status": pizza_party_status,
        "moves": pizza_party_moves,
        "targets": pizza_party_targets,
        "board": pizza_party_board,
        "info": pizza_party_panel,
        "players": pizza_party_players,
    },
    "cafe-fatal": {
        "status": _cafe_status,
        "moves": _cafe_moves,
        "targets": _cafe_targets,
        "board": cafe_board,
        "info": cafe_info,
        "players": cafe_players,
    },
}


def game_part(context: Any, part: str) -> str:
    """The game's own ``part`` (``{% include parts.<part> %}``): its writer, or its template
    for a game that has none. ``context`` is a template's Context or a plain dict."""
    writer = GAME_PARTS.get(context["table"]["game"], {}).get(part)
    if writer is not None:
        return writer(context)
    name = context["parts"][part]
    if isinstance(context, template.Context):
        return context.template.engine.get_template(name).render(context)
    return render_to_string(name, context)
