"""The form that creates a player's one-off arena. It only shapes the fields; the limits (range of
minutes, seats for the game, how many arenas a player may announce) are checked by
``services.create_tournament``, whose sentences the page shows."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django import forms
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.engines import get_engine
from games.forms import GameOptionsForm, game_choices, seat_choices
from games.rendering import duration_label

from . import services

#: Turn timers offered (the service accepts anything in ``TURN_SECONDS_RANGE``).
TURN_SECONDS_CHOICES = (15, 20, 30, 45, 60, 120, 300, 600)
#: A start this little in the past (the form sat open for a while) means "now".
STALE_START = timedelta(minutes=15)
START_FORMAT = "%Y-%m-%dT%H:%M"


def _timer_choices() -> list[tuple[int, str]]:
    return [(s, duration_label(s)) for s in TURN_SECONDS_CHOICES]


def _now_to_the_minute() -> datetime:
    return timezone.localtime().replace(second=0, microsecond=0)


class CreateArenaForm(GameOptionsForm):
    game = forms.ChoiceField(
        label=gettext_lazy("Game"), choices=game_choices, initial="part-du-chef"
    )
    name = forms.CharField(
        label=gettext_lazy("Name"),
        max_length=services.NAME_LENGTH,
        required=False,
        help_text=gettext_lazy("Leave empty for “<game> arena”."),
    )
    starts_at = forms.DateTimeField(
        label=gettext_lazy("Start"),
        required=False,
        initial=_now_to_the_minute,
        input_formats=[START_FORMAT, "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M"],
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format=START_FORMAT),
        help_text=gettext_lazy("Time zone: %(zone)s. Now, or empty: it starts at once."),
    )
    minutes = forms.IntegerField(
        label=gettext_lazy("Duration (minutes)"),
        min_value=services.MINUTES_RANGE[0],
        max_value=services.MINUTES_RANGE[1],
        initial=services.DEFAULT_MINUTES,
    )
    seats = forms.TypedChoiceField(
        label=gettext_lazy("Seats per table"), coerce=int, choices=seat_choices, initial=3
    )
    turn_seconds = forms.TypedChoiceField(
        label=gettext_lazy("Turn timer"),
        coerce=int,
        choices=_timer_choices,
        initial=services.DEFAULT_TURN_SECONDS,
    )
    private = forms.BooleanField(
        label=gettext_lazy("Private (only players with the link see and join it)"),
        required=False,
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["starts_at"]
        field.help_text = field.help_text % {"zone": timezone.get_current_timezone_name()}

    def clean_starts_at(self) -> datetime | None:
        starts_at = self.cleaned_data.get("starts_at")
        if starts_at is None:
            return None
        now = timezone.now()
        if starts_at < now - STALE_START:
            raise forms.ValidationError(_("That time has passed: choose a later start."))
        return None if starts_at <= now else starts_at

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        slug, seats = data.get("game"), data.get("seats")
        if slug and seats:
            engine = get_engine(slug)
            if not engine.min_players <= seats <= engine.max_players:
                self.add_error(
                    "seats",
                    _("%(game)s is played by %(low)s to %(high)s players.")
                    % {"game": engine.name, "low": engine.min_players, "high": engine.max_players},
                )
        return data
