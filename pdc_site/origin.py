"""Which pages may open the site's sockets: those of the site's own origin, the way Django's CSRF
check decides for forms.

A socket is admitted when its ``Origin`` has the scheme, host and port the socket itself came in
on (the ``Host`` header, which must be one of ``ALLOWED_HOSTS``; https when the socket is wss, or
when a proxy says so through ``SECURE_PROXY_SSL_HEADER``), or is one of ``CSRF_TRUSTED_ORIGINS``
(``https://*.example.com`` for subdomains), for a proxy that shows the site under another name.
A socket without an ``Origin`` is refused: every browser sends one, and a script can.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host
from django.utils.http import is_same_domain

DEFAULT_PORTS = {"http": 80, "https": 443}
Origin = tuple[str, str, int]


def parse_origin(url: str) -> Origin | None:
    """(scheme, host, port) with the scheme's default port filled in; None if it is no origin."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    return parts.scheme, parts.hostname, port or DEFAULT_PORTS[parts.scheme]


def _header(scope: dict, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return value.decode("latin-1")
    return None


def _secure(scope: dict) -> bool:
    if scope.get("scheme") in ("wss", "https"):
        return True
    proxy_header = settings.SECURE_PROXY_SSL_HEADER
    if not proxy_header:
        return False
    meta_name, secure_value = proxy_header
    name = meta_name.removeprefix("HTTP_").replace("_", "-").lower().encode("latin-1")
    forwarded = _header(scope, name)
    return forwarded is not None and forwarded.split(",")[0].strip() == secure_value


def own_origin(scope: dict) -> Origin | None:
    """The origin of the site as this socket reached it, if its host is one we serve."""
    host = _header(scope, b"host")
    if not host:
        return None
    domain, _port = split_domain_port(host)
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return None
    return parse_origin(f"{'https' if _secure(scope) else 'http'}://{host}")


def trusted(origin: str) -> bool:
    """Whether ``origin`` is one of ``CSRF_TRUSTED_ORIGINS``."""
    parsed = parse_origin(origin)
    if parsed is None:
        return False
    for pattern in settings.CSRF_TRUSTED_ORIGINS:
        parts = urlsplit(pattern)
        if parts.netloc.startswith("*"):
            netloc = urlsplit(origin).netloc
            if parts.scheme == parsed[0] and is_same_domain(netloc, parts.netloc[1:]):
                return True
        elif parse_origin(pattern) == parsed:
            return True
    return False


def origin_allowed(scope: dict) -> bool:
    origin = _header(scope, b"origin")
    if origin is None:
        return False
    parsed = parse_origin(origin)
    return parsed is not None and (parsed == own_origin(scope) or trusted(origin))


class SameOriginValidator:
    """Refuses, at the handshake, a socket opened by a page of another origin."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict, receive: Any, send: Any) -> Any:
        if scope["type"] == "websocket" and not origin_allowed(scope):
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)
