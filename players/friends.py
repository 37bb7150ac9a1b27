"""Friends: requests, acceptance, removal. The only code that changes a Friendship."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Count, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from games import notify

from .models import Friendship


class FriendError(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _between(a: AbstractBaseUser, b: AbstractBaseUser) -> Q:
    return Q(from_user=a, to_user=b) | Q(from_user=b, to_user=a)


def friendship_status(viewer: AbstractBaseUser, target: AbstractBaseUser) -> str:
    """'self', 'none', 'requested' (viewer asked), 'incoming' (target asked) or 'friends'."""
    if not viewer.is_authenticated:
        return "none"
    if viewer.pk == target.pk:
        return "self"
    return status_of_link(viewer, next(iter(link_between(viewer, target)), None))


def link_between(viewer: AbstractBaseUser, target: AbstractBaseUser) -> QuerySet:
    """The friendship (or request) between two players, as ``(from_user_id, accepted_at)``."""
    return (
        Friendship.objects.filter(_between(viewer, target))
        .order_by("pk")
        .values_list("from_user_id", "accepted_at")[:1]
    )


def status_of_link(viewer: AbstractBaseUser, link: tuple | None) -> str:
    """The status ``friendship_status`` gives, from the row of ``link_between`` (None: no row)."""
    if link is None:
        return "none"
    from_user_id, accepted_at = link
    if accepted_at:
        return "friends"
    return "requested" if from_user_id == viewer.pk else "incoming"


def friend_ids(user: AbstractBaseUser) -> set[int]:
    if not user.is_authenticated:
        return set()
    pairs = Friendship.objects.filter(
        Q(from_user=user) | Q(to_user=user), accepted_at__isnull=False
    ).values_list("from_user_id", "to_user_id")
    return {b if a == user.pk else a for a, b in pairs}


def incoming_request_count(user: AbstractBaseUser) -> int:
    """How many friend requests wait for the player's answer: what the header's badge shows, on
    every page, so a count rather than the requests and their senders."""
    return Friendship.objects.filter(to_user=user, accepted_at__isnull=True).count()


def incoming_count_query(user: AbstractBaseUser) -> QuerySet:
    """``incoming_request_count`` as a query to send with others: one row ``(count,)``, or none
    for none."""
    return (
        Friendship.objects.filter(to_user=user, accepted_at__isnull=True)
        .values("to_user")
        .annotate(count=Count("pk"))
        .values_list("count")
    )


def incoming_requests(user: AbstractBaseUser) -> list[Friendship]:
    return list(
        Friendship.objects.filter(to_user=user, accepted_at__isnull=True).select_related(
            "from_user"
        )
    )


def request_friend(user: AbstractBaseUser, target: AbstractBaseUser) -> str:
    """Ask ``target`` to be friends; if they already asked, this accepts. The new status."""
    if user.pk == target.pk:
        raise FriendError(_("You cannot befriend yourself."))
    with transaction.atomic():
        link = Friendship.objects.select_for_update().filter(_between(user, target)).first()
        if link is not None:
            if link.accepted_at:
                return "friends"
            if link.to_user_id == user.pk:
                link.accepted_at = timezone.now()
                link.save(update_fields=["accepted_at"])
                _tell(target)
                return "friends"
            return "requested"
        try:
            with transaction.atomic():
                Friendship.objects.create(from_user=user, to_user=target)
        except IntegrityError:  # the same request sent twice at once
            return "requested"
        _tell(target)
    return "requested"


def accept(user: AbstractBaseUser, requester: AbstractBaseUser) -> None:
    with transaction.atomic():
        link = (
            Friendship.objects.select_for_update()
            .filter(from_user=requester, to_user=user, accepted_at__isnull=True)
            .first()
        )
        if link is None:
            raise FriendError(_("There is no friend request from %(name)s.") % {"name": requester})
        link.accepted_at = timezone.now()
        link.save(update_fields=["accepted_at"])
        _tell(requester)


def decline(user: AbstractBaseUser, requester: AbstractBaseUser) -> None:
    deleted, _count = Friendship.objects.filter(
        from_user=requester, to_user=user, accepted_at__isnull=True
    ).delete()
    if not deleted:
        raise FriendError(_("There is no friend request from %(name)s.") % {"name": requester})


def remove(user: AbstractBaseUser, other: AbstractBaseUser) -> None:
    """End a friendship, or withdraw a request not yet answered."""
    Friendship.objects.filter(_between(user, other)).delete()


def _tell(user: AbstractBaseUser) -> None:
    user_id = user.pk
    transaction.on_commit(lambda: notify.send(notify.user_group(user_id), {"type": "user.changed"}))
