"""Issue 13: a worker may leave the level-3 bots' thinking, and the analysis after the game, to
other workers (``WORKER_THINKS=0``), for instance on a machine of their own, so that no search
runs on the cores that serve the live tables. It still does every other job; a worker that thinks
takes the turns it left."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import analysis, thinking, worker
from games.engines import get_engine
from games.models import Match, MatchAnalysis

from .factories import play_to_the_end, started_table
from .test_collector import what_a_server_process_reports
from .test_thinking_bots import table_with_level3_bots
from .test_thinking_pool import bot_moves, table_of_thinking_bots, thinking_due

pytestmark = pytest.mark.django_db


@pytest.fixture
def a_worker(settings):
    """Make this process a worker that thinks (``think``) or not, with a pool of ``pool``
    processes (0: it thinks in its own job); no pool is left running after the test."""

    def become(*, think: bool, pool: int = 0) -> None:
        thinking.close_worker_pool()
        settings.WORKER_THINKS = think
        settings.BOT_POOL_SIZE = pool
        settings.BOT_POOL_NICE = 0

    yield become
    thinking.close_worker_pool()


@pytest.mark.parametrize("pool", [0, 1], ids=["without a pool", "with a pool"])
def test_a_worker_that_does_not_think_leaves_a_thinking_bot_s_turn_to_one_that_does(a_worker, pool):
    match = table_of_thinking_bots()
    assert thinking_due(match) and match.deadline <= timezone.now()
    a_worker(think=False, pool=pool)
    for _ in range(3):
        worker.run_due_jobs()
    assert thinking.worker_pool() is None  # no search process started on this machine
    left = Match.objects.get(pk=match.pk)
    assert bot_moves(left) == 0 and left.version == match.version
    assert left.deadline <= timezone.now()  # still due: not claimed, not pushed back
    a_worker(think=True, pool=0)
    assert worker.play_expired_turns() == 1
    assert bot_moves(Match.objects.get(pk=match.pk)) == 1


def test_a_worker_that_does_not_think_still_plays_a_person_s_timeout(a_worker):
    match, host = table_with_level3_bots("cafe-fatal", 3, turn_seconds=30)
    engine = get_engine(match.game)
    host_seat = match.seats.get(user=host).index
    a_worker(think=True, pool=0)  # the bots move first where they sit first
    while host_seat not in engine.to_move(match.state):
        assert worker.play_expired_turns() == 1
        match = Match.objects.get(pk=match.pk)
    Match.objects.filter(pk=match.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    a_worker(think=False, pool=1)
    assert worker.play_expired_turns() == 1
    match = Match.objects.get(pk=match.pk)
    assert match.seats.get(index=host_seat).timeouts_in_row == 1
    assert match.moves.filter(seat=host_seat, by_bot=True).count() == 1
    assert thinking.worker_pool() is None


def test_a_worker_that_does_not_think_judges_no_finished_match(a_worker, settings):
    settings.ANALYSIS_SECONDS_PER_MATCH = 30
    settings.ANALYSIS_ITERATIONS = 4
    settings.ANALYSIS_SECONDS_PER_TICK = 3600
    match, users = started_table("cafe-fatal", players=2)
    match = play_to_the_end(match, users)
    a_worker(think=False, pool=1)
    assert analysis._unanalysed_match_ids() == [match.pk]
    assert worker.analyse_finished_matches() == 0
    assert not MatchAnalysis.objects.filter(match=match).exists()
    assert thinking.worker_pool() is None
    a_worker(think=True, pool=0)
    assert worker.analyse_finished_matches() > 0
    assert MatchAnalysis.objects.get(match=match).complete


def worker_thinks_in_a_process(**env: str) -> bool:
    return what_a_server_process_reports(
        "settings.WORKER_THINKS",
        unset=("WORKER_THINKS",),
        env=env,
        imports="from django.conf import settings",
    )


def test_a_worker_thinks_unless_told_not_to():
    assert worker_thinks_in_a_process() is True
    assert worker_thinks_in_a_process(WORKER_THINKS="0") is False
    assert worker_thinks_in_a_process(WORKER_THINKS="1") is True
