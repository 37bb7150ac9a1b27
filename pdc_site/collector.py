"""Python's garbage collector, set for a long-lived server process.

A daphne process serves every socket of its tables on one event loop, and a full collection
stops that loop for as long as it walks every container the process holds: at 300 tables (900
sockets, their tables' reads and renders) ``bench/live.py --watch`` timed full collections of
0.1–1.1 s, fifteen in a minute, and they were the push's p99 (each matched a stall of the loop).
Two settings make them rare and short:

- **Freeze what start-up made.** The modules, the URLs, the compiled templates and the
  translations live as long as the process: once collected, they are moved out of the
  collector's sight (``gc.freeze``), so no later collection walks them again.
- **A larger first generation.** A move's request renders on its own thread while the loop
  runs: with the default threshold (700 allocations) a young collection came every few hundred
  objects, promoted the request's half-built objects that were still in use to older
  generations, where they died later and counted towards the next full collection. Collecting
  the first generation every ``GC_THRESHOLD[0]`` allocations lets most of them die young (freed
  by their reference counts, never seen by a collection at all).

``GC_THRESHOLD`` (three integers, ``"700,10,10"`` being Python's default) and ``GC_FREEZE``
(``0`` to keep every object in sight) set them; the benchmark measured them both ways.

- **Collected while the loop is idle** (``IdleCollector``, ``GC_WHEN_IDLE``). A collection
  stops every thread of the process; started by an allocation, it comes in the middle of a move
  (the request's thread, the render, the frames) and that move waits for all of it: at 300
  tables, on a machine at a load of 4–6, every one of the slowest 1 % of the moves had been
  stopped by a young collection, for 87 ms at the median (``bench/live.py --watch``). The collector's own schedule (``GC_IDLE_THRESHOLD``) is run from the event
  loop instead, at a moment when no HTTP request is in flight and the loop is not behind; then
  also no request's half-built objects are alive, so fewer of them are promoted to the older
  generations. The automatic collection stays, at ``GC_THRESHOLD``, as the backstop of a
  process that is never idle (saturated): it then collects as before.
- **What survives an idle collection is frozen** (``GC_IDLE_FREEZE``, ``0`` to keep it in
  sight). At an idle moment the survivors of a collection are the state kept between moves (the
  tables' last reads, the sockets' state and their timers): at 300 tables a middle collection
  walked 50,000-70,000 of them, 40-55 ms on a quiet core, and a move that came in waited for it.
  Frozen (``gc.freeze``, which only splices the collector's lists) they are walked by no later
  young or middle collection; what dies of them by its reference count is freed as before. Frozen
  cyclic garbage is given back at the schedule's full collections (every 2,000 young ones, about
  half an hour at 300 tables), which unfreeze everything first and so walk the whole heap
  (0.4 s on a loaded machine): that is why the kept state must die by reference counts, not in
  cycles (``games.rendering.let_go``, ``AfterAnswerJobs.finish``).
"""

from __future__ import annotations

import asyncio
import gc
import os
from collections.abc import Callable

from pdc_site import loop_watch

#: Python's default is (700, 10, 10). The automatic collection: the backstop of a process that
#: is never idle, when the idle collector runs (young collections at twice its young count).
DEFAULT_THRESHOLD = (10_000, 10, 100)
#: The idle collector's schedule, the same three counts as ``gc.get_count()`` reads: a young
#: collection once this many objects were allocated (net), a middle one once that many young
#: collections ran, a full one once that many middle ones did: middle ones every 100,000 net
#: allocations and full ones every 10,000,000, as ``DEFAULT_THRESHOLD`` has them.
#:
#: The young count is small because it undercounts what a young collection walks. The count
#: goes down when any object dies, a frozen one too, and between two moves of a table most of
#: what a process keeps is replaced: each socket's next ``receive`` (its task, coroutine and
#: context), the table's last read. The old state dies frozen while its replacement is born
#: young, so at 300 tables a young collection that ran at a count of 5,000 walked 20,000-55,000
#: objects, 15-38 ms (``bench/live.py --watch``); at 500 it walks about a tenth of that.
DEFAULT_IDLE_THRESHOLD = (500, 200, 100)
#: How often the loop looks whether a collection is due, and how late that look may run for the
#: loop to count as idle (a loop with callbacks waiting runs its timers late).
IDLE_TICK_SECONDS = 0.01
IDLE_LATE_SECONDS = 0.002


def _counts(name: str, default: tuple[int, ...]) -> tuple[int, ...]:
    raw = os.environ.get(name, "")
    if not raw.strip():
        return default
    return tuple(int(part) for part in raw.split(","))


def threshold() -> tuple[int, ...]:
    return _counts("GC_THRESHOLD", DEFAULT_THRESHOLD)


def idle_threshold() -> tuple[int, ...]:
    return _counts("GC_IDLE_THRESHOLD", DEFAULT_IDLE_THRESHOLD)


def when_idle_enabled() -> bool:
    return os.environ.get("GC_WHEN_IDLE", "1") != "0"


def idle_freeze_enabled() -> bool:
    return os.environ.get("GC_IDLE_FREEZE", "1") != "0"


def backstop(automatic: tuple[int, ...], idle: tuple[int, ...]) -> tuple[int, ...]:
    """The automatic threshold beside the idle collector: its young count at least twice the idle
    one (so the idle collector has the first chance), its middle and full collections as many
    allocations apart as the idle schedule's (so a process collected both ways keeps one
    schedule, and a saturated one, collected only automatically, does not let its middle
    generation grow with the number of young collections per middle one)."""
    young = max(automatic[0], 2 * idle[0])
    middle = max(1, round(idle[0] * idle[1] / young))
    return (young, middle, *idle[2:])


class IdleCollector:
    """Runs Python's collections from the event loop when nothing waits for it.

    Every ``IDLE_TICK_SECONDS`` it looks at the collector's counts; when a collection is due by
    ``schedule`` and the process is idle (``busy()`` false: no HTTP request in flight; and this
    look ran on time: no callbacks queued on the loop), it runs the oldest generation due. Sockets
    whose frames wait are callbacks on the loop, so they are not kept waiting either.

    With ``freezing``, every collection it runs ends with ``gc.freeze()``: its survivors leave
    the generations that young and middle collections walk. A full collection first unfreezes
    everything, so frozen cyclic garbage lives at most until the next full one."""

    def __init__(
        self, busy: Callable[[], bool], schedule: tuple[int, ...], freezing: bool = False
    ) -> None:
        self.busy = busy
        self.schedule = schedule
        self.freezing = freezing
        #: The middle and full counts as they stood at the last freeze (``gc.freeze`` zeroes them).
        self.carried = [0, 0, 0]
        self.started = False
        self.due = 0.0
        self.handle: asyncio.TimerHandle | None = None
        #: Collections run here, by generation (the benchmark's watch reports them).
        self.runs = [0, 0, 0]
        #: Looks so far: when idle, with a request in flight, with the loop behind.
        self.looks = {"idle": 0, "busy": 0, "behind": 0}

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        if self.started:
            return
        self.started = True
        self.loop = loop
        self.next_look()

    def stop(self) -> None:
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None

    def next_look(self) -> None:
        self.due = self.loop.time() + IDLE_TICK_SECONDS
        self.handle = self.loop.call_at(self.due, self.look)

    def look(self) -> None:
        if self.loop.time() - self.due > IDLE_LATE_SECONDS:
            state = "behind"
        else:
            state = "busy" if self.busy() else "idle"
        self.looks[state] += 1
        try:
            if state == "idle":
                self.collect_if_due()
        finally:
            self.next_look()

    def counts(self) -> tuple[int, int, int]:
        """The collector's counts (``gc.get_count()``), with what the freezes zeroed carried."""
        young, middle, full = gc.get_count()
        return young, middle + self.carried[1], full + self.carried[2]

    def generation_due(self) -> int | None:
        """The oldest generation whose count reached the schedule's, None when none did."""
        counts = self.counts()
        for generation in (2, 1, 0):
            if counts[generation] >= self.schedule[generation]:
                return generation
        return None

    def collect_if_due(self) -> int | None:
        """Run the collection due, if any: its generation."""
        generation = self.generation_due()
        if generation is not None:
            loop_watch.idle_collecting = True
            try:
                if self.freezing:
                    self.collect_and_freeze(generation)
                else:
                    gc.collect(generation)
            finally:
                loop_watch.idle_collecting = False
            self.runs[generation] += 1
        return generation

    def collect_and_freeze(self, generation: int) -> None:
        """Collect ``generation``, then freeze what survived. A full collection unfreezes first:
        frozen cycles that became garbage are found only by a collection that walks them."""
        if generation == 2:
            gc.unfreeze()
        gc.collect(generation)
        # The collection zeroed its own count and the younger ones; the freeze zeroes them all,
        # so the middle and full schedules go on from the counts carried here.
        self.carried = [0, *(0 if g <= generation else self.carried[g] for g in (1, 2))]
        counts = self.counts()
        gc.freeze()
        self.carried = [0, counts[1], counts[2]]


#: The process's idle collector (``settle`` makes it; ``when_idle`` starts it on the loop).
idle_collector: IdleCollector | None = None


def warm_up() -> None:
    """Build now what the first requests would build anyway and keep for good: the URL
    resolver (it imports every view), every template compiled by the cached loader, and every
    language's catalog."""
    from pathlib import Path

    from django.conf import settings
    from django.template.loader import get_template
    from django.urls import get_resolver
    from django.utils import translation

    get_resolver().url_patterns  # noqa: B018 — imports every view
    for backend in settings.TEMPLATES:
        for directory in map(Path, backend.get("DIRS", [])):
            for path in sorted(directory.rglob("*.html")):
                get_template(str(path.relative_to(directory)))
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            translation.gettext("Home")


def settle(busy: Callable[[], bool] | None = None) -> None:
    """Set the collector for a server process; called once its start-up is done. With ``busy``
    (whether an HTTP request is in flight), collections are run when the loop is idle
    (``when_idle``) and the automatic ones become the backstop."""
    global idle_collector
    automatic = threshold()
    if busy is not None and when_idle_enabled():
        freezing = idle_freeze_enabled()
        idle_collector = IdleCollector(busy, idle_threshold(), freezing)
        automatic = backstop(automatic, idle_collector.schedule)
    gc.set_threshold(*automatic)
    if os.environ.get("GC_FREEZE", "1") != "0":
        warm_up()
        # Collected first, so that nothing frozen is garbage (frozen objects are never freed
        # by a collection, only by their reference counts).
        gc.collect()
        gc.freeze()


def when_idle(app):
    """An ASGI wrapper that starts the idle collector (made by ``settle``) on the loop of the
    first connection."""
    if idle_collector is None:
        return app
    collector = idle_collector

    async def collected_when_idle(scope: dict, receive, send) -> None:
        collector.start(asyncio.get_running_loop())
        await app(scope, receive, send)

    return collected_when_idle
