"""The garbage collector and the GIL of a server process (``pdc_site.collector``,
``request_threads.hand_over_sooner``) and the benchmark's watch of a process's stalls
(``pdc_site.loop_watch``)."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pdc_site import collector
from pdc_site.loop_watch import LONG_SECONDS, LoopWatch, Stalls

ROOT = Path(__file__).resolve().parents[2]


#: The settings of the collector, unset in a fresh process unless a test gives them.
GC_SETTINGS = ("GC_FREEZE", "GC_THRESHOLD", "GC_WHEN_IDLE", "GC_IDLE_THRESHOLD")


def what_a_server_process_reports(
    expression: str, *, unset: tuple[str, ...], env: dict[str, str], imports: str = ""
) -> Any:
    """``expression`` (of ``gc``, ``sys`` and ``c``, the collector module, and of what
    ``imports``, a statement, brings), as JSON, in a fresh process that loaded the site's ASGI
    application (a process of its own: the collector, the GIL and the module-level settings are
    set for the whole process) with ``unset`` removed from its environment and ``env`` added."""
    script = (
        "import gc, json, sys, pdc_site.asgi; from pdc_site import collector as c; "
        f"{imports + '; ' if imports else ''}print(json.dumps({expression}))"
    )
    clean = {k: v for k, v in os.environ.items() if k not in unset}
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def collector_of_a_server_process(**env: str) -> dict:
    """The collector's settings in a fresh process that loaded the site's ASGI application."""
    # The automatic collection alone (``test_idle_collections.py`` checks it beside the idle one).
    return what_a_server_process_reports(
        "{'threshold': gc.get_threshold(), 'frozen': gc.get_freeze_count()}",
        unset=GC_SETTINGS,
        env={"GC_WHEN_IDLE": "0", **env},
    )


def test_a_server_process_freezes_what_its_start_up_made_and_collects_young_objects_less_often():
    settings = collector_of_a_server_process()
    assert tuple(settings["threshold"]) == collector.DEFAULT_THRESHOLD
    # The modules, URLs, templates and catalogs: tens of thousands of containers.
    assert settings["frozen"] > 10_000


def test_gc_freeze_0_keeps_every_object_in_the_collectors_sight():
    settings = collector_of_a_server_process(GC_FREEZE="0", GC_THRESHOLD="700,10,10")
    assert settings == {"threshold": [700, 10, 10], "frozen": 0}


def test_the_threshold_is_read_from_gc_threshold(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("GC_THRESHOLD", "2000,5,50")
    assert collector.threshold() == (2000, 5, 50)
    monkeypatch.setenv("GC_THRESHOLD", "")
    assert collector.threshold() == collector.DEFAULT_THRESHOLD


def test_stalls_count_every_stall_and_list_the_long_ones():
    stalls = Stalls()
    for seconds in (0.002, LONG_SECONDS, 0.3):
        stalls.add(seconds)
    summary = stalls.summary()
    assert summary["count"] == 3
    assert summary["max_ms"] == 300.0
    assert summary["long_ms"] == [300, round(LONG_SECONDS * 1000)]


def test_the_watch_times_every_collection_by_its_generation_and_stops_with_its_callback():
    callbacks = list(gc.callbacks)

    async def watched() -> dict:
        watch = LoopWatch()
        watch.start(reporting=False)
        gc.collect()
        gc.collect(0)
        return watch.stop()

    figures = asyncio.run(watched())
    assert figures["gc2"]["count"] == 1
    assert figures["gc0"]["count"] >= 1
    assert gc.callbacks == callbacks


def switch_interval_of_a_server_process(**env: str) -> float:
    """``sys.getswitchinterval()`` in a fresh process that loaded the site's ASGI application."""
    return what_a_server_process_reports(
        "sys.getswitchinterval()", unset=("GIL_SWITCH_INTERVAL",), env=env
    )


def test_a_server_process_sets_the_gil_switch_interval_the_setting_names():
    assert switch_interval_of_a_server_process() == pytest.approx(0.005)
    assert switch_interval_of_a_server_process(GIL_SWITCH_INTERVAL="0.002") == pytest.approx(0.002)
