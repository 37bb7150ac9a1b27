"""Fragments the player's own socket pushes (hx-swap-oob): invitations and friend requests."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.template.loader import render_to_string

from games.engines import get_engine
from games.models import Invitation

from . import friends


def render_invitation(user: AbstractBaseUser, invitation_id: int) -> str:
    invitation = (
        Invitation.objects.filter(pk=invitation_id, to_user=user)
        .select_related("from_user", "match")
        .first()
    )
    if invitation is None or not invitation.match.is_open:
        return ""
    return render_to_string(
        "players/invitation_toast.html",
        {
            "invitation": invitation,
            "game_name": get_engine(invitation.match.game).name,
        },
    )


def render_friend_requests(user: AbstractBaseUser) -> str:
    return render_to_string(
        "players/friend_requests_badge.html",
        {"incoming": friends.incoming_requests(user), "oob": True},
    )
