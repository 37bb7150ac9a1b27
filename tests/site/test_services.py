"""The move path and table life cycle (games.services), on SQLite and on PostgreSQL."""

from __future__ import annotations

import json
import random

import pytest
from django.db import connection

from games import services
from games.engines import get_engine
from games.models import Match, Move

from .factories import make_user, play_one_move, play_to_the_end, started_table

pytestmark = pytest.mark.django_db


def test_the_creator_takes_seat_0_and_the_table_is_open():
    user = make_user()
    match = services.create_table(user, "part-du-chef", seats=3)
    assert match.status == Match.Status.OPEN
    assert [(s.index, s.user_id) for s in match.seats.all()] == [(0, user.pk)]


def test_the_match_starts_by_itself_when_full_and_the_deal_is_logged_as_a_chance_move():
    match, _ = started_table(players=3)
    assert match.status == Match.Status.PLAYING
    first = Move.objects.get(match=match, number=0)
    assert first.seat == -1 and "deal" in first.payload
    assert match.started_at is not None


def test_a_full_match_played_through_the_service_finishes_with_ranks_and_scores():
    match, users = started_table(players=3)
    match = play_to_the_end(match, users)
    assert match.status == Match.Status.FINISHED
    engine = get_engine(match.game)
    result = engine.result(match.state)
    seats = list(match.seats.order_by("index"))
    assert [s.score for s in seats] == result.scores
    assert [s.rank for s in seats] == result.ranks
    assert Move.objects.filter(match=match).count() == len(match.state["log"])


def test_the_move_log_replays_to_the_snapshot():
    match, users = started_table(players=4)
    rng = random.Random(3)
    for _ in range(7):
        match = play_one_move(match, users, rng)
    engine = get_engine(match.game)
    state = engine.new_game(match.seats_count, match.options)
    for move in Move.objects.filter(match=match).order_by("number"):
        state = engine.apply(state, move.seat, move.payload)
    assert state == match.state


@pytest.mark.parametrize(
    "who, move, version, error",
    [
        ("stranger", {"cut": [0, 4, 8]}, None, services.NotAllowed),
        ("other", {"cut": [0, 4, 8]}, None, services.NotAllowed),
        ("chef", {"cut": [0, 4, 8]}, -5, services.Conflict),
        ("chef", {"cut": [0, 4]}, None, services.BadRequest),
        ("chef", "cut everything", None, services.BadRequest),
    ],
)
def test_a_refused_move_changes_nothing(who, move, version, error):
    match, users = started_table(players=3)
    engine = get_engine(match.game)
    chef = engine.to_move(match.state)[0]
    user = {
        "stranger": make_user(),
        "chef": users[chef],
        "other": users[(chef + 1) % 3],
    }[who]
    before = (match.version, json.dumps(match.state), Move.objects.count())
    with pytest.raises(error):
        services.play(match.pk, user, move, match.version if version is None else version)
    match.refresh_from_db()
    assert (match.version, json.dumps(match.state), Move.objects.count()) == before


def test_an_open_table_refuses_moves_and_a_finished_one_too():
    user = make_user()
    match = services.create_table(user, "part-du-chef", seats=2)
    with pytest.raises(services.Conflict):
        services.play(match.pk, user, {"cut": [0, 6]}, match.version)


def test_a_private_table_needs_its_invitation_code():
    owner, guest = make_user(), make_user()
    match = services.create_table(owner, "part-du-chef", seats=2, private=True)
    with pytest.raises(services.NotFound):  # without the code, as if there were no such table
        services.join_table(guest, match.pk)
    services.join_table(guest, match.pk, invite_code=match.invite_code)
    assert Match.objects.get(pk=match.pk).status == Match.Status.PLAYING


def test_joining_twice_or_a_full_or_started_table_is_a_conflict():
    match, _ = started_table(players=2)
    with pytest.raises(services.Conflict):
        services.join_table(make_user(), match.pk, invite_code=match.invite_code)
    owner = make_user()
    open_table = services.create_table(owner, "part-du-chef", seats=3)
    with pytest.raises(services.Conflict):
        services.join_table(owner, open_table.pk)


def test_leaving_an_open_table_frees_the_seat_and_the_last_one_out_closes_it():
    owner, guest = make_user(), make_user()
    match = services.create_table(owner, "part-du-chef", seats=3)
    services.join_table(guest, match.pk)
    services.leave_table(guest, match.pk)
    assert match.seats.count() == 1
    services.leave_table(owner, match.pk)
    assert Match.objects.get(pk=match.pk).status == Match.Status.ABORTED


def test_a_started_match_cannot_be_left():
    match, users = started_table(players=2)
    with pytest.raises(services.Conflict):
        services.leave_table(users[0], match.pk)


def test_friendly_tables_fill_empty_seats_with_bots_that_play_their_turns():
    owner = make_user()
    match = services.create_table(owner, "part-du-chef", seats=3)
    services.add_bot(owner, match.pk, level=1)
    match = services.add_bot(owner, match.pk, level=2)
    assert match.status == Match.Status.PLAYING
    engine = get_engine(match.game)
    mine = match.seats.get(user=owner).index
    # The bots played every turn up to the owner's.
    assert engine.to_move(match.state) == [mine]
    rng = random.Random(1)
    while match.is_playing:
        move = engine.random_move(match.state, mine, rng)
        match = services.play(match.pk, owner, move, match.version)
    assert match.status == Match.Status.FINISHED


def test_ranked_tables_take_no_bots():
    owner = make_user()
    match = services.create_table(owner, "part-du-chef", seats=2, mode="ranked")
    with pytest.raises(services.NotAllowed):
        services.add_bot(owner, match.pk)


def test_ranked_tables_have_a_turn_timer_by_default():
    match = services.create_table(make_user(), "part-du-chef", seats=2, mode="ranked")
    assert match.turn_seconds == services.DEFAULT_RANKED_TURN_SECONDS


@pytest.mark.parametrize(
    "kwargs",
    [
        {"game": "chess"},
        {"mode": "deathmatch"},
        {"seats": 9},
        {"seats": "3"},
        {"options": {"marianne": "yes"}},
        {"turn_seconds": 1},
        {"private": "no"},
    ],
)
def test_a_bad_table_is_refused_with_a_sentence(kwargs):
    args = {"game": "part-du-chef", **kwargs}
    with pytest.raises(services.BadRequest) as caught:
        services.create_table(make_user(), args.pop("game"), **args)
    assert caught.value.message
    assert not Match.objects.exists()


def test_abandoners_rank_behind_everyone_who_stayed():
    assert services.ranks_with_abandoners_last([1, 2, 3], [True, False, False]) == [3, 1, 2]
    ranks = services.ranks_with_abandoners_last([1, 1, 3, 4], [False, True, False, True])
    assert ranks == [1, 3, 2, 4]
    assert services.ranks_with_abandoners_last([2, 1, 1], [False, True, True]) == [1, 2, 2]


def test_the_database_in_use_is_the_one_configured():
    import os

    if os.environ.get("DATABASE_URL", "").startswith("postgres"):
        assert connection.vendor == "postgresql"
    else:
        assert connection.vendor == "sqlite"


def test_an_arena_seats_its_players_at_a_started_table_of_their_own():
    users = [make_user() for _ in range(3)]
    match = services.start_match_for_players("part-du-chef", users, turn_seconds=60)
    assert match.status == Match.Status.PLAYING and match.mode == Match.Mode.RANKED
    assert sorted(s.user_id for s in match.seats.all()) == sorted(u.pk for u in users)
    assert match.deadline is not None
    with pytest.raises(services.BadRequest):
        services.start_match_for_players("part-du-chef", [users[0], users[0]])
