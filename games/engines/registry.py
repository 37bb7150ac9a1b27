"""Finds engines by slug."""

from __future__ import annotations

from .base import Engine

_ENGINES: dict[str, Engine] = {}


def register(engine: Engine) -> Engine:
    if engine.slug in _ENGINES:
        raise ValueError(f"two engines claim the slug {engine.slug!r}")
    _ENGINES[engine.slug] = engine
    return engine


def get_engine(slug: object) -> Engine:
    _load_builtin_engines()
    if not isinstance(slug, str) or slug not in _ENGINES:
        raise KeyError(f"there is no game called {slug!r}")
    return _ENGINES[slug]


def all_engines() -> list[Engine]:
    _load_builtin_engines()
    return list(_ENGINES.values())


def _load_builtin_engines() -> None:
    # Imported late so that each engine module can import this one to register itself.
    from . import cafe_fatal, part_du_chef, pizza_party  # noqa: F401
