"""One rating per player per game, and one change per player per rated match."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from .elo import START


class Rating(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    game = models.CharField(max_length=40)
    #: Stored unrounded, shown rounded.
    value = models.FloatField(default=START)
    #: Rated matches of this game finished so far (decides K).
    matches = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "game"], name="one_rating_per_game"),
        ]
        indexes = [
            # Ladder pages read ids straight from the index (the id breaks ties in a fixed order).
            models.Index(fields=["game", "-value", "id"], name="rating_ladder_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.game} {self.value:.0f}"

    @property
    def shown(self) -> int:
        return round(self.value)

    @property
    def provisional(self) -> bool:
        return self.matches < 10


class RatingChange(models.Model):
    match = models.ForeignKey(
        "games.Match", on_delete=models.CASCADE, related_name="rating_changes"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    game = models.CharField(max_length=40)
    before = models.FloatField()
    after = models.FloatField()
    delta = models.FloatField()
    rank = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            # A match is rated once: a second attempt cannot write a second change.
            models.UniqueConstraint(
                fields=["match", "user"], name="one_change_per_player_and_match"
            ),
        ]
        indexes = [
            models.Index(fields=["user", "game", "created_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.delta:+.1f} in {self.match_id}"
