"""Forms of the HTML pages: opening a table, and turning a move form's fields into the move JSON
that ``services.play`` checks (the rules live in the engine, not here)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import QueryDict
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from . import services
from .engines import get_engine
from .engines.part_du_chef import KINDS
from .models import Match
from .rendering import BROWSER_GAMES, duration_label


class MoveFormError(Exception):
    """A move form that does not even have the shape of a move."""

    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _browser_games() -> list[tuple[str, str]]:
    return [(slug, get_engine(slug).name) for slug in sorted(BROWSER_GAMES)]


def _seat_choices() -> list[tuple[int, str]]:
    low = min(get_engine(slug).min_players for slug in BROWSER_GAMES)
    high = max(get_engine(slug).max_players for slug in BROWSER_GAMES)
    return [(n, str(n)) for n in range(low, high + 1)]


def _timer_choices() -> list[tuple[str, str]]:
    choices = [("", gettext_lazy("No timer (friendly tables only)"))]
    choices += [(str(s), duration_label(s)) for s in services.TURN_SECONDS_CHOICES]
    return choices


class CreateTableForm(forms.Form):
    game = forms.ChoiceField(label=gettext_lazy("Game"), choices=_browser_games)
    seats = forms.TypedChoiceField(
        label=gettext_lazy("Seats"), coerce=int, choices=_seat_choices, initial=3
    )
    mode = forms.ChoiceField(
        label=gettext_lazy("Mode"),
        choices=Match.Mode.choices,
        initial=Match.Mode.FRIENDLY,
        help_text=gettext_lazy("Ranked matches count for the ladder and always have a timer."),
    )
    turn_seconds = forms.TypedChoiceField(
        label=gettext_lazy("Turn timer"),
        coerce=int,
        empty_value=None,
        required=False,
        choices=_timer_choices,
    )
    private = forms.BooleanField(
        label=gettext_lazy("Private (only players with the invitation link may join or watch)"),
        required=False,
    )
    marianne = forms.BooleanField(
        label=gettext_lazy("Play with La Marianne"),
        required=False,
        help_text=gettext_lazy("A bonus card: its holder may swap two slices with other players."),
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("mode") == Match.Mode.RANKED and not data.get("turn_seconds"):
            self.add_error("turn_seconds", _("A ranked table needs a turn timer."))
        return data

    def options(self) -> dict[str, Any]:
        if self.cleaned_data["game"] == "part-du-chef":
            return {"marianne": bool(self.cleaned_data.get("marianne"))}
        return {}


def _int(value: Any, message: str) -> int:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        raise MoveFormError(message) from None


def version_from_post(data: QueryDict) -> int:
    return _int(data.get("version"), _("The form does not say which table version it was made on."))


def move_from_post(data: QueryDict) -> dict[str, Any]:
    """The move a La Part du Chef move form describes (``action`` names the kind of move)."""
    action = data.get("action")
    not_a_slice = _("A slice must be named by its number.")
    if action == "cut":
        positions = [_int(p, _("Start positions are numbers.")) for p in data.getlist("cut")]
        return {"cut": sorted(positions)}
    if action == "take":
        move: dict[str, Any] = {
            "take": _int(data.get("take"), _("Choose a portion.")),
            "eat": [_int(i, not_a_slice) for i in data.getlist("eat")],
        }
        steal = {}
        for kind in KINDS:
            target = data.get(f"steal_{kind}")
            if target:
                steal[kind] = _int(target, _("Choose the player to take a slice from."))
        if steal:
            move["steal"] = steal
        return move
    if action == "marianne":
        give, get = [], []
        for pair in (1, 2):
            give.append(_int(data.get(f"give_{pair}"), _("Choose two slices to give.")))
            seat, _sep, slice_id = (data.get(f"get_{pair}") or "").partition(":")
            message = _("Choose two slices to get.")
            get.append([_int(seat, message), _int(slice_id, message)])
        return {"marianne": {"give": give, "get": get}}
    raise MoveFormError(_("This form does not describe a move."))
