"""spec/api.md, the version rule for simultaneous steps: in a step where several seats move at
once and in secret (Pizza Party's picks), a seat's move is checked against the version at which
the step opened, so another seat's pick never makes it stale; a version older than the step's
opening is still refused with 409."""

from __future__ import annotations

import json
import random
import threading

import pytest
from django.db import connection
from django.test import Client

from games import services
from games.engines import CHANCE, get_engine
from games.models import Match
from players.models import ApiToken

from ..services_required import require_postgres
from .factories import started_table

pytestmark = pytest.mark.django_db

GAME = "pizza-party"


def at_the_picks(players: int = 3) -> tuple[Match, list]:
    """A Pizza Party match played (by random legal moves) up to its first secret pick."""
    match, users = started_table(game=GAME, players=players)
    engine = get_engine(GAME)
    rng = random.Random(2)
    while engine.simultaneous_step(match.state) is None:
        seat = engine.to_move(match.state)[0]
        move = engine.random_move(match.state, seat, rng)
        match = services.play(match.pk, users[seat], move, match.version)
    assert engine.to_move(match.state) == list(range(players))
    return match, users


def test_the_step_remembers_the_version_at_which_it_opened():
    match, _ = at_the_picks()
    assert match.step == get_engine(GAME).simultaneous_step(match.state)
    assert match.step_version == match.version


def test_every_pick_of_a_step_may_name_the_version_at_which_it_opened():
    match, users = at_the_picks()
    opened = match.version
    for seat, user in enumerate(users):
        match = services.play(match.pk, user, {"cut": seat + 1}, opened)
    picks = match.moves.filter(seat__gte=0, number__gt=len(match.state["log"]) - 10)
    assert [(m.seat, m.payload) for m in picks if "cut" in m.payload][-3:] == [
        (0, {"cut": 1}),
        (1, {"cut": 2}),
        (2, {"cut": 3}),
    ]


def test_a_pick_may_also_name_a_later_version_of_the_same_step():
    match, users = at_the_picks()
    match = services.play(match.pk, users[0], {"cut": 1}, match.version)
    match = services.play(match.pk, users[1], {"cut": 2}, match.version)
    assert match.version == match.step_version + 2


def test_a_pick_naming_a_version_before_the_step_opened_is_stale():
    match, users = at_the_picks()
    with pytest.raises(services.Conflict):
        services.play(match.pk, users[0], {"cut": 1}, match.step_version - 1)
    assert Match.objects.get(pk=match.pk).version == match.version


def test_a_version_from_the_future_is_stale():
    match, users = at_the_picks()
    with pytest.raises(services.Conflict):
        services.play(match.pk, users[0], {"cut": 1}, match.version + 1)


def test_a_pick_of_a_step_that_closed_names_a_version_of_the_next_one():
    match, users = at_the_picks()
    opened = match.version
    engine = get_engine(GAME)
    rng = random.Random(3)
    for seat, user in enumerate(users):
        match = services.play(match.pk, user, {"cut": seat + 1}, opened)
    # Play on to the next pick step: a pick naming the first step's version is stale there.
    while engine.simultaneous_step(match.state) is None and match.is_playing:
        seat = engine.to_move(match.state)[0]
        assert seat != CHANCE
        match = services.play(
            match.pk, users[seat], engine.random_move(match.state, seat, rng), match.version
        )
    assert match.step_version > opened
    with pytest.raises(services.Conflict):
        services.play(match.pk, users[0], {"cut": 1}, opened)


def test_outside_a_simultaneous_step_a_move_needs_the_current_version():
    match, users = started_table(game=GAME, players=3)
    engine = get_engine(GAME)
    assert engine.simultaneous_step(match.state) is None
    seat = engine.to_move(match.state)[0]
    move = engine.random_move(match.state, seat, random.Random(1))
    with pytest.raises(services.Conflict):
        services.play(match.pk, users[seat], move, match.version - 1)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_three_players_picking_at_the_same_moment_all_get_200_on_postgresql():
    require_postgres()
    match, users = at_the_picks()
    opened = match.version
    headers = [{"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(u, 'pick')[1]}"} for u in users]
    barrier = threading.Barrier(len(users))
    answers: dict[int, int] = {}

    def pick(seat: int) -> None:
        barrier.wait()
        try:
            response = Client().post(
                f"/api/tables/{match.pk}/moves",
                json.dumps({"version": opened, "move": {"cut": seat + 1}}),
                content_type="application/json",
                **headers[seat],
            )
            answers[seat] = response.status_code
        finally:
            connection.close()

    threads = [threading.Thread(target=pick, args=(seat,)) for seat in range(len(users))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers == {0: 200, 1: 200, 2: 200}
    match.refresh_from_db()
    assert match.version >= opened + 3
    picks = [m.payload for m in match.moves.filter(seat__gte=0).order_by("number")][-3:]
    assert sorted(p["cut"] for p in picks) == [1, 2, 3]
