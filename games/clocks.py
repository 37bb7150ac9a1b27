"""A clock per player at a timed table: the time left on the current turn.

A table has one deadline, set by ``services`` at every change of a running match; every seat still
to move shares it (several seats move at once in a secret step). The clock of a seat that is not
to move is at rest and shows the whole turn. The pages count the running clocks down themselves,
from the seconds left when they were rendered: nothing is pushed every second.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.utils import timezone

from .engines import CHANCE, get_engine
from .models import Match


@dataclass(frozen=True)
class Clock:
    seat: int
    running: bool
    #: Seconds left on this turn (the whole turn for a clock at rest).
    seconds_left: int
    #: When a running clock runs out (the table's deadline); None at rest.
    deadline: datetime | None

    @property
    def text(self) -> str:
        return clock_text(self.seconds_left)

    def as_json(self) -> dict[str, Any]:
        return {
            "running": self.running,
            "seconds_left": self.seconds_left,
            "deadline": self.deadline.isoformat() if self.deadline else None,
        }


def clock_text(seconds: int) -> str:
    """``m:ss``, or ``h:mm:ss`` from an hour up (the same as the pages' countdown script)."""
    hours, rest = divmod(max(0, seconds), 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{seconds:02d}"
    return f"{minutes}:{seconds:02d}"


def seat_clocks(match: Match, now: datetime | None = None) -> dict[int, Clock]:
    """The clock of every seat of a running timed match (empty for any other table)."""
    if not match.is_playing or not match.turn_seconds or match.state is None:
        return {}
    now = timezone.now() if now is None else now
    to_move = {s for s in get_engine(match.game).to_move(match.state) if s != CHANCE}
    left = match.turn_seconds
    if match.deadline is not None:
        # Rounded up: a clock reads 0:00 only once the time is really up.
        left = max(0, math.ceil((match.deadline - now).total_seconds()))
    return {
        seat: Clock(seat, True, left, match.deadline)
        if seat in to_move and match.deadline is not None
        else Clock(seat, False, match.turn_seconds, None)
        for seat in range(match.seats_count)
    }
