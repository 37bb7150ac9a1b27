"""A bare ASGI app for the load generator's client (``bench/wire.py``): its tests
(``tests/site/test_live_wire.py``) and its benchmark (``bench/bench_wire.py``) run it under daphne.
No Django: what a client costs daphne and itself, nothing of the site's.

- ``/length``: what the request was (method, body, Authorization) as JSON, with Content-Length.
- ``/chunked``: the same in three pieces without a length (daphne sends it chunked).
- ``/echo`` (WebSocket): sends back every text message; ``bye`` closes it with 4001;
  ``push N SIZE``: sends N text messages of SIZE bytes with a version mark, as the site's pushes.
- ``/refuse`` (WebSocket): refused before it is accepted.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


async def application(scope: dict[str, Any], receive: Receive, send: Send) -> None:
    if scope["type"] == "http":
        await answer(scope, receive, send)
    elif scope["type"] == "websocket":
        await socket(scope, receive, send)


async def answer(scope: dict[str, Any], receive: Receive, send: Send) -> None:
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    seen = {
        "method": scope["method"],
        "body": body.decode(),
        "auth": dict(scope["headers"]).get(b"authorization", b"").decode(),
    }
    data = json.dumps(seen).encode()
    if scope["path"] == "/chunked":
        await send({"type": "http.response.start", "status": 201, "headers": []})
        third = len(data) // 3
        for piece in (data[:third], data[third : 2 * third]):
            await send({"type": "http.response.body", "body": piece, "more_body": True})
        await send({"type": "http.response.body", "body": data[2 * third :]})
    else:
        headers = [(b"content-length", str(len(data)).encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": data})


async def socket(scope: dict[str, Any], receive: Receive, send: Send) -> None:
    await receive()  # websocket.connect
    if scope["path"] == "/refuse":
        await send({"type": "websocket.close", "code": 4003})
        return
    await send({"type": "websocket.accept"})
    while True:
        message = await receive()
        if message["type"] == "websocket.disconnect":
            return
        text = message.get("text") or ""
        if text == "bye":
            await send({"type": "websocket.close", "code": 4001})
            return
        if text.startswith("push "):
            _push, count, size = text.split()
            for version in range(int(count)):
                mark = f'<div id="table-status" data-version="{version}">'
                await send({"type": "websocket.send", "text": mark + "x" * int(size)})
        else:
            await send({"type": "websocket.send", "text": text})
