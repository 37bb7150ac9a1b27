"""Level-3 bots think in a bounded pool of processes (issue 13: a level-3 seat must not slow the
other tables).

A search spends its whole budget on the CPU. In the worker's own job it held a table's lock and
the worker for that long, and competed with the site's processes at the same priority. Here the
worker hands each due thinking turn to a pool of ``BOT_POOL_SIZE`` processes running at a lower
priority (``BOT_POOL_NICE``: a ``nice``, or Linux's idle class) on the cores ``BOT_POOL_CPUS``
names: at most that many thoughts at once, however many tables wait, and the worker's other jobs
go on while they think. The pool gets the seat's view only (what
``services.claim_thinking_turn`` hands over), never the state or the database; the move comes back
to ``services.play_thought_move``, which plays it if the table has not changed meanwhile.

A turn is never lost: while the pool thinks, the table's deadline is pushed on
(``THINKING_CLAIM_SECONDS``); if the pool's process dies, the turn is given back at once and the
pool starts a new process; if the worker itself dies, the deadline comes and the turn is due
again for whichever worker runs next.

The analysis after the game thinks here too (``games.analysis``): the worker hands the pool a
round of a finished match's decisions (``AnalysisRound``), the pool judges them
(``engines.analysis.judge_round``) and the worker saves what comes back. It shares the pool's
processes, so the bound holds for both; a round whose process dies is simply not saved, and the
match is handed over again from where its analysis stood.
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

from .engines import analysis as judge
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
    with search.thinking_for(budget):
        move = get_engine(game).bot_move(view, rng, level)
    return Thought(move, os.getpid())


#: ``BOT_POOL_NICE`` for Linux's idle scheduling class: a process in it runs only when no other
#: thread wants its core, and gives the core up the moment one does.
IDLE = "idle"


def _think_gently(nice: int | str, cores: set[int] | None) -> None:
    """Each pool process starts by keeping to ``cores`` (every core when None) and lowering its
    own priority: ``nice``, or the idle class (``IDLE``)."""
    if cores:
        os.sched_setaffinity(0, cores)
    if nice == IDLE:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    elif nice > 0:
        os.nice(nice)


@dataclass(frozen=True)
class AnalysisRound:
    """A round of a finished match's analysis handed to the pool: the decisions from the row's
    ``found_at`` on, to judge for about ``seconds`` with the budget ``chosen`` each."""

    match_id: int
    game: str
    found_at: int
    decisions: list[judge.Decision]
    chosen: search.Budget
    seconds: float


def analyse(job: AnalysisRound) -> judge.JudgedRound:
    """Runs in a pool process: a round of decisions judged (pure, no database)."""
    return judge.judge_round(job.game, job.decisions, job.chosen, job.seconds)


class ThinkingPool:
    """At most ``size`` processes that think; turns beyond them wait in the pool's queue. One per
    worker process; ``submit`` and ``finished`` are called from the worker's job only."""

    def __init__(self, size: int, nice: int | str = 0, cores: set[int] | None = None) -> None:
        if size < 1:
            raise ValueError("a thinking pool needs at least one process")
        self.size = size
        self.nice = nice
        self.cores = cores
        self.executor: ProcessPoolExecutor | None = None
        self.in_flight: dict[int, tuple[Any, Future]] = {}
        #: Rounds of analysis handed over, by match, with the executor that has each: when a
        #: process dies every future of that executor fails, and only the first to tell of it
        #: may start the pool afresh (not again for the futures of the new one).
        self.analysing: dict[int, tuple[AnalysisRound, Future, ProcessPoolExecutor]] = {}
        self._thought_by: dict[int, ProcessPoolExecutor | None] = {}

    def _executor(self) -> ProcessPoolExecutor:
        if self.executor is None:
            # "spawn": a fresh interpreter that imports the engines only, not a fork of a worker
            # holding database connections and threads.
            self.executor = ProcessPoolExecutor(
                max_workers=self.size,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_think_gently,
                initargs=(self.nice, self.cores),
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
        self._thought_by[turn.match_id] = self.executor

    def analysing_match(self, match_id: int) -> bool:
        return match_id in self.analysing

    def submit_analysis(self, job: AnalysisRound) -> None:
        """Judge a round of ``job.match_id``'s decisions in a pool process."""
        try:
            executor = self._executor()
            future = executor.submit(analyse, job)
        except BrokenProcessPool:
            self._restart()
            executor = self._executor()
            future = executor.submit(analyse, job)
        self.analysing[job.match_id] = (job, future, executor)

    def analyses_finished(self) -> list[tuple[AnalysisRound, judge.JudgedRound | None]]:
        """The rounds of analysis judged since the last call: (round, what it judged), or
        (round, None) when its process died (nothing judged is lost but that round's)."""
        done = []
        broken = False
        for match_id, (job, future, executor) in list(self.analysing.items()):
            if not future.done():
                continue
            del self.analysing[match_id]
            try:
                done.append((job, future.result()))
            except (BrokenProcessPool, CancelledError):
                broken = broken or executor is self.executor
                done.append((job, None))
            except Exception:
                logger.exception("the analysis of match %s failed in the pool", match_id)
                done.append((job, None))
        if broken:
            self._restart()
        return done

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
            executor = self._thought_by.pop(match_id, None)
            try:
                done.append((turn, future.result()))
            except (BrokenProcessPool, CancelledError):
                broken = broken or executor is self.executor
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
        self.analysing.clear()
        self._thought_by.clear()


_pool: ThinkingPool | None = None
_pool_lock = threading.Lock()


def worker_pool() -> ThinkingPool | None:
    """This worker process's pool, started on first use (None when ``BOT_POOL_SIZE`` is 0, or
    when this worker leaves the thinking to others: ``WORKER_THINKS`` off)."""
    global _pool
    from django.conf import settings

    if settings.BOT_POOL_SIZE <= 0 or not settings.WORKER_THINKS:
        return None
    with _pool_lock:
        if _pool is None:
            _pool = ThinkingPool(settings.BOT_POOL_SIZE, settings.BOT_POOL_NICE, pool_cores())
        return _pool


def pool_cores() -> set[int] | None:
    """The cores ``BOT_POOL_CPUS`` keeps the pool to (None: every core); a list this worker
    cannot use stops it, saying why (``cpus.cores_named``)."""
    from django.conf import settings

    from pdc_site.cpus import cores_named

    return cores_named("BOT_POOL_CPUS", settings.BOT_POOL_CPUS)


def close_worker_pool() -> None:
    global _pool
    with _pool_lock:
        if _pool is not None:
            _pool.close()
        _pool = None
