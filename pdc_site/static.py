"""Static files: hashed names, compressed copies and long cache lifetimes (WhiteNoise).

``manage.py collectstatic`` writes every file under a name with its hash and beside it a gzip
copy; the site then serves ``/static/`` itself, compressed when the browser accepts it, and a
hashed name may be cached for ten years (its content never changes). Before collectstatic has
run (development, tests) the files are served from the apps under their plain names.

It is served at the ASGI level, before Django: WhiteNoise's middleware is synchronous only, and
in Django's middleware chain it would add two thread switches to every request of the site.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from whitenoise.middleware import WhiteNoiseMiddleware
from whitenoise.storage import CompressedManifestStaticFilesStorage


class CollectedStaticFilesStorage(CompressedManifestStaticFilesStorage):
    """Hashed names once ``collectstatic`` has run; the plain names before (the finders serve
    the files from the apps then), instead of an error on every page."""

    manifest_strict = False

    def stored_name(self, name: str) -> str:
        try:
            return super().stored_name(name)
        except ValueError:  # not collected: no manifest entry and no file to hash
            return name


class StaticFiles:
    """An ASGI application: ``/static/`` from WhiteNoise, everything else to ``app``."""

    def __init__(self, app: Callable[..., Any]) -> None:
        self.app = app
        with warnings.catch_warnings():
            # Before collectstatic there is no STATIC_ROOT yet: the finders serve the files.
            warnings.filterwarnings("ignore", message="No directory at", category=UserWarning)
            self.whitenoise = WhiteNoiseMiddleware()
        self.prefix = self.whitenoise.static_prefix

    def find(self, path: str) -> Any:
        if self.whitenoise.autorefresh:
            return self.whitenoise.find_file(path)
        return self.whitenoise.files.get(path)

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        path = scope.get("path", "")
        found = (
            self.find(path) if scope["type"] == "http" and path.startswith(self.prefix) else None
        )
        if found is None:
            await self.app(scope, receive, send)
            return
        # WhiteNoise reads the request's conditional, range and encoding headers from a WSGI
        # environment.
        environ = {
            "HTTP_" + name.decode("latin-1").upper().replace("-", "_"): value.decode("latin-1")
            for name, value in scope.get("headers", [])
        }
        response = found.get_response(scope["method"], environ)
        body = b""
        if response.file is not None:
            with response.file as file:
                body = file.read()
        await send(
            {
                "type": "http.response.start",
                "status": int(response.status),
                "headers": [
                    (key.encode("latin-1"), value.encode("latin-1"))
                    for key, value in response.headers
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
