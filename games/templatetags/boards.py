"""The boards of the three games as SVG, written in Python (issue 10: a board is most of what a
move's pushes render, and the template engine spent ~1 ms on each, resolving a few hundred
variables and tags per pizza, hex grid or café). Each filter writes exactly what the template
that it replaces wrote, byte for byte (``tests/site/test_render_corpus.py``), from the same
presenter data; translations are the same msgids, through ``gettext``.

Values are escaped as Django's autoescape does (``html.escape``); numbers come from the
presenters already as text that is never localized (``presenters.base.number``) or as ints.
"""

from __future__ import annotations

from html import escape
from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

register = template.Library()


def _e(value: Any) -> str:
    """A value as the template wrote it: text escaped, ints as digits."""
    return escape(value) if isinstance(value, str) else escape(str(value))


def _t(message: str, **values: Any) -> str:
    """A ``{% blocktranslate with … %}`` without a plural: the translation with its values
    escaped (a translation whose placeholders broke falls back to the English)."""
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
                "Portion %(index)s, taken by %(player)s", index=index, player=p["taken_by_name"]
            )
        else:
            title = _t("Portion %(index)s, free", index=index)
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
    return mark_safe("".join(out))
