"""The worker's jobs. Each is idempotent and safe with several workers at once: it picks rows with
``select_for_update(skip_locked=True)`` and re-checks under the lock, so a killed worker leaves
nothing half done and two workers never do the same work twice."""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.utils import timezone

from . import services
from .models import Match

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


@job
def play_expired_turns(limit: int = 100) -> int:
    """Bots play for the seats whose time is up (and ranked matches that never began are aborted)."""
    due = Match.objects.filter(
        status=Match.Status.PLAYING, deadline__lte=timezone.now()
    ).values_list("pk", flat=True)[:limit]
    return sum(play_expired_turn(match_id) for match_id in list(due))


def play_expired_turn(match_id: int) -> int:
    """One table's timeout, on its own: a table that fails rolls back its own transaction only,
    is logged with its id and tried again later (``services.note_job_failure`` backs off, then
    calls the match off), and the tables behind it are played in the same tick."""
    try:
        return int(services.play_for_timeouts(match_id))
    except Exception:
        logger.exception("the timeout of table %s failed", match_id)
    try:
        if services.note_job_failure(match_id):
            logger.error("table %s was called off after failing again and again", match_id)
    except Exception:  # the database itself may be away: the next tick tries again
        logger.exception("could not count the failure of table %s", match_id)
    return 0
