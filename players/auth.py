"""Who is calling the JSON API: a personal token (``Authorization: Bearer …``) or a browser session
(which must then carry the CSRF header on unsafe methods, like any form)."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest
from django.middleware.csrf import CsrfViewMiddleware
from django.utils.translation import gettext as _

from .models import ApiToken


class ApiAuthError(Exception):
    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def _csrf_failure(request: HttpRequest) -> bool:
    check = CsrfViewMiddleware(lambda request: None)
    check.process_request(request)
    return check.process_view(request, None, (), {}) is not None


def api_user(request: HttpRequest):
    """The caller; raises ApiAuthError for a bad token or a session request without CSRF."""
    header = request.headers.get("Authorization", "")
    if header:
        scheme, _sep, raw = header.partition(" ")
        if scheme.lower() != "bearer" or not raw.strip():
            raise ApiAuthError(_("Send your token as 'Authorization: Bearer <token>'."), 401)
        user = ApiToken.user_for(raw.strip())
        if user is None:
            raise ApiAuthError(_("This token is unknown or has been revoked."), 401)
        return user
    user = getattr(request, "user", None) or AnonymousUser()
    if (
        user.is_authenticated
        and request.method not in ("GET", "HEAD", "OPTIONS")
        and _csrf_failure(request)
    ):
        raise ApiAuthError(_("A browser session must send the CSRF token (X-CSRFToken)."), 403)
    return user
