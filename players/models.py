"""Players' accounts beyond Django's User: personal API tokens."""

from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

TOKEN_PREFIX = "pdc_"


def hash_token(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


class ApiTokenQuerySet(models.QuerySet):
    def active(self) -> ApiTokenQuerySet:
        return self.filter(revoked_at__isnull=True)


class ApiToken(models.Model):
    """A personal token for the JSON API. Only its hash is stored; the token is shown once."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(_("name"), max_length=60)
    key_hash = models.CharField(max_length=64, unique=True)
    hint = models.CharField(max_length=12, help_text="The first characters, to tell tokens apart.")
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.user} · {self.name} ({self.hint}…)"

    @classmethod
    def issue(cls, user: settings.AUTH_USER_MODEL, name: str) -> tuple[ApiToken, str]:
        """A new token for ``user``: the row and the raw token (never stored)."""
        raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
        token = cls.objects.create(
            user=user, name=name[:60], key_hash=hash_token(raw), hint=raw[: len(TOKEN_PREFIX) + 4]
        )
        return token, raw

    @classmethod
    def find(cls, key_hash: str) -> ApiToken | None:
        """The active token with this hash, with its user, if that user is active."""
        token = cls.objects.active().select_related("user").filter(key_hash=key_hash).first()
        if token is None or not token.user.is_active:
            return None
        return token

    @classmethod
    def user_for(cls, raw: str):
        """The active user of the active token ``raw``, or None."""
        token = cls.find(hash_token(raw))
        return None if token is None else token.user

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None


class Friendship(models.Model):
    """A friend request from ``from_user`` to ``to_user``; friends once accepted."""

    from_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="friend_requests_sent"
    )
    to_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="friend_requests_received"
    )
    created_at = models.DateTimeField(default=timezone.now)
    accepted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["from_user", "to_user"], name="one_request_per_pair"),
            models.CheckConstraint(
                condition=~models.Q(from_user=models.F("to_user")), name="no_friendship_with_self"
            ),
        ]

    def __str__(self) -> str:
        state = "friends" if self.accepted_at else "requested"
        return f"{self.from_user_id} → {self.to_user_id} ({state})"
