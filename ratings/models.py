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
    #: The player's username, copied by database triggers (migration 0003) whenever a rating is
    #: written or a player renamed, so that a search walks the ladder's index alone.
    name = models.CharField(max_length=150, default="", editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "game"], name="one_rating_per_game"),
        ]
        indexes = [
            # Ladder pages read ids straight from the index (the id breaks ties in a fixed order);
            # a search for a common name walks it, testing names without reading the rows.
            models.Index(
                fields=["game", "-value", "id"], include=["user", "name"], name="rating_ladder_idx"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.game} {self.value:.0f}"

    @property
    def shown(self) -> int:
        return round(self.value)

    @property
    def provisional(self) -> bool:
        return self.matches < 10


class LadderBucket(models.Model):
    """How many ratings of a game lie between two whole Elo points, so that a rank or a deep page
    of the ladder is found by adding up a few thousand counts instead of counting up to a hundred
    thousand ratings. Database triggers (migration 0003) add a row of +1 or -1 on every insert,
    delete or move of a rating, so no writer can forget; rows are only ever added, never updated,
    so that matches finishing at once never wait for each other on a shared counter. Read sums
    them per bucket; the worker folds them together now and then (``buckets.fold``)."""

    game = models.CharField(max_length=40)
    #: ``floor(value)``: the bucket holds ratings with bucket <= value < bucket + 1.
    bucket = models.IntegerField()
    players = models.IntegerField()

    class Meta:
        indexes = [
            models.Index(fields=["game", "bucket"], include=["players"], name="ladder_bucket_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.game} {self.bucket}: {self.players:+d}"


class LadderChange(models.Model):
    """A count of the writes to a game's ratings, kept by database triggers (migration 0004): every
    insert, update or delete of a rating adds a row of 1, in the transaction that writes it, so
    nothing that changes a ladder (a rated match, a rename, an admin's edit, a deleted player)
    can forget it. The sum of a game's rows with their highest id is the ladder's generation
    (``ladder.generation_sql``): it moves on with every committed write and never comes back, so
    pages of the ladder may be kept under it. Rows are only added, never updated (matches ending
    at once never wait for each other); the worker folds them (``buckets.fold``)."""

    game = models.CharField(max_length=40)
    changes = models.IntegerField()
    #: When the row is one rating that only moved (same game, player and name): its player and
    #: its value before and after (migration 0007). None for any other write and for a fold's
    #: row: a reader cannot tell what those changed.
    user_id = models.IntegerField(null=True)
    value_before = models.FloatField(null=True)
    value_after = models.FloatField(null=True)

    class Meta:
        indexes = [
            models.Index(fields=["game", "id"], include=["changes"], name="ladder_change_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.game}: {self.changes} changes"


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
