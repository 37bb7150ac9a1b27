"""Rating a finished match, inside the transaction that ends it."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from games.models import Match
from games.rows import save_rows

from .elo import rating_deltas
from .models import Rating, RatingChange


def is_rated(match: Match) -> bool:
    """Ranked matches (arena matches are ranked) that were played out count; friendly ones never
    do, nor aborted ones (they have no ranks)."""
    return match.mode == Match.Mode.RANKED and match.status == Match.Status.FINISHED


def rate_finished_match(sender: Any, match: Match, **kwargs: Any) -> None:
    """The ``match_ended`` receiver: one RatingChange per player of a rated match, exactly once.
    It reads the match as ``end_match`` saved it, inside the transaction that ends it with the
    match row locked, so two enders cannot both get here; the unique constraint on (match, user)
    refuses a second rating even if one did. A match keeps its mode, so a friendly one is left
    before any read."""
    if match.mode != Match.Mode.RANKED:
        return
    match = Match.objects.get(pk=match.pk)
    if not is_rated(match) or RatingChange.objects.filter(match=match).exists():
        return
    seats = [s for s in match.seats.order_by("index") if s.user_id is not None]
    if len(seats) < 2 or len(seats) != match.seats_count:
        return
    ratings = _locked_ratings(match.game, [s.user_id for s in seats])
    before = [ratings[s.user_id].value for s in seats]
    deltas = rating_deltas(
        before, [s.rank for s in seats], [ratings[s.user_id].matches for s in seats]
    )
    now = timezone.now()
    for seat, old, delta in zip(seats, before, deltas, strict=True):
        rating = ratings[seat.user_id]
        rating.value = old + delta
        rating.matches += 1
        rating.wins += 1 if seat.rank == 1 else 0
        rating.updated_at = now
    # Every player's rating in one statement and one round trip (the rows are locked).
    save_rows([ratings[seat.user_id] for seat in seats], ["value", "matches", "wins", "updated_at"])
    RatingChange.objects.bulk_create(
        RatingChange(
            match=match,
            user_id=seat.user_id,
            game=match.game,
            before=old,
            after=old + delta,
            delta=delta,
            rank=seat.rank,
            created_at=now,
        )
        for seat, old, delta in zip(seats, before, deltas, strict=True)
    )


def _locked_ratings(game: str, user_ids: list[int]) -> dict[int, Rating]:
    # Two matches may give a new player their first rating at once: ignore the loser's insert.
    Rating.objects.bulk_create(
        [Rating(user_id=user_id, game=game) for user_id in user_ids], ignore_conflicts=True
    )
    # Locked in id order so that two matches finishing at once cannot deadlock on each other.
    rows = Rating.objects.select_for_update().filter(game=game, user_id__in=user_ids).order_by("pk")
    return {r.user_id: r for r in rows}
