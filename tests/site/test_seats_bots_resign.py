"""spec/api.md: seats drawn in a random order when a match starts; ``POST /api/tables/{id}/bots``
(the creator of a friendly table fills a free seat) and ``POST /api/tables/{id}/resign`` (the
player ranks last as an abandoner, the bot plays on for the seat)."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from django.test import Client

from games import services
from games.engines import get_engine
from games.models import Match, Move
from players.models import ApiToken

from .factories import make_user, play_one_move, players_by_seat, started_table

pytestmark = pytest.mark.django_db


def bearer(user) -> dict[str, str]:
    _, raw = ApiToken.issue(user, "test")
    return {"HTTP_AUTHORIZATION": f"Bearer {raw}"}


def post(path: str, user, data=None):
    body = json.dumps(data) if data is not None else ""
    return Client().post(path, body, content_type="application/json", **bearer(user))


# --- seats ---------------------------------------------------------------------------------------
def test_when_a_match_starts_its_players_are_seated_in_a_random_order():
    """Over many tables opened by the same kind of sequence (the creator first, then two guests),
    the creator sits at every seat, and each seat gets about a third of the tables."""
    creators_seat = Counter()
    for _ in range(60):
        owner, first, second = make_user(), make_user(), make_user()
        match = services.create_table(owner, "part-du-chef", seats=3)
        services.join_table(first, match.pk)
        match = services.join_table(second, match.pk)
        creators_seat[match.seats.get(user=owner).index] += 1
    assert set(creators_seat) == {0, 1, 2}
    assert min(creators_seat.values()) >= 10


def test_the_seating_is_drawn_from_the_matchs_secret_seed():
    def seating(seed: str) -> list[int]:
        """Who sits where, as the order in which the four players came to the table."""
        users = [make_user() for _ in range(4)]
        match = services.create_table(users[0], "part-du-chef", seats=4)
        Match.objects.filter(pk=match.pk).update(seed=seed)
        for user in users[1:]:
            services.join_table(user, match.pk)
        return [users.index(u) for u in players_by_seat(Match.objects.get(pk=match.pk))]

    assert seating("a" * 64) == seating("a" * 64)
    assert len({tuple(seating(f"{n:x}" * 64)) for n in range(1, 6)}) > 1


def test_you_and_the_records_players_follow_the_seats():
    match, users = started_table(players=3)
    for seat, user in enumerate(users):
        table = Client().get(f"/api/tables/{match.pk}", **bearer(user)).json()
        assert table["you"] == seat
        assert table["seats"][seat]["player"] == user.username
    record = Client().get(f"/api/tables/{match.pk}/record", **bearer(users[0])).json()
    assert record["players"] == [u.username for u in users]


def test_bots_take_their_seats_in_the_draw_too():
    owner = make_user()
    seats = Counter()
    for _ in range(20):
        match = services.create_table(owner, "part-du-chef", seats=2)
        match = services.add_bot(owner, match.pk, level=1)
        seats[match.seats.get(user=owner).index] += 1
        services.resign(owner, match.pk)
    assert set(seats) == {0, 1}


# --- bots ----------------------------------------------------------------------------------------
def test_the_creator_of_a_friendly_table_fills_a_free_seat_with_a_bot():
    owner = make_user()
    match = services.create_table(owner, "part-du-chef", seats=3)
    answer = post(f"/api/tables/{match.pk}/bots", owner, {"level": 2})
    assert answer.status_code == 200
    table = answer.json()
    assert [s["bot"] for s in table["seats"]].count(True) == 1
    assert table["status"] == "open"
    answer = post(f"/api/tables/{match.pk}/bots", owner, {"level": 1})
    assert answer.json()["status"] == "playing"
    levels = sorted(s.bot_level for s in Match.objects.get(pk=match.pk).seats.filter(user=None))
    assert levels == [1, 2]


def test_only_the_creator_may_add_a_bot():
    owner, guest = make_user(), make_user()
    match = services.create_table(owner, "part-du-chef", seats=3)
    services.join_table(guest, match.pk)
    answer = post(f"/api/tables/{match.pk}/bots", guest, {"level": 1})
    assert answer.status_code == 403 and answer.json()["error"]
    assert post(f"/api/tables/{match.pk}/bots", make_user(), {"level": 1}).status_code == 403


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"level": 4}, 400),
        ({"level": "1"}, 400),
        ({"level": True}, 400),
        ({"level": 1, "name": "x"}, 400),
    ],
)
def test_a_bot_of_no_such_level_is_refused(body, status):
    owner = make_user()
    match = services.create_table(owner, "part-du-chef", seats=3)
    answer = post(f"/api/tables/{match.pk}/bots", owner, body)
    assert answer.status_code == status and answer.json()["error"]
    assert not Match.objects.get(pk=match.pk).seats.filter(user=None).exists()


def test_bots_are_refused_at_ranked_full_started_and_hidden_tables():
    owner = make_user()
    ranked = services.create_table(owner, "part-du-chef", seats=2, mode="ranked")
    assert post(f"/api/tables/{ranked.pk}/bots", owner, {"level": 1}).status_code == 403
    started = services.create_table(owner, "part-du-chef", seats=2)
    services.add_bot(owner, started.pk)
    assert post(f"/api/tables/{started.pk}/bots", owner, {"level": 1}).status_code == 409
    hidden = services.create_table(make_user(), "part-du-chef", seats=2, private=True)
    assert post(f"/api/tables/{hidden.pk}/bots", owner, {"level": 1}).status_code == 404
    assert post("/api/tables/999999/bots", owner, {"level": 1}).status_code == 404


# --- resign --------------------------------------------------------------------------------------
def test_a_player_who_resigns_ranks_last_and_the_bot_plays_on_for_the_seat():
    match, users = started_table(players=3, mode="ranked")
    rng = random.Random(6)
    match = play_one_move(match, users, rng)
    engine = get_engine(match.game)
    quitter = users[engine.to_move(match.state)[0]]
    answer = post(f"/api/tables/{match.pk}/resign", quitter)
    assert answer.status_code == 200
    match.refresh_from_db()
    seat = match.seats.get(user=quitter)
    assert seat.abandoned
    # It was their turn: the bot played it at once.
    assert Move.objects.filter(match=match, seat=seat.index, by_bot=True).count() == 1
    assert seat.index not in engine.to_move(match.state)
    while match.is_playing:
        match = play_one_move(match, users, rng)
    seat.refresh_from_db()
    assert seat.rank == 3
    assert match.end_reason == Match.EndReason.PLAYED_OUT


def test_when_the_last_person_resigns_the_bots_play_the_match_to_its_end():
    owner = make_user()
    match = services.create_table(owner, "part-du-chef", seats=3)
    services.add_bot(owner, match.pk, level=1)
    services.add_bot(owner, match.pk, level=1)
    table = post(f"/api/tables/{match.pk}/resign", owner).json()
    assert table["status"] == "finished"
    mine = Match.objects.get(pk=match.pk).seats.get(user=owner)
    assert mine.rank == 3


def test_resigning_is_refused_to_strangers_before_the_start_and_twice():
    owner, guest = make_user(), make_user()
    match = services.create_table(owner, "part-du-chef", seats=2)
    assert post(f"/api/tables/{match.pk}/resign", owner).status_code == 409
    services.join_table(guest, match.pk)
    assert post(f"/api/tables/{match.pk}/resign", make_user()).status_code == 403
    assert post(f"/api/tables/{match.pk}/resign", owner).status_code == 200
    again = post(f"/api/tables/{match.pk}/resign", owner)
    assert again.status_code == 409 and again.json()["error"]
    assert post(f"/api/tables/{match.pk}/resign", owner, {"why": "x"}).status_code == 400
    hidden = services.create_table(make_user(), "part-du-chef", seats=2, private=True)
    assert post(f"/api/tables/{hidden.pk}/resign", owner).status_code == 404
