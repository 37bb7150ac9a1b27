"""What a seat chooses in secret never reaches another seat before its step closes: a Pizza Party
pick (spec/pizza-party.md, "Hidden information") and a La Part du Chef chilli assignment
(spec/part-du-chef.md). Not in the page, not in a socket frame, not in an API answer, not in the
record.

Each test makes a secret choice, then changes it in the database as if the player had chosen
otherwise: everything the other seats and spectators get must stay exactly the same, while the
chooser's own page changes (so that the comparison can fail)."""

from __future__ import annotations

import copy
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import AnonymousUser
from django.test import Client
from django.urls import reverse

from games import services
from games.engines import get_engine
from games.engines.part_du_chef import chillies_phrase
from games.models import Match, Move
from players.models import ApiToken
from tests.presenters.helpers import seeded_table, user_of_seat
from tests.sockets import connected

from .factories import started_table


@dataclass
class Secret:
    """A match in a secret step where ``chooser`` has chosen and others have not all chosen."""

    match: Match
    users: list
    chooser: int
    others: list  # users of the other seats
    change: Callable[[], None]  # rewrites the chooser's choice in the database


# --- Pizza Party: a pick ---------------------------------------------------------------------------
def a_secret_pick() -> Secret:
    """Seat 0 picked 2 and seat 1 picked 5; seat 2 is still picking."""
    engine = get_engine("pizza-party")
    match, users = started_table(game="pizza-party", players=3)
    while match.state["phase"] == "add":
        seat = engine.to_move(match.state)[0]
        move = next(engine.legal(match.state, seat))
        match = services.play(match.pk, user_of_seat(match, users, seat), move, match.version)
    for seat, pick in ((0, 2), (1, 5)):
        match = services.play(
            match.pk, user_of_seat(match, users, seat), {"cut": pick}, match.version
        )

    def change() -> None:
        rewrite(match, 0, "picks", 6, {"cut": 6}, {"pick": 6})

    others = [user_of_seat(match, users, 1), user_of_seat(match, users, 2)]
    return Secret(match, users, 0, others, change)


# --- La Part du Chef: a chilli assignment ----------------------------------------------------------
def a_secret_chilli_choice() -> Secret:
    """A match at its chilli step where one holder has chosen and another has not."""
    engine = get_engine("part-du-chef")
    for number in range(40):
        match, users = seeded_table("part-du-chef", 3, f"secret-chillies-{number}")
        rng = random.Random(number)
        while match.state["phase"] not in ("chillies", "over"):
            seat = engine.to_move(match.state)[0]
            move = engine.random_move(match.state, seat, rng)
            match = services.play(match.pk, user_of_seat(match, users, seat), move, match.version)
        holders = engine.to_move(match.state)
        if len(holders) >= 2:
            break
    else:
        raise AssertionError("no seed of the list gives two chilli holders")
    chooser = holders[0]
    held = engine.held(match.state, chooser, "C")
    match = services.play(
        match.pk, user_of_seat(match, users, chooser), {"chillies": {"M": held}}, match.version
    )

    def change() -> None:
        other = {"T": held}
        phrase = chillies_phrase(other)
        rewrite(match, chooser, "chillies", other, {"chillies": other}, {"assignment": phrase})

    others = [user_of_seat(match, users, s) for s in range(3) if s != chooser]
    return Secret(match, users, chooser, others, change)


def rewrite(match: Match, seat: int, field: str, value: Any, move: dict, params: dict) -> None:
    """Put another choice for ``seat`` everywhere it is kept: the state, its log, the Move row
    and the row's sentence."""
    state = copy.deepcopy(match.state)
    state[field][seat] = value
    key = next(iter(move))
    for entry in state["log"]:
        if entry[0] == seat and key in entry[1]:
            entry[1] = {**entry[1], **move}
    Match.objects.filter(pk=match.pk).update(state=state)
    row = Move.objects.filter(match=match, seat=seat, payload__has_key=key).get()
    description = copy.deepcopy(row.description)
    for name, param in params.items():
        description["params"][name] = param.as_json() if hasattr(param, "as_json") else param
    Move.objects.filter(pk=row.pk).update(payload=move, description=description)
    match.refresh_from_db()


SECRETS = {"pick": a_secret_pick, "chillies": a_secret_chilli_choice}


# --- what a viewer gets ----------------------------------------------------------------------------
def without_csrf(html: str) -> str:
    html = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", html)
    html = re.sub(r'"X-CSRFToken": "[^"]*"', "", html)
    # The server's time as the page leaves it (the clocks' reference) changes with every request.
    return re.sub(r'data-server-now="\d*"', "", html)


def everything_seen_by(match: Match, user) -> dict:
    client = Client()
    headers = {}
    if user.is_authenticated:
        client.force_login(user)
        _, raw = ApiToken.issue(user, "test")
        headers = {"HTTP_AUTHORIZATION": f"Bearer {raw}"}
    page = without_csrf(client.get(reverse("games:table", args=[match.pk])).content.decode())
    return {
        "page": page,
        "api": Client().get(f"/api/tables/{match.pk}", **headers).json(),
        "record": client.get(reverse("games:record", args=[match.pk])).json(),
        "api_record": Client().get(f"/api/tables/{match.pk}/record", **headers).json(),
    }


@pytest.mark.django_db
@pytest.mark.parametrize("kind", SECRETS)
def test_no_secret_choice_reaches_another_seat_through_pages_api_answers_or_records(kind):
    secret = SECRETS[kind]()
    viewers = [*secret.others, AnonymousUser()]
    before = [everything_seen_by(secret.match, user) for user in viewers]
    chooser = user_of_seat(secret.match, secret.users, secret.chooser)
    own_before = everything_seen_by(secret.match, chooser)
    secret.change()
    for user, seen_before in zip(viewers, before, strict=True):
        after = everything_seen_by(secret.match, user)
        for channel, seen in after.items():
            assert seen == seen_before[channel], (user, channel)
    own_after = everything_seen_by(secret.match, chooser)
    assert own_after["page"] != own_before["page"]
    assert own_after["record"] != own_before["record"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
@pytest.mark.parametrize("kind", SECRETS)
async def test_no_secret_choice_reaches_another_seat_through_the_sockets(kind):
    secret = await sync_to_async(SECRETS[kind])()
    chooser = await sync_to_async(user_of_seat)(secret.match, secret.users, secret.chooser)
    viewers = [*secret.others, None, chooser]

    async def frames() -> list[str]:
        seen = []
        for user in viewers:
            socket, frame = await connected(f"/ws/tables/{secret.match.pk}/", user)
            seen.append(frame)
            await socket.disconnect()
        return seen

    before = await frames()
    await sync_to_async(secret.change)()
    after = await frames()
    assert after[:-1] == before[:-1]
    assert after[-1] != before[-1]


@pytest.mark.django_db
def test_once_the_last_pick_is_in_everyone_sees_every_pick():
    secret = a_secret_pick()
    match, users = secret.match, secret.users
    match = services.play(match.pk, user_of_seat(match, users, 2), {"cut": 3}, match.version)
    for user in [*users, AnonymousUser()]:
        seen = everything_seen_by(match, user)
        log = seen["page"][seen["page"].index('id="table-log"') :]
        for seat, pick in ((0, 2), (1, 5), (2, 3)):
            name = user_of_seat(match, users, seat).username
            assert f"{name} picks cut {pick}." in log
        picks = [m for m in seen["record"]["moves"] if "cut" in m]
        assert sorted((m["seat"], m["cut"]) for m in picks) == [(0, 2), (1, 5), (2, 3)]
