"""Level-3 bots think in a bounded pool of processes (issue 13: a level-3 seat must not slow the
other tables).

A search spends its whole budget on the CPU. In the worker's own job it held a table's lock and
the worker for that long, and competed with the site's processes at the same priority. Here the
worker hands each due thinking turn to a pool of ``BOT_POOL_SIZE`` processes running at a lower
priority (``BOT_POOL_NICE``): at most that many thoughts at once, however many tables wait, and
the worker's other jobs go on while they think. The pool gets the seat's view only (what
``services.claim_thinking_turn`` hands over), never the state or the database; the move comes back
to ``services.play_thought_move``, which plays it if the table has not changed meanwhile.

A turn is never lost: while the pool thinks, the table's deadline is pushed on
(``THINKING_CLAIM_SECONDS``); if the pool's process dies, the turn is given back at once and the
pool starts a new process; if the worker itself dies, the deadline comes and the turn is due
again for whichever worker runs next.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import random
import threading
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from .engines import get_engine, search

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Thought:
    """A move a bot chose, and the process that chose it."""

    move: Any
    pid: int


def think(
    game: str, view: dict[str, Any], rng: random.Random, level: int, budget: search.Budget
) -> Thought:
    """Runs in a pool process: the bot's move from its seat's view alone (pure, no database)."""
    with search.budget(budget.seconds, budget.iterations):
        move = get_engine(game).bot_move(view, rng, level)
    return Thought(move, os.getpid())


def _think_gently(nice: int) -> None:
    """Each pool process starts by lowering its own priority."""
    if nice > 0:
        os.nice(nice)


class ThinkingPool:
    """At most ``size`` processes that think; turns beyond them wait in the pool's queue. One per
    worker process; ``submit`` and ``finished`` are called from the worker's job only."""

    def __init__(self, size: int, nice: int = 0) -> None:
        if size < 1:
            raise ValueError("a thinking pool needs at least one process")
        self.size = size
        self.nice = nice
        self.executor: ProcessPoolExecutor | None = None
        self.in_flight: dict[int, tuple[Any, Future]] = {}

    def _executor(self) -> ProcessPoolExecutor:
        if self.executor is None:
            # "spawn": a fresh interpreter that imports the engines only, not a fork of a worker
            # holding database connections and threads.
            self.executor = ProcessPoolExecutor(
                max_workers=self.size,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_think_gently,
                initargs=(self.nice,),
            )
        return self.executor

    def thinking_about(self, match_id: int) -> bool:
        return match_id in self.in_flight

    def submit(self, turn: Any) -> None:
        """Think about ``turn`` (a ``services.ThinkingTurn``) with the budget in force now."""
        budget = search.current_budget()
        try:
            future = self._executor().submit(
                think, turn.game, turn.view, turn.rng, turn.level, budget
            )
        except BrokenProcessPool:
            self._restart()
            future = self._executor().submit(
                think, turn.game, turn.view, turn.rng, turn.level, budget
            )
        self.in_flight[turn.match_id] = (turn, future)

    def finished(self, wait: float | None = 0) -> list[tuple[Any, Thought | None]]:
        """The turns thought about since the last call: (turn, thought), or (turn, None) when
        the thought never came (its process died; the pool then starts afresh). ``wait``: how
        long to wait for at least one when none is ready (0: not at all)."""
        if wait and self.in_flight and not any(f.done() for _t, f in self.in_flight.values()):
            ready = threading.Event()
            for _turn, future in self.in_flight.values():
                future.add_done_callback(lambda _f: ready.set())
            ready.wait(wait)
        done = []
        broken = False
        for match_id, (turn, future) in list(self.in_flight.items()):
            if not future.done():
                continue
            del self.in_flight[match_id]
            try:
                done.append((turn, future.result()))
            except (BrokenProcessPool, CancelledError):
                broken = True
                done.append((turn, None))
            except Exception:
                logger.exception("a bot failed to think about table %s", match_id)
                done.append((turn, None))
        if broken:
            self._restart()
        return done

    def processes(self) -> list[int]:
        """The pids of the pool's live processes (for the tests of its bound)."""
        if self.executor is None:
            return []
        return [pid for pid, process in self.executor._processes.items() if process.is_alive()]

    def _restart(self) -> None:
        logger.warning("the thinking pool lost a process; starting afresh")
        if self.executor is not None:
            self.executor.shutdown(wait=False, cancel_futures=True)
        self.executor = None

    def close(self) -> None:
        if self.executor is not None:
            self.executor.shutdown(wait=True, cancel_futures=True)
        self.executor = None
        self.in_flight.clear()


_pool: ThinkingPool | None = None
_pool_lock = threading.Lock()


def worker_pool() -> ThinkingPool | None:
    """This worker process's pool, started on first use (None when ``BOT_POOL_SIZE`` is 0)."""
    global _pool
    from django.conf import settings

    if settings.BOT_POOL_SIZE <= 0:
        return None
    with _pool_lock:
        if _pool is None:
            _pool = ThinkingPool(settings.BOT_POOL_SIZE, settings.BOT_POOL_NICE)
        return _pool


def close_worker_pool() -> None:
    global _pool
    with _pool_lock:
        if _pool is not None:
            _pool.close()
        _pool = None
