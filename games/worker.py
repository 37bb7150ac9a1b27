"""The worker's jobs. Each is idempotent and safe with several workers at once: it picks rows with
``select_for_update(skip_locked=True)`` and re-checks under the lock, so a killed worker leaves
nothing half done and two workers never do the same work twice."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from queue import Empty, SimpleQueue

from django.db import connection, connections

from . import analysis, services
from .models import Seat

logger = logging.getLogger(__name__)

Job = Callable[[], int]
_JOBS: list[Job] = []


def job(function: Job) -> Job:
    """Register a job: a function that does what is due now and returns how much it did."""
    _JOBS.append(function)
    return function


def jobs() -> list[Job]:
    return list(_JOBS)


def run_due_jobs() -> int:
    done = 0
    for function in jobs():
        try:
            done += function()
        except Exception:  # one failing job must not stop the others; it is retried next tick
            logger.exception("worker job %s failed", function.__name__)
    return done


#: Tables whose turns expired that the worker plays at once, each in its own transaction on its
#: own database connection (PostgreSQL only: SQLite takes one writer at a time). Their jobs wait on
#: the database and the doorbell more than they compute, so a few overlap well even on two cores.
THREADS = int(os.environ.get("PDC_WORKER_THREADS", "4"))
#: A round of expired turns takes no new batch after this long, so that the other jobs run too.
ROUND_SECONDS = 5.0


@job
def play_expired_turns(limit: int = 100) -> int:
    """Bots play for the seats whose time is up (and ranked matches that never began are aborted),
    in batches of ``limit`` tables until none is left due, so that a thousand turns expiring in
    the same minute are played without waiting a tick between batches."""
    started = time.monotonic()
    after, done = 0, 0
    while time.monotonic() - started < ROUND_SECONDS:
        due = list(
            services.due_matches()
            .filter(pk__gt=after)
            .order_by("pk")
            .values_list("pk", flat=True)[:limit]
        )
        if not due:
            break
        # A table tried in this round (one that failed, or was locked by another worker) is not
        # tried again before the next round.
        after = due[-1]
        done += _play_all(due)
    return done


def _play_all(match_ids: list[int]) -> int:
    """Play these tables, several at once when the database allows it. Inside a transaction (a
    test's), the tables are played in it, one after the other: other connections would not see
    what it holds."""
    alone = connection.vendor != "postgresql" or connection.in_atomic_block
    if THREADS <= 1 or len(match_ids) == 1 or alone:
        return sum(play_expired_turn(match_id) for match_id in match_ids)
    queue: SimpleQueue[int] = SimpleQueue()
    for match_id in match_ids:
        queue.put(match_id)
    with ThreadPoolExecutor(max_workers=min(THREADS, len(match_ids))) as pool:
        return sum(pool.map(_play_from, [queue] * min(THREADS, len(match_ids))))


def _play_from(queue: SimpleQueue[int]) -> int:
    """One thread: tables from the queue until it is empty, then its connection is closed."""
    done = 0
    try:
        while True:
            try:
                match_id = queue.get_nowait()
            except Empty:
                return done
            done += play_expired_turn(match_id)
    finally:
        connections.close_all()


def play_expired_turn(match_id: int) -> int:
    """One table's timeout, on its own: a table that fails rolls back its own transaction only,
    is logged with its id and tried again later (``services.note_job_failure`` backs off, then
    calls the match off), and the tables behind it are played in the same tick."""
    try:
        return int(services.play_for_timeouts(match_id))
    except Exception:
        logger.exception("the timeout of table %s failed", match_id)
    _count_failure(match_id)
    return 0


def _count_failure(match_id: int) -> None:
    """A table's job failed: count it (``services.note_job_failure`` backs off, then calls the
    match off)."""
    try:
        if services.note_job_failure(match_id):
            logger.error("table %s was called off after failing again and again", match_id)
    except Exception:  # the database itself may be away: the next tick tries again
        logger.exception("could not count the failure of table %s", match_id)


@job
def analyse_finished_matches() -> int:
    """The analysis after the game: decisions of finished matches beside level 3's choice, for at
    most ``ANALYSIS_SECONDS_PER_TICK`` seconds a round (``games.analysis``)."""
    return analysis.analyse_finished_matches()


# --- thinking bots (issue 13): level-3 turns go to a bounded pool of processes ----------------
#: Thinking turns one round hands to the pool at most (they queue there for its processes).
THINKING_BATCH = 100


@job
def play_thinking_turns(wait: float = 0) -> int:
    """Play the moves the pool has thought of, then hand it the thinking bots' turns now due.
    The job does not wait for a thought (``wait``: seconds it may, for the tests): the worker's
    other jobs go on meanwhile."""
    from . import thinking

    pool = thinking.worker_pool()
    if pool is None:  # ``play_expired_turns`` plays them, one move per job, or another worker
        return 0
    done = sum(_play_thought(turn, thought) for turn, thought in pool.finished(wait))
    for match_id in _due_thinking_tables(THINKING_BATCH):
        if pool.thinking_about(match_id):
            continue
        turn = services.claim_thinking_turn(match_id)
        if turn is not None:
            pool.submit(turn)
    return done


def _due_thinking_tables(limit: int) -> list[int]:
    """Playing tables that are due and seat a bot that thinks in the pool, the longest due
    first (a person's timeout at such a table is ``play_expired_turns``' job)."""
    return list(
        services.due_matches()
        .filter(
            pk__in=Seat.objects.filter(
                user__isnull=True, bot_level__gte=services.WORKER_BOT_LEVEL
            ).values("match_id"),
        )
        .order_by("deadline", "pk")
        .values_list("pk", flat=True)[:limit]
    )


def _play_thought(turn: services.ThinkingTurn, thought: object | None) -> int:
    """Play one thought; a thought that never came gives the turn back (due again at once); a
    move that fails counts as the table's failure (retried later, then the match called off)."""
    if thought is None:
        services.give_back_thinking_turn(turn)
        return 0
    try:
        return int(services.play_thought_move(turn, thought.move))
    except Exception:
        logger.exception("the thought move of table %s failed", turn.match_id)
    _count_failure(turn.match_id)
    return 0
