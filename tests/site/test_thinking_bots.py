"""Issue 13: a level-3 bot thinks for a time budget, so its turns are the worker's job, never the
request of a person who is waiting; the worker plays one such move per job and hands the turn
back."""

from __future__ import annotations

import pytest

from games import services, worker
from games.engines import CHANCE, get_engine
from games.models import Match

from .factories import make_user

pytestmark = pytest.mark.django_db


def bot_moves(match: Match) -> int:
    return match.moves.filter(by_bot=True).exclude(seat=CHANCE).count()


def table_with_level3_bots(
    game: str, seats: int, turn_seconds: int | None = None
) -> tuple[Match, object]:
    host = make_user()
    match = services.create_table(host, game, seats=seats, turn_seconds=turn_seconds)
    for _ in range(seats - 1):
        match = services.add_bot(host, match.pk, 3)
    return Match.objects.get(pk=match.pk), host


@pytest.fixture(autouse=True)
def thinking_in_the_worker_s_own_job(settings):
    """These tests are of the worker thinking in its own job (``BOT_POOL_SIZE`` 0); those of the
    bounded pool are in ``test_thinking_pool.py``."""
    settings.BOT_POOL_SIZE = 0


def test_level_three_is_offered_in_every_game():
    for slug in ("part-du-chef", "cafe-fatal", "pizza-party"):
        assert 3 in get_engine(slug).bot_levels


def test_the_request_that_fills_the_table_leaves_the_thinking_bots_to_the_worker():
    # Café Fatal: one person and two level-3 bots; whoever moves first, no bot has moved by the
    # end of the request, and the match is due for the worker at once if a bot is to move.
    match, host = table_with_level3_bots("cafe-fatal", 3)
    assert match.is_playing
    assert bot_moves(match) == 0
    engine = get_engine("cafe-fatal")
    host_seat = match.seats.get(user=host).index
    if host_seat not in engine.to_move(match.state):
        assert match.deadline is not None


def test_the_worker_plays_one_thinking_move_per_job_until_a_person_must_move():
    match, host = table_with_level3_bots("cafe-fatal", 3)
    engine = get_engine("cafe-fatal")
    host_seat = match.seats.get(user=host).index
    jobs = 0
    while host_seat not in engine.to_move(match.state):
        before = bot_moves(match)
        assert worker.play_expired_turns() == 1
        match.refresh_from_db()
        assert bot_moves(match) == before + 1
        jobs += 1
        assert jobs < 10
    # Now the person is to move: nothing is due, and the timer-less table never times out.
    assert match.deadline is None
    assert worker.play_expired_turns() == 0
    assert match.seats.get(user=host).timeouts_in_row == 0


def test_a_person_s_move_returns_before_the_thinking_bot_replies():
    match, host = table_with_level3_bots("cafe-fatal", 2)
    engine = get_engine("cafe-fatal")
    host_seat = match.seats.get(user=host).index
    while host_seat not in engine.to_move(match.state):
        worker.play_expired_turns()
        match.refresh_from_db()
    before = bot_moves(match)
    move = next(engine.legal(match.state, host_seat))
    match = services.play(match.pk, host, move, match.version)
    # The bot's reply is not in the request: the match waits for the worker if it is the bot's.
    assert bot_moves(match) == before
    if not engine.is_over(match.state) and host_seat not in engine.to_move(match.state):
        assert match.deadline is not None
        assert worker.play_expired_turns() == 1


def test_the_api_seats_a_level_three_bot_at_a_friendly_table():
    import json

    from django.test import Client

    from players.models import ApiToken

    host = make_user()
    match = services.create_table(host, "pizza-party", seats=3)
    _, raw = ApiToken.issue(host, "test")
    answer = Client().post(
        f"/api/tables/{match.pk}/bots",
        json.dumps({"level": 3}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {raw}",
    )
    assert answer.status_code == 200, answer.content
    assert list(match.seats.exclude(user=host).values_list("bot_level", flat=True)) == [3]


def test_the_worker_plays_a_table_of_thinking_bots_to_its_end():
    # The person resigns at once: the bot plays on for their seat (level 1, in the request) and
    # the worker plays the two level-3 bots, one move per job, until the match is over.
    match, host = table_with_level3_bots("pizza-party", 3)
    services.resign(host, match.pk)
    jobs = 0
    while Match.objects.get(pk=match.pk).is_playing:
        assert worker.play_expired_turns() == 1
        jobs += 1
        assert jobs < 500
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert bot_moves(match) >= jobs
