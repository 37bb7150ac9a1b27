"""Ratings at the table: each player's Elo beside their name at a ranked table, and once the
match is rated, their change (registered as seat facts with games, which knows nothing of
ratings)."""

from __future__ import annotations

from typing import Any

from games.models import Match, Seat

from .elo import START
from .models import Rating, RatingChange


def rating_facts(match: Match, seats: dict[int, Seat]) -> dict[int, dict[str, Any]]:
    """Per seat of a ranked match with a player: ``elo`` (the rating the match started from once
    it is rated, else the current one; shown rounded) and, after a rated match, ``elo_after``,
    ``elo_change`` (unrounded, for the API) and ``elo_change_text`` ("+12", as profiles show it).
    Bots and friendly tables have none."""
    if match.mode != Match.Mode.RANKED:
        return {}
    players = {index: seat.user_id for index, seat in seats.items() if seat.user_id is not None}
    if not players:
        return {}
    changes = {}
    if match.status == Match.Status.FINISHED:  # only a finished match is ever rated
        changes = {c.user_id: c for c in RatingChange.objects.filter(match=match)}
    current = {}
    if len(changes) < len(players):
        current = dict(
            Rating.objects.filter(game=match.game, user_id__in=players.values()).values_list(
                "user_id", "value"
            )
        )
    facts = {}
    for index, user_id in players.items():
        change = changes.get(user_id)
        if change is None:
            facts[index] = {"elo": round(current.get(user_id, START))}
            continue
        facts[index] = {
            "elo": round(change.before),
            "elo_after": round(change.after),
            "elo_change": change.delta,
            "elo_change_text": f"{round(change.delta):+d}",
        }
    return facts
