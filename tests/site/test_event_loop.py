"""The site's processes run on uvloop's event loop unless ``EVENT_LOOP=asyncio``
(``pdc_site/event_loop.py``): daphne started as the site starts it (``python -m pdc_site.serve``),
and ``manage.py``'s commands (``runserver``, the worker)."""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.request
from pathlib import Path

from tests.live_server import free_port, wait_for_port

ROOT = Path(__file__).resolve().parents[2]


def environment(**chosen: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("EVENT_LOOP", "PDC_LOOP_WATCH")}
    return {**env, **chosen}


def served_on(**chosen: str) -> list[str]:
    """What ``tests/site/loop_kind_app.py`` answers when the site's launcher serves it: the loop's
    class, the reactor's class, and whether the reactor runs on that loop."""
    port = free_port()
    command = ["-m", "pdc_site.serve", "-v", "0", "-b", "127.0.0.1", "-p", str(port)]
    process = subprocess.Popen(
        [sys.executable, *command, "tests.site.loop_kind_app:application"],
        cwd=ROOT,
        env=environment(**chosen),
    )
    try:
        wait_for_port(port, process)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as answer:
            return answer.read().decode().split()
    finally:
        process.terminate()
        process.wait(10)


def test_daphne_as_the_site_starts_it_serves_on_uvloop() -> None:
    assert served_on() == ["uvloop.Loop", "AsyncioSelectorReactor", "True"]


def test_event_loop_asyncio_serves_on_asyncios_own_loop() -> None:
    assert served_on(EVENT_LOOP="asyncio") == [
        "asyncio.unix_events._UnixSelectorEventLoop",
        "AsyncioSelectorReactor",
        "True",
    ]


def test_the_loop_watch_always_gets_asyncios_loop_whose_turns_it_times() -> None:
    kind, _, _ = served_on(EVENT_LOOP="uvloop", PDC_LOOP_WATCH="1")
    assert kind == "asyncio.unix_events._UnixSelectorEventLoop"


def test_an_unknown_event_loop_stops_the_server_before_it_serves() -> None:
    finished = subprocess.run(
        [
            sys.executable,
            "-m",
            "pdc_site.serve",
            "-p",
            str(free_port()),
            "pdc_site.asgi:application",
        ],
        cwd=ROOT,
        env=environment(EVENT_LOOP="tokio"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert finished.returncode != 0
    assert "EVENT_LOOP must be 'uvloop' or 'asyncio', not 'tokio'" in finished.stderr


def test_manage_py_commands_make_their_loops_with_uvloop() -> None:
    code = "import asyncio; print(type(asyncio.new_event_loop()).__module__)"
    finished = subprocess.run(
        [sys.executable, "manage.py", "shell", "-v", "0", "-c", code],
        cwd=ROOT,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert finished.stdout.split() == ["uvloop"], finished.stderr
