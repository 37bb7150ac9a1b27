"""Who is calling the JSON API: a personal token (``Authorization: Bearer …``) or a browser session
(which must then carry the CSRF header on unsafe methods, like any form)."""

from __future__ import annotations

import copy
import logging
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from django.db import connections
from django.http import HttpRequest
from django.middleware.csrf import CsrfViewMiddleware
from django.utils import timezone
from django.utils.translation import gettext as _

from games import ratelimit
from pdc_site import request_threads

from .models import ApiToken, hash_token

logger = logging.getLogger(__name__)

#: Unknown or revoked tokens one address may send per window (seconds).
TOKEN_FAILURES_PER_WINDOW = (20, 600)
#: The shared cache's key for the tokens' generation: a new random value whenever a token or a
#: user changes (``tokens_changed``), so that every process drops the tokens it knows.
GENERATION_KEY = "api-tokens:generation"
#: Tokens one process remembers at most (it forgets them all past it).
KNOWN_TOKENS_MAX = 10_000
#: How often a token's ``last_used_at`` is written (a minute's precision is enough).
LAST_USED_SECONDS = 60


@dataclass
class _Known:
    """A token this process has looked up, valid while the generation is still ``generation``."""

    generation: str
    token_id: int
    user: Any
    last_used_at: datetime | None


#: Token hash -> what the last lookup found (``settings.API_TOKEN_CACHE``).
_known: dict[str, _Known] = {}


class ApiAuthError(Exception):
    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def _csrf_failure(request: HttpRequest) -> bool:
    check = CsrfViewMiddleware(lambda request: None)
    check.process_request(request)
    return check.process_view(request, None, (), {}) is not None


#: What a request counts against its limits once its caller is known: ``(user) -> limits``.
LimitsOf = Callable[[Any], Sequence[ratelimit.Limit]]


@dataclass(frozen=True)
class Caller:
    """Who is calling, and, when the token check counted them already, the position of the
    first of the request's limits that refused its hit (``refused``; None: none did)."""

    user: Any
    counted: bool = False
    refused: int | None = None


def _token_user(raw: str, address: str, limits: LimitsOf = lambda user: ()) -> Caller:
    """The token's user. Unknown tokens are counted per address; past the limit the address is
    refused before any lookup, so a script guessing tokens (or stuck on a revoked one) costs
    no more queries.

    With ``settings.API_TOKEN_CACHE`` (a cache shared by every process), a process remembers
    the tokens it found, and trusts what it remembers only while the shared generation is the
    one it was found under: revoking a token, or any change of a user, sets a new generation
    (``tokens_changed``), so that the next request on every process looks it up again. The
    generation is read in the same round trip as the failures; while the cache is away there is
    none, and every request looks its token up.

    For a token it remembers, the same round trip counts the request's hits against
    ``limits(user)`` (its rate limits), counted only if the generation is still the one the
    token was found under: the answer says so (``Caller.counted``), and otherwise the caller
    counts them once it knows who is calling."""
    key = f"token-failures:{address}"
    key_hash = hash_token(raw)
    remembering = settings.API_TOKEN_CACHE
    known = _known.get(key_hash) if remembering else None
    reading = ratelimit.check(
        ratelimit.Limit(key, *TOKEN_FAILURES_PER_WINDOW),
        GENERATION_KEY,
        known.generation if known else None,
        limits(known.user) if known else (),
    )
    if reading.full:
        raise ApiAuthError(_("Too many unknown tokens from your address: try again later."), 429)
    generation = reading.value
    if remembering:
        if known is not None and generation is not None and known.generation == generation:
            _note_use(known)
            # A copy: a request may set attributes on its user; the next one starts afresh.
            return Caller(copy.copy(known.user), reading.counted, reading.refused)
        if generation is None:
            generation = _new_generation(only_if_none=True)
    token = ApiToken.find(key_hash)
    if token is None:
        ratelimit.allow(key, *TOKEN_FAILURES_PER_WINDOW)
        raise ApiAuthError(_("This token is unknown or has been revoked."), 401)
    found = _Known(generation or "", token.pk, token.user, token.last_used_at)
    if remembering and generation is not None:
        if len(_known) >= KNOWN_TOKENS_MAX:
            _known.clear()
        _known[key_hash] = found
    _note_use(found)
    return Caller(copy.copy(token.user) if remembering else token.user)


def _note_use(known: _Known) -> None:
    """Note when the token was last used, at most once a minute. The uses a process notes are
    written together (``_Uses``); in a request, once it is answered and its other jobs are done
    (a move's doorbell), since nobody waits for it."""
    now = timezone.now()
    if known.last_used_at is None or (now - known.last_used_at).total_seconds() > LAST_USED_SECONDS:
        known.last_used_at = now
        if not _uses.note(known.token_id, now):
            return  # the next write takes it

        def write() -> None:
            _write_uses(_uses.take())

        if not request_threads.after_answer(write, last=True):
            write()


class _Uses:
    """The token uses this process has noted and not written yet. The first use after
    ``TOKEN_USES_WRITE_SECONDS`` without a write is written by its request, with every use
    noted since; a use noted sooner waits for the next write, and a timer makes that write if no
    request does first. So one statement a few seconds carries the uses of every token, where
    each token's write was a statement and a commit of its own. A process that stops loses the
    uses of its last seconds, as a minute's precision allows."""

    def __init__(self) -> None:
        self.pending: dict[int, datetime] = {}
        self.lock = threading.Lock()
        self.written_at = float("-inf")
        self.timer: threading.Timer | None = None

    def note(self, token_id: int, when: datetime) -> bool:
        """Keep ``token_id``'s use; whether the caller is to write the uses now."""
        every = settings.TOKEN_USES_WRITE_SECONDS
        with self.lock:
            self.pending[token_id] = when
            now = time.monotonic()
            if now - self.written_at >= every:
                self.written_at = now
                return True
            if self.timer is None:
                self.timer = threading.Timer(self.written_at + every - now, self.write_late)
                self.timer.daemon = True
                self.timer.start()
            return False

    def take(self) -> dict[int, datetime]:
        """The uses noted and not written yet, forgotten here."""
        with self.lock:
            pending, self.pending = self.pending, {}
        return pending

    def write_late(self) -> None:
        """The timer's write, on its own thread and database connection (closed afterwards)."""
        with self.lock:
            self.timer = None
            self.written_at = time.monotonic()
        try:
            _write_uses(self.take())
        except Exception:  # a last use is bookkeeping: never worth a failure
            logger.warning("could not write the API tokens' last uses", exc_info=True)
        finally:
            connections.close_all()


_uses = _Uses()


def _write_uses(uses: dict[int, datetime]) -> None:
    """Write ``uses`` (token id -> when) in one statement, at the latest of their times: they
    are at most ``TOKEN_USES_WRITE_SECONDS`` apart."""
    if uses:
        ApiToken.objects.filter(pk__in=list(uses)).update(last_used_at=max(uses.values()))


def _new_generation(only_if_none: bool = False) -> str | None:
    """Set a new random generation (``only_if_none``: only where there is none yet); the
    generation now in force, or None when the cache cannot tell (it is away)."""
    value = secrets.token_hex(8)
    if only_if_none:
        if cache.add(GENERATION_KEY, value, timeout=None):
            return value
        return cache.get(GENERATION_KEY)
    cache.set(GENERATION_KEY, value, timeout=None)
    return value


def tokens_changed(**_signal: Any) -> None:
    """A token or a user changed (revoked, deleted, deactivated…): every process forgets the
    tokens it knows (a signal receiver; call it after a bulk ``update`` of either)."""
    _known.clear()
    _new_generation()


def user_changed(update_fields: Any = None, **signal: Any) -> None:
    """A saved user: a login only writes ``last_login``, which changes nothing a token needs."""
    if update_fields is not None and set(update_fields) <= {"last_login"}:
        return
    tokens_changed()


def api_user(request: HttpRequest):
    """The caller; raises ApiAuthError for a bad token or a session request without CSRF."""
    return api_caller(request).user


def api_caller(request: HttpRequest, limits: LimitsOf = lambda user: ()) -> Caller:
    """``api_user``, and the request's hits against ``limits(user)`` when they could be counted
    in the same round trip as the token check (a token this process remembers)."""
    header = request.headers.get("Authorization", "")
    if header:
        scheme, _sep, raw = header.partition(" ")
        if scheme.lower() != "bearer" or not raw.strip():
            raise ApiAuthError(_("Send your token as 'Authorization: Bearer <token>'."), 401)
        return _token_user(raw.strip(), ratelimit.client_address(request), limits)
    user = getattr(request, "user", None) or AnonymousUser()
    if (
        user.is_authenticated
        and request.method not in ("GET", "HEAD", "OPTIONS")
        and _csrf_failure(request)
    ):
        raise ApiAuthError(_("A browser session must send the CSRF token (X-CSRFToken)."), 403)
    return Caller(user)
