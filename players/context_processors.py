from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from . import friends


def friend_requests(request: HttpRequest) -> dict:
    """How many friend requests wait, for the badge in the header, read only when a page shows it."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {
        "incoming_friend_requests": SimpleLazyObject(lambda: friends.incoming_request_count(user))
    }
