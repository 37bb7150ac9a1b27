"""``bench/live.py --services-core``: PostgreSQL, Redis, the worker and the load generator kept on
the last core for a run (``bench/placement.py``), and every thread given its cores back after."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from bench import placement
from bench.live import (
    core_of,
    parse_args,
    process_parents,
    processes_named,
    services_core,
    services_of,
)

#: A process with a second thread, which starts one thread more for each line on its stdin.
THREADED = """
import sys, threading, time
threading.Thread(target=time.sleep, args=(120,), daemon=True).start()
print("ready", flush=True)
for line in sys.stdin:
    threading.Thread(target=time.sleep, args=(120,), daemon=True).start()
    print("started", flush=True)
"""

#: A process that starts a child of its own (a worker and its pool).
PARENT = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
print(child.pid, flush=True)
time.sleep(120)
"""


@pytest.fixture
def started() -> Iterator[list[subprocess.Popen]]:
    processes: list[subprocess.Popen] = []
    yield processes
    for process in processes:
        process.kill()
        process.wait()


def start(processes: list[subprocess.Popen], code: str) -> subprocess.Popen:
    process = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    processes.append(process)
    return process


def threaded(processes: list[subprocess.Popen]) -> subprocess.Popen:
    process = start(processes, THREADED)
    assert process.stdout.readline().strip() == "ready"
    return process


def start_a_thread(process: subprocess.Popen) -> None:
    process.stdin.write("go\n")
    process.stdin.flush()
    assert process.stdout.readline().strip() == "started"


def affinities(pid: int) -> list[set[int]]:
    return [os.sched_getaffinity(thread) for thread in placement.threads_of(pid)]


def last_core() -> int:
    return sorted(os.sched_getaffinity(0))[-1]


def test_every_thread_of_a_kept_process_runs_on_the_core_until_the_run_ends(started):
    process = threaded(started)
    ours = os.sched_getaffinity(0)
    with placement.kept_on(last_core(), lambda: [process.pid]) as before:
        assert len(before) == 2
        assert affinities(process.pid) == [{last_core()}, {last_core()}]
    assert affinities(process.pid) == [ours, ours]


def test_each_thread_gets_back_the_cores_it_had_not_all_of_ours(started):
    process = threaded(started)
    first = {min(os.sched_getaffinity(0))}
    for thread in placement.threads_of(process.pid):
        os.sched_setaffinity(thread, first)
    with placement.kept_on(last_core(), lambda: [process.pid]):
        pass
    assert affinities(process.pid) == [first, first]
    assert first != os.sched_getaffinity(0)  # two cores at least, as ``--services-core`` needs


def test_a_thread_born_during_the_run_starts_on_the_core_and_is_given_ours_after(started):
    process = threaded(started)
    ours = os.sched_getaffinity(0)
    with placement.kept_on(last_core(), lambda: [process.pid]):
        start_a_thread(process)
        assert affinities(process.pid) == [{last_core()}] * 3
    assert affinities(process.pid) == [ours] * 3


def test_a_process_gone_before_it_is_kept_is_skipped(started):
    process = start(started, "pass")
    process.wait()
    before: dict[int, set[int]] = {}
    placement.pin([process.pid], last_core(), before)
    assert before == {}


def test_a_thread_that_cannot_be_kept_fails_the_run_and_the_others_are_given_back(
    started, monkeypatch
):
    first, second = threaded(started), threaded(started)
    ours = os.sched_getaffinity(0)
    refused = set(placement.threads_of(second.pid))
    setting = os.sched_setaffinity

    def refusing(thread: int, cores: set[int]) -> None:
        if thread in refused and cores != ours:
            raise PermissionError(1, "Operation not permitted")
        setting(thread, cores)

    monkeypatch.setattr(placement.os, "sched_setaffinity", refusing)
    with (
        pytest.raises(PermissionError),
        placement.kept_on(last_core(), lambda: [first.pid, second.pid]),
    ):
        pass
    assert affinities(first.pid) == [ours, ours]


def test_a_process_is_kept_with_every_process_below_it(started):
    parent, elsewhere = start(started, PARENT), start(started, "import time; time.sleep(120)")
    child = int(parent.stdout.readline())
    try:
        found = placement.with_descendants([parent.pid], process_parents())
        assert child in found and parent.pid in found
        assert elsewhere.pid not in found
    finally:
        os.kill(child, 9)


def test_the_services_are_the_databases_the_worker_and_its_pool_and_the_generator(started):
    worker, daphne = start(started, PARENT), start(started, "import time; time.sleep(120)")
    pool = int(worker.stdout.readline())
    try:
        services = services_of(worker.pid)()
        assert {worker.pid, pool, os.getpid()} <= set(services)
        assert set(processes_named("postgres")) <= set(services)
        assert set(processes_named("redis-server")) <= set(services)
        # A daphne is the generator's child too, and keeps its own core.
        assert daphne.pid not in services
    finally:
        os.kill(pool, 9)


def test_the_services_core_is_the_last_daphnes():
    # As many daphnes as cores: the last one is pinned to the core the services are kept on.
    last = len(os.sched_getaffinity(0)) - 1
    assert core_of(last, pin=True) == {"SERVE_CPUS": str(services_core())}
    assert core_of(0, pin=True) != {"SERVE_CPUS": str(services_core())} or last == 0


def test_services_core_needs_pinned_daphnes():
    with pytest.raises(SystemExit):
        parse_args(["--services-core", "--float"])
