"""A daphne of the site keeps to the cores ``SERVE_CPUS`` names, every thread of it
(``pdc_site/cpus.py``, read by ``python -m pdc_site.serve``); ``bench/live.py`` pins its daphnes
one to a core unless told ``--float``."""

from __future__ import annotations

import os
import subprocess
import urllib.request
from pathlib import Path

import pytest

from bench.live import core_of
from pdc_site.cpus import parse
from tests.live_server import launch_stopped, launched

ROOT = Path(__file__).resolve().parents[2]
ALLOWED = sorted(os.sched_getaffinity(0))


def environment(**chosen: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "SERVE_CPUS"}
    return {**env, **chosen}


def cores_served(**chosen: str) -> list[str]:
    """What ``tests/site/cores_app.py`` answers when the site's launcher serves it (the cores of
    the loop's thread, of an executor's thread, of a new thread), and the cores of every thread
    the server has then, read from outside."""
    with launched("tests.site.cores_app:application", environment(**chosen)) as (base, process):
        with urllib.request.urlopen(f"{base}/", timeout=10) as answer:
            inside = answer.read().decode().split()
        threads = os.listdir(f"/proc/{process.pid}/task")
        outside = {",".join(map(str, sorted(os.sched_getaffinity(int(t))))) for t in threads}
        return [*inside, *sorted(outside)]


def stopped_with(serve_cpus: str) -> subprocess.CompletedProcess[str]:
    return launch_stopped(environment(SERVE_CPUS=serve_cpus))


def test_a_list_of_cores_reads_as_numbers_and_ranges() -> None:
    assert parse("0") == {0}
    assert parse("1,3") == {1, 3}
    assert parse("0-2, 5") == {0, 1, 2, 5}


@pytest.mark.parametrize("text", ["", "a", "1-", "-1", "2-1", "1;2", "0,,1"])
def test_a_list_that_is_not_cores_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse(text)


def test_serve_cpus_keeps_every_thread_of_the_server_to_that_core() -> None:
    last = str(ALLOWED[-1])
    assert cores_served(SERVE_CPUS=last) == [last, last, last, last]


def test_without_serve_cpus_the_server_may_run_on_every_core() -> None:
    every = ",".join(map(str, ALLOWED))
    assert cores_served() == [every, every, every, every]


def test_a_list_that_is_not_cores_stops_the_server_before_it_serves() -> None:
    finished = stopped_with("first")
    assert finished.returncode != 0
    assert "SERVE_CPUS must list cores as 0, 1,3 or 0-1" in finished.stderr


def test_a_core_the_server_may_not_use_stops_it_before_it_serves() -> None:
    beyond = max(ALLOWED) + 1000
    finished = stopped_with(f"{ALLOWED[0]},{beyond}-{beyond + 100000}")
    assert finished.returncode != 0
    refused = ", ".join(str(beyond + i) for i in range(8))
    assert f"SERVE_CPUS names cores this process may not use: {refused}, …" in finished.stderr


def test_the_live_bench_gives_its_daphnes_the_cores_in_turn_unless_they_float() -> None:
    assert [core_of(i, pin=True) for i in range(len(ALLOWED) + 1)] == [
        *({"SERVE_CPUS": str(core)} for core in ALLOWED),
        {"SERVE_CPUS": str(ALLOWED[0])},
    ]
    assert core_of(0, pin=False) == {}
