"""La Part du Chef at the table: the pizza of the round drawn as 13 wedges with its olives,
finishers and portions; the cut, take, La Marianne and chilli forms; kept slices and points.

Everything comes from the engine's views: ``view["pizzas"]`` holds only the pizzas whose round
has come, so a slice of a later pizza cannot be named here.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from django.http import QueryDict

from ..engines.base import Move, gettext_noop
from ..engines.part_du_chef import KIND_NAMES, KINDS, MAJORITY_VALUE, SLICES_PER_PIZZA
from ..translations import gettext as _
from ..translations import language, ngettext
from .base import MoveFormError, Presenter, action_of, number, whole_number
from .registry import register

#: Kind letters in display order, chillies and burnt slices last.
DISPLAY_ORDER = (*KINDS, "C", "B")

# --- the pizza's geometry (SVG user units; the viewBox is -180 -180 360 360) ---------------------
# Pure functions of a few positions, asked again for every version: remembered (their results are
# shared, never changed).
RADIUS = 130.0
MEDALLION_AT = 0.27
OLIVES_AT = 0.45
CODE_AT = 0.66
ID_AT = 0.87
POSITION_AT = 1.1
PORTION_LABEL_AT = 1.25
BAND_AT = 1.035
OLIVE_SPREAD_DEGREES = 6.5


#: The controls laid over the pizza (in SVG units): cut marks on the rim between two slices,
#: a portion's badge, and a bite mark on each slice that may be eaten.
VIEW = 360.0
CUT_MARK_AT = 1.14
CUT_MARK_SIZE = 30.0
PORTION_MARK_SIZE = 34.0
BITE_AT = 0.6
BITE_SIZE = 28.0


def _angle(position: float) -> float:
    """The angle (radians) of a position's start edge: position 0 starts at the top, clockwise."""
    return math.radians(-90 + position * 360 / SLICES_PER_PIZZA)


def _point(angle: float, radius: float) -> tuple[str, str]:
    return number(radius * math.cos(angle)), number(radius * math.sin(angle))


@lru_cache(maxsize=4096)
def wedge_path(position: int, radius: float = RADIUS) -> str:
    """An SVG path for the wedge at ``position``: centre, rim arc, back to the centre."""
    x1, y1 = _point(_angle(position), radius)
    x2, y2 = _point(_angle(position + 1), radius)
    r = number(radius)
    return f"M0 0 L{x1} {y1} A{r} {r} 0 0 1 {x2} {y2} Z"


@lru_cache(maxsize=4096)
def arc_path(first: int, length: int, radius: float) -> str:
    """An open arc along the rim over ``length`` positions starting at ``first``."""
    x1, y1 = _point(_angle(first) + 0.03, radius)
    x2, y2 = _point(_angle(first + length) - 0.03, radius)
    large = 1 if length * 360 / SLICES_PER_PIZZA > 180 else 0
    r = number(radius)
    return f"M{x1} {y1} A{r} {r} 0 {large} 1 {x2} {y2}"


@lru_cache(maxsize=4096)
def overlay_box(angle: float, radius: float, size: float) -> dict[str, str]:
    """Where a control laid over the pizza sits, as percentages of the drawing's box (the
    viewBox is square, -180 to 180): centred on the point at ``angle`` and ``radius``."""
    x = radius * math.cos(angle) + VIEW / 2
    y = radius * math.sin(angle) + VIEW / 2
    return {
        "left": number(100 * (x - size / 2) / VIEW, 3),
        "top": number(100 * (y - size / 2) / VIEW, 3),
        "size": number(100 * size / VIEW, 3),
    }


@lru_cache(maxsize=4096)
def slice_geometry(position: int, olives: int) -> dict[str, Any]:
    middle = _angle(position + 0.5)
    spread = math.radians(OLIVE_SPREAD_DEGREES)
    return {
        "d": wedge_path(position),
        "code_xy": _point(middle, CODE_AT * RADIUS),
        "id_xy": _point(middle, ID_AT * RADIUS),
        "position_xy": _point(middle, POSITION_AT * RADIUS),
        "medallion_xy": _point(middle, MEDALLION_AT * RADIUS),
        "olives_xy": [
            _point(middle + (k - (olives - 1) / 2) * spread, OLIVES_AT * RADIUS)
            for k in range(olives)
        ],
    }


@lru_cache(maxsize=4096)
def portion_geometry(first: int, length: int) -> dict[str, Any]:
    return {
        "band": arc_path(first, length, BAND_AT * RADIUS),
        "label_xy": _point(_angle(first + length / 2), PORTION_LABEL_AT * RADIUS),
        "cut_xy": _point(_angle(first), RADIUS * 1.06),
    }


# --- slices ------------------------------------------------------------------------------------
def revealed_codes(view: dict[str, Any]) -> dict[int, str]:
    """Slice id → code for the pizzas the view reveals (and only those)."""
    return {
        SLICES_PER_PIZZA * k + position: code
        for k, pizza in enumerate(view["pizzas"])
        for position, code in enumerate(pizza)
    }


def describe_slice(slice_id: int, code: str | None) -> dict[str, Any]:
    """What a slice is, for drawings, lists and form labels (shared: never change it)."""
    return _describe_slice(slice_id, code, language())


@lru_cache(maxsize=4096)
def _describe_slice(slice_id: int, code: str | None, language: str | None) -> dict[str, Any]:
    # Remembered per language: a version's contexts describe every slice in sight again.
    if code is None:  # not revealed to this viewer (never expected for kept or eaten slices)
        return {
            "id": slice_id,
            "position": slice_id % SLICES_PER_PIZZA,
            "letter": "X",
            "kind": None,
            "olives": 0,
            "finisher": False,
            "edible": False,
            "short": "?",
            "name": _("Unknown slice"),
            "label": "?",
            "title": _("Unknown slice"),
        }
    finisher = code.endswith("*")
    base = code.rstrip("*")
    letter = base[0]
    kind = letter if letter in KINDS else None
    olives = int(base[1]) if kind and len(base) > 1 else 0
    if kind:
        name = _(KIND_NAMES[kind])
        short = base
    elif letter == "C":
        name, short = _("Chilli"), _("Chilli")
    else:
        name, short = _("Burnt slice"), _("Burnt")
    details = [name]
    if kind:
        details.append(ngettext("%(count)d olive", "%(count)d olives", olives) % {"count": olives})
    if finisher:
        details.append(_("double finisher"))
    star = "★" if finisher else ""
    return {
        "id": slice_id,
        "position": slice_id % SLICES_PER_PIZZA,
        "letter": letter,
        "kind": kind,
        "olives": olives,
        "finisher": finisher,
        "edible": kind is not None,
        "short": short,
        "name": name,
        "label": f"{short}{star}",
        "title": ", ".join(str(d) for d in details),
    }


class PartDuChefPresenter(Presenter):
    slug = "part-du-chef"
    result_caption = gettext_noop(
        "Total = olives + slice points + majorities + variety + burnt slices. "
        "Equal totals share a rank."
    )

    # --- what everyone sees --------------------------------------------------------------------
    def game_context(self, view: dict[str, Any], names: list[str]) -> dict[str, Any]:
        codes = revealed_codes(view)

        def slice_info(slice_id: int) -> dict[str, Any]:
            return describe_slice(slice_id, codes.get(slice_id))

        to_move = list(view["to_move"])
        chef = view["chef"]
        marianne = view.get("marianne")
        holder = marianne["holder"] if marianne and marianne["in_play"] else None
        kept_by_seat = {
            entry["seat"]: [slice_info(i) for i in entry["kept"]] for entry in view["seats"]
        }
        return {
            "phase": view["phase"],
            "round_number": view["round"] + 1 if view["round"] is not None else None,
            "rounds": view["rounds"],
            "chef": chef,
            "chef_name": names[chef] if chef is not None else None,
            "to_move_names": [names[s] for s in to_move],
            "players_count": view["players"],
            "marianne": marianne,
            "marianne_holder": holder,
            "marianne_holder_name": names[holder] if holder is not None else None,
            "board": _board(view, names, slice_info) if view["round"] is not None else None,
            "players": [
                _player(entry, names, kept_by_seat[entry["seat"]], view) for entry in view["seats"]
            ],
            "kept_by_seat": kept_by_seat,
            "kinds": _kinds(),
            "chillies": _chilli_step(view, names),
            "previous": _previous_pizza(view, names),
        }

    # --- what one seat adds ----------------------------------------------------------------------
    def seat_context(
        self, view: dict[str, Any], game: dict[str, Any], you: int, names: list[str]
    ) -> dict[str, Any]:
        context: dict[str, Any] = {
            "cut_form": None,
            "take_form": None,
            "marianne_form": None,
            "chilli_form": None,
            "your_chillies": None,
        }
        step = view["chillies"]
        if step is not None and step["assignments"][you] is not None:
            context["your_chillies"] = assignment_phrase(step["assignments"][you])
        if you not in view["to_move"]:
            return context
        if view["phase"] == "chillies":
            context["chilli_form"] = _chilli_form(view, you)
            return context
        codes = revealed_codes(view)
        if view["phase"] == "cut":
            context["cut_form"] = _cut_form(view["players"], game["board"]["slices"])
        elif view["phase"] == "take":
            context["take_form"] = _take_form(view, names, you, codes, game["kept_by_seat"])
        if game["marianne_holder"] == you:
            context["marianne_form"] = _marianne_form(names, you, game["kept_by_seat"])
        return context

    def mark_last_move(self, game: dict[str, Any], seat: int, move: Move) -> bool:
        board = game["board"]
        if board is None or not isinstance(move, dict) or "take" not in move:
            return True  # a cut is drawn by its lines; a new pizza has no last move on it
        for s in board["slices"]:
            s["last_move"] = s["portion"] == move["take"]
        return True

    # --- forms → moves ----------------------------------------------------------------------------
    def move_from_post(self, data: QueryDict) -> Move:
        action = action_of(data, ("cut", "take", "marianne", "chillies"))
        if action == "chillies":
            # One choice per chilli (chilli_1, chilli_2, …), counted per kind.
            kinds = [data[key] for key in sorted(data) if key.startswith("chilli_")]
            if not kinds:
                raise MoveFormError(_("Choose a kind for each of your chillies."))
            counts: dict[str, int] = {}
            for kind in kinds:
                counts[kind] = counts.get(kind, 0) + 1
            return {"chillies": counts}
        if action == "cut":
            positions = [
                whole_number(p, _("Start positions are numbers.")) for p in data.getlist("cut")
            ]
            return {"cut": sorted(positions)}
        if action == "take":
            return _take_from_post(data)
        return {"marianne": _marianne_from_post(data)}


def _previous_pizza(view: dict[str, Any], names: list[str]) -> dict[str, Any] | None:
    """How the last pizza was shared, shown on the board until the chef cuts the next one (or
    at the end): who has each of its slices now, and who ate which."""
    k = view["round"] - 1 if view["round"] is not None else len(view["pizzas"]) - 1
    if k < 0 or view["cut"] or k >= len(view["pizzas"]):
        return None
    codes = revealed_codes(view)
    base = SLICES_PER_PIZZA * k
    owner: dict[int, tuple[int, bool]] = {}
    for entry in view["seats"]:
        for slice_id in entry["kept"]:
            owner[slice_id] = (entry["seat"], False)
        for slice_id in entry["eaten"]:
            owner[slice_id] = (entry["seat"], True)
    wedges, shares = [], {}
    for position in range(SLICES_PER_PIZZA):
        slice_id = base + position
        info = describe_slice(slice_id, codes.get(slice_id))
        seat, eaten = owner.get(slice_id, (None, False))
        wedges.append({"d": wedge_path(position), "seat": seat, "eaten": eaten})
        if seat is not None:
            share = shares.setdefault(seat, {"kept": [], "eaten": []})
            share["eaten" if eaten else "kept"].append(info["label"])
    return {
        "number": k + 1,
        "wedges": wedges,
        "shares": [
            {"seat": seat, "name": names[seat], **share} for seat, share in sorted(shares.items())
        ],
    }


def _kinds() -> list[dict[str, Any]]:
    return [{"letter": k, "name": _(KIND_NAMES[k]), "value": MAJORITY_VALUE[k]} for k in KINDS]


def assignment_phrase(assignment: dict[str, int]) -> str:
    """ "2 × Truffe, 1 × Reine": where chillies count, in the kinds' order (not the stored
    object's: PostgreSQL's jsonb keeps its keys in an order of its own)."""
    return ", ".join(
        f"{assignment[kind]} × {_(KIND_NAMES[kind])}" for kind in KINDS if assignment.get(kind)
    )


def _chilli_step(view: dict[str, Any], names: list[str]) -> dict[str, Any] | None:
    """Who keeps chillies and who has chosen; the choices once the last is in (the view of a
    spectator holds them only then)."""
    step = view["chillies"]
    if step is None:
        return None
    holders = [
        {
            "seat": seat,
            "name": names[seat],
            "held": held,
            "chosen": step["chosen"][seat],
            "assignment": (
                assignment_phrase(step["assignments"][seat])
                if step["assignments"][seat] is not None
                else None
            ),
        }
        for seat, held in enumerate(step["held"])
        if held
    ]
    return {
        "holders": holders,
        "waiting_names": [h["name"] for h in holders if not h["chosen"]],
        "over": view["phase"] == "over",
    }


def _chilli_form(view: dict[str, Any], you: int) -> dict[str, Any]:
    """One choice of kind per chilli, the suggested assignment pre-selected."""
    wanted = view["chillies"]["suggested"]
    suggested = [kind for kind in KINDS for _count in range(wanted.get(kind, 0))]
    counts = view["seats"][you]["counts"]
    kinds = [{**kind, "kept": counts.get(kind["letter"], 0)} for kind in _kinds()]
    return {
        "chillies": [{"number": i + 1, "suggested": kind} for i, kind in enumerate(suggested)],
        "kinds": kinds,
    }


def _board(view: dict[str, Any], names: list[str], slice_info: Any) -> dict[str, Any]:
    k = view["round"]
    base = SLICES_PER_PIZZA * k
    slices = [slice_info(base + position) for position in range(SLICES_PER_PIZZA)]
    portions = []
    for portion in view["portions"] or []:
        taken_by = portion["taken_by"]
        first = portion["slices"][0] % SLICES_PER_PIZZA
        length = len(portion["slices"])
        portions.append(
            {
                "index": portion["index"],
                "first": first,
                "length": length,
                "slices": [slices[i % SLICES_PER_PIZZA] for i in portion["slices"]],
                "taken_by": taken_by,
                "taken_by_name": names[taken_by] if taken_by is not None else None,
                **portion_geometry(first, length),
            }
        )
    owner = {i: p for p in portions for i in (s["id"] for s in p["slices"])}
    drawn = []
    for s in slices:
        portion = owner.get(s["id"])
        title = s["title"]
        if portion is not None:
            title = _("%(slice)s; portion %(portion)s") % {
                "slice": title,
                "portion": portion["index"],
            }
            if portion["taken_by_name"]:
                title = _("%(slice)s, taken by %(player)s") % {
                    "slice": title,
                    "player": portion["taken_by_name"],
                }
        drawn.append(
            {
                **s,
                **slice_geometry(s["position"], s["olives"]),
                "title": title,
                "portion": portion["index"] if portion else None,
                "taken": bool(portion and portion["taken_by"] is not None),
            }
        )
    title = _("Pizza %(number)s of %(total)s") % {"number": k + 1, "total": view["rounds"]}
    if view["cut"]:
        title = _("%(pizza)s, cut at positions %(cut)s") % {
            "pizza": title,
            "cut": ", ".join(str(p) for p in view["cut"]),
        }
    return {
        "number": k + 1,
        "title": title,
        "slices": drawn,
        "portions": portions,
        "cut": view["cut"],
        "radius": number(RADIUS),
        "dom_id": f"pizza-{k}",
    }


def _player(
    entry: dict[str, Any], names: list[str], kept: list[dict[str, Any]], view: dict[str, Any]
) -> dict[str, Any]:
    seat = entry["seat"]
    groups = []
    for letter in DISPLAY_ORDER:
        of_kind = [s for s in kept if s["letter"] == letter]
        if of_kind:
            groups.append(
                {
                    "letter": letter,
                    "name": of_kind[0]["name"],
                    "count": len(of_kind),
                    "slices": of_kind,
                }
            )
    marianne = view.get("marianne")
    return {
        "seat": seat,
        "name": names[seat],
        "is_chef": seat == view["chef"],
        "to_move": seat in view["to_move"],
        "holds_marianne": bool(marianne and marianne["in_play"] and marianne["holder"] == seat),
        "groups": groups,
        "counts": [{"letter": k, "count": entry["counts"].get(k, 0)} for k in KINDS],
        "chillies": sum(1 for s in kept if s["letter"] == "C"),
        "burnt": sum(1 for s in kept if s["letter"] == "B"),
        "eaten": len(entry["eaten"]),
        "olives": entry["olives"],
        "slice_points": entry["slice_points"],
        "points": entry["olives"] + entry["slice_points"],
    }


def _cut_form(players: int, slices: list[dict[str, Any]]) -> dict[str, Any]:
    """A cut mark on the rim before each slice: ticking it starts a portion there."""
    marks = []
    for s in slices:
        before = slices[s["position"] - 1]
        marks.append(
            {
                "position": s["position"],
                "label": _("Cut between %(before)s and %(after)s (position %(position)s)")
                % {"before": before["short"], "after": s["short"], "position": s["position"]},
                "box": overlay_box(_angle(s["position"]), CUT_MARK_AT * RADIUS, CUT_MARK_SIZE),
            }
        )
    return {"n": players, "marks": marks}


def _take_form(
    view: dict[str, Any],
    names: list[str],
    you: int,
    codes: dict[int, str],
    kept_by_seat: dict[int, list[dict[str, Any]]],
) -> dict[str, Any]:
    """The free portions, each with its badge to click, the slices that may be eaten (a bite
    mark on each) and whom a kept finisher may take a slice from."""
    portions = []
    for portion in view["portions"]:
        if portion["taken_by"] is not None:
            continue
        first = portion["slices"][0] % SLICES_PER_PIZZA
        length = len(portion["slices"])
        slices = [describe_slice(i, codes.get(i)) for i in portion["slices"]]
        edible = [
            {
                **s,
                "value": f"{portion['index']}:{s['id']}",
                "box": overlay_box(_angle(s["position"] + 0.5), BITE_AT * RADIUS, BITE_SIZE),
            }
            for s in slices
            if s["edible"]
        ]
        steals = []
        for s in slices:
            if not (s["finisher"] and s["kind"]):
                continue
            targets = [
                {
                    "seat": other,
                    "name": names[other],
                    "count": sum(1 for k in kept if k["kind"] == s["kind"]),
                }
                for other, kept in sorted(kept_by_seat.items())
                if other != you and any(k["kind"] == s["kind"] for k in kept)
            ]
            steals.append({"kind": s["kind"], "name": s["name"], "slice": s, "targets": targets})
        portions.append(
            {
                "index": portion["index"],
                "slices": slices,
                "summary": ", ".join(s["short"] + ("★" if s["finisher"] else "") for s in slices),
                "edible": edible,
                "steals": steals,
                "box": overlay_box(
                    _angle(first + length / 2), PORTION_LABEL_AT * RADIUS, PORTION_MARK_SIZE
                ),
            }
        )
    return {"portions": portions}


def _take_from_post(data: QueryDict) -> Move:
    """The take form: the portion's radio, the bite marks ticked on it and a steal target per
    kept finisher. Bites and steals ticked on another portion before the player changed their
    mind are named with that portion and left out."""
    take = whole_number(data.get("take"), _("Choose a portion."))
    not_a_slice = _("A slice must be named by its number.")
    eat = []
    for value in data.getlist("eat"):
        portion, colon, slice_id = value.rpartition(":")
        if colon and whole_number(portion, not_a_slice) != take:
            continue
        eat.append(whole_number(slice_id, not_a_slice))
    steal = {}
    for kind in KINDS:
        target = data.get(f"steal_{take}_{kind}") or data.get(f"steal_{kind}")
        if target:
            steal[kind] = whole_number(target, _("Choose the player to take a slice from."))
    move: dict[str, Any] = {"take": take, "eat": eat}
    if steal:
        move["steal"] = steal
    return move


def _marianne_from_post(data: QueryDict) -> dict[str, Any]:
    """Two slices ticked to give and two to get (``seat:id``); the older form named them
    ``give_1``, ``give_2``, ``get_1``, ``get_2``."""
    gives = data.getlist("give") or [data.get(f"give_{pair}") for pair in (1, 2)]
    gets = data.getlist("get") or [data.get(f"get_{pair}") for pair in (1, 2)]
    give_message, get_message = _("Choose two slices to give."), _("Choose two slices to get.")
    if len(gives) != 2:
        raise MoveFormError(give_message)
    if len(gets) != 2:
        raise MoveFormError(get_message)
    give = [whole_number(i, give_message) for i in gives]
    get = []
    for value in gets:
        seat, _sep, slice_id = (value or "").partition(":")
        get.append([whole_number(seat, get_message), whole_number(slice_id, get_message)])
    return {"give": give, "get": get}


def _marianne_form(
    names: list[str], you: int, kept_by_seat: dict[int, list[dict[str, Any]]]
) -> dict[str, Any] | None:
    """Your kept slices to give and the others' kept slices to get, each a slice to tick."""
    mine = kept_by_seat.get(you, [])
    others = [
        {
            "seat": seat,
            "name": names[seat],
            "slices": [{**s, "value": f"{seat}:{s['id']}"} for s in kept],
        }
        for seat, kept in sorted(kept_by_seat.items())
        if seat != you and kept
    ]
    if len(mine) < 2 or sum(len(o["slices"]) for o in others) < 2:
        return None
    return {"mine": mine, "others": others}


PRESENTER = register(PartDuChefPresenter())
