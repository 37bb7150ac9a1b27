"""An ASGI application that answers with the kind of event loop serving it and whether Twisted's
reactor runs on that same loop (``tests/site/test_event_loop.py``)."""

from __future__ import annotations

import asyncio
from typing import Any


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    from twisted.internet import reactor

    loop = asyncio.get_running_loop()
    kind = type(loop)
    on_it = getattr(reactor, "_asyncioEventloop", None) is loop
    body = f"{kind.__module__}.{kind.__qualname__} {type(reactor).__name__} {on_it}"
    headers = [(b"content-type", b"text/plain")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body.encode()})
