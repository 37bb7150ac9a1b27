"""The boards of the three games as SVG, written in Python (issue 10: a board is most of what a
move's pushes render, and the template engine spent ~1 ms on each, resolving a few hundred
variables and tags per pizza, hex grid or café). Each filter writes exactly what the template
that it replaces wrote, byte for byte (``tests/site/test_render_corpus.py``), from the same
presenter data; translations are the same msgids, through ``gettext``.

Values are escaped as Django's autoescape does (``html.escape``); numbers come from the
presenters already as text that is never localized (``presenters.base.number``) or as ints.

The writers mark what they wrote safe with ``SafeString(text)``, not ``mark_safe(text)``: their
text is always a plain ``str``, and ``mark_safe`` (Django's ``keep_lazy``) first looks through
its arguments for a lazy one, about a microsecond a call, about 30 calls a version.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import Any

from django import template
from django.utils import translation
from django.utils.safestring import SafeData, SafeString
from django.utils.translation import gettext_noop

from ..translations import gettext, ngettext, not_kept

register = template.Library()


#: Texts (and ints) escaped, by text: the writers escape about 500 values a version, nearly all the same
#: at every version (a board's coordinates, paths and labels), and a look-up costs a fraction of
#: ``html.escape``'s five passes. Emptied when full.
_ESCAPED: dict[str | int, str] = {}
ESCAPED_KEPT = 20_000


def _e(value: Any) -> str:
    """A value as the template wrote it: text escaped (unless marked safe), ints as digits."""
    kind = type(value)
    # Plain text and ints first, by the value itself (most of the calls, nearly all found):
    # text marked safe is a subclass of str, never looked up here; True is not an int here.
    if kind is str or kind is int:
        escaped = _ESCAPED.get(value)
        if escaped is not None:
            return escaped
        key = value
        text = value if kind is str else str(value)
    elif isinstance(value, SafeData):
        return str(value)
    else:
        key = text = str(value)
        escaped = _ESCAPED.get(key)
        if escaped is not None:
            return escaped
    escaped = escape(text)
    if len(_ESCAPED) >= ESCAPED_KEPT:
        _ESCAPED.clear()
    _ESCAPED[key] = escaped
    return escaped


def _t(message: str, **values: Any) -> str:
    """A ``{% blocktranslate with … %}`` without a plural: the translation with its values
    escaped (a translation whose placeholders broke falls back to the English). Callers mark the
    message with ``gettext_noop`` so that makemessages keeps it in the catalogs."""
    data = {key: _e(value) for key, value in values.items()}
    try:
        return gettext(message) % data
    except (KeyError, ValueError):
        return message % data


# --- La Part du Chef ------------------------------------------------------------------------------
@register.filter
def pizza_svg(board: dict[str, Any]) -> SafeString:
    """The pizza of the round (``presenters.part_du_chef._board``)."""
    dom_id = _e(board["dom_id"])
    out = [
        '<svg class="pizza" viewBox="-180 -180 360 360" role="img" '
        f'aria-labelledby="{dom_id}-title" data-pizza="{_e(board["number"])}">\n'
        f'  <title id="{dom_id}-title">{_e(board["title"])}</title>\n'
        f'  <circle class="crust" r="{_e(board["radius"])}"/>\n  '
    ]
    for s in board["slices"]:
        portion = s["portion"]
        classes = f"slice kind-{_e(s['letter'])}"
        if s["taken"]:
            classes += " taken"
        if s.get("last_move"):
            classes += " last-move"
        if portion is not None:
            classes += f" in-portion portion-{_e(portion)}"
        attrs = (
            f'class="{classes}" data-slice-id="{_e(s["id"])}" data-position="{_e(s["position"])}"'
            f' data-label="{_e(s["label"])}"'
        )
        if portion is not None:
            attrs += f' data-portion="{_e(portion)}"'
        olives = "".join(
            f'<circle class="olive" cx="{_e(x)}" cy="{_e(y)}" r="3.4"/>' for x, y in s["olives_xy"]
        )
        medallion = ""
        if s["finisher"]:
            x, y = _e(s["medallion_xy"][0]), _e(s["medallion_xy"][1])
            medallion = (
                f'<circle class="medallion" cx="{x}" cy="{y}" r="8"/>'
                f'<text class="medallion-star" x="{x}" y="{y}" aria-hidden="true">★</text>'
            )
        code_x, code_y = s["code_xy"]
        position_x, position_y = s["position_xy"]
        out.append(
            f"\n  <g {attrs}>\n"
            f"    <title>{_e(s['title'])}</title>\n"
            f'    <path class="wedge" d="{_e(s["d"])}"/>\n'
            f"    {olives}\n"
            f"    {medallion}\n"
            f'    <text class="code" x="{_e(code_x)}" y="{_e(code_y)}" aria-hidden="true">'
            f"{_e(s['short'])}</text>\n"
            f'    <text class="position" x="{_e(position_x)}" y="{_e(position_y)}" '
            f'aria-hidden="true">{_e(s["position"])}</text>\n'
            "  </g>\n  "
        )
    out.append("\n  ")
    for p in board["portions"]:
        index = p["index"]
        taken = " taken" if p["taken_by"] is not None else ""
        if p["taken_by_name"]:
            title = _t(
                gettext_noop("Portion %(index)s, taken by %(player)s"),
                index=index,
                player=p["taken_by_name"],
            )
        else:
            title = _t(gettext_noop("Portion %(index)s, free"), index=index)
        label_x, label_y = _e(p["label_xy"][0]), _e(p["label_xy"][1])
        out.append(
            f'\n  <g class="portion portion-{_e(index)}{taken}" data-portion="{_e(index)}">\n'
            f"    <title>{title}</title>\n"
            f'    <path class="band" d="{_e(p["band"])}"/>\n'
            f'    <line class="cut-line" x1="0" y1="0" x2="{_e(p["cut_xy"][0])}" '
            f'y2="{_e(p["cut_xy"][1])}"/>\n'
            f'    <circle class="portion-badge" cx="{label_x}" cy="{label_y}" r="11"/>\n'
            f'    <text class="portion-label" x="{label_x}" y="{label_y}" aria-hidden="true">'
            f"{_e(index)}</text>\n"
            "  </g>\n  "
        )
    out.append("\n</svg>")
    return SafeString("".join(out))


# --- Pizza Party ----------------------------------------------------------------------------------
@register.filter
def hexes_svg(game: dict[str, Any]) -> SafeString:
    """The hex grid, its cut lines and the axis ticks (``presenters.pizza_party._board``)."""
    board = game["board"]
    duel = " duel" if game.get("duel") else ""
    out = [
        f'<svg class="hexes{duel} phase-{_e(game.get("phase", ""))}" '
        f'viewBox="{_e(board["view_box"])}" role="img" aria-labelledby="hexes-title">\n'
        f'  <title id="hexes-title">{_e(board["title"])}</title>\n  '
    ]
    for c in board["cells"]:
        colour = c["colour"]
        classes = "cell"
        if c["part"] is not None:
            classes += f" part-{_e(c['part'])}"
        if c["won_by"] is not None:
            classes += f" won-by seat-{_e(c['won_by'])}"
            if c["won_by_neutral"]:
                classes += " neutral"
        if c["removed"]:
            classes += " removed"
        if c["filled"]:
            classes += " filled"
        if c.get("last_move"):
            classes += " last-move"
        data_colour = f' data-colour="{_e(colour)}"' if colour is not None else ""
        cx, cy = _e(c["cx"]), _e(c["cy"])
        mark = (
            f'<path class="start-mark seat-{_e(c["start_of"])}" d="{_e(c["mark"])}"/>'
            if c["mark"]
            else ""
        )
        topping = ""
        if colour is not None:
            neutral = " neutral" if c["neutral"] else ""
            topping = (
                f'<circle class="topping seat-{_e(colour)}{neutral}" cx="{cx}" cy="{cy}" r="10"/>'
            )
        ring = f'<circle class="filled-ring" cx="{cx}" cy="{cy}" r="14"/>' if c["filled"] else ""
        removed = ""
        if c["removed"] and colour is None:
            removed = f'<path class="removed-mark" d="M{cx} {cy} m-6 -6 l12 12 m0 -12 l-12 12"/>'
        out.append(
            f'\n  <g class="{classes}" data-cell="{_e(c["q"])},{_e(c["r"])}"{data_colour}>\n'
            f"    <title>{_e(c['title'])}</title>\n"
            f'    <polygon class="hex" points="{_e(c["points"])}"/>\n'
            f"    {mark}\n"
            f"    {topping}\n"
            f"    {ring}\n"
            f"    {removed}\n"
            "  </g>\n  "
        )
    out.append("\n  ")
    for t in board["ticks"]:
        neutral = " neutral" if t["neutral"] else ""
        marks = "".join(
            f'<line class="candidate" x1="{_e(m["x1"])}" y1="{_e(m["y1"])}" x2="{_e(m["x2"])}" '
            f'y2="{_e(m["y2"])}"/><circle class="tick" cx="{_e(m["tx"])}" cy="{_e(m["ty"])}" '
            f'r="7"/><text x="{_e(m["tx"])}" y="{_e(m["ty"])}" aria-hidden="true">'
            f"{_e(m['n'])}</text>"
            for m in t["marks"]
        )
        out.append(
            f'\n  <g class="axis-ticks seat-{_e(t["seat"])}{neutral}" data-seat="{_e(t["seat"])}">\n'
            f"    {marks}\n"
            "  </g>\n  "
        )
    out.append("\n  ")
    for line in board["lines"]:
        neutral = " neutral" if line["neutral"] else ""
        out.append(
            f'\n  <line class="cut-line seat-{_e(line["seat"])}{neutral}" x1="{_e(line["x1"])}" '
            f'y1="{_e(line["y1"])}" x2="{_e(line["x2"])}" y2="{_e(line["y2"])}" '
            f'data-seat="{_e(line["seat"])}" data-line="{_e(line["n"])}"/>\n  '
        )
    out.append("\n</svg>")
    return SafeString("".join(out))


# --- Café Fatal -----------------------------------------------------------------------------------
_FOOD_PIECES = {
    "cheese": '<path class="piece" d="M{x} {y} m-10 7 l10 -15 l10 15 z"/>',
    "pizza": '<circle class="piece" cx="{x}" cy="{y}" r="9.5"/>'
    '<circle class="topping" cx="{x}" cy="{y}" r="2.8"/>',
}
_OTHER_FOOD = (
    '<rect class="piece" x="{x}" y="{y}" width="18" height="15" transform="translate(-9 -7.5)" '
    'rx="3"/>'
)


@register.filter
def cafe_svg(game: dict[str, Any]) -> SafeString:
    """The café's tables with their food and dice (``presenters.cafe_fatal._table``)."""
    board = game["board"]
    tables = board["tables"]
    out = [
        f'<svg class="cafe layout-{_e(game.get("layout", ""))}" viewBox="{_e(board["view_box"])}" '
        f'role="img" aria-labelledby="cafe-title" data-tables="{len(tables)}">\n'
        f'  <title id="cafe-title">{_e(board["title"])}</title>\n  '
    ]
    for t in tables:
        leader = t["leader"]
        classes = "cafe-table"
        if leader is not None:
            classes += f" led-by seat-{_e(leader)}"
        if t.get("last_move"):
            classes += " last-move"
        data_leader = f' data-leader="{_e(leader)}"' if leader is not None else ""
        flag = ""
        if t["taken_by"] is not None:
            seat = _e(t["taken_by"])
            flag = (
                f'<circle class="taken-flag seat-{seat}" cx="{_e(t["flag_x"])}" '
                f'cy="{_e(t["flag_y"])}" r="7" data-seat="{seat}"/>'
            )
        size, die = _e(t["size"]), _e(t["die"])
        out.append(
            f'\n  <g class="{classes}" data-table="{_e(t["table"])}"{data_leader}>\n'
            f"    <title>{_e(t['title'])}</title>\n"
            f'    <rect class="cloth" x="{_e(t["x"])}" y="{_e(t["y"])}" width="{size}" '
            f'height="{size}" rx="16"/>\n'
            f'    <text class="table-number" x="{_e(t["label_x"])}" y="{_e(t["label_y"])}" '
            f'aria-hidden="true">{_e(t["table"])}</text>\n'
            f"    {flag}\n    "
        )
        for f in t["food"]:
            sort, count, x, y = _e(f["sort"]), _e(f["count"]), _e(f["x"]), _e(f["y"])
            piece = _FOOD_PIECES.get(f["sort"], _OTHER_FOOD).format(x=x, y=y)
            out.append(
                f'\n    <g class="food food-{sort}" data-sort="{sort}" data-count="{count}">\n'
                f"      {piece}\n"
                f'      <text class="count" x="{_e(f["text_x"])}" y="{y}" aria-hidden="true">'
                f"{count}</text>\n"
                "    </g>\n    "
            )
        out.append("\n    ")
        for d in t["dice"]:
            seat, value, count, cy = _e(d["seat"]), _e(d["value"]), _e(d["count"]), _e(d["cy"])
            out.append(
                f'\n    <g class="die seat-{seat}" data-seat="{seat}" data-value="{value}" '
                f'data-count="{count}">\n'
                f'      <rect x="{_e(d["x"])}" y="{_e(d["y"])}" width="{die}" height="{die}" '
                'rx="3"/>\n'
                f'      <text class="value" x="{_e(d["cx"])}" y="{cy}" aria-hidden="true">'
                f"{value}</text>\n"
                f'      <text class="count" x="{_e(d["text_x"])}" y="{cy}" aria-hidden="true">'
                f"×{count}</text>\n"
                "    </g>\n    "
            )
        out.append("\n  </g>\n  ")
    out.append("\n</svg>")
    return SafeString("".join(out))


def _translated(message: str) -> str:
    """A ``{% translate "…" %}``: the translation of a literal, which Django marks safe (not
    escaped: "l'instant" stays as written)."""
    return gettext(message)


def _t_plural(translate: Callable[[], str], count: int, **values: Any) -> str:
    """A ``{% blocktranslate … count counter=… %}``: ``translate`` calls ``ngettext`` with the
    literal messages (so that makemessages finds them) and is called again in English when a
    translation broke its placeholders, as the tag does."""
    data = {key: _e(value) for key, value in values.items()}
    data["counter"] = _e(count)
    try:
        return translate() % data
    except (KeyError, ValueError):
        # In English: Django's catalogs, not what is kept for the language being written.
        with translation.override(None), not_kept():
            return translate() % data


# --- La Part du Chef: the standings, the kept slices, the marks laid over the pizza -------------
@register.filter
def pdc_standings(game: dict[str, Any]) -> SafeString:
    """The standings' rows (``presenters.part_du_chef._player``)."""
    chef = _translated(gettext_noop("chef"))
    marianne = _translated(gettext_noop("La Marianne"))
    out = []
    for p in game["players"]:
        badges = f' <span class="badge">{chef}</span>' if p["is_chef"] else ""
        if p["holds_marianne"]:
            badges += f' <span class="badge">{marianne}</span>'
        counts = "".join(f"<td>{_e(c['count'])}</td>" for c in p["counts"])
        cells = [f"<td>{_e(p[key])}</td>" for key in PDC_COLUMNS]
        out.append(
            _standings_row(
                f' data-seat="{_e(p["seat"])}"',
                f"{_e(p['name'])}{badges}",
                [counts, *cells, _points_cell(p["points"])],
            )
        )
    return SafeString("".join(out))


#: The standings' columns after the kinds, in La Part du Chef's table.
PDC_COLUMNS = ("chillies", "burnt", "eaten", "olives", "slice_points")


def _standings_row(attributes: str, head: str, cells: list[str]) -> str:
    """A row of a standings table as the templates wrote it: the player's heading, then one
    line per cell (or run of cells)."""
    lines = "".join(f"      {cell}\n" for cell in cells)
    return f'\n    <tr{attributes}>\n      <th scope="row">{head}</th>\n{lines}    </tr>\n    '


def _points_cell(points: Any) -> str:
    return f'<td class="points" data-testid="points">{_e(points)}</td>'


@register.filter
def pdc_kept(game: dict[str, Any]) -> SafeString:
    """What each player keeps, by kind (``presenters.part_du_chef._player``'s groups)."""
    out = []
    for p in game["players"]:
        groups = "".join(
            f'\n    <span class="group"><span class="chip kind-{_e(g["letter"])}">'
            f"{_e(g['name'])} × {_e(g['count'])}</span> ("
            + ", ".join(
                f'<span class="kept-slice" data-slice-id="{_e(s["id"])}">{_e(s["label"])}</span>'
                for s in g["slices"]
            )
            + ")</span>\n    "
            for g in p["groups"]
        ) or (_translated(gettext_noop("nothing yet")) + "\n    ")
        keeps = _t(gettext_noop("%(player)s keeps:"), player=p["name"])
        out.append(
            f'\n  <li data-seat="{_e(p["seat"])}"><strong>{keeps}</strong>\n    {groups}\n  </li>\n  '
        )
    return SafeString("".join(out))


def _box_style(box: dict[str, Any]) -> str:
    size = _e(box["size"])
    return f"left:{_e(box['left'])}%;top:{_e(box['top'])}%;width:{size}%;height:{size}%"


@register.filter
def pdc_targets(moves: dict[str, Any] | None) -> SafeString:
    """The cut marks on the rim, or the portions' badges and bite marks, of the seat to move
    (``presenters.part_du_chef._cut_form``, ``_take_form``)."""
    if not moves:
        return SafeString("")
    out = []
    if moves.get("cut_form"):
        for m in moves["cut_form"]["marks"]:
            position = _e(m["position"])
            out.append(
                f'\n<label class="target cut-mark" style="{_box_style(m["box"])}" '
                f'data-position="{position}" data-testid="cut-{position}"><input type="checkbox" '
                f'name="cut" value="{position}" form="cut-form"><span class="sr-only">'
                f"{_e(m['label'])}</span></label>\n"
            )
    elif moves.get("take_form"):
        for p in moves["take_form"]["portions"]:
            index = _e(p["index"])
            summary = _t(
                gettext_noop("Portion %(index)s: %(slices)s"), index=p["index"], slices=p["summary"]
            )
            out.append(
                f'\n<label class="target portion-mark portion-{index}" '
                f'style="{_box_style(p["box"])}" data-portion="{index}" '
                f'data-testid="portion-{index}"><input type="radio" name="take" value="{index}" '
                'form="take-form" required><span class="mark-number" aria-hidden="true">'
                f'{index}</span><span class="sr-only">{summary}</span></label>\n'
            )
            for s in p["edible"]:
                olives = s["olives"]
                eat = _t_plural(
                    lambda olives=olives: ngettext(
                        "Eat %(slice)s (%(counter)s olive)",
                        "Eat %(slice)s (%(counter)s olives)",
                        olives,
                    ),
                    olives,
                    slice=s["label"],
                )
                out.append(
                    f'\n<label class="target bite-mark" style="{_box_style(s["box"])}" '
                    f'data-portion="{index}" data-slice-id="{_e(s["id"])}" '
                    f'data-testid="eat-{_e(s["id"])}"><input type="checkbox" name="eat" '
                    f'value="{_e(s["value"])}" form="take-form"><span class="sr-only">{eat}'
                    "</span></label>\n"
                )
            out.append("\n")
    else:
        return SafeString("")
    return SafeString("\n" + "".join(out) + "\n")


@register.filter
def pdc_portions(board: dict[str, Any]) -> SafeString:
    """The portions of the cut pizza, their slices and who took each (``_board``'s portions)."""
    out = []
    for portion in board["portions"]:
        index = _e(portion["index"])
        labels = ", ".join(_e(s["label"]) for s in portion["slices"])
        if portion["taken_by_name"]:
            taken = _t(gettext_noop("taken by %(player)s"), player=portion["taken_by_name"])
        else:
            taken = _translated(gettext_noop("free"))
        heading = _t(gettext_noop("Portion %(index)s"), index=portion["index"])
        out.append(
            f'\n  <li class="portion-item portion-{index}" data-portion="{index}">\n'
            f"    <strong>{heading}</strong>:\n"
            f"    {labels}\n"
            f"    — {taken}\n"
            "  </li>\n  "
        )
    return SafeString("".join(out))


# --- Café Fatal: the standings ---------------------------------------------------------------------
@register.filter
def cafe_standings(game: dict[str, Any]) -> SafeString:
    """The standings' rows (``presenters.cafe_fatal``'s players), the player to move marked."""
    to_move = gettext("to move")
    out = []
    for p in game["players"]:
        seat = _e(p["seat"])
        badge = f' <span class="badge turn">{to_move}</span>' if p["to_move"] else ""
        held = "".join(f"<td>{_e(h['count'])}</td>" for h in p["held"])
        moving = ' class="to-move"' if p["to_move"] else ""
        dot = f'<span class="seat-dot seat-{seat}" aria-hidden="true"></span>'
        cells = [
            f'<td data-testid="dice-left">{_e(p["remaining"])}</td>',
            held,
            f"<td>{_e(p['sets'])}</td>",
            f"<td>{_e(p['loose'])}</td>",
            _points_cell(p["score"]),
        ]
        out.append(
            _standings_row(f' data-seat="{seat}"{moving}', f"{dot}{_e(p['name'])}{badge}", cells)
        )
    return SafeString("".join(out))


# --- Pizza Party: the last cut and the legend ------------------------------------------------------
@register.filter
def pizza_party_info(game: dict[str, Any]) -> SafeString:
    """What the board means (``pizza-party/table.html#info``): the cut that ended the last round,
    then the legend of the colours and marks. Shared by every viewer of a version."""
    cut = game.get("last_cut")
    colours = "".join(
        f'<li data-seat="{_e(c["seat"])}"><span class="seat-dot seat-{_e(c["seat"])}'
        f'{" neutral" if c["neutral"] else ""}" aria-hidden="true"></span>{_e(c["name"])}</li>'
        for c in game["colours"]
    )
    marks = ""
    if cut:
        # Not inside the f-strings: makemessages does not find messages there.
        won = gettext("A part won at the cut, in its winner's colour")
        filled = gettext("Taken over at the cut")
        removed = gettext("Removed at the cut")
        marks = (
            f'<li><span class="swatch won-swatch" aria-hidden="true"></span>{won}</li>'
            f'<li><span class="swatch filled-swatch" aria-hidden="true"></span>{filled}</li>'
            f'<li><span class="swatch removed-swatch" aria-hidden="true">×</span>{removed}</li>'
        )
    start = gettext("Start marks")
    return SafeString(
        (_last_cut_section(cut) if cut else "") + f'\n<ul class="legend">\n  {colours}\n'
        f'  <li><span class="swatch start-swatch" aria-hidden="true">×</span>{start}</li>\n'
        f"  {marks}\n</ul>"
    )


def _last_cut_section(cut: dict[str, Any]) -> str:
    """The picks of the last cut, the parts its lines made, who won what, what was removed."""
    picks = "".join(_pick_item(p) for p in cut["picks"])
    made = _t_plural(
        lambda: ngettext(
            "The lines made %(counter)s part.", "The lines made %(counter)s parts.", cut["parts"]
        ),
        cut["parts"],
    )
    gains = "".join(
        _t_plural(
            lambda g=g: ngettext(
                "%(player)s won a part and took over %(counter)s cell.",
                "%(player)s won parts and took over %(counter)s cells.",
                g["count"],
            ),
            g["count"],
            player=g["name"],
        )
        + " "
        for g in cut["gains"]
    )
    removed = cut["removed_count"]
    if removed:
        replaced = _t_plural(
            lambda: ngettext(
                "%(counter)s topping was removed.", "%(counter)s toppings were removed.", removed
            ),
            removed,
        )
    else:
        replaced = gettext("Nothing was replaced.")
    title = _t(gettext_noop("The cut of round %(number)s"), number=cut["round_number"])
    return (
        '\n<section class="last-cut" aria-labelledby="last-cut-title" data-testid="last-cut">\n'
        f'  <h3 id="last-cut-title">{title}</h3>\n'
        f'  <ul class="picks">\n    {picks}\n  </ul>\n'
        f"  <p>{made}\n  {gains}\n  {replaced}</p>\n</section>\n"
    )


def _pick_item(p: dict[str, Any]) -> str:
    if p["neutral"]:
        text = _t(
            gettext_noop("Neutral colour's die: %(pick)s (along %(axis)s)"),
            axis=p["axis_name"],
            pick=p["pick"],
        )
    else:
        text = _t(
            gettext_noop("%(player)s picked %(pick)s (along %(axis)s)"),
            player=p["name"],
            axis=p["axis_name"],
            pick=p["pick"],
        )
    neutral = " neutral" if p["neutral"] else ""
    return (
        f'<li data-seat="{_e(p["seat"])}"><span class="seat-dot seat-{_e(p["seat"])}{neutral}" '
        f'aria-hidden="true"></span>{text}</li>'
    )


# --- each game's board part (``templates/games/<slug>/table.html#board``) ---------------------------
def _joined(items: list[Any]) -> SafeString:
    """``items|join:", "``: each escaped, marked safe for a blocktranslate."""
    return SafeString(", ".join(_e(item) for item in items))


@register.simple_tag(takes_context=True)
def pdc_board(context: Any) -> SafeString:
    """La Part du Chef's board part: the pizza, how the previous one was shared, and the
    chillies' step once every pizza is shared out."""
    game = context.get("game") or {}
    pizza = f"\n{pizza_svg(game['board'])}\n\n" if game.get("board") else ""
    previous = _previous_pizza(game["previous"]) if game.get("previous") else ""
    chillies = ""
    if game.get("chillies") and not game.get("board"):
        chillies = _chilli_step(game["chillies"])
    return SafeString(f"\n{pizza}\n{previous}\n{chillies}\n")


def _previous_pizza(previous: dict[str, Any]) -> str:
    wedges = "".join(_wedge(w) for w in previous["wedges"])
    title = _t(gettext_noop("How pizza %(number)s was shared"), number=previous["number"])
    shares = "".join(_share_item(share) for share in previous["shares"])
    return (
        '\n<section class="round-summary" aria-labelledby="previous-title" '
        'data-testid="previous-pizza">\n'
        '  <svg class="mini-pizza" viewBox="-135 -135 270 270" aria-hidden="true">'
        f"{wedges}</svg>\n"
        f'  <h3 id="previous-title">{title}</h3>\n'
        f"  <ul>\n    {shares}\n  </ul>\n</section>\n"
    )


def _wedge(w: dict[str, Any]) -> str:
    owner = "" if w.get("seat") is None else f" owner-{_e(w['seat'])}"
    eaten = " eaten" if w.get("eaten") else ""
    return f'<path class="wedge{owner}{eaten}" d="{_e(w["d"])}"/>'


def _share_item(share: dict[str, Any]) -> str:
    kept, eaten = share.get("kept"), share.get("eaten")
    keeps = _t(gettext_noop("keeps %(slices)s"), slices=_joined(kept)) if kept else ""
    ate = _t(gettext_noop("ate %(slices)s"), slices=_joined(eaten)) if eaten else ""
    seat = _e(share["seat"])
    return (
        f'<li data-seat="{seat}"><span class="seat-dot seat-{seat}" aria-hidden="true"></span>'
        f"<strong>{_e(share['name'])}</strong>: {keeps}{'; ' if kept and eaten else ''}{ate}</li>"
    )


def _chilli_step(step: dict[str, Any]) -> str:
    title = gettext("The chillies")
    rule = gettext(
        "Each chilli counts for the kind its holder chooses. The holders choose at the same "
        "time and in secret."
    )
    holders = "".join(_chilli_holder(h) for h in step["holders"])
    return (
        '\n<section class="chilli-step" aria-labelledby="chilli-title" data-testid="chilli-step">\n'
        f'  <h2 id="chilli-title">{title}</h2>\n'
        f"  <p>{rule}</p>\n"
        f"  <ul>\n    {holders}\n  </ul>\n</section>\n"
    )


def _chilli_holder(h: dict[str, Any]) -> str:
    held = _t_plural(
        lambda: ngettext("%(counter)s chilli", "%(counter)s chillies", h["held"]), h["held"]
    )
    if h.get("assignment"):
        choice = _t(
            gettext_noop("%(player)s: %(choice)s"), player=h["name"], choice=h["assignment"]
        )
    elif h.get("chosen"):
        choice = _t(gettext_noop("%(player)s: has chosen"), player=h["name"])
    else:
        choice = _t(gettext_noop("%(player)s: choosing…"), player=h["name"])
    return (
        f'\n    <li data-seat="{_e(h["seat"])}"><span class="chip kind-C">{held}</span>\n'
        f"      {choice}</li>\n    "
    )


@register.simple_tag(takes_context=True)
def pizza_party_board(context: Any) -> SafeString:
    return SafeString(f"\n\n{hexes_svg(context['game'])}\n\n")


@register.simple_tag(takes_context=True)
def cafe_board(context: Any) -> SafeString:
    return SafeString(f"\n\n{cafe_svg(context['game'])}\n\n")
