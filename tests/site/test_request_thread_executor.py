"""A request's thread (pdc_site/request_threads.RequestThread) does what the one-thread
``ThreadPoolExecutor`` it replaces did: its calls run one at a time, in order, on one thread;
a failure travels in the future; a call cancelled before it runs never runs; and neither a
dropped executor nor the interpreter's exit leaves its thread waiting forever."""

from __future__ import annotations

import asyncio
import gc
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from asgiref.sync import ThreadSensitiveContext, sync_to_async

from pdc_site.request_threads import RequestThread

ROOT = Path(__file__).resolve().parents[2]


def test_calls_run_in_order_on_one_thread_that_is_not_the_callers():
    thread = RequestThread()
    seen: list[tuple[int, int]] = []
    futures = [
        thread.submit(lambda n: seen.append((n, threading.get_ident())) or n, n) for n in range(20)
    ]
    assert [f.result(timeout=10) for f in futures] == list(range(20))
    assert [n for n, _ in seen] == list(range(20))
    assert len({ident for _, ident in seen}) == 1
    assert seen[0][1] != threading.get_ident()
    thread.shutdown()


def test_a_failure_is_carried_by_the_future_and_the_thread_goes_on():
    thread = RequestThread()

    def fails() -> None:
        raise ValueError("no")

    with pytest.raises(ValueError, match="no"):
        thread.submit(fails).result(timeout=10)
    assert thread.submit(lambda: 7).result(timeout=10) == 7
    thread.shutdown()


def test_a_call_cancelled_before_it_runs_never_runs():
    thread = RequestThread()
    gate = threading.Event()
    ran: list[str] = []
    blocking = thread.submit(gate.wait)  # the next call waits behind it
    cancelled = thread.submit(ran.append, "cancelled")
    assert cancelled.cancel()
    after = thread.submit(ran.append, "after")
    gate.set()
    blocking.result(timeout=10)
    after.result(timeout=10)
    assert ran == ["after"]
    thread.shutdown()


def test_after_shutdown_the_thread_ends_and_refuses_new_calls():
    thread = RequestThread()
    assert thread.submit(lambda: 1).result(timeout=10) == 1
    thread.shutdown(wait=True)
    assert not thread._thread.is_alive()
    with pytest.raises(RuntimeError):
        thread.submit(lambda: 2)


def test_shutdown_can_cancel_the_calls_not_yet_started():
    thread = RequestThread()
    started, gate = threading.Event(), threading.Event()
    blocking = thread.submit(lambda: (started.set(), gate.wait()))
    waiting = thread.submit(lambda: "ran")
    assert started.wait(timeout=10)
    thread.shutdown(wait=False, cancel_futures=True)
    gate.set()
    blocking.result(timeout=10)
    assert waiting.cancelled()
    thread._thread.join(timeout=10)
    assert not thread._thread.is_alive()


def test_a_dropped_executor_ends_its_thread():
    thread = RequestThread()
    thread.submit(int).result(timeout=10)
    running = thread._thread
    del thread
    gc.collect()
    running.join(timeout=10)
    assert not running.is_alive()


def test_it_serves_asgirefs_thread_sensitive_calls():
    thread = RequestThread()

    async def hops() -> set[int]:
        async with ThreadSensitiveContext(executor=thread):
            return {await sync_to_async(threading.get_ident)() for _ in range(5)}

    assert asyncio.run(hops()) == {thread._thread.ident}
    thread.shutdown()


def test_the_interpreter_exits_with_a_thread_never_shut_down_after_its_calls_ran():
    program = (
        "import threading, time\n"
        "from pdc_site.request_threads import RequestThread\n"
        "kept = RequestThread()\n"
        "dropped = RequestThread()\n"
        "kept.submit(lambda: (time.sleep(0.2), print('finished', flush=True)))\n"
        "dropped.submit(int).result()\n"
        "del dropped\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "finished\n"
