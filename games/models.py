"""Matches, their seats and their moves. The move log is the truth; ``Match.state`` is a snapshot
of the engine state after the last move, kept for speed. Only ``games.services`` changes them."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


def new_invite_code() -> str:
    return secrets.token_urlsafe(12)


def new_seed() -> str:
    return secrets.token_hex(32)


class MatchQuerySet(models.QuerySet):
    def open(self) -> MatchQuerySet:
        return self.filter(status=Match.Status.OPEN)

    def playing(self) -> MatchQuerySet:
        return self.filter(status=Match.Status.PLAYING)

    def visible_in_lobby(self) -> MatchQuerySet:
        return self.open().filter(private=False)


class Match(models.Model):
    class Mode(models.TextChoices):
        FRIENDLY = "friendly", _("Friendly")
        RANKED = "ranked", _("Ranked")

    class Status(models.TextChoices):
        OPEN = "open", _("Open")
        PLAYING = "playing", _("Playing")
        FINISHED = "finished", _("Finished")
        ABORTED = "aborted", _("Aborted")

    class EndReason(models.TextChoices):
        """Why a match ended; the label is the sentence its players read."""

        PLAYED_OUT = "played_out", _("The game was played to its end.")
        EVERYONE_LEFT = "everyone_left", _("Every player left the table before the match began.")
        NEVER_STARTED = (
            "never_started",
            _("The first move never came, so the ranked match was called off."),
        )
        FAILED = (
            "failed",
            _(
                "The server could not go on with this match after several tries, so it was called off."
            ),
        )

    game = models.CharField(_("game"), max_length=40)
    mode = models.CharField(_("mode"), max_length=10, choices=Mode.choices, default=Mode.FRIENDLY)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    options = models.JSONField(default=dict)
    seats_count = models.PositiveSmallIntegerField(_("seats"))
    private = models.BooleanField(_("private"), default=False)
    invite_code = models.CharField(max_length=32, unique=True, default=new_invite_code)
    #: Seconds a player has for a turn; None: no timer (friendly tables only).
    turn_seconds = models.PositiveIntegerField(_("turn timer"), null=True, blank=True)
    #: Counts every change of the table; a move must name the version it was made on.
    version = models.PositiveIntegerField(default=0)
    state = models.JSONField(null=True, blank=True)
    #: The source of every chance move. It never leaves the server: a player who knew it could
    #: compute the pizzas still to come.
    seed = models.CharField(max_length=64, default=new_seed)
    deadline = models.DateTimeField(null=True, blank=True)
    had_first_move = models.BooleanField(default=False)
    #: The simultaneous step now open (``Engine.simultaneous_step``) and the version at which it
    #: opened: a move of that step may name any version since (spec/api.md).
    step = models.CharField(max_length=64, blank=True, default="")
    step_version = models.PositiveIntegerField(null=True, blank=True)
    #: The worker's failed attempts at this table's due job in a row (it backs off, then gives up).
    job_failures = models.PositiveSmallIntegerField(default=0)
    end_reason = models.CharField(max_length=20, choices=EndReason.choices, blank=True, default="")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    #: The match this table plays again ("Play again"): a match has at most one rematch, so
    #: players who ask for it at once all land at the same table.
    rematch_of = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="rematch"
    )
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = MatchQuerySet.as_manager()

    class Meta:
        verbose_name_plural = "matches"
        indexes = [
            models.Index(fields=["status", "game"]),
            models.Index(fields=["status", "deadline"]),
            models.Index(fields=["-finished_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.game} #{self.pk} ({self.status})"

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.OPEN

    @property
    def is_playing(self) -> bool:
        return self.status == self.Status.PLAYING

    @property
    def is_over(self) -> bool:
        return self.status in (self.Status.FINISHED, self.Status.ABORTED)


class Seat(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    #: None for a bot seat.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="seats",
    )
    bot_level = models.PositiveSmallIntegerField(null=True, blank=True)
    score = models.IntegerField(null=True, blank=True)
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    timeouts_in_row = models.PositiveSmallIntegerField(default=0)
    #: Three timeouts in a row: the bot plays on for this seat and it ranks last.
    abandoned = models.BooleanField(default=False)
    joined_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["index"]
        constraints = [
            models.UniqueConstraint(fields=["match", "index"], name="one_player_per_seat"),
            models.UniqueConstraint(
                fields=["match", "user"],
                condition=models.Q(user__isnull=False),
                name="one_seat_per_player",
            ),
        ]

    def __str__(self) -> str:
        return f"seat {self.index} of {self.match_id}"

    @property
    def is_bot(self) -> bool:
        return self.user_id is None

    @property
    def plays_automatically(self) -> bool:
        return self.is_bot or self.abandoned

    @property
    def display_name(self) -> str:
        if self.user_id is None:
            return str(_("Bot (level %(level)s)") % {"level": self.bot_level})
        return self.user.username


class Move(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="moves")
    #: The move's index in the match's log (chance moves included).
    number = models.PositiveIntegerField()
    #: The seat that moved, or -1 for a chance move.
    seat = models.SmallIntegerField()
    payload = models.JSONField()
    #: The move log's sentence for this move (``engine.describe_move`` as JSON, translated when a
    #: page shows it); None for a move that needs no line.
    description = models.JSONField(null=True, blank=True)
    by_bot = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="one_move_per_number"),
        ]

    def __str__(self) -> str:
        return f"move {self.number} of {self.match_id}"


class Invitation(models.Model):
    """A player at a table invites a friend: the friend sees it live and may join even a private
    table without its link."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="invitations")
    from_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    to_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="table_invitations"
    )
    created_at = models.DateTimeField(default=timezone.now)
    #: When the friend closed the invitation or followed it: it is no longer shown to them.
    dismissed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["match", "to_user"], name="one_invitation_per_table"),
        ]

    def __str__(self) -> str:
        return f"{self.from_user_id} invites {self.to_user_id} to {self.match_id}"


class ChatMessage(models.Model):
    """A line of a table's chat, kept with the match (its replay shows it). The author and their
    seat are the server's to set: a client only sends the text."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="chat_messages")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    #: The seat the author held when they wrote; None for a spectator.
    seat = models.SmallIntegerField(null=True, blank=True)
    text = models.CharField(max_length=200)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["pk"]
        indexes = [models.Index(fields=["match", "id"])]

    def __str__(self) -> str:
        return f"chat {self.pk} at {self.match_id}"


class ChatMute(models.Model):
    """A viewer no longer reads someone's chat lines, at any table (nobody else is affected)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_mutes"
    )
    muted = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "muted"], name="one_mute_per_pair"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} mutes {self.muted_id}"


class MatchAnalysis(models.Model):
    """The analysis after the game (``games.analysis``): each decision of a finished match beside
    the move level 3 would have made from the same view. The worker writes it a few decisions
    at a time (``next_move`` says where it goes on); pages and the API only read it, and show it
    once ``complete``. It lives beside the match, not in it: the many pages that list matches
    never load it."""

    match = models.OneToOneField(
        Match, primary_key=True, on_delete=models.CASCADE, related_name="analysis"
    )
    #: The bot level each decision is compared with.
    level = models.PositiveSmallIntegerField()
    #: The time each decision gets (``ANALYSIS_SECONDS_PER_MATCH`` split over the decisions).
    seconds_per_decision = models.FloatField()
    #: Or, when set (tests), a fixed number of playouts and worlds per decision.
    iterations = models.PositiveIntegerField(null=True, blank=True)
    #: One entry per decision analysed so far, in the order of the moves.
    decisions = models.JSONField(default=list)
    #: The number of the first move not analysed yet.
    next_move = models.PositiveIntegerField(default=0)
    #: Wall time spent so far, in seconds (reported by the benchmark).
    spent = models.FloatField(default=0.0)
    complete = models.BooleanField(default=False)
    #: The analysis stopped on an error (logged): complete, never tried again, not shown.
    failed = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "match analyses"

    def __str__(self) -> str:
        return f"analysis of {self.match_id}"
