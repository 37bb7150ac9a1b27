"""Arenas, their entries, their tables and their trophies.

The arena links to matches from its own side (``ArenaMatch``): games knows nothing of arenas.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.models import new_invite_code

from . import scoring


class TournamentQuerySet(models.QuerySet):
    def visible_to(self, user) -> TournamentQuerySet:
        """Public arenas, and the private ones the user created or entered."""
        if user is None or not user.is_authenticated:
            return self.filter(private=False)
        return self.filter(
            models.Q(private=False) | models.Q(created_by=user) | models.Q(entries__user=user)
        ).distinct()


class Tournament(models.Model):
    class Status(models.TextChoices):
        SCHEDULED = "scheduled", _("Scheduled")
        RUNNING = "running", _("Running")
        FINISHED = "finished", _("Finished")

    game = models.CharField(_("game"), max_length=40)
    name = models.CharField(_("name"), max_length=100)
    starts_at = models.DateTimeField(_("starts at"))
    minutes = models.PositiveIntegerField(_("minutes"))
    #: Stored (``starts_at + minutes``, set on save) so the worker can query arenas that ended.
    ends_at = models.DateTimeField(_("ends at"))
    #: Players per table (n).
    seats = models.PositiveSmallIntegerField(_("seats per table"))
    options = models.JSONField(default=dict)
    turn_seconds = models.PositiveIntegerField(_("turn timer"))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SCHEDULED)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="created_tournaments",
    )
    created_at = models.DateTimeField(default=timezone.now)
    private = models.BooleanField(_("private"), default=False)
    invite_code = models.CharField(max_length=32, unique=True, default=new_invite_code)
    #: The schedule's key of this occurrence (None for one-off arenas). Unique, so that two
    #: workers planning the same hour cannot both create its arena.
    schedule_key = models.CharField(max_length=100, unique=True, null=True, blank=True)

    objects = TournamentQuerySet.as_manager()

    class Meta:
        indexes = [
            models.Index(fields=["status", "starts_at"]),
            models.Index(fields=["status", "ends_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.status})"

    def save(self, *args, **kwargs) -> None:
        self.ends_at = self.starts_at + timedelta(minutes=self.minutes)
        fields = kwargs.get("update_fields")
        if fields is not None and {"starts_at", "minutes"} & set(fields):
            kwargs["update_fields"] = {*fields, "ends_at"}
        super().save(*args, **kwargs)

    @property
    def is_running(self) -> bool:
        return self.status == self.Status.RUNNING

    @property
    def is_finished(self) -> bool:
        return self.status == self.Status.FINISHED


class Entry(models.Model):
    """A player in an arena: their points, their streak and whether they want to be seated."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="arena_entries"
    )
    points = models.IntegerField(default=0)
    matches = models.PositiveIntegerField(default=0)
    #: Outright wins in a row; two or more: on fire.
    fire_streak = models.PositiveSmallIntegerField(default=0)

    class PauseReason(models.TextChoices):
        CHOSEN = "", _("paused by the player")
        ABANDONED = "abandoned", _("abandoned a match")
        AWAY = "away", _("did not play a table, with no arena page or table open")

    #: Not seated again until resumed (the player paused, or abandoned a match).
    paused = models.BooleanField(default=False)
    #: Why the player is paused, so that they are told when they come back.
    paused_reason = models.CharField(
        max_length=10, blank=True, default="", choices=PauseReason.choices
    )
    #: Left the arena (it had started: the points earned stay in the standings).
    withdrawn = models.BooleanField(default=False)
    #: When the player last became free to be seated; None while seated or paused.
    waiting_since = models.DateTimeField(null=True, blank=True)
    #: Sum of the performance terms and the number of opponents met (performance = the ratio).
    performance_sum = models.FloatField(default=0.0)
    opponents = models.PositiveIntegerField(default=0)
    #: The arena table the player was seated at last (their current one while it is played).
    table = models.ForeignKey(
        "ArenaMatch", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    joined_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "entries"
        constraints = [
            models.UniqueConstraint(fields=["tournament", "user"], name="one_entry_per_player"),
        ]
        indexes = [models.Index(fields=["tournament", "-points"])]

    def __str__(self) -> str:
        return f"{self.user} in {self.tournament_id}: {self.points}"

    @property
    def performance(self) -> float | None:
        return scoring.performance(self.performance_sum, self.opponents)

    @property
    def on_fire(self) -> bool:
        return scoring.on_fire(self.fire_streak)

    @property
    def active(self) -> bool:
        return not (self.paused or self.withdrawn)


class ArenaMatch(models.Model):
    """A table the arena opened: which arena, which match, in which order."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="tables")
    match = models.OneToOneField("games.Match", on_delete=models.CASCADE, related_name="arena")
    #: 1 for the arena's first table, then 2, 3, … (unique: a table is never opened twice).
    number = models.PositiveIntegerField()
    created_at = models.DateTimeField(default=timezone.now)
    #: The players' ratings when they were seated ({user id: rating}), for performances.
    ratings = models.JSONField(default=dict)
    #: Points were added for this match (set in the transaction that finished it).
    scored = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="one_table_per_number"),
        ]

    def __str__(self) -> str:
        return f"table {self.number} of arena {self.tournament_id}"


class ArenaResult(models.Model):
    """One player's points from one arena match: the line of the scoresheet. Unique per table
    and entry, so no point can ever be counted twice."""

    table = models.ForeignKey(ArenaMatch, on_delete=models.CASCADE, related_name="results")
    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="results")
    rank = models.PositiveSmallIntegerField()
    points = models.IntegerField()
    doubled = models.BooleanField(default=False)
    abandoned = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["table", "entry"], name="one_result_per_table"),
        ]

    def __str__(self) -> str:
        return f"{self.entry} +{self.points} at {self.table_id}"


class Trophy(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="trophies"
    )
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="trophies")
    place = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "trophies"
        ordering = ["-created_at", "place"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "place"], name="one_trophy_per_place"),
            models.UniqueConstraint(fields=["tournament", "user"], name="one_trophy_per_player"),
            models.CheckConstraint(
                condition=models.Q(place__gte=1, place__lte=3), name="trophy_place_1_to_3"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user}: place {self.place} in {self.tournament}"
