"""Finds presenters by their engine's slug."""

from __future__ import annotations

from .base import Presenter

_PRESENTERS: dict[str, Presenter] = {}


def register(presenter: Presenter) -> Presenter:
    if presenter.slug in _PRESENTERS:
        raise ValueError(f"two presenters claim the slug {presenter.slug!r}")
    _PRESENTERS[presenter.slug] = presenter
    return presenter


def get_presenter(slug: object) -> Presenter:
    _load_builtin_presenters()
    if not isinstance(slug, str) or slug not in _PRESENTERS:
        raise KeyError(f"there is no presenter for {slug!r}")
    return _PRESENTERS[slug]


def all_presenters() -> list[Presenter]:
    _load_builtin_presenters()
    return list(_PRESENTERS.values())


def _load_builtin_presenters() -> None:
    # Imported late so that each presenter module can import this one to register itself.
    from . import cafe_fatal, part_du_chef, pizza_party  # noqa: F401
