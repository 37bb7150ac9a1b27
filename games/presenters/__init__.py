"""Presenters: one per game, beside its engine (see ``base.py``)."""

from .base import MoveFormError, Presenter
from .registry import all_presenters, get_presenter, register

__all__ = ["MoveFormError", "Presenter", "all_presenters", "get_presenter", "register"]
