"""A benchmark's view of a process's stalls: how late its event loop runs what is due, and how
long Python's garbage collector stops everything (``PDC_LOOP_WATCH=1``, set by ``bench/live.py
--watch``; off otherwise, at no cost).

A push that waits is a push whose event loop was busy elsewhere: a probe that asks to run every
``PROBE_SECONDS`` and measures how late it ran sees every stall, whatever caused it; the
collector's pauses are timed from its own callbacks. Every ``REPORT_SECONDS`` the process writes
one line to its log (``loop-watch: …``), which the benchmark reads back.

Two more views of where a move's time goes, on only with the watch:

- **Move traces**: a move's ``POST`` marks when it reached the application, when its thread began
  and ended the answer, when the answer was sent, when the watchers' render began and ended and
  when the doorbell was published; each table socket marks when the doorbell reached it and when
  its frame was sent. Times are ``time.monotonic()``, which on Linux is the clock the load
  generator's ``perf_counter`` reads too, so it lines them up with its own (``move-trace: …``).
- **What a late loop was doing**: a thread looks every few milliseconds at the probe's last tick;
  when the loop is late, it counts where the loop's thread stood and what the other busy threads
  were running (the one holding the GIL is among them).
- **The loop's stalls, one by one** (``LoopLedger``): every turn of the loop whose callbacks held
  its thread ``STALL_SECONDS`` or more, with the thread's CPU in that time (the rest it waited for
  the GIL or a core), how many callbacks ran and which took longest (a task's by where its
  coroutine resumed); and every return from ``select`` that came that much past its timeout (the
  loop woke late: the GIL held by another thread, or no core). Each with how many request threads
  were at work then (a view, or the render for the watchers: the GIL's other takers).
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import sys
import threading
import time
from collections import Counter
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

PROBE_SECONDS = 0.005
REPORT_SECONDS = 5.0
#: Stalls longer than this are counted one by one (the shape of the tail).
LONG_SECONDS = 0.05
#: How a report's line begins in the log.
REPORT_MARK = "loop-watch: "
#: How a line of move traces begins in the log.
TRACE_MARK = "move-trace: "
#: How a line of the collections' times begins in the log.
COLLECTIONS_MARK = "collections: "
#: Collections at least this long are timed one by one (to find which moves they stopped).
TIMED_COLLECTION_SECONDS = 0.005
#: True while the idle collector (``pdc_site.collector``) runs a collection: the watch tells its
#: collections from the automatic ones.
idle_collecting = False
#: The loop counts as late, for the sampler, once its probe is this much overdue.
LATE_SECONDS = 0.015
SAMPLE_SECONDS = 0.002
#: Frames of a thread that show it idle (waiting for work, a lock or the network).
IDLE_FUNCTIONS = frozenset(
    {"wait", "get", "_worker", "select", "poll", "sleep", "_wait_for_tstate_lock"}
)
#: A turn of the loop whose callbacks took this long, or a ``select`` that returned this much past
#: its timeout, is a stall, entered in the ledger.
STALL_SECONDS = 0.005
#: How a line of the loop's stalls begins in the log.
STALLS_MARK = "loop-stalls: "
#: The longest callbacks of a stalled turn the ledger names.
NAMED_CALLBACKS = 3
#: The threads doing a request's work now (a view, the watchers' render): the GIL's other takers.
working_threads: set[int] = set()


@dataclass
class Stalls:
    """Stalls of one kind: how many, how long in all, the longest, and the long ones."""

    count: int = 0
    total: float = 0.0
    longest: float = 0.0
    long: list[float] = field(default_factory=list)

    def add(self, seconds: float) -> None:
        self.count += 1
        self.total += seconds
        self.longest = max(self.longest, seconds)
        if seconds >= LONG_SECONDS:
            self.long.append(round(seconds, 4))

    def summary(self) -> dict[str, object]:
        return {
            "count": self.count,
            "total_s": round(self.total, 3),
            "max_ms": round(self.longest * 1000, 1),
            "long_ms": sorted((round(s * 1000) for s in self.long), reverse=True)[:20],
        }


def where(frame, depth: int = 3) -> str:
    """The innermost ``depth`` frames of a stack, innermost first, as ``file:line function``."""
    names = []
    while frame is not None and len(names) < depth:
        code = frame.f_code
        names.append(f"{os.path.basename(code.co_filename)}:{frame.f_lineno} {code.co_name}")
        frame = frame.f_back
    return " < ".join(names)


def resumes_at(coroutine: object, depth: int = 2) -> str:
    """Where a suspended coroutine resumes: the innermost ``depth`` frames of its chain of
    awaits outside asyncio's own (``sleep``, ``wait_for``…), innermost first, as
    ``file:line function``."""
    frames = []
    while coroutine is not None:
        frame = getattr(coroutine, "cr_frame", None) or getattr(coroutine, "gi_frame", None)
        if frame is None:
            break
        code = frame.f_code
        if f"{os.sep}asyncio{os.sep}" not in code.co_filename:
            frames.append(f"{os.path.basename(code.co_filename)}:{frame.f_lineno} {code.co_name}")
        coroutine = getattr(coroutine, "cr_await", None) or getattr(coroutine, "gi_yieldfrom", None)
    return " < ".join(reversed(frames[-depth:])) or "a finished coroutine"


def callback_name(handle: asyncio.Handle) -> str:
    """What a callback of the loop runs: a task's step by where its coroutine resumes, anything
    else by its function's name (and its first argument's type: Twisted's readers and writers)."""
    callback = handle._callback
    owner = getattr(callback, "__self__", None)
    if isinstance(owner, asyncio.Task):
        return "task " + resumes_at(owner.get_coro())
    name = getattr(callback, "__qualname__", None) or type(callback).__name__
    if handle._args:
        name += f"({type(handle._args[0]).__name__})"
    return name


class LoopLedger:
    """The stalls of one event loop, one by one (see the module's docstring): installed on the
    loop's own turn (``_run_once``), its ``select`` and every callback it runs (``Handle._run``),
    until ``uninstall``."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        #: Stalls not yet reported: [start (monotonic), kind ("turn" or "select"), wall seconds,
        #: the loop thread's CPU seconds, callbacks run, the longest as [name, wall, CPU],
        #: request threads at work].
        self.stalls: list[list] = []
        #: The whole run's stalls by kind, and stalled turns' named callbacks by name:
        #: [count, wall seconds, CPU seconds, longest wall].
        self.by_kind: dict[str, list[float]] = {}
        self.by_callback: dict[str, list[float]] = {}
        self.turn: list[tuple[float, float, str]] = []
        self.installed = False
        #: Calls to the selector: ``select`` (a turn), and changes to what it watches.
        self.selects = 0
        self.modified = 0

    def install(self) -> None:
        loop, ledger = self.loop, self
        self.original_turn = loop._run_once
        self.original_select = loop._selector.select
        self.original_run = original_run = asyncio.events.Handle._run

        def timed_run(handle: asyncio.Handle) -> None:
            if handle._loop is not loop:
                return original_run(handle)
            try:
                name = callback_name(handle)  # before it runs: where a task resumes
            except Exception:  # the watch must never stop a callback from running
                name = "(unnamed)"
            start, cpu = time.perf_counter(), time.thread_time()
            try:
                return original_run(handle)
            finally:
                wall = time.perf_counter() - start
                ledger.turn.append((wall, time.thread_time() - cpu, name))

        # Any other wrapper's, given back as it was.
        self.before = {
            (loop, "_run_once"): vars(loop).get("_run_once"),
            (loop._selector, "select"): vars(loop._selector).get("select"),
            (loop._selector, "modify"): vars(loop._selector).get("modify"),
        }
        loop._run_once = self.timed_turn
        loop._selector.select = self.timed_select
        self.original_modify = loop._selector.modify
        loop._selector.modify = self.counted_modify
        asyncio.events.Handle._run = timed_run
        self.installed = True

    def uninstall(self) -> None:
        if not self.installed:
            return
        self.installed = False
        for (owner, name), before in self.before.items():
            if before is not None:
                setattr(owner, name, before)
            else:
                delattr(owner, name)
        asyncio.events.Handle._run = self.original_run

    def counted_modify(self, fileobj: object, events: int, data: object = None) -> object:
        """A socket's watch changed (``epoll_ctl``: a system call that lets the GIL go), as
        Twisted's ``startWriting`` and ``stopWriting`` do."""
        self.modified += 1
        return self.original_modify(fileobj, events, data)

    def timed_select(self, timeout: float | None = None) -> list:
        self.selects += 1
        start = time.perf_counter()
        events = self.original_select(timeout)
        self.selected = time.perf_counter() - start
        late = self.selected - max(timeout or 0.0, 0.0)
        if timeout is not None and late >= STALL_SECONDS:
            self.enter(time.monotonic() - late, "select", late, 0.0, [])
        return events

    def timed_turn(self) -> None:
        """A turn: its ``select``, then its callbacks and whatever runs after them: the turn's
        wall time but the ``select``'s."""
        self.turn = []
        self.selected = 0.0
        start, cpu = time.perf_counter(), time.thread_time()
        try:
            self.original_turn()
        finally:
            turn, self.turn = self.turn, []
            wall = time.perf_counter() - start - self.selected
            if wall >= STALL_SECONDS:
                outside = wall - sum(w for w, _cpu, _name in turn)
                if outside >= 0.001:
                    turn.append((outside, 0.0, "(outside callbacks: the turn itself)"))
                self.enter(time.monotonic() - wall, "turn", wall, time.thread_time() - cpu, turn)

    def enter(
        self, start: float, kind: str, wall: float, cpu: float, turn: list[tuple[float, float, str]]
    ) -> None:
        longest = sorted(turn, reverse=True)[:NAMED_CALLBACKS]
        named = [[name, round(w, 5), round(c, 5)] for w, c, name in longest]
        self.stalls.append(
            [
                round(start, 5),
                kind,
                round(wall, 5),
                round(cpu, 5),
                len(turn),
                named,
                len(working_threads),
            ]
        )
        add_to(self.by_kind, kind, wall, cpu)
        for w, c, name in longest:
            add_to(self.by_callback, name, w, c)

    def summary(self) -> dict[str, object]:
        rounded = {
            name: [int(n), round(w, 4), round(c, 4), round(m, 4)]
            for name, (n, w, c, m) in self.by_callback.items()
        }
        slowest = sorted(rounded.items(), key=lambda item: -item[1][1])[:15]
        kinds = {
            k: [int(n), round(w, 4), round(c, 4), round(m, 4)]
            for k, (n, w, c, m) in self.by_kind.items()
        }
        return {
            "kinds": kinds,
            "callbacks": slowest,
            "selects": self.selects,
            "modified": self.modified,
        }

    def taken(self) -> list[list]:
        """The stalls not yet reported, taken out."""
        stalls, self.stalls = self.stalls, []
        return stalls


def add_to(totals: dict[str, list[float]], key: str, wall: float, cpu: float) -> None:
    entry = totals.setdefault(key, [0, 0.0, 0.0, 0.0])
    entry[0] += 1
    entry[1] += wall
    entry[2] += cpu
    entry[3] = max(entry[3], wall)


class LoopWatch:
    def __init__(self) -> None:
        self.lag = Stalls()
        self.collections = {generation: Stalls() for generation in (0, 1, 2)}
        #: Collections run by the idle collector (``pdc_site.collector``), by generation.
        self.idle_collections = [0, 0, 0]
        #: The longer collections since the last report: (generation, start, end, idle), in
        #: ``time.monotonic()``.
        self.timed: list[tuple[int, float, float, bool]] = []
        self.collecting_since = 0.0
        self.started = False
        self.last_tick = time.perf_counter()
        self.loop_thread = threading.get_ident()
        #: Where the loop's thread stood, and what the other busy threads ran, while it was late.
        self.late_loop: Counter[str] = Counter()
        self.late_others: Counter[str] = Counter()
        self.late_samples = 0
        #: Move traces: (match, version) → marks of its request; and of its sockets' pushes.
        self.moves: dict[tuple[int, int], dict[str, float]] = {}
        self.pushes: dict[tuple[int, int], list[tuple[float, float, str]]] = {}

    def on_gc(self, phase: str, info: dict) -> None:
        if phase == "start":
            self.collecting_since = time.perf_counter()
            return
        ended = time.perf_counter()
        seconds = ended - self.collecting_since
        generation = info["generation"]
        self.collections[generation].add(seconds)
        idle = idle_collecting
        if idle:
            self.idle_collections[generation] += 1
        if seconds >= TIMED_COLLECTION_SECONDS:
            # perf_counter and monotonic are one clock on Linux; the traces use monotonic.
            end = time.monotonic() - (time.perf_counter() - ended)
            self.timed.append((generation, end - seconds, end, idle))

    def start(self, reporting: bool = True) -> None:
        """Called on the process's event loop, once (``reporting``: to the log as it goes)."""
        if self.started:
            return
        self.started = True
        gc.callbacks.append(self.on_gc)
        self.loop_thread = threading.get_ident()
        self.last_tick = time.perf_counter()
        self.ledger = LoopLedger(asyncio.get_running_loop())
        self.ledger.install()
        self.tasks = [asyncio.ensure_future(self.probe())]
        self.sampling = threading.Event()
        threading.Thread(target=self.sample_while_late, daemon=True, name="loop-watch").start()
        if reporting:
            self.tasks.append(asyncio.ensure_future(self.report_every_few_seconds()))

    def stop(self) -> dict[str, object]:
        """Stop watching: the figures so far."""
        gc.callbacks.remove(self.on_gc)
        self.ledger.uninstall()
        self.sampling.set()
        for task in self.tasks:
            task.cancel()
        return self.figures()

    async def probe(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + PROBE_SECONDS
            await asyncio.sleep(PROBE_SECONDS)
            late = loop.time() - due
            self.last_tick = time.perf_counter()
            if late > 0.001:
                self.lag.add(late)

    def sample_while_late(self) -> None:
        """In a thread: while the loop is late, count where its thread stands and what the
        others run."""
        me = threading.get_ident()
        while not self.sampling.wait(SAMPLE_SECONDS):
            if time.perf_counter() - self.last_tick < PROBE_SECONDS + LATE_SECONDS:
                continue
            frames = sys._current_frames()
            self.late_samples += 1
            loop_frame = frames.get(self.loop_thread)
            if loop_frame is not None:
                self.late_loop[where(loop_frame, 8)] += 1
            for ident, frame in frames.items():
                if ident in (me, self.loop_thread) or frame.f_code.co_name in IDLE_FUNCTIONS:
                    continue
                self.late_others[where(frame, 4)] += 1

    async def report_every_few_seconds(self) -> None:
        while True:
            await asyncio.sleep(REPORT_SECONDS)
            self.report()

    def figures(self) -> dict[str, object]:
        return {
            "at": time.monotonic(),
            "pool": pool_figures(),
            "pid": os.getpid(),
            "lag": self.lag.summary(),
            **{f"gc{g}": stalls.summary() for g, stalls in self.collections.items()},
            "idle_collections": self.idle_collections,
            "idle_looks": idle_looks(),
            "late_samples": self.late_samples,
            "late_loop": self.late_loop.most_common(12),
            "late_others": self.late_others.most_common(12),
            "stalls": self.ledger.summary() if self.started else None,
        }

    def finished_moves(self, older_than: float) -> list[dict[str, object]]:
        """The traces of moves whose request ended before ``older_than``, taken out."""
        done = []
        for key, marks in list(self.moves.items()):
            if marks.get("ended", float("inf")) < older_than:
                del self.moves[key]
                done.append(
                    {
                        "match": key[0],
                        "version": key[1],
                        **marks,
                        "pushes": self.pushes.pop(key, []),
                    }
                )
        for key in [
            k for k, p in self.pushes.items() if k not in self.moves and p[0][0] < older_than
        ]:
            del self.pushes[key]  # a change made elsewhere (the worker, another process)
        return done

    def report(self) -> None:
        report_line(REPORT_MARK, self.figures())
        moves = self.finished_moves(time.monotonic() - 2.0)
        if moves:
            report_line(TRACE_MARK, moves)
        timed, self.timed = self.timed, []
        if timed:
            report_line(COLLECTIONS_MARK, timed)
        stalls = self.ledger.taken()
        if stalls:
            report_line(STALLS_MARK, stalls)


def report_line(mark: str, figures: Any) -> None:
    """One line of the log, written whole in one call: ``print`` wrote the text and its newline
    apart, and two daphnes sharing a log (``bench/live.py --processes 2 --watch``) put one's
    line in the middle of the other's."""
    sys.stderr.write(mark + json.dumps(figures) + "\n")
    sys.stderr.flush()


def idle_looks() -> dict[str, int] | None:
    """How the idle collector found the process at its looks so far (None without it)."""
    from pdc_site import collector

    return dict(collector.idle_collector.looks) if collector.idle_collector else None


def pool_figures() -> dict[str, int] | None:
    """The database pool's counts so far (psycopg_pool's ``get_stats``: requests, how many and
    how long they waited for a connection), None without a pool."""
    from django.db.backends.postgresql.base import DatabaseWrapper

    pool = DatabaseWrapper._connection_pools.get("default")
    if pool is None:
        return None
    stats = pool.get_stats()
    names = ("requests_num", "requests_queued", "requests_wait_ms", "requests_errors")
    sizes = ("connections_num", "pool_size", "pool_max")
    return {name: stats.get(name, 0) for name in (*names, *sizes)}


_watch: LoopWatch | None = LoopWatch() if os.environ.get("PDC_LOOP_WATCH") else None


#: The marks of the running request (None when not watched).
_request_marks: ContextVar[dict[str, float] | None] = ContextVar("request_marks", default=None)


def begin_request() -> None:
    """A request reached the application (a no-op unless watched)."""
    if _watch is not None:
        _request_marks.set({"arrived": time.monotonic()})


def _running_marks() -> dict[str, float] | None:
    """The running request's marks; None unless watched and inside one."""
    return _request_marks.get() if _watch is not None else None


def mark(name: str) -> None:
    """The running request reached step ``name`` (a no-op unless watched or outside one)."""
    marks = _running_marks()
    if marks is not None:
        marks[name] = time.monotonic()


def mark_in_thread(name: str) -> None:
    """``mark``, with the calling thread's CPU so far (``<name>_cpu``) and its time so far
    runnable but waiting for a core (``<name>_runqueue``). Two such marks made in one thread
    tell how much of the wall time between them the thread ran and how much it waited for its
    core; its waits for the GIL or for a database are neither (it sleeps through them)."""
    marks = _running_marks()
    if marks is not None:
        marks[name] = time.monotonic()
        marks[f"{name}_cpu"] = time.thread_time()
        marks[f"{name}_runqueue"] = runqueue_seconds()


def runqueue_seconds() -> float:
    """The calling thread's time so far runnable but not running (Linux's ``schedstat``, its
    second figure); 0 where the kernel does not tell it."""
    try:
        with open("/proc/thread-self/schedstat") as stat:
            return int(stat.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


def name_move(match_id: int, version: int) -> None:
    """The running request made version ``version`` of table ``match_id``: trace it."""
    marks = _running_marks()
    if marks is not None:
        _watch.moves[(match_id, version)] = marks


def socket_pushed(match_id: int, version: int, doorbell: float, how: str) -> None:
    """A table socket got the doorbell of ``version`` at ``doorbell`` and has now sent its
    frame (``how``: forwarded from the publisher, or read and rendered here)."""
    if _watch is not None:
        _watch.pushes.setdefault((match_id, version), []).append((doorbell, time.monotonic(), how))


def work_begins() -> None:
    """The calling thread begins a request's work (a view, the watchers' render): counted in the
    loop's stalls while it lasts (a no-op unless watched)."""
    if _watch is not None:
        working_threads.add(threading.get_ident())


def work_ends() -> None:
    if _watch is not None:
        working_threads.discard(threading.get_ident())


def start_on_this_loop() -> None:
    """Start watching (when ``PDC_LOOP_WATCH`` is set) from the process's event loop."""
    if _watch is not None:
        _watch.start()


def watching(app):
    """An ASGI wrapper that starts the watch on the first connection (the loop then runs)."""
    if _watch is None:
        return app

    async def watched(scope: dict, receive, send) -> None:
        start_on_this_loop()
        await app(scope, receive, send)

    return watched
