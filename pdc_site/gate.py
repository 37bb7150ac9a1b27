"""The gate: what comes in from outside is checked here, once, before any view, service or query
sees it.

Every request's path, query, cookies and form fields must be text the database can store (no NUL
and no lone surrogate: PostgreSQL refuses them, and a refusal deep in a query is a 500). A body is
at most ``DATA_UPLOAD_MAX_MEMORY_SIZE`` bytes; a body that is not a form must be JSON, and all
JSON, from a request or a socket frame, is read by ``load_json``: UTF-8, nested at most
``MAX_JSON_DEPTH`` deep, integers within ±(2**53 − 1) (what every JSON reader agrees on), finite
numbers only, storable strings. A request that breaks a rule is answered 400 with a sentence
(``{"error": …}`` under ``/api/``) and reaches nothing else.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any
from urllib.parse import parse_qsl

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.core.exceptions import BadRequest, SuspiciousOperation
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.http.cookie import parse_cookie
from django.http.multipartparser import MultiPartParserError
from django.utils.deprecation import MiddlewareMixin
from django.utils.translation import gettext as _

API_PREFIX = "/api/"
MAX_JSON_DEPTH = 16
MAX_JSON_INTEGER = 2**53 - 1
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")
_NOT_READ = object()


class BadInput(Exception):
    """Input the site refuses to read, with the sentence to answer."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def max_body_bytes() -> int:
    return settings.DATA_UPLOAD_MAX_MEMORY_SIZE


# --- text ----------------------------------------------------------------------------------------
def storable(text: str) -> bool:
    """Whether the database can store ``text``: no NUL, and valid Unicode (no lone surrogate)."""
    if "\x00" in text:
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _texts(pairs: Iterable[tuple[str, Any]]) -> Iterator[str]:
    """Keys and values of a QueryDict's ``lists()`` or a plain dict's ``items()``."""
    for key, values in pairs:
        yield key
        yield from values if isinstance(values, list) else [values]


def _require_storable(texts: Iterable[Any]) -> None:
    if not all(storable(text) for text in texts if isinstance(text, str)):
        raise BadInput(
            _("The request contains a NUL character or broken text: remove it and try again.")
        )


# --- JSON ----------------------------------------------------------------------------------------
_JSON_SPECIAL = re.compile(r'[\[\]{}"\\]')


def _deeper_than(text: str, limit: int) -> bool:
    """Whether brackets outside strings nest deeper than ``limit``: read in one pass, before the
    parser (which would recurse once per level) sees the text."""
    depth, in_string, escaped_until = 0, False, -1
    for found in _JSON_SPECIAL.finditer(text):
        at, char = found.start(), found.group()
        if at < escaped_until:
            continue
        if in_string:
            if char == "\\":
                escaped_until = at + 2
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


def _integer(digits: str) -> int:
    if len(digits.lstrip("-")) > len(str(MAX_JSON_INTEGER)) or abs(int(digits)) > MAX_JSON_INTEGER:
        raise BadInput(
            _("Numbers must lie between -%(max)s and %(max)s.") % {"max": MAX_JSON_INTEGER}
        )
    return int(digits)


def _real(text: str) -> float:
    number = float(text)
    if number in (float("inf"), float("-inf")):
        raise BadInput(_("Numbers must be finite."))
    return number


def _constant(name: str) -> Any:
    raise BadInput(_("Numbers must be finite."))


def _check_strings(data: Any) -> None:
    pending = [data]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
        elif isinstance(item, str) and not storable(item):
            raise BadInput(_("Text in JSON must not contain NUL characters or lone surrogates."))


def load_json(raw: bytes | str, max_bytes: int | None = None) -> Any:
    """Read JSON from outside (a request body, a socket frame), or raise ``BadInput``."""
    limit = max_body_bytes() if max_bytes is None else max_bytes
    if len(raw) > limit:
        raise BadInput(_("The request is too large."))
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise BadInput(_("JSON must be UTF-8 text.")) from None
    if _deeper_than(raw, MAX_JSON_DEPTH):
        raise BadInput(
            _("JSON may be nested at most %(depth)s levels deep.") % {"depth": MAX_JSON_DEPTH}
        )
    try:
        data = json.loads(raw, parse_int=_integer, parse_float=_real, parse_constant=_constant)
    except json.JSONDecodeError:
        raise BadInput(_("This is not JSON.")) from None
    _check_strings(data)
    return data


# --- requests ------------------------------------------------------------------------------------
def _content_type(request: HttpRequest) -> str:
    return request.content_type or ""


def request_json(request: HttpRequest) -> Any:
    """The request body read as JSON (None when there is none), read once and kept."""
    cached = getattr(request, "_gate_json", _NOT_READ)
    if cached is not _NOT_READ:
        return cached
    if _content_type(request) == "multipart/form-data":
        raise BadInput(_("The request body must be JSON."))
    try:
        body = request.body
    except (SuspiciousOperation, BadRequest):
        raise BadInput(_("The request is too large.")) from None
    data = load_json(body) if body else None
    request._gate_json = data
    return data


def _declared_length(request: HttpRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


def check_request(request: HttpRequest) -> None:
    """Raise ``BadInput`` if any part of the request breaks the gate's rules."""
    if _declared_length(request) > max_body_bytes():
        raise BadInput(_("The request is too large."))
    try:
        _require_storable([request.path])
        _require_storable(_texts(request.GET.lists()))
        _require_storable(_texts(request.COOKIES.items()))
        if _content_type(request) not in FORM_TYPES:
            request_json(request)
        elif request.method == "POST":
            _require_storable(_texts(request.POST.lists()))
    except (SuspiciousOperation, BadRequest, MultiPartParserError):
        # Too many fields, a broken multipart body: Django's own refusals, in our words.
        raise BadInput(_("This request cannot be read.")) from None


def refusal(request: HttpRequest, message: str) -> HttpResponse:
    if request.path.startswith(API_PREFIX):
        return JsonResponse({"error": message}, status=400)
    return HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")


class RequestGate(MiddlewareMixin):
    """Refuses a request that breaks the gate's rules before any other code reads it."""

    def process_request(self, request: HttpRequest) -> HttpResponse | None:
        try:
            check_request(request)
        except BadInput as refused:
            return refusal(request, refused.message)
        return None


# --- sockets -------------------------------------------------------------------------------------
def _socket_scope_storable(scope: dict) -> bool:
    try:
        query = parse_qsl(scope.get("query_string", b"").decode("utf-8"), keep_blank_values=True)
    except UnicodeDecodeError:
        return False
    headers = dict(scope.get("headers", []))
    cookies = parse_cookie(headers.get(b"cookie", b"").decode("latin-1"))
    texts = [scope.get("path", ""), *_texts(query), *_texts(cookies.items())]
    return all(storable(text) for text in texts)


class SocketGate:
    """The gate for sockets: a socket whose address, query or cookies hold text the database
    cannot store is refused at the handshake. Its frames go through ``load_json``."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict, receive: Any, send: Any) -> Any:
        if scope["type"] == "websocket" and not _socket_scope_storable(scope):
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)
