"""Who is calling the JSON API: a personal token (``Authorization: Bearer …``) or a browser session
(which must then carry the CSRF header on unsafe methods, like any form)."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest
from django.middleware.csrf import CsrfViewMiddleware
from django.utils.translation import gettext as _

from games import ratelimit

from .models import ApiToken

#: Unknown or revoked tokens one address may send per window (seconds).
TOKEN_FAILURES_PER_WINDOW = (20, 600)


class ApiAuthError(Exception):
    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def _csrf_failure(request: HttpRequest) -> bool:
    check = CsrfViewMiddleware(lambda request: None)
    check.process_request(request)
    return check.process_view(request, None, (), {}) is not None


def _token_user(raw: str, address: str):
    """The token's user. Unknown tokens are counted per address; past the limit the address is
    refused before any lookup, so a script guessing tokens (or stuck on a revoked one) costs
    no more queries."""
    key = f"token-failures:{address}"
    if ratelimit.full(key, *TOKEN_FAILURES_PER_WINDOW):
        raise ApiAuthError(_("Too many unknown tokens from your address: try again later."), 429)
    user = ApiToken.user_for(raw)
    if user is None:
        ratelimit.allow(key, *TOKEN_FAILURES_PER_WINDOW)
        raise ApiAuthError(_("This token is unknown or has been revoked."), 401)
    return user


def api_user(request: HttpRequest):
    """The caller; raises ApiAuthError for a bad token or a session request without CSRF."""
    header = request.headers.get("Authorization", "")
    if header:
        scheme, _sep, raw = header.partition(" ")
        if scheme.lower() != "bearer" or not raw.strip():
            raise ApiAuthError(_("Send your token as 'Authorization: Bearer <token>'."), 401)
        return _token_user(raw.strip(), ratelimit.client_address(request))
    user = getattr(request, "user", None) or AnonymousUser()
    if (
        user.is_authenticated
        and request.method not in ("GET", "HEAD", "OPTIONS")
        and _csrf_failure(request)
    ):
        raise ApiAuthError(_("A browser session must send the CSRF token (X-CSRFToken)."), 403)
    return user
