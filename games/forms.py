"""Forms of the HTML pages: opening a table, with the option fields each game's engine declares
(``Engine.table_options``), and reading a move form's version. How a move form becomes a move is
the game's presenter's business (``games/presenters``)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import QueryDict
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from . import services
from .engines import Engine, OptionSpec, all_engines, get_engine
from .models import Match
from .presenters.base import whole_number
from .rendering import duration_label


# --- options of every game, built from the engines' option specs --------------------------------
def option_field_name(engine: Engine, spec: OptionSpec) -> str:
    """The form field of one game's option (games may share option names)."""
    return f"{engine.slug.replace('-', '_')}__{spec.name}"


def _specs_of(engine: Engine) -> list[OptionSpec]:
    """Every option a person may choose for some number of players, once each."""
    specs: dict[str, OptionSpec] = {}
    for n in range(engine.min_players, engine.max_players + 1):
        for spec in engine.table_options(n):
            specs.setdefault(spec.name, spec)
    return list(specs.values())


def _option_field(spec: OptionSpec) -> forms.Field:
    label = _(spec.label)
    help_text = _(spec.help) if spec.help else ""
    if isinstance(spec.default, bool) and set(spec.choices) <= {False, True}:
        return forms.BooleanField(label=label, help_text=help_text, required=False)
    by_text = {str(choice): choice for choice in spec.choices}
    labels = [_(text) for text in spec.choice_labels] or [str(c) for c in spec.choices]
    return forms.TypedChoiceField(
        label=label,
        help_text=help_text,
        choices=list(zip(by_text, labels, strict=True)),
        coerce=lambda text: by_text[text],
        initial=str(spec.default),
        # Only the chosen game's options matter: another game's may be left out.
        required=False,
        empty_value=spec.default,
    )


class GameOptionsForm(forms.Form):
    """A form with a ``game`` and a ``seats`` field and the option fields of every game, grouped
    by game (``option_groups``); ``options()`` reads those of the chosen game for the chosen number
    of players."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.groups: list[tuple[Engine, list[str]]] = []
        for engine in all_engines():
            names = []
            for spec in _specs_of(engine):
                name = option_field_name(engine, spec)
                self.fields[name] = _option_field(spec)
                names.append(name)
            if names:
                self.groups.append((engine, names))

    def common_fields(self) -> list[forms.BoundField]:
        options = {name for _engine, names in self.groups for name in names}
        return [field for field in self if field.name not in options]

    def option_groups(self) -> list[dict[str, Any]]:
        return [
            {"slug": engine.slug, "name": engine.name, "fields": [self[name] for name in names]}
            for engine, names in self.groups
        ]

    def options(self) -> dict[str, Any]:
        engine = get_engine(self.cleaned_data["game"])
        seats = self.cleaned_data["seats"]
        return {
            spec.name: self.cleaned_data.get(option_field_name(engine, spec), spec.default)
            for spec in engine.table_options(seats)
        }


def game_choices() -> list[tuple[str, str]]:
    return [(engine.slug, engine.name) for engine in all_engines()]


def seat_choices() -> list[tuple[int, str]]:
    engines = all_engines()
    low = min(e.min_players for e in engines)
    high = max(e.max_players for e in engines)
    return [(n, str(n)) for n in range(low, high + 1)]


def _timer_choices() -> list[tuple[str, str]]:
    choices = [("", gettext_lazy("No timer (friendly tables only)"))]
    choices += [(str(s), duration_label(s)) for s in services.TURN_SECONDS_CHOICES]
    return choices


class CreateTableForm(GameOptionsForm):
    game = forms.ChoiceField(
        label=gettext_lazy("Game"), choices=game_choices, initial="part-du-chef"
    )
    seats = forms.TypedChoiceField(
        label=gettext_lazy("Seats"), coerce=int, choices=seat_choices, initial=3
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

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("mode") == Match.Mode.RANKED and not data.get("turn_seconds"):
            self.add_error("turn_seconds", _("A ranked table needs a turn timer."))
        return data


def version_from_post(data: QueryDict) -> int:
    return whole_number(
        data.get("version"), _("The form does not say which table version it was made on.")
    )
