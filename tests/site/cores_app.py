"""An ASGI application that answers with the cores its threads may run on: the event loop's
thread, a thread of the loop's executor (where ``database_sync_to_async`` and Django's request
threads run) and a thread started now (``tests/site/test_serve_cpus.py``)."""

from __future__ import annotations

import asyncio
import os
import threading
from typing import Any


def cores() -> str:
    return ",".join(str(core) for core in sorted(os.sched_getaffinity(0)))


def cores_of_a_new_thread() -> str:
    found: list[str] = []
    thread = threading.Thread(target=lambda: found.append(cores()))
    thread.start()
    thread.join()
    return found[0]


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    in_executor = await asyncio.get_running_loop().run_in_executor(None, cores)
    body = f"{cores()} {in_executor} {cores_of_a_new_thread()}"
    headers = [(b"content-type", b"text/plain")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body.encode()})
