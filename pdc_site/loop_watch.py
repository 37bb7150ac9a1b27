"""A benchmark's view of a process's stalls: how late its event loop runs what is due, and how
long Python's garbage collector stops everything (``PDC_LOOP_WATCH=1``, set by ``bench/live.py
--watch``; off otherwise, at no cost).

A push that waits is a push whose event loop was busy elsewhere: a probe that asks to run every
``PROBE_SECONDS`` and measures how late it ran sees every stall, whatever caused it; the
collector's pauses are timed from its own callbacks. Every ``REPORT_SECONDS`` the process writes
one line to its log (``loop-watch: …``), which the benchmark reads back.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import sys
import time
from dataclasses import dataclass, field

PROBE_SECONDS = 0.005
REPORT_SECONDS = 5.0
#: Stalls longer than this are counted one by one (the shape of the tail).
LONG_SECONDS = 0.05
#: How a report's line begins in the log.
REPORT_MARK = "loop-watch: "


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


class LoopWatch:
    def __init__(self) -> None:
        self.lag = Stalls()
        self.collections = {generation: Stalls() for generation in (0, 1, 2)}
        self.collecting_since = 0.0
        self.started = False

    def on_gc(self, phase: str, info: dict) -> None:
        if phase == "start":
            self.collecting_since = time.perf_counter()
        else:
            self.collections[info["generation"]].add(time.perf_counter() - self.collecting_since)

    def start(self, reporting: bool = True) -> None:
        """Called on the process's event loop, once (``reporting``: to the log as it goes)."""
        if self.started:
            return
        self.started = True
        gc.callbacks.append(self.on_gc)
        self.tasks = [asyncio.ensure_future(self.probe())]
        if reporting:
            self.tasks.append(asyncio.ensure_future(self.report_every_few_seconds()))

    def stop(self) -> dict[str, object]:
        """Stop watching: the figures so far."""
        gc.callbacks.remove(self.on_gc)
        for task in self.tasks:
            task.cancel()
        return self.figures()

    async def probe(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + PROBE_SECONDS
            await asyncio.sleep(PROBE_SECONDS)
            late = loop.time() - due
            if late > 0.001:
                self.lag.add(late)

    async def report_every_few_seconds(self) -> None:
        while True:
            await asyncio.sleep(REPORT_SECONDS)
            self.report()

    def figures(self) -> dict[str, object]:
        return {
            "pid": os.getpid(),
            "lag": self.lag.summary(),
            **{f"gc{g}": stalls.summary() for g, stalls in self.collections.items()},
        }

    def report(self) -> None:
        print(REPORT_MARK + json.dumps(self.figures()), file=sys.stderr, flush=True)


_watch: LoopWatch | None = LoopWatch() if os.environ.get("PDC_LOOP_WATCH") else None


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
