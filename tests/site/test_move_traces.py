"""The benchmark's traces of a move (``pdc_site.loop_watch``, on only with ``PDC_LOOP_WATCH``):
a move's request marks its steps and each table socket its frame, on the clock the load
generator reads; a late event loop is sampled; and nothing is kept when no one watches."""

from __future__ import annotations

import asyncio
import contextvars
import gc
import hashlib
import os
import threading
import time

import pytest

from pdc_site import loop_watch
from pdc_site.loop_watch import LoopWatch


@pytest.fixture
def watch(monkeypatch: pytest.MonkeyPatch) -> LoopWatch:
    watched = LoopWatch()
    monkeypatch.setattr(loop_watch, "_watch", watched)
    return watched


def a_request(match_id: int, version: int) -> None:
    """What a move's request marks, in the order it reaches its steps."""
    loop_watch.begin_request()
    for step in ("thread", "made", "sent", "jobs"):
        loop_watch.mark(step)
    loop_watch.name_move(match_id, version)
    for step in ("rendered", "published", "ended"):
        loop_watch.mark(step)


def test_a_moves_request_and_its_sockets_frames_make_one_trace_in_order(watch: LoopWatch):
    async def run() -> None:
        # A task of its own, as each request is: its marks stay in its context.
        await asyncio.ensure_future(asyncio.to_thread(a_request, 7, 12))

    asyncio.run(run())
    loop_watch.socket_pushed(7, 12, time.monotonic(), "published")
    loop_watch.socket_pushed(7, 12, time.monotonic(), "read")
    [trace] = watch.finished_moves(older_than=time.monotonic() + 1)
    steps = ["arrived", "thread", "made", "sent", "jobs", "rendered", "published", "ended"]
    assert [trace[step] for step in steps] == sorted(trace[step] for step in steps)
    assert (trace["match"], trace["version"]) == (7, 12)
    assert [how for _doorbell, _sent, how in trace["pushes"]] == ["published", "read"]
    assert watch.finished_moves(older_than=time.monotonic() + 1) == []


def test_a_step_in_one_thread_tells_the_threads_cpu_there_and_its_wait_for_a_core(
    watch: LoopWatch,
):
    def request() -> dict:
        loop_watch.begin_request()
        loop_watch.mark_in_thread("thread")
        busy_until = time.thread_time() + 0.02
        while time.thread_time() < busy_until:  # 20 ms of this thread's CPU
            pass
        time.sleep(0.02)  # and 20 ms that are not
        loop_watch.mark_in_thread("made")
        return loop_watch._request_marks.get()

    marks = contextvars.Context().run(request)
    wall = marks["made"] - marks["thread"]
    cpu = marks["made_cpu"] - marks["thread_cpu"]
    waited = marks["made_runqueue"] - marks["thread_runqueue"]
    assert wall >= 0.04
    assert 0.02 <= cpu < wall - 0.015
    assert 0 <= waited <= wall - cpu


def test_a_thread_that_shares_its_core_with_a_busy_one_has_waited_for_it():
    """Two threads kept to one core, hashing outside the GIL: each is runnable while the other
    runs, and its schedstat says so."""
    core = min(os.sched_getaffinity(0))
    data = bytes(1 << 20)
    waited: list[float] = []
    start = threading.Barrier(2)

    def hash_for_a_while(record: bool) -> None:
        os.sched_setaffinity(0, {core})  # this thread only
        start.wait()
        before = loop_watch.runqueue_seconds()
        busy_until = time.thread_time() + 0.1
        while time.thread_time() < busy_until:
            hashlib.sha256(data).digest()
        if record:
            waited.append(loop_watch.runqueue_seconds() - before)

    threads = [threading.Thread(target=hash_for_a_while, args=(i == 0,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert waited[0] > 0.01


def test_a_move_still_running_is_kept_and_pushes_of_moves_made_elsewhere_are_dropped(
    watch: LoopWatch,
):
    def a_request_still_running() -> None:
        loop_watch.begin_request()
        loop_watch.name_move(1, 2)  # not ended yet

    contextvars.Context().run(a_request_still_running)
    loop_watch.socket_pushed(3, 4, time.monotonic(), "published")  # the worker's move
    assert watch.finished_moves(older_than=time.monotonic() + 1) == []
    assert list(watch.moves) == [(1, 2)]
    assert watch.pushes == {}


def test_nothing_is_traced_when_no_one_watches(monkeypatch: pytest.MonkeyPatch):
    def unwatched() -> dict | None:
        a_request(1, 2)
        loop_watch.socket_pushed(1, 2, time.monotonic(), "published")
        return loop_watch._request_marks.get()

    monkeypatch.setattr(loop_watch, "_watch", None)
    assert contextvars.Context().run(unwatched) is None


def test_a_late_loop_is_sampled_where_its_thread_stands():
    def block_the_loop(watch: LoopWatch) -> None:
        # Busy, as a long task on the loop would be, until the sampler saw it (or 5 s passed).
        until = time.monotonic() + 5
        while watch.late_samples == 0 and time.monotonic() < until:
            pass

    async def watched() -> dict:
        watch = LoopWatch()
        watch.start(reporting=False)
        await asyncio.sleep(0)  # the probe's first tick
        block_the_loop(watch)
        return watch.stop()

    threads = threading.active_count()
    figures = asyncio.run(watched())
    assert figures["late_samples"] >= 1
    assert any("block_the_loop" in where for where, _count in figures["late_loop"])
    # The sampler ends with the watch.
    until = time.monotonic() + 5
    while threading.active_count() > threads and time.monotonic() < until:
        pass
    assert threading.active_count() == threads


def test_longer_collections_are_timed_on_the_traces_clock_and_told_apart_by_who_ran_them(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.setattr(loop_watch, "TIMED_COLLECTION_SECONDS", 0.0)

    async def watched() -> tuple[LoopWatch, float, float]:
        watch = LoopWatch()
        watch.start(reporting=False)
        before = time.monotonic()
        gc.collect(0)
        monkeypatch.setattr(loop_watch, "idle_collecting", True)
        gc.collect(1)
        monkeypatch.setattr(loop_watch, "idle_collecting", False)
        after = time.monotonic()
        watch.stop()
        return watch, before, after

    watch, before, after = asyncio.run(watched())
    ours = [c for c in watch.timed if before <= c[1] <= c[2] <= after]
    assert [(generation, idle) for generation, _start, _end, idle in ours] == [
        (0, False),
        (1, True),
    ]
    assert watch.idle_collections == [0, 1, 0]


def test_the_benchmark_counts_the_slowest_moves_a_collection_stopped(
    capsys: pytest.CaptureFixture[str],
):
    from bench.live import report_collections_in

    tail = [{"posted": 10.0, "seen": 10.3}, {"posted": 20.0, "seen": 20.1}]
    collections = [(1, 10.1, 10.2, False), (0, 10.25, 10.4, True), (0, 30.0, 30.1, False)]
    report_collections_in(tail, collections)
    out = capsys.readouterr().out
    assert "1 moves stopped (p50 150 ms" in out
    assert "gc0 idle 1×, gc1 1×" in out
    assert "timed collections ≥ 5 ms in the run: 3" in out


def test_the_benchmark_counts_the_collections_made_while_moves_were_played(
    capsys: pytest.CaptureFixture[str],
):
    from bench.live import report_collections_during

    moves = [{"posted": 10.0, "seen": 10.3}, {"posted": 20.0, "seen": 20.1}]
    # One before the first move (the sockets opening), two during, one after.
    collections = [
        (0, 5.0, 5.2, False),
        (0, 12.0, 12.01, True),
        (1, 15.0, 15.5, True),
        (0, 25.0, 25.2, False),
    ]
    report_collections_during(moves, collections)
    out = capsys.readouterr().out
    assert "gc0 idle 1× 10.0 ms (max 10.0 ms), gc1 idle 1× 500 ms (max 500 ms)" in out


def test_the_collections_of_the_floors_rounds_between_the_sites_are_not_counted(
    capsys: pytest.CaptureFixture[str],
):
    from bench.live import report_collections_during

    # Two rounds of the site's moves (--rounds), 70 s apart: the floor was measured between them.
    moves = [{"posted": 10.0, "seen": 10.3}, {"posted": 20.0, "seen": 20.1}]
    moves += [{"posted": 90.0, "seen": 90.2}, {"posted": 100.0, "seen": 100.1}]
    collections = [(2, 50.0, 50.3, False), (0, 95.0, 95.01, True)]
    report_collections_during(moves, collections)
    out = capsys.readouterr().out.strip()
    assert out.endswith("while moves were played: gc0 idle 1× 10.0 ms (max 10.0 ms)")
    assert "gc2" not in out


def test_the_watch_reports_how_long_requests_waited_for_a_database_connection(
    monkeypatch: pytest.MonkeyPatch,
):
    from django.db.backends.postgresql.base import DatabaseWrapper

    class Pool:
        def get_stats(self) -> dict[str, int]:
            return {"requests_num": 9, "requests_queued": 2, "requests_wait_ms": 40, "pool_max": 8}

    monkeypatch.setattr(DatabaseWrapper, "_connection_pools", {})
    assert loop_watch.pool_figures() is None
    monkeypatch.setattr(DatabaseWrapper, "_connection_pools", {"default": Pool()})
    assert loop_watch.pool_figures() == {
        "requests_num": 9,
        "requests_queued": 2,
        "requests_wait_ms": 40,
        "requests_errors": 0,
        "connections_num": 0,
        "pool_size": 0,
        "pool_max": 8,
    }


def test_the_benchmark_counts_the_pools_waits_while_moves_were_played(
    capsys: pytest.CaptureFixture[str],
):
    from bench.live import report_pool_during

    def report(at: float, lent: int, waited: int, wait_ms: int) -> dict:
        pool = {"requests_num": lent, "requests_queued": waited, "requests_wait_ms": wait_ms}
        return {"pid": 7, "at": at, "pool": pool}

    moves = [{"posted": 10.0, "seen": 10.3}, {"posted": 20.0, "seen": 20.1}]
    # The sockets opening (before the first move) waited too: not counted.
    reports = [
        report(4.0, 900, 40, 2000),
        report(9.0, 1000, 50, 2500),
        report(21.0, 1200, 53, 2600),
    ]
    report_pool_during(moves, reports)
    assert "200 connections lent, 3 waited (100 ms in all)" in capsys.readouterr().out
