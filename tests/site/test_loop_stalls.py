"""The loop's stalls, one by one (``pdc_site.loop_watch.LoopLedger``, on only with
``PDC_LOOP_WATCH``): a turn of callbacks that held the loop's thread is entered with the callback
that took longest (a task's by where its coroutine resumes) and the thread's CPU in it; a
``select`` that woke late (another thread held the GIL) is entered apart, with the request
threads at work then; and the benchmark counts them while moves were played."""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import threading
import time

import pytest

from pdc_site import loop_watch
from pdc_site.loop_watch import LoopLedger, LoopWatch


def busy(seconds: float) -> None:
    """Pure Python work for ``seconds`` (it holds the GIL and a core)."""
    until = time.perf_counter() + seconds
    while time.perf_counter() < until:
        pass


def computes_on_the_loop() -> None:
    busy(0.02)


async def computes_after_a_sleep() -> None:
    await asyncio.sleep(0)
    busy(0.02)


def ledger_of(work) -> LoopLedger:
    """A ledger on a new loop while ``work`` (a coroutine function given the loop) runs."""

    async def run() -> LoopLedger:
        ledger = LoopLedger(asyncio.get_running_loop())
        ledger.install()
        try:
            await work(asyncio.get_running_loop())
        finally:
            ledger.uninstall()
        return ledger

    return asyncio.run(run())


def test_a_turn_that_computes_on_the_loop_is_entered_with_its_callback_and_its_cpu():
    async def work(loop: asyncio.AbstractEventLoop) -> None:
        loop.call_soon(computes_on_the_loop)
        await asyncio.sleep(0.01)

    ledger = ledger_of(work)
    # Only its own turn: on a loaded machine another may be entered too (the thread preempted).
    [stall] = [
        s for s in ledger.taken() if any(name == "computes_on_the_loop" for name, *_ in s[5])
    ]
    _start, _kind, wall, cpu, count, _named, working = stall
    assert wall >= 0.02
    assert 0 < cpu <= wall + 0.005
    assert count >= 1
    assert working == 0
    assert "computes_on_the_loop" in dict(ledger.summary()["callbacks"])
    assert ledger.taken() == []


def test_a_tasks_step_is_named_by_where_its_coroutine_resumes():
    async def work(loop: asyncio.AbstractEventLoop) -> None:
        await asyncio.ensure_future(computes_after_a_sleep())

    ledger = ledger_of(work)
    names = [name for s in ledger.taken() if s[1] == "turn" for name, _wall, _cpu in s[5]]
    assert any(
        name.startswith("task test_loop_stalls.py:") and name.endswith(" computes_after_a_sleep")
        for name in names
    )


def test_turns_shorter_than_a_stall_are_not_entered(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(loop_watch, "STALL_SECONDS", 60.0)

    async def work(loop: asyncio.AbstractEventLoop) -> None:
        loop.call_soon(computes_on_the_loop)
        await asyncio.sleep(0.01)

    ledger = ledger_of(work)
    assert ledger.taken() == []
    summary = ledger.summary()
    assert (summary["kinds"], summary["callbacks"]) == ({}, [])
    assert summary["selects"] >= 2


def test_a_select_that_wakes_while_a_request_thread_holds_the_gil_is_entered_apart(
    monkeypatch: pytest.MonkeyPatch,
):
    # Watched (the request threads are counted), and a thread keeps the GIL 0.2 s once it has it.
    monkeypatch.setattr(loop_watch, "_watch", LoopWatch())
    computing, stop = threading.Event(), threading.Event()

    def a_request_thread() -> None:
        loop_watch.work_begins()
        computing.set()
        while not stop.is_set():
            pass
        loop_watch.work_ends()

    async def work(loop: asyncio.AbstractEventLoop) -> None:
        thread = threading.Thread(target=a_request_thread)
        thread.start()
        computing.wait()
        for _ in range(3):
            await asyncio.sleep(0.001)  # select lets the GIL go, and gets it back late
        stop.set()
        await asyncio.to_thread(thread.join)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.2)
    try:
        ledger = ledger_of(work)
    finally:
        sys.setswitchinterval(interval)
    late = [s for s in ledger.taken() if s[1] == "select"]
    assert late
    assert all(s[2] >= loop_watch.STALL_SECONDS for s in late)
    assert any(s[6] == 1 for s in late)
    assert loop_watch.working_threads == set()


def test_the_ledger_leaves_the_loop_as_it_was():
    original = asyncio.events.Handle._run

    async def work(loop: asyncio.AbstractEventLoop) -> None:
        assert asyncio.events.Handle._run is not original
        assert "_run_once" in vars(loop)

    async def run() -> asyncio.AbstractEventLoop:
        loop = asyncio.get_running_loop()
        ledger = LoopLedger(loop)
        ledger.install()
        await work(loop)
        ledger.uninstall()
        assert "select" not in vars(loop._selector)
        return loop

    loop = asyncio.run(run())
    assert asyncio.events.Handle._run is original
    assert "_run_once" not in vars(loop)


def test_the_watch_reports_its_stalls_in_the_log(capsys: pytest.CaptureFixture[str]):
    async def watched() -> LoopWatch:
        watch = LoopWatch()
        watch.start(reporting=False)
        asyncio.get_running_loop().call_soon(computes_on_the_loop)
        await asyncio.sleep(0.01)
        watch.report()
        watch.stop()
        return watch

    watch = asyncio.run(watched())
    lines = [line for line in capsys.readouterr().err.splitlines()]
    [stalls] = [line for line in lines if line.startswith(loop_watch.STALLS_MARK)]
    entered = json.loads(stalls[len(loop_watch.STALLS_MARK) :])
    assert any(name == "computes_on_the_loop" for s in entered for name, *_ in s[5])
    [figures] = [line for line in lines if line.startswith(loop_watch.REPORT_MARK)]
    summary = json.loads(figures[len(loop_watch.REPORT_MARK) :])["stalls"]
    assert summary["kinds"]["turn"][0] >= 1
    assert not watch.ledger.installed


def test_the_benchmark_counts_the_stalls_while_moves_were_played(
    capsys: pytest.CaptureFixture[str],
):
    from bench.live import report_stalls_during

    moves = [{"posted": 10.0, "seen": 10.3}, {"posted": 20.0, "seen": 20.1}]
    stalls = [
        [10.1, "turn", 0.05, 0.04, 12, [["TableConsumer.push", 0.03, 0.03]], 0],
        [10.25, "select", 0.1, 0.0, 0, [], 1],
        [30.0, "turn", 0.2, 0.2, 1, [["later", 0.2, 0.2]], 0],  # after the last move
    ]
    report_stalls_during(moves, moves[:1], stalls)
    out = capsys.readouterr().out
    assert "while moves were played: 2, 150 ms in all (its CPU 40.0 ms)" in out
    assert "turn: TableConsumer.push" in out
    assert "select, a request thread at work" in out
    assert "later" not in out
    assert "in the slowest 1: 1 moves stopped (p50 100 ms" in out


def test_the_ledger_counts_the_loops_turns_and_changes_of_its_watch():
    async def work(loop: asyncio.AbstractEventLoop) -> None:
        left, right = socket.socketpair()
        try:
            loop.add_reader(left.fileno(), left.recv, 1)
            loop.add_writer(left.fileno(), lambda: None)  # a change of what the fd is watched for
            loop.remove_writer(left.fileno())  # and another
            loop.remove_reader(left.fileno())
            await asyncio.sleep(0)
        finally:
            left.close()
            right.close()

    summary = ledger_of(work).summary()
    assert summary["modified"] == 2
    assert summary["selects"] >= 1


def test_the_benchmark_counts_the_loops_turns_per_move(capsys: pytest.CaptureFixture[str]):
    from bench.live import report_selector_during

    moves = [{"posted": 10.0, "seen": 10.3}, {"posted": 20.0, "seen": 20.1}]
    reports = [
        {"pid": 5, "at": 9.0, "stalls": {"selects": 100, "modified": 40}},
        {"pid": 5, "at": 25.0, "stalls": {"selects": 110, "modified": 46}},
    ]
    report_selector_during(moves, reports)
    out = capsys.readouterr().out
    assert "10 turns (5.0 a move), 6 changes of what its selector watches (3.0 a move)" in out


def test_a_callback_the_ledger_cannot_name_still_runs(monkeypatch: pytest.MonkeyPatch):
    def cannot_name(handle: asyncio.Handle) -> str:
        raise RuntimeError("no name")

    monkeypatch.setattr(loop_watch, "callback_name", cannot_name)
    ran: list[bool] = []

    async def work(loop: asyncio.AbstractEventLoop) -> None:
        loop.call_soon(ran.append, True)
        await asyncio.sleep(0)

    ledger_of(work)
    assert ran == [True]


def test_each_report_line_is_written_whole_in_one_call(monkeypatch):
    """Two daphnes share the benchmark's log: a line written in pieces (the text, then its
    newline) let the other process's line land inside it."""
    writes: list[str] = []

    class Log:
        def write(self, text: str) -> None:
            writes.append(text)

        def flush(self) -> None:
            pass

    monkeypatch.setattr(loop_watch.sys, "stderr", Log())
    loop_watch.report_line(loop_watch.REPORT_MARK, {"pid": 1, "stalls": {}})
    assert writes == [loop_watch.REPORT_MARK + '{"pid": 1, "stalls": {}}\n']
