"""An invitation's life on the invited player's pages: it shows as a toast until they close it or
follow it (or take a seat, or the table starts)."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.http import Http404
from django.utils import timezone

from games import notify
from games.models import Invitation


def _own_invitation(user: AbstractBaseUser, invitation_id: int) -> Invitation:
    """The player's own invitation; anybody else's answers like a missing one."""
    invitation = (
        Invitation.objects.select_for_update().filter(pk=invitation_id, to_user=user).first()
    )
    if invitation is None:
        raise Http404("There is no such invitation.")
    return invitation


def dismiss(user: AbstractBaseUser, invitation_id: int) -> Invitation:
    """Stop showing the invitation on the player's pages (every open page of theirs follows at
    once). The invitation itself stays: the player may still join a private table with it."""
    with transaction.atomic():
        invitation = _own_invitation(user, invitation_id)
        if invitation.dismissed_at is None:
            invitation.dismissed_at = timezone.now()
            invitation.save(update_fields=["dismissed_at"])
            user_id = user.pk
            transaction.on_commit(
                lambda: notify.send(notify.user_group(user_id), {"type": "user.invited"})
            )
    return invitation
