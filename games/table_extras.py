"""What a viewer of a table may do besides moving (issue 12): resign a running match, and play
again once it is over. Per viewer: the table's part that every seat shares says nothing of it."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.urls import reverse

from . import services
from .models import Match, Seat


def actions_context(
    match: Match, me: Seat | None, user: AbstractBaseUser | AnonymousUser | None
) -> dict[str, Any]:
    """``can_resign``; ``play_again``: None, or what the viewer can do about a rematch
    (``ask``: open it, ``join``: take a seat at the one another player opened, ``go``: go to
    the one they sit at, ``watch``: watch it)."""
    pk = match.pk
    return {
        "can_resign": match.is_playing and me is not None and not me.abandoned,
        "resign_url": reverse("games:resign", args=[pk]),
        "rematch_url": reverse("games:rematch", args=[pk]),
        "play_again": _play_again(match, me, user),
    }


def _play_again(
    match: Match, me: Seat | None, user: AbstractBaseUser | AnonymousUser | None
) -> dict[str, Any] | None:
    if not match.is_over or match.state is None:
        return None
    again = services.rematch_of(match)
    if again is None:
        return {"do": "ask"} if me is not None else None
    url = reverse("games:table", args=[again.pk])
    if services.seat_of(again, user) is not None:
        if again.private:
            url = f"{url}?invite={again.invite_code}"
        return {"do": "go", "url": url, "id": again.pk}
    if me is not None and again.is_open:
        return {"do": "join", "id": again.pk}
    if services.may_watch(again, user):
        return {"do": "watch", "url": url, "id": again.pk}
    return None
