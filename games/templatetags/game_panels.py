"""Each game's panels beside the board, written in Python: ``info`` (what the board shows, the
legend) and ``players`` (the standings), the parts ``templates/games/<slug>/table.html#info`` and
``#players`` wrote. Shared by every viewer of a version, rendered once per version and language.
Byte for byte what the templates wrote (``tests/site/test_render_corpus.py``).

What reads the same at every table in a language (a legend, a table's headings: built from a
game's kinds or sorts, which never change) is written once per language (``_per_language``), as
``{% per_language %}`` does in a template.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import template
from django.utils.safestring import SafeString
from django.utils.translation import gettext_noop

from ..translations import gettext, language
from .boards import _e, _t, cafe_standings, pdc_kept, pdc_portions, pdc_standings, pizza_party_info

register = template.Library()

_WRITTEN: dict[tuple[str, str | None], str] = {}


def _per_language(name: str, write: Callable[[], str]) -> str:
    """``write()`` once per language: for text built only from translations and a game's
    constants."""
    key = (name, language())
    html = _WRITTEN.get(key)
    if html is None:
        html = _WRITTEN[key] = write()
    return html


def _heading(text: str) -> str:
    return f'      <th scope="col">{text}</th>\n'


# --- La Part du Chef ------------------------------------------------------------------------------
@register.simple_tag(takes_context=True)
def pdc_info(context: Any) -> SafeString:
    """The pizza's title, its portions, where La Marianne is, and the legend."""
    game = context.get("game") or {}
    board = game.get("board")
    if not board:
        return SafeString("\n\n")
    portions = ""
    if board.get("portions"):
        title = gettext("Portions")
        portions = f'\n<h3>{title}</h3>\n<ul class="portions">\n  {pdc_portions(board)}\n</ul>\n'
    marianne = ""
    if game.get("marianne") and game["marianne"].get("in_play"):
        if game.get("marianne_holder_name"):
            note = _t(
                gettext_noop("La Marianne is with %(player)s."),
                player=game["marianne_holder_name"],
            )
        else:
            note = gettext("La Marianne is in play.")
        marianne = f'\n<p class="marianne-note">{note}</p>\n'
    legend = _per_language("pdc legend", lambda: _pdc_legend(game["kinds"]))
    return SafeString(
        f'\n\n<h2 id="board-title">{_e(board["title"])}</h2>\n{portions}\n{marianne}\n{legend}\n\n'
    )


def _kind_label(kind: dict[str, Any]) -> str:
    # Not inside an f-string: makemessages does not find messages there.
    return _t(gettext_noop("%(name)s (majority %(value)s)"), name=kind["name"], value=kind["value"])


def _pdc_legend(kinds: list[dict[str, Any]]) -> str:
    items = "".join(
        f'<li><span class="swatch kind-{_e(kind["letter"])}" aria-hidden="true"></span>'
        f"{_kind_label(kind)}</li>"
        for kind in kinds
    )
    chilli = gettext("Chilli (joker, cannot be eaten)")
    burnt = gettext("Burnt slice (−3 at the end, cannot be eaten)")
    double, olive = gettext("Double finisher"), gettext("Olive")
    return (
        f'<ul class="legend">\n  {items}\n'
        f'  <li><span class="swatch kind-C" aria-hidden="true"></span>{chilli}</li>\n'
        f'  <li><span class="swatch kind-B" aria-hidden="true"></span>{burnt}</li>\n'
        f'  <li><span class="swatch medallion" aria-hidden="true"></span>{double}</li>\n'
        f'  <li><span class="swatch olive" aria-hidden="true"></span>{olive}</li>\n'
        "</ul>"
    )


@register.simple_tag(takes_context=True)
def pdc_players(context: Any) -> SafeString:
    """The standings (kept slices per kind, points so far) and each player's kept slices."""
    game = context["game"]
    head = _per_language("pdc standings", lambda: _pdc_standings_head(game["kinds"]))
    return SafeString(
        '\n<div class="scroll">\n<table class="standings">\n'
        f"  {head}\n  <tbody>\n    {pdc_standings(game)}\n  </tbody>\n</table>\n</div>\n"
        f'<ul class="kept-lists">\n  {pdc_kept(game)}\n</ul>\n'
    )


def _pdc_standings_head(kinds: list[dict[str, Any]]) -> str:
    caption = gettext(
        "Kept slices per kind, and points so far (olives of eaten slices and one point per "
        "slice received). Majorities, variety and burnt slices are scored at the end."
    )
    kind_columns = "".join(
        f'<th scope="col"><abbr title="{_e(kind["name"])}">{_e(kind["letter"])}</abbr></th>'
        for kind in kinds
    )
    columns = (
        gettext("Chillies"),
        gettext("Burnt"),
        gettext("Eaten"),
        gettext("Olives"),
        gettext("Slice points"),
        gettext("Points so far"),
    )
    player = gettext("Player")
    return (
        f"<caption>{caption}</caption>\n  <thead>\n    <tr>\n"
        f'      <th scope="col">{player}</th>\n      {kind_columns}\n'
        + "".join(_heading(text) for text in columns)
        + "    </tr>\n  </thead>"
    )


# --- Pizza Party ----------------------------------------------------------------------------------
@register.simple_tag(takes_context=True)
def pizza_party_panel(context: Any) -> SafeString:
    """Pizza Party's info: the last cut and the legend (``boards.pizza_party_info``)."""
    return SafeString(f"\n{pizza_party_info(context['game'])}\n")


@register.simple_tag(takes_context=True)
def pizza_party_players(context: Any) -> SafeString:
    """Each colour's toppings on the pizza and in supply, its axis and its cut's pick."""
    game = context["game"]
    head = _per_language("pizza party standings", _pizza_party_standings_head)
    rows = "".join(_colour_row(c, game.get("phase")) for c in game["colours"])
    return SafeString(
        '\n<div class="scroll">\n<table class="standings">\n'
        f"  {head}\n  <tbody>\n    {rows}\n  </tbody>\n</table>\n</div>\n"
    )


def _pizza_party_standings_head() -> str:
    columns = (
        gettext("Colour"),
        gettext("On the pizza"),
        gettext("In supply"),
        gettext("Cuts along"),
        gettext("Cut"),
    )
    return "<thead>\n    <tr>\n" + "".join(_heading(t) for t in columns) + "    </tr>\n  </thead>"


def _colour_row(c: dict[str, Any], phase: Any) -> str:
    seat = _e(c["seat"])
    neutral = " neutral" if c.get("neutral") else ""
    adding = ""
    if c.get("placing"):
        adding_text = gettext("adding")
        adding = f' <span class="badge turn">{adding_text}</span>'
    if phase == "cut" and not c.get("neutral"):
        cut = gettext("has picked") if c.get("picked") else gettext("picking…")
    else:
        cut = "—"
    row_class = ' class="neutral"' if c.get("neutral") else ""
    return (
        f'\n    <tr data-seat="{seat}"{row_class}>\n'
        f'      <th scope="row"><span class="seat-dot seat-{seat}{neutral}" aria-hidden="true">'
        f"</span>{_e(c['name'])}{adding}</th>\n"
        f'      <td class="points" data-testid="points">{_e(c["on_board"])}</td>\n'
        f"      <td>{_e(c['supply'])}</td>\n"
        f"      <td>{_e(c.get('axis_name') or '—')}</td>\n"
        f"      <td>{cut}</td>\n"
        "    </tr>\n    "
    )


# --- Café Fatal -----------------------------------------------------------------------------------
@register.simple_tag(takes_context=True)
def cafe_info(context: Any) -> SafeString:
    """The share at the end of the last round, the roll of the player to move, and the legend."""
    game = context["game"]
    share = _last_share(game["share"]) if game.get("share") else ""
    rolled = _rolled(game) if game.get("rolled") else ""
    legend = _per_language("cafe legend", lambda: _cafe_legend(game["sorts"]))
    return SafeString(f"\n{share}\n{rolled}\n{legend}\n")


def _last_share(share: dict[str, Any]) -> str:
    title = _t(
        gettext_noop("The share at the end of round %(number)s"), number=share["round_number"]
    )
    if share.get("takers"):
        takers = "".join(_taker(taker) for taker in share["takers"])
        body = f"\n  <ul>\n    {takers}\n  </ul>\n  "
    else:
        nobody = gettext("Nobody took any food: every table was tied or empty.")
        body = f"\n  <p>{nobody}</p>\n  "
    return (
        '\n<section class="last-share" aria-labelledby="last-share-title" '
        'data-testid="last-share">\n'
        f'  <h3 id="last-share-title">{title}</h3>\n  {body}\n</section>\n'
    )


def _table_pieces(t: dict[str, Any]) -> str:
    return _t(gettext_noop("table %(table)s (%(pieces)s)"), table=t["table"], pieces=t["pieces"])


def _taker(taker: dict[str, Any]) -> str:
    seat = _e(taker["seat"])
    tables = ", ".join(
        f'<span data-table="{_e(t["table"])}">{_table_pieces(t)}</span>' for t in taker["tables"]
    )
    return (
        f'<li data-seat="{seat}"><span class="seat-dot seat-{seat}" aria-hidden="true"></span>'
        f"<strong>{_e(taker['name'])}</strong>: {tables}</li>"
    )


def _rolled(game: dict[str, Any]) -> str:
    rolled = _t(gettext_noop("%(player)s rolled:"), player=game.get("turn_name", ""))
    turn = _e(game.get("turn", ""))
    dice = "".join(
        f'<span class="die-chip seat-{turn}" data-value="{_e(d["value"])}">'
        f"{_e(d['face'])} × {_e(d['count'])}</span>"
        for d in game["rolled"]
    )
    return f'\n<p class="rolled">{rolled}\n  {dice}</p>\n'


def _sort_label(s: dict[str, Any]) -> str:
    return _t(gettext_noop("%(sort)s (worth %(value)s)"), sort=s["name"], value=s["value"])


def _cafe_legend(sorts: list[dict[str, Any]]) -> str:
    items = "".join(
        f'<li><span class="swatch food-{_e(s["sort"])}" aria-hidden="true"></span>'
        f"{_sort_label(s)}</li>"
        for s in sorts
    )
    hint = gettext(
        "On each table: its food, and the dice on it in each player's colour (value × how "
        "many). After the last die of a round, the player with the most dice on a table takes "
        "its food (equal dice: the higher value; still equal: the food stays)."
    )
    return f'<ul class="legend">\n  {items}\n</ul>\n<p class="hint">{hint}</p>'


@register.simple_tag(takes_context=True)
def cafe_players(context: Any) -> SafeString:
    """The standings: dice left, food per sort, sets, loose pieces, points."""
    game = context["game"]
    head = _per_language("cafe standings", lambda: _cafe_standings_head(game["sorts"]))
    return SafeString(
        '\n<div class="scroll">\n<table class="standings">\n'
        f"  {head}\n  <tbody>\n    {cafe_standings(game)}\n  </tbody>\n</table>\n</div>\n"
    )


def _cafe_standings_head(sorts: list[dict[str, Any]]) -> str:
    player, dice = gettext("Player"), gettext("Dice left")
    sort_columns = "".join(f'<th scope="col">{_e(s["name"])}</th>' for s in sorts)
    columns = (gettext("Complete sets"), gettext("Loose pieces"), gettext("Points"))
    return (
        "<thead>\n    <tr>\n"
        + _heading(player)
        + _heading(dice)
        + f"      {sort_columns}\n"
        + "".join(_heading(text) for text in columns)
        + "    </tr>\n  </thead>"
    )
