"""What other apps know about a table's players, shown beside their names: games knows nothing
of them (ratings registers a provider that gives each seat of a ranked table its Elo and, once
the match is rated, its change)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .models import Match, Seat

#: ``(match, seats by index) -> {seat index: {fact: value}}``.
SeatFactsProvider = Callable[[Match, dict[int, Seat]], dict[int, dict[str, Any]]]

_PROVIDERS: list[SeatFactsProvider] = []


def register_seat_facts(provider: SeatFactsProvider) -> SeatFactsProvider:
    if provider not in _PROVIDERS:
        _PROVIDERS.append(provider)
    return provider


def seat_facts(match: Match, seats: dict[int, Seat]) -> dict[int, dict[str, Any]]:
    """Every provider's facts, merged per seat (a seat nobody knows anything about is absent)."""
    facts: dict[int, dict[str, Any]] = {}
    for provider in _PROVIDERS:
        for index, found in provider(match, seats).items():
            facts.setdefault(index, {}).update(found)
    return facts
