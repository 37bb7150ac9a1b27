"""Fewer polls of the network between turns of the event loop that have work ready
(``LOOP_POLL_EVERY_MS``; off at 0).

Each turn of asyncio's loop begins with a ``select``; when callbacks are ready it is a poll
(timeout 0), and like every system call it lets the GIL go. While a request's thread computes (a
move's view, the render for its watchers), the loop then gets the GIL back only after that
thread has held it for the switch interval (5 ms): a doorbell that crosses the loop in four turns
(Redis's reply read, the layer's queue, the socket's consumer, its frame) could wait four times
(``bench/live.py --watch``: most of the loop's stalls were ``select`` calls returning late, its
thread's CPU a tenth of their time). Here a poll is skipped when the last one was less than
``every`` seconds ago: the turn goes on with what is ready, and what the network brought waits at
most that long; a ``select`` that may wait (no callback ready) is never skipped.
"""

from __future__ import annotations

import asyncio
import sys
import time


class SparsePolls:
    """``select`` on ``loop``'s selector, polling at most once per ``every`` seconds."""

    def __init__(self, loop: asyncio.AbstractEventLoop, every: float) -> None:
        self.loop = loop
        self.every = every
        self.selector = loop._selector
        self.original = self.selector.select
        self.last_poll = float("-inf")
        self.skipped = 0

    def select(self, timeout: float | None = None) -> list:
        ready = timeout is not None and timeout <= 0  # callbacks are ready: a poll
        if ready and time.monotonic() - self.last_poll < self.every:
            self.skipped += 1
            return []
        try:
            return self.original(timeout)
        finally:
            self.last_poll = time.monotonic()

    def install(self) -> None:
        self.selector.select = self.select

    def uninstall(self) -> None:
        if vars(self.selector).get("select") == self.select:
            del self.selector.select


def install_under_daphne(every: float) -> SparsePolls | None:
    """On the loop of daphne's reactor; nothing when daphne does not serve this process or
    ``every`` is 0."""
    if every <= 0 or "daphne.server" not in sys.modules:
        return None
    reactor = sys.modules.get("twisted.internet.reactor")
    loop = getattr(reactor, "_asyncioEventloop", None)
    if loop is None:
        return None
    global installed
    installed = SparsePolls(loop, every)
    installed.install()
    return installed


#: The process's sparse polls, once installed (for ``--watch``'s count of the polls skipped).
installed: SparsePolls | None = None
