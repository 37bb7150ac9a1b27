"""The site's processes run on uvloop's event loop unless ``EVENT_LOOP=asyncio``
(``pdc_site/event_loop.py``): daphne started as the site starts it (``python -m pdc_site.serve``),
and ``manage.py``'s commands (``runserver``, the worker)."""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.request
from pathlib import Path

from tests.live_server import launch_stopped, launched

ROOT = Path(__file__).resolve().parents[2]


def environment(**chosen: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("EVENT_LOOP", "PDC_LOOP_WATCH")}
    return {**env, **chosen}


def served_on(**chosen: str) -> list[str]:
    """What ``tests/site/loop_kind_app.py`` answers when the site's launcher serves it: the loop's
    class, the reactor's class, and whether the reactor runs on that loop."""
    app = "tests.site.loop_kind_app:application"
    with (
        launched(app, environment(**chosen)) as (base, _process),
        urllib.request.urlopen(f"{base}/", timeout=10) as answer,
    ):
        return answer.read().decode().split()


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
    finished = launch_stopped(environment(EVENT_LOOP="tokio"))
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


def test_the_live_benchmark_names_the_loop_its_daphnes_run_on() -> None:
    """``bench/live.py``'s report says whether its daphnes ran on the deployed loop: with
    ``--watch`` (``PDC_LOOP_WATCH``) both the floor and the site run on asyncio's, and their
    figures are not the deployed site's."""
    from bench.live import daphnes_loop

    assert daphnes_loop(environment()) == "event loop: uvloop's"
    assert daphnes_loop(environment(EVENT_LOOP="asyncio")) == "event loop: asyncio's"
    watched = daphnes_loop(environment(PDC_LOOP_WATCH="1"))
    assert watched == "event loop: asyncio's (--watch times its turns; uvloop is deployed)"
