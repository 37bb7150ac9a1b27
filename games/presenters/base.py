"""The presenter contract: how a game looks at the table and how its move forms become moves.

An engine decides the rules; its presenter turns the engine's *views* into plain data for the
templates in ``templates/games/<slug>/table.html`` and turns a submitted move form into the move
JSON that ``services.play`` checks. The generic table page (status frame, seats, timer, log,
result, replay) asks the presenter and never which game it is.

Two contexts, so that what every viewer sees alike can be rendered once per table version:
``game_context`` is built from the spectator's view and is the same for everyone;
``seat_context`` is the small part that belongs to one seated player (their move controls, a
secret pick only they know).
"""

from __future__ import annotations

from typing import Any

from django.http import QueryDict

from ..engines.base import Move
from ..translations import gettext as _

#: The partials every game's ``table.html`` defines (each may render nothing).
PARTS = ("status", "board", "targets", "moves", "info", "players")


class MoveFormError(Exception):
    """A move form that does not even have the shape of a move."""

    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Presenter:
    """Base class of the presenters; one per engine, registered under the engine's slug."""

    slug: str = ""
    #: How the final result's total is made, under the breakdown table (marked with
    #: ``gettext_noop``; empty for none).
    result_caption: str = ""

    @property
    def templates(self) -> dict[str, str]:
        """The template of each part of the table: ``templates/games/<slug>/table.html#<part>``."""
        return {part: f"games/{self.slug}/table.html#{part}" for part in PARTS}

    def game_context(self, view: dict[str, Any], names: list[str]) -> dict[str, Any]:
        """What every viewer sees alike, from the spectator's view (``engine.view(state, None)``)
        and the seats' display names. Plain data only: templates make no queries."""
        raise NotImplementedError

    def seat_context(
        self, view: dict[str, Any], game: dict[str, Any], you: int, names: list[str]
    ) -> dict[str, Any]:
        """The seated player's own part, from their view (``engine.view(state, you)``): the move
        controls while they may move, and what only they know. ``game`` is ``game_context``."""
        raise NotImplementedError

    def move_from_post(self, data: QueryDict) -> Move:
        """The move a submitted move form describes; ``MoveFormError`` when it is not one."""
        raise NotImplementedError

    def mark_last_move(self, game: dict[str, Any], seat: int, move: Move) -> bool:
        """Mark on ``game`` (from ``game_context``) what ``move`` changed on the board, so that
        the board highlights it; whether it marked anything (if not, the move before is asked).
        By default nothing."""
        return True


# --- helpers for presenters ----------------------------------------------------------------------
def whole_number(value: Any, message: str) -> int:
    """``value`` as an int, or ``MoveFormError(message)``."""
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        raise MoveFormError(message) from None


def action_of(data: QueryDict, allowed: tuple[str, ...]) -> str:
    """The form's ``action`` (which kind of move it describes), one of ``allowed``."""
    action = data.get("action")
    if action not in allowed:
        raise MoveFormError(_("This form does not describe a move."))
    return action


def number(value: float, digits: int = 1) -> str:
    """A coordinate for SVG, CSS or a data attribute: always a dot, never localized (in French
    Django would write ``33,6``), and no trailing ``.0``."""
    text = f"{value:.{digits}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text
