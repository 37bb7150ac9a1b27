"""Issue 13: level-3 bots think in a bounded pool of processes beside the worker (``games.thinking``):
never more processes than ``BOT_POOL_SIZE``, a thought move lands as the worker's own job would
have played it, a thought that comes too late is dropped, and a pool process that dies does not
lose the turn."""

from __future__ import annotations

import contextvars
import os
import random
import signal

import pytest

from games import analysis, services, thinking, worker
from games.engines import CHANCE, get_engine, search
from games.engines import analysis as judge
from games.models import Match, MatchAnalysis

from .factories import play_to_the_end, started_table
from .test_thinking_bots import table_with_level3_bots

pytestmark = pytest.mark.django_db
#: Generous: a pool process starts a fresh interpreter, on a machine shared with others.
THOUGHT_WAIT = 120.0


@pytest.fixture
def pool_of(settings):
    """A worker's pool of ``size`` processes, closed after the test."""

    def start(size: int) -> thinking.ThinkingPool:
        thinking.close_worker_pool()
        settings.BOT_POOL_SIZE = size
        settings.BOT_POOL_NICE = 0
        return thinking.worker_pool()

    yield start
    thinking.close_worker_pool()


def bot_moves(match: Match) -> int:
    """The moves of the level-3 bots (not those a level-1 bot plays for the person)."""
    thinking_seats = match.seats.filter(user__isnull=True).values_list("index", flat=True)
    return match.moves.filter(seat__in=list(thinking_seats)).count()


def table_of_thinking_bots(game: str = "cafe-fatal") -> Match:
    """A person who resigned at once (a level-1 bot plays on for them) and two level-3 bots."""
    match, host = table_with_level3_bots(game, 3)
    services.resign(host, match.pk)
    return Match.objects.get(pk=match.pk)


def thinking_due(match: Match) -> bool:
    engine = get_engine(match.game)
    seats = {s.index: s for s in match.seats.all()}
    return match.is_playing and any(
        i != CHANCE and seats[i].bot_level == 3 for i in engine.to_move(match.state)
    )


def test_the_sites_level3_bots_think_their_budget_in_cpu_time_of_one_core(settings):
    # Outside the tests' fixed number of worlds: the budget the site set at start-up.
    site_budget = contextvars.Context().run(search.current_budget)
    assert site_budget == search.Budget(settings.BOT_LEVEL3_BUDGET, None, on_cpu=True)


def test_a_pool_process_thinks_with_the_budget_it_was_handed(monkeypatch):
    engine = get_engine("cafe-fatal")
    seen = []

    def bot_move(view, rng, level):
        seen.append(search.current_budget())
        return {"place": {"value": 1, "table": 0}}

    monkeypatch.setattr(engine, "bot_move", bot_move)
    handed = search.Budget(0.5, None, on_cpu=True)
    thought = thinking.think("cafe-fatal", {}, random.Random(1), 3, handed)
    assert seen == [handed]
    assert thought.move == {"place": {"value": 1, "table": 0}}


def test_with_a_pool_the_worker_s_timeout_job_never_thinks(pool_of):
    pool_of(1)
    match = table_of_thinking_bots()
    assert thinking_due(match)
    assert worker.play_expired_turns() == 0
    match.refresh_from_db()
    assert bot_moves(match) == 0
    assert match.deadline is not None


def test_the_pool_plays_the_move_the_worker_s_own_job_would_have_played(pool_of):
    pool = pool_of(1)
    match = table_of_thinking_bots()
    engine = get_engine(match.game)
    seat = next(i for i in engine.to_move(match.state) if i != CHANCE)
    expected = engine.bot_move(engine.view(match.state, seat), services._rng(match, "bot"), 3)
    # The first round hands the turn over and returns at once: no move yet, the table is the
    # pool's until its claim runs out.
    assert worker.play_thinking_turns() == 0
    assert pool.thinking_about(match.pk)
    claimed = Match.objects.get(pk=match.pk)
    assert bot_moves(claimed) == 0 and claimed.deadline > match.deadline
    assert worker.play_thinking_turns(wait=THOUGHT_WAIT) == 1
    match.refresh_from_db()
    first_bot_move = match.moves.filter(by_bot=True, seat=seat).order_by("number").first()
    assert first_bot_move.payload == expected
    assert match.version > claimed.version


def test_the_pool_plays_a_table_of_thinking_bots_to_its_end(pool_of):
    pool_of(1)
    match = table_of_thinking_bots("pizza-party")
    rounds = 0
    while Match.objects.get(pk=match.pk).is_playing:
        worker.play_thinking_turns(wait=THOUGHT_WAIT)
        rounds += 1
        assert rounds < 500
    assert Match.objects.get(pk=match.pk).status == Match.Status.FINISHED


def test_the_pool_never_runs_more_processes_than_its_size(pool_of):
    pool = pool_of(2)
    tables = [table_of_thinking_bots() for _ in range(5)]
    worker.play_thinking_turns()
    assert all(pool.thinking_about(t.pk) for t in tables)
    assert len(pool.processes()) <= 2
    thoughts = []
    while pool.in_flight:
        thoughts += pool.finished(wait=THOUGHT_WAIT)
        assert len(pool.processes()) <= 2
    assert len(thoughts) == 5
    assert all(thought is not None for _turn, thought in thoughts)
    assert 1 <= len({thought.pid for _turn, thought in thoughts}) <= 2
    assert os.getpid() not in {thought.pid for _turn, thought in thoughts}


def test_a_thought_that_comes_after_the_table_changed_is_dropped(pool_of):
    pool_of(1)
    match = table_of_thinking_bots()
    turn = services.claim_thinking_turn(match.pk)
    assert turn is not None
    # Nobody else may take the turn while the pool has it.
    assert services.claim_thinking_turn(match.pk) is None
    Match.objects.filter(pk=match.pk).update(version=turn.version + 1)
    engine = get_engine(match.game)
    move = engine.bot_move(turn.view, turn.rng, 1)
    assert services.play_thought_move(turn, move) is False
    assert bot_moves(Match.objects.get(pk=match.pk)) == 0


def test_a_pool_process_that_dies_does_not_lose_the_turn(pool_of):
    pool = pool_of(1)
    match = table_of_thinking_bots()
    # A thought long enough to be killed in the middle of it.
    with search.budget(seconds=600):
        worker.play_thinking_turns()
    assert pool.thinking_about(match.pk)
    (pid,) = pool.processes()
    os.kill(pid, signal.SIGKILL)
    # The round that finds the process dead gives the turn back and hands it over again, to a
    # new process; the next round plays it.
    assert worker.play_thinking_turns(wait=THOUGHT_WAIT) == 0
    assert pool.thinking_about(match.pk)
    assert pid not in pool.processes()
    assert worker.play_thinking_turns(wait=THOUGHT_WAIT) == 1
    assert bot_moves(Match.objects.get(pk=match.pk)) == 1


# --- the analysis after the game in the pool --------------------------------------------------------
@pytest.fixture
def analysis_on(settings):
    """The analysis on, a few worlds a decision (reproducible), a round for a whole match."""
    settings.ANALYSIS_SECONDS_PER_MATCH = 30
    settings.ANALYSIS_ITERATIONS = 4
    settings.ANALYSIS_SECONDS_PER_TICK = 3600


def finished_match() -> Match:
    match, users = started_table("cafe-fatal", players=2)
    return play_to_the_end(match, users)


def analysed_in_the_pool(pool: thinking.ThinkingPool, match: Match) -> MatchAnalysis:
    rounds = 0
    while not MatchAnalysis.objects.filter(match=match, complete=True).exists():
        worker.analyse_finished_matches()
        pool.finished()  # no thinking turn here: only the analyses
        for _job, future, _executor in list(pool.analysing.values()):
            future.exception(timeout=THOUGHT_WAIT)
        rounds += 1
        assert rounds < 50
    return MatchAnalysis.objects.get(match=match)


def test_with_a_pool_the_analysis_is_judged_there_and_saved_as_the_worker_would(
    pool_of, analysis_on, settings
):
    match = finished_match()
    pool = pool_of(1)
    # The first round hands the match over and returns at once: nothing judged in the worker.
    assert worker.analyse_finished_matches() == 0
    assert pool.analysing_match(match.pk)
    row = MatchAnalysis.objects.get(match=match)
    assert not row.complete and row.decisions == []
    (_job, future, _executor) = pool.analysing[match.pk]
    assert future.result(timeout=THOUGHT_WAIT).pid != os.getpid()
    in_the_pool = analysed_in_the_pool(pool, match).decisions
    # The worker's own job judges the same decisions alike (each has its own generator).
    MatchAnalysis.objects.filter(match=match).delete()
    thinking.close_worker_pool()
    settings.BOT_POOL_SIZE = 0
    judged = worker.analyse_finished_matches()
    assert judged == len(in_the_pool), why_nothing_was_judged(match)
    assert MatchAnalysis.objects.get(match=match).decisions == in_the_pool


def why_nothing_was_judged(match: Match) -> dict:
    """What the worker's analysis round saw, for a failure's message."""
    return {
        "due tables": list(services.due_matches().values_list("pk", "deadline")),
        "unanalysed": analysis._unanalysed_match_ids(),
        "this match": match.pk,
        "rows": list(MatchAnalysis.objects.values("match_id", "complete", "failed", "next_move")),
    }


def test_analyses_and_thinking_turns_share_the_pool_within_its_size(pool_of, analysis_on):
    finished = [finished_match() for _ in range(2)]
    pool = pool_of(2)
    assert worker.analyse_finished_matches() == 0
    assert list(pool.analysing) == [finished[1].pk]  # one round at a time, the newest first
    tables = [table_of_thinking_bots() for _ in range(3)]
    worker.play_thinking_turns()
    assert all(pool.thinking_about(t.pk) for t in tables)
    # People first: while thoughts are under way, no other match's round is handed over. The
    # round under way may be judged already (on a fast machine): this call then saves it.
    saved = worker.analyse_finished_matches()
    assert set(pool.analysing) <= {finished[1].pk}
    pids: set[int] = set()
    while pool.in_flight or pool.analysing:
        assert len(pool.processes()) <= 2
        pids |= {thought.pid for _turn, thought in pool.finished(wait=1.0) if thought}
        for job, judged in pool.analyses_finished():
            assert judged is not None
            pids.add(judged.pid)
            saved += analysis.save_judged_round(job, judged)
    assert len(pool.processes()) <= 2
    assert 1 <= len(pids) <= 2 and os.getpid() not in pids
    assert saved == len(MatchAnalysis.objects.get(match=finished[1]).decisions) > 0


def test_a_pool_process_that_dies_mid_analysis_gives_the_round_back(pool_of, analysis_on):
    match = finished_match()
    pool = pool_of(1)
    analysis.next_round(match.pk)  # the row, then a round long enough to be killed in
    MatchAnalysis.objects.filter(match=match).update(iterations=None, seconds_per_decision=600)
    assert worker.analyse_finished_matches() == 0
    assert pool.analysing_match(match.pk)
    (pid,) = pool.processes()
    os.kill(pid, signal.SIGKILL)
    pool.analysing[match.pk][1].exception(timeout=THOUGHT_WAIT)  # the round fails
    # The round that finds the process dead saves nothing and hands the match over again, from
    # where its analysis stood, to a new process.
    assert worker.analyse_finished_matches() == 0
    row = MatchAnalysis.objects.get(match=match)
    assert row.decisions == [] and row.next_move == 0 and not row.complete
    assert pool.analysing_match(match.pk) and pool.analysing[match.pk][0].found_at == 0
    (again,) = pool.processes()
    assert again != pid
    # Killed again, it is handed over once more, now with a short budget, and completes.
    MatchAnalysis.objects.filter(match=match).update(iterations=4)
    os.kill(again, signal.SIGKILL)
    pool.analysing[match.pk][1].exception(timeout=THOUGHT_WAIT)
    row = analysed_in_the_pool(pool, match)
    assert row.complete and not row.failed and row.decisions
    assert [d["move"] for d in row.decisions] == sorted({d["move"] for d in row.decisions})


def test_a_round_whose_engine_failed_in_the_pool_sets_the_analysis_aside(analysis_on):
    match = finished_match()
    row, decisions = analysis.next_round(match.pk)
    job = thinking.AnalysisRound(match.pk, match.game, 0, decisions, search.Budget(1, 4), 3600)
    failed = judge.JudgedRound([], None, 0.1, failed=True)
    assert analysis.save_judged_round(job, failed) == 0
    row.refresh_from_db()
    assert row.failed and row.complete and row.decisions == []
    assert worker.analyse_finished_matches() == 0  # never handed over again
