"""Fragments the player's own socket pushes (hx-swap-oob): invitations and friend requests."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.template.loader import render_to_string
from django.utils import timezone

from games.engines import get_engine
from games.models import Invitation, Match

from . import friends

#: An invitation to a table that is still open is shown for this long.
INVITATION_SHOWN_FOR = timedelta(minutes=30)


def pending_invitations(user: AbstractBaseUser) -> list[Invitation]:
    """Recent invitations to open tables where the player has no seat yet."""
    return list(
        Invitation.objects.filter(
            to_user=user,
            match__status=Match.Status.OPEN,
            created_at__gte=timezone.now() - INVITATION_SHOWN_FOR,
            dismissed_at__isnull=True,
        )
        .exclude(match__seats__user=user)
        .select_related("from_user", "match")
        .order_by("created_at")
    )


def render_invitations(user: AbstractBaseUser) -> str:
    """The whole toast area, so that a socket that connects late (or reconnects) still shows an
    invitation sent meanwhile, and one sent twice is shown once."""
    invitations = [
        {"invitation": i, "game_name": get_engine(i.match.game).name}
        for i in pending_invitations(user)
    ]
    return render_to_string("players/invitation_toasts.html", {"invitations": invitations})


def render_friend_requests(user: AbstractBaseUser) -> str:
    return render_to_string(
        "players/friend_requests_badge.html",
        {"incoming": friends.incoming_request_count(user), "oob": True},
    )
