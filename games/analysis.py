"""The analysis after the game, on the site: the worker's job that writes it and what pages read.

Once a match is finished, the worker (``analyse_finished_matches``, a job of ``games.worker``)
compares each decision with the move level 3 would have made from the same view
(``games.engines.analysis.judge_decision``) and keeps the judgements in a ``MatchAnalysis`` row.
This module is the only writer of that row (the match itself is never changed). A decision is a
move of a seat, not chance, with a choice (a forced move is not one). A whole match gets about
``ANALYSIS_SECONDS_PER_MATCH`` seconds, split evenly over its decisions; a round of jobs spends
at most ``ANALYSIS_SECONDS_PER_TICK`` of it and the next round goes on where it stopped, so the
turn timers of running tables are never held up for long. No transaction is open while it
thinks; a round's judgements are saved under the row's lock only if no other worker moved the
row on meanwhile, and each decision's generator comes from the match and the move's number: two
workers never save the same decisions twice, and a worker killed mid-way loses only its last
round.

A running match has no analysis anywhere: the job only picks finished matches, and ``for_match``
answers None for any other.
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import random
import time
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from . import services
from .engines import CHANCE, Engine, get_engine
from .engines import analysis as judge
from .engines.base import Sentence, State
from .engines.search import Budget
from .models import Match, MatchAnalysis, Move

logger = logging.getLogger(__name__)

#: Matches looked at per round of jobs, newest first (a round usually finishes one).
CANDIDATES_PER_ROUND = 5


def analyse_finished_matches() -> int:
    """Analyse finished matches for about ``ANALYSIS_SECONDS_PER_TICK`` seconds (the decision
    under way is finished); returns how many decisions were judged (and saved). With a thinking
    pool (``BOT_POOL_SIZE`` > 0) the judging is the pool's (``analyse_in_pool``); a worker that
    leaves the thinking to others (``WORKER_THINKS`` off) judges nothing."""
    if settings.ANALYSIS_SECONDS_PER_MATCH <= 0 or not settings.WORKER_THINKS:
        return 0
    from . import thinking  # the pool's module imports the engines only, not this one

    pool = thinking.worker_pool()
    if pool is not None:
        return analyse_in_pool(pool)
    if _a_table_is_due():
        return 0
    started = time.perf_counter()
    judged = 0
    for match_id in _unanalysed_match_ids():
        left = settings.ANALYSIS_SECONDS_PER_TICK - (time.perf_counter() - started)
        if judged and left <= 0:
            break
        # At least one decision a round, however short the round.
        judged += analyse_some(match_id, max(0.0, left))
    return judged


def analyse_in_pool(pool: Any) -> int:
    """Save the rounds the pool has judged, then hand it the next round of one match, if the
    pool has nothing else to think about. People first: no round is handed over while a table
    waits for the worker or a bot's thought is under way, and one round at a time, so a level-3
    turn that comes meanwhile waits for one round at most (``ANALYSIS_SECONDS_PER_TICK``),
    while the worker's own jobs never wait for the analysis at all."""
    from . import thinking

    saved = sum(save_judged_round(job, judged) for job, judged in pool.analyses_finished())
    if pool.analysing or pool.in_flight or _a_table_is_due():
        return saved
    for match_id in _unanalysed_match_ids():
        decisions = next_round(match_id)
        if decisions is None:
            continue
        row, found = decisions
        pool.submit_analysis(
            thinking.AnalysisRound(
                match_id=match_id,
                game=row.match.game,
                found_at=row.next_move,
                decisions=found,
                chosen=Budget(row.seconds_per_decision, row.iterations),
                seconds=settings.ANALYSIS_SECONDS_PER_TICK,
            )
        )
        break
    return saved


def unfinished_row(match_id: int) -> MatchAnalysis | None:
    """The analysis row of a finished match not yet analysed to the end (made if missing)."""
    _ensure_row(match_id)
    return (
        MatchAnalysis.objects.select_related("match")
        .filter(match_id=match_id, complete=False, match__status=Match.Status.FINISHED)
        .first()
    )


def next_round(match_id: int) -> tuple[MatchAnalysis, list[judge.Decision]] | None:
    """The row of a finished match not yet analysed to the end, and its decisions from the
    row's ``next_move`` on (None when there is nothing to hand over)."""
    row = unfinished_row(match_id)
    if row is None:
        return None
    match = row.match
    engine = get_engine(match.game)
    found = [
        judge.Decision(number, seat, state, move, decision_rng(match, number))
        for number, seat, state, move in _decisions(engine, match, start=row.next_move)
    ]
    return row, found


def save_judged_round(job: Any, judged: judge.JudgedRound | None) -> int:
    """Save a round the pool judged (``thinking.AnalysisRound``), unless another worker moved
    the row on meanwhile; a round whose process died saves nothing, and the match is handed
    over again from where it stood. Returns the decisions saved."""
    if judged is None:
        return 0
    row = (
        MatchAnalysis.objects.select_related("match")
        .filter(match_id=job.match_id, complete=False, next_move=job.found_at)
        .first()
    )
    if row is None:
        return 0
    row.spent += judged.spent
    if judged.failed:
        row.failed = row.complete = True
        row.completed_at = timezone.now()
        _save_if_unchanged(row, job.found_at, ["failed", "complete", "completed_at", "spent"])
        return 0
    row.decisions = [*row.decisions, *judged.entries]
    if judged.next_move is None:
        row.complete = True
        row.completed_at = timezone.now()
        row.next_move = _moves_count(row.match)
    else:
        row.next_move = judged.next_move
    return len(judged.entries) if _save_if_unchanged(row, job.found_at) else 0


def _a_table_is_due() -> bool:
    """A running table waits for the worker (a turn timed out, a level-3 bot is to move): people
    are waiting on it, so the analysis, which nobody waits on, gives it the round."""
    return services.due_matches().exists()


def _unanalysed_match_ids() -> list[int]:
    return list(
        Match.objects.filter(status=Match.Status.FINISHED)
        .filter(Q(analysis__isnull=True) | Q(analysis__complete=False))
        .order_by("-finished_at", "-pk")
        .values_list("pk", flat=True)[:CANDIDATES_PER_ROUND]
    )


def analyse_some(match_id: int, seconds: float) -> int:
    """Judge the next decisions of one finished match for about ``seconds`` (at least one
    decision); 0 when another worker got there first, it is complete, or it is not finished.

    The thinking happens outside any transaction: on SQLite a transaction holds the database's
    write lock (``transaction_mode`` IMMEDIATE), and every move of every table would wait for
    the analysis. What was judged is saved under the row's lock only if the row is still where
    this round found it, so two workers never save the same decisions twice."""
    row = unfinished_row(match_id)
    if row is None:
        return 0
    found_at = row.next_move
    try:
        judged = _judge_for(row, seconds)
    except Exception:  # an engine's bug must not stop the analysis of every other match
        logger.exception("the analysis of match %s failed", match_id)
        row.failed = row.complete = True
        row.completed_at = timezone.now()
        _save_if_unchanged(row, found_at, ["failed", "complete", "completed_at"])
        return 0
    return judged if _save_if_unchanged(row, found_at) else 0


def _save_if_unchanged(row: MatchAnalysis, found_at: int, fields: list[str] | None = None) -> bool:
    """Save ``row`` unless another worker moved it on since it was read at ``found_at``."""
    with transaction.atomic():
        still = (
            MatchAnalysis.objects.select_for_update(skip_locked=True)
            .filter(pk=row.pk, next_move=found_at, complete=False)
            .exists()
        )
        if still:
            row.save(update_fields=fields)
        return still


def _ensure_row(match_id: int) -> None:
    """The analysis row of a finished match, created with its budget per decision."""
    if MatchAnalysis.objects.filter(match_id=match_id).exists():
        return
    match = Match.objects.filter(pk=match_id, status=Match.Status.FINISHED).first()
    if match is None:
        return
    engine = get_engine(match.game)
    count = sum(1 for _ in _decisions(engine, match))
    try:
        with transaction.atomic():
            MatchAnalysis.objects.create(
                match=match,
                level=judge.analysis_level(engine),
                seconds_per_decision=per_decision_seconds(count),
                iterations=settings.ANALYSIS_ITERATIONS,
            )
    except IntegrityError:  # another worker created it first
        pass


def per_decision_seconds(count: int) -> float:
    """``ANALYSIS_SECONDS_PER_MATCH`` split evenly over ``count`` decisions, and never more than
    a round of jobs (a match of two decisions must not hold the worker up for half a minute)."""
    even = settings.ANALYSIS_SECONDS_PER_MATCH / max(1, count)
    return min(even, settings.ANALYSIS_SECONDS_PER_TICK)


def _judge_for(row: MatchAnalysis, seconds: float) -> int:
    """Judge the row's next decisions for about ``seconds`` into ``row`` (not saved)."""
    match = row.match
    engine = get_engine(match.game)
    started = time.perf_counter()
    chosen = Budget(row.seconds_per_decision, row.iterations)
    decisions = list(row.decisions)
    judged = 0
    next_move = None
    for number, seat, state, move in _decisions(engine, match, start=row.next_move):
        if judged and time.perf_counter() - started >= seconds:
            next_move = number
            break
        decisions.append(judge_one(engine, match, number, seat, state, move, chosen))
        judged += 1
    row.decisions = decisions
    row.spent += time.perf_counter() - started
    if next_move is None:
        row.complete = True
        row.completed_at = timezone.now()
        row.next_move = _moves_count(match)
    else:
        row.next_move = next_move
    return judged


def judge_one(
    engine: Engine, match: Match, number: int, seat: int, state: State, move: Any, chosen: Budget
) -> dict[str, Any]:
    """One decision's entry: the judgement of the move from the seat's view before it, and
    level 3's move told in words (``describe_move`` on the same state)."""
    decision = judge.Decision(number, seat, state, move, decision_rng(match, number))
    return judge.decision_entry(engine, decision, chosen)


def decision_rng(match: Match, number: int) -> random.Random:
    """The generator of one decision's analysis, the same on every run (idempotent)."""
    material = f"{match.seed}:analysis:{number}".encode()
    return random.Random(int.from_bytes(hashlib.sha256(material).digest()[:16], "big"))


def _decisions(
    engine: Engine, match: Match, start: int = 0
) -> Iterator[tuple[int, int, State, Any]]:
    """(move number, seat, state before, move) of every decision from move ``start`` on: the
    moves of seats (not chance) that had more than one legal move."""
    state = engine.new_game(match.seats_count, match.options)
    rows = (
        Move.objects.filter(match=match).order_by("number").values_list("number", "seat", "payload")
    )
    for number, seat, payload in rows:
        if number >= start and seat != CHANCE and _has_a_choice(engine, state, seat):
            yield number, seat, state, payload
        state = engine.apply(state, seat, payload)


def _has_a_choice(engine: Engine, state: State, seat: int) -> bool:
    return len(list(itertools.islice(engine.legal(state, seat), 2))) > 1


def _moves_count(match: Match) -> int:
    return Move.objects.filter(match=match).count()


# --- what pages and the API read ---------------------------------------------------------------
def for_match(match: Match) -> MatchAnalysis | None:
    """The analysis of a finished match, complete or not (None before it starts, and always for
    a match that is not finished)."""
    if match.status != Match.Status.FINISHED:
        return None
    return MatchAnalysis.objects.filter(match=match).first()


def as_json(row: MatchAnalysis | None) -> dict[str, Any]:
    """The API's ``analysis`` of a finished match (spec/api.md)."""
    if row is None or not row.complete:
        return {"ready": False}
    if row.failed:
        return {"ready": False, "failed": True}
    return {
        "ready": True,
        "level": row.level,
        "decisions": [_decision_json(entry) for entry in row.decisions],
    }


API_KEYS = (
    "move",
    "seat",
    "played",
    "best",
    "same",
    "played_rank",
    "best_rank",
    "rank_loss",
    "played_score",
    "best_score",
    "score_loss",
    "worlds",
    "flag",
)


def _decision_json(entry: dict[str, Any]) -> dict[str, Any]:
    return {key: entry[key] for key in API_KEYS}


# --- the replay's panel -------------------------------------------------------------------------
def replay_panel(
    match: Match, log: list[dict[str, Any]], step: int, names: list[str], link: Any
) -> dict[str, Any]:
    """What the replay shows of the analysis at ``step`` (``log`` is the whole move log as the
    replay reads it, ``link(step)`` the address of a step): whether it is ready, the judgement of
    the move just shown when it was a decision, and the flagged decisions with links to them."""
    from .rendering import render_sentence  # rendering imports the models this module reads

    row = for_match(match)
    if row is None or not row.complete:
        return {"ready": False}
    if row.failed:
        return {"ready": False, "failed": True}
    if row.failed:
        return {"ready": False, "failed": True}
    step_of = {line["move"]: line["number"] for line in log}
    entries = []
    for entry in row.decisions:
        shown = {
            **entry,
            "player": names[entry["seat"]] if 0 <= entry["seat"] < len(names) else "",
            "step": step_of.get(entry["move"]),
            "best_words": (
                render_sentence(Sentence.from_json(entry["best_text"]), names)
                if entry.get("best_text")
                else ""
            ),
        }
        shown["url"] = link(shown["step"]) if shown["step"] else None
        shown["verdict_class"], shown["verdict"] = verdict(entry, row.level)
        entries.append(shown)
    current_move = log[step - 1]["move"] if step else None
    current = next((e for e in entries if e["move"] == current_move), None)
    return {
        "ready": True,
        "level": row.level,
        "current": current,
        "flagged": [e for e in entries if e["flag"] and e["url"]],
        "decisions": len(entries),
    }


def verdict(entry: dict[str, Any], level: int) -> tuple[str, str]:
    """A decision's verdict: a class for its colour and the words that say it (a screen reader
    reads the words, not the "?" marks)."""
    if entry["flag"] == "??":
        return "blunder", _("Blunder")
    if entry["flag"] == "?":
        return "mistake", _("Mistake")
    if entry["same"]:
        return "best", _("The move of level %(level)s") % {"level": level}
    return "good", _("Good move")
