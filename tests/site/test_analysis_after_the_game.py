"""The analysis after the game on the site (games/analysis.py): the worker's job, the replay's
panel, the API, and none of it for a match that still runs."""

from __future__ import annotations

import itertools
import json
import random
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.utils import timezone

from games import analysis, rendering, worker
from games.engines import CHANCE, get_engine
from games.engines import analysis as judge
from games.models import Match, MatchAnalysis, Move
from tests.sockets import connected

from .factories import play_one_move, play_to_the_end, started_table

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def small_analysis(settings):
    """A few playouts per decision (reproducible), and a round long enough for a whole match.
    These tests are of the worker judging in its own job (``BOT_POOL_SIZE`` 0); those of the
    analysis in the thinking pool are in test_thinking_pool.py."""
    settings.BOT_POOL_SIZE = 0
    settings.ANALYSIS_SECONDS_PER_MATCH = 30
    settings.ANALYSIS_ITERATIONS = 4
    settings.ANALYSIS_SECONDS_PER_TICK = 3600


def finished(game: str = "cafe-fatal", players: int = 2) -> Match:
    match, users = started_table(game, players=players)
    return play_to_the_end(match, users)


def decisions_by_hand(match: Match) -> list[int]:
    """The numbers of the moves that are decisions: a seat's move (not chance) when it had more
    than one legal move."""
    engine = get_engine(match.game)
    state = engine.new_game(match.seats_count, match.options)
    numbers = []
    for move in Move.objects.filter(match=match).order_by("number"):
        legal = list(itertools.islice(engine.legal(state, move.seat), 2)) if move.seat >= 0 else []
        if move.seat != CHANCE and len(legal) == 2:
            numbers.append(move.number)
        state = engine.apply(state, move.seat, move.payload)
    return numbers


# --- the worker ----------------------------------------------------------------------------------
def test_the_worker_analyses_a_finished_match_once():
    match = finished()
    expected = decisions_by_hand(match)
    assert expected
    assert worker.analyse_finished_matches() == len(expected)
    row = MatchAnalysis.objects.get(match=match)
    assert row.complete and [d["move"] for d in row.decisions] == expected
    assert all(d["worlds"] == 4 and d["flag"] in ("", "?", "??") for d in row.decisions)
    before = list(row.decisions)
    assert worker.analyse_finished_matches() == 0
    row.refresh_from_db()
    assert row.decisions == before


@pytest.mark.django_db(transaction=True)
def test_the_analysis_thinks_outside_any_transaction(monkeypatch):
    """On SQLite a transaction holds the write lock: moves would wait for the analysis."""
    from django.db import connection

    match = finished()
    real_judge_one = analysis.judge_one
    inside: list[bool] = []

    def judge_one(*args):
        inside.append(connection.in_atomic_block)
        return real_judge_one(*args)

    monkeypatch.setattr(analysis, "judge_one", judge_one)
    assert worker.analyse_finished_matches() == len(decisions_by_hand(match))
    assert inside and not any(inside)


def test_a_round_another_worker_saved_first_is_not_saved_again(monkeypatch):
    match = finished()
    real_judge_one = analysis.judge_one

    def judge_one(*args):
        # Meanwhile another worker judged the first decision and saved its round.
        MatchAnalysis.objects.filter(match=match).update(decisions=[{"move": 0}], next_move=1)
        return real_judge_one(*args)

    monkeypatch.setattr(analysis, "judge_one", judge_one)
    assert analysis.analyse_some(match.pk, 3600) == 0
    row = MatchAnalysis.objects.get(match=match)
    assert row.decisions == [{"move": 0}] and row.next_move == 1 and not row.complete


def test_a_round_of_jobs_that_runs_out_of_time_leaves_the_rest_to_the_next(settings):
    """With no time for a round, each round judges one decision and the next goes on from the
    move after it: the same decisions, each once, as in one long round."""
    settings.ANALYSIS_SECONDS_PER_TICK = 0
    match = finished()
    expected = decisions_by_hand(match)
    rounds = 0
    while not MatchAnalysis.objects.filter(match=match, complete=True).exists():
        assert worker.analyse_finished_matches() == 1
        rounds += 1
    assert rounds == len(expected)
    row = MatchAnalysis.objects.get(match=match)
    assert [d["move"] for d in row.decisions] == expected


def test_a_match_gets_the_setting_split_evenly_over_its_decisions(settings, monkeypatch):
    settings.ANALYSIS_ITERATIONS = None
    settings.ANALYSIS_SECONDS_PER_MATCH = 12.0
    budgets = []

    def recorded(engine, view, played, chosen, rng):
        budgets.append(chosen)
        return judge.Judgement(played, True, 1.0, 1.0, 0.0, 0.0, 1, 0.0)

    monkeypatch.setattr(judge, "judge_decision", recorded)
    match = finished()
    count = len(decisions_by_hand(match))
    worker.analyse_finished_matches()
    assert len(budgets) == count
    assert {b.iterations for b in budgets} == {None}
    assert sum(b.seconds for b in budgets) == pytest.approx(12.0)
    assert len({b.seconds for b in budgets}) == 1


def test_a_decision_is_analysed_the_same_on_every_run():
    match = finished()
    worker.analyse_finished_matches()
    first = MatchAnalysis.objects.get(match=match).decisions
    MatchAnalysis.objects.filter(match=match).delete()
    worker.analyse_finished_matches()
    assert MatchAnalysis.objects.get(match=match).decisions == first


# --- a running match has none anywhere ------------------------------------------------------------
def test_a_running_match_has_no_analysis_on_its_page_in_the_api_or_from_the_worker():
    match, users = started_table("cafe-fatal", players=2)
    rng = random.Random(0)
    for _ in range(4):
        match = play_one_move(match, users, rng)
    assert match.is_playing
    assert worker.analyse_finished_matches() == 0
    assert not MatchAnalysis.objects.exists()
    assert analysis.for_match(match) is None
    client = Client()
    client.force_login(users[0])
    page = client.get(f"/tables/{match.pk}/").content.decode()
    assert "replay-analysis" not in page and "Analysis after the game" not in page
    body = client.get(f"/api/tables/{match.pk}").json()
    assert "analysis" not in body
    assert client.get(f"/tables/{match.pk}/replay/").status_code == 404


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_running_matchs_socket_sends_no_analysis():
    match, users = await sync_to_async(started_table)("cafe-fatal", players=2)
    socket, frame = await connected(f"/ws/tables/{match.pk}/", users[0])
    assert "replay-analysis" not in frame and "analysis" not in frame.lower()
    await socket.disconnect()


# --- the replay and the API -------------------------------------------------------------------------
def test_until_the_analysis_is_ready_the_replay_and_the_api_say_so():
    match = finished()
    html = Client().get(f"/tables/{match.pk}/replay/").content.decode()
    assert 'data-testid="analysis-pending"' in html
    assert "not ready yet" in html
    assert Client().get(f"/api/tables/{match.pk}").json()["analysis"] == {"ready": False}


def test_the_api_of_a_finished_match_has_its_analysis():
    match = finished()
    worker.analyse_finished_matches()
    body = Client().get(f"/api/tables/{match.pk}").json()["analysis"]
    row = MatchAnalysis.objects.get(match=match)
    assert body["ready"] and body["level"] == 3
    assert [d["move"] for d in body["decisions"]] == [d["move"] for d in row.decisions]
    first = body["decisions"][0]
    assert set(first) == set(analysis.API_KEYS)
    json.dumps(body)  # plain JSON


@pytest.mark.parametrize("language", ["en", "fr", "de", "it"])
def test_the_replay_shows_a_decisions_judgement_in_every_language(language):
    match = finished()
    worker.analyse_finished_matches()
    row = MatchAnalysis.objects.get(match=match)
    # A decision whose losses are not whole numbers, so that a localised number would show.
    entry = next(d for d in row.decisions if d["rank_loss"] % 1 and not d["same"])
    whole_log = rendering.replay_context(match, 10**6)["log"]
    step = next(line for line in whole_log if line["move"] == entry["move"])
    client = Client()
    client.cookies["django_language"] = language
    html = client.get(f"/tables/{match.pk}/replay/?step={step['number']}").content.decode()
    assert 'data-testid="analysis-current"' in html
    assert f'data-rank-loss="{entry["rank_loss"]}"' in html
    heading = {
        "en": "Analysis after the game",
        "fr": "Analyse après la partie",
        "de": "Analyse nach der Partie",
        "it": "Analisi dopo la partita",
    }[language]
    assert heading in html
    played = f"{entry['played_rank']:.2f}"
    shown = played.replace(".", ",") if language != "en" else played
    assert f"<td>{shown}</td>" in html


def test_a_decision_never_gets_more_than_a_round_of_jobs(settings):
    """A match of few decisions must not hold the worker up: each gets at most a round."""
    settings.ANALYSIS_SECONDS_PER_MATCH = 30.0
    settings.ANALYSIS_SECONDS_PER_TICK = 2.0
    assert analysis.per_decision_seconds(3) == 2.0
    assert analysis.per_decision_seconds(30) == 1.0
    assert analysis.per_decision_seconds(0) == 2.0


def test_a_site_may_turn_the_analysis_off(settings):
    settings.ANALYSIS_SECONDS_PER_MATCH = 0
    finished()
    assert worker.analyse_finished_matches() == 0
    assert not MatchAnalysis.objects.exists()


def test_the_analysis_gives_the_round_to_a_table_waiting_for_the_worker():
    done = finished()
    waiting, _ = started_table("cafe-fatal", players=2)
    Match.objects.filter(pk=waiting.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert worker.analyse_finished_matches() == 0
    Match.objects.filter(pk=waiting.pk).update(deadline=timezone.now() + timedelta(minutes=5))
    assert worker.analyse_finished_matches() == len(decisions_by_hand(done))


def test_a_blunder_is_flagged_in_colour_marks_and_words_with_a_link_to_its_move():
    match = finished()
    worker.analyse_finished_matches()
    row = MatchAnalysis.objects.get(match=match)
    first = row.decisions[0]
    row.decisions = [{**first, "flag": "??", "same": False, "rank_loss": 0.75}, *row.decisions[1:]]
    row.save()
    whole_log = rendering.replay_context(match, 10**6)["log"]
    step = next(line["number"] for line in whole_log if line["move"] == first["move"])
    html = Client().get(f"/tables/{match.pk}/replay/?step={step}").content.decode()
    assert 'class="analysis-current verdict-blunder"' in html
    assert '<span class="flag" aria-hidden="true">??</span> <strong>Blunder</strong>' in html
    assert f'href="/tables/{match.pk}/replay/?step={step}"' in html
    assert "expected rank worse by 0.75" in html


def test_an_analysis_that_fails_is_logged_set_aside_and_the_next_match_is_analysed(monkeypatch):
    older = finished()
    newer = finished()
    real_judge_one = analysis.judge_one

    def judge_one(engine, match, *args):
        if match.pk == newer.pk:
            raise RuntimeError("an engine's bug")
        return real_judge_one(engine, match, *args)

    monkeypatch.setattr(analysis, "judge_one", judge_one)
    worker.analyse_finished_matches()
    failed = MatchAnalysis.objects.get(match=newer)
    assert failed.failed and failed.complete
    assert MatchAnalysis.objects.get(match=older).complete
    assert not MatchAnalysis.objects.get(match=older).failed
    assert worker.analyse_finished_matches() == 0  # never tried again
    html = Client().get(f"/tables/{newer.pk}/replay/").content.decode()
    assert 'data-testid="analysis-failed"' in html
    assert Client().get(f"/api/tables/{newer.pk}").json()["analysis"] == {
        "ready": False,
        "failed": True,
    }
