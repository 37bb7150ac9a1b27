"""A secret pick never reaches another seat before its step closes: not in the page, not in a
socket frame, not in an API answer, not in the record (spec/pizza-party.md, "Hidden information").

Each test plays a pick, then changes it in the database to another number, as if the player had
picked differently: everything the other seats and spectators get must stay exactly the same,
while the picker's own page changes (so the comparison can fail)."""

from __future__ import annotations

import copy
import re

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import AnonymousUser
from django.test import Client
from django.urls import reverse

from games import services
from games.engines import get_engine
from games.models import Match, Move
from players.models import ApiToken
from tests.presenters.helpers import user_of_seat
from tests.sockets import connected

from .factories import started_table

ENGINE = get_engine("pizza-party")
PICKER, OTHER_PICKER, WAITING = 0, 1, 2


def at_the_picks() -> tuple[Match, list]:
    """A three-player Pizza Party at its first picks: seat 0 picked 2, seat 1 picked 5."""
    match, users = started_table(game="pizza-party", players=3)
    while match.state["phase"] == "add":
        seat = ENGINE.to_move(match.state)[0]
        move = next(ENGINE.legal(match.state, seat))
        match = services.play(match.pk, user_of_seat(match, users, seat), move, match.version)
    for seat, pick in ((PICKER, 2), (OTHER_PICKER, 5)):
        match = services.play(
            match.pk, user_of_seat(match, users, seat), {"cut": pick}, match.version
        )
    return match, users


def change_the_pick(match: Match, seat: int, pick: int) -> None:
    """Rewrite ``seat``'s secret pick everywhere it is kept: the state, its log and the Move row."""
    state = copy.deepcopy(match.state)
    state["picks"][seat] = pick
    for entry in state["log"]:
        if entry[0] == seat and "cut" in entry[1]:
            entry[1]["cut"] = pick
    Match.objects.filter(pk=match.pk).update(state=state)
    row = Move.objects.filter(match=match, seat=seat, payload__has_key="cut").get()
    description = copy.deepcopy(row.description)
    description["params"]["pick"] = pick
    Move.objects.filter(pk=row.pk).update(payload={"cut": pick}, description=description)
    match.refresh_from_db()


def without_csrf(html: str) -> str:
    html = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", html)
    return re.sub(r'"X-CSRFToken": "[^"]*"', "", html)


def everything_seen_by(match: Match, user) -> dict:
    client = Client()
    headers = {}
    if user.is_authenticated:
        client.force_login(user)
        _, raw = ApiToken.issue(user, "test")
        headers = {"HTTP_AUTHORIZATION": f"Bearer {raw}"}
    page = without_csrf(client.get(reverse("games:table", args=[match.pk])).content.decode())
    api = Client().get(f"/api/tables/{match.pk}", **headers).json()
    record = client.get(reverse("games:record", args=[match.pk])).json()
    api_record = Client().get(f"/api/tables/{match.pk}/record", **headers).json()
    return {"page": page, "api": api, "record": record, "api_record": api_record}


@pytest.mark.django_db
def test_no_pick_reaches_another_seat_through_pages_api_answers_or_records():
    match, users = at_the_picks()
    others = [user_of_seat(match, users, OTHER_PICKER), user_of_seat(match, users, WAITING)]
    picker = user_of_seat(match, users, PICKER)
    before = {u.pk if u.pk else 0: everything_seen_by(match, u) for u in [*others, AnonymousUser()]}
    own_before = everything_seen_by(match, picker)
    change_the_pick(match, PICKER, 6)
    for user in [*others, AnonymousUser()]:
        after = everything_seen_by(match, user)
        for channel, seen in after.items():
            assert seen == before[user.pk if user.pk else 0][channel], (user, channel)
    own_after = everything_seen_by(match, picker)
    assert own_after["page"] != own_before["page"]
    assert own_after["record"] != own_before["record"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_no_pick_reaches_another_seat_through_the_sockets():
    match, users = await sync_to_async(at_the_picks)()
    viewers = [
        await sync_to_async(user_of_seat)(match, users, OTHER_PICKER),
        await sync_to_async(user_of_seat)(match, users, WAITING),
        None,
    ]
    picker = await sync_to_async(user_of_seat)(match, users, PICKER)

    async def frames() -> list[str]:
        seen = []
        for user in [*viewers, picker]:
            socket, frame = await connected(f"/ws/tables/{match.pk}/", user)
            seen.append(frame)
            await socket.disconnect()
        return seen

    before = await frames()
    await sync_to_async(change_the_pick)(match, PICKER, 6)
    after = await frames()
    assert after[:3] == before[:3]
    assert after[3] != before[3]


@pytest.mark.django_db
def test_once_the_last_pick_is_in_everyone_sees_every_pick():
    match, users = at_the_picks()
    waiting = user_of_seat(match, users, WAITING)
    match = services.play(match.pk, waiting, {"cut": 3}, match.version)
    for user in [*users, AnonymousUser()]:
        seen = everything_seen_by(match, user)
        log = seen["page"][seen["page"].index('id="table-log"') :]
        for seat, pick in ((PICKER, 2), (OTHER_PICKER, 5), (WAITING, 3)):
            name = user_of_seat(match, users, seat).username
            assert f"{name} picks cut {pick}." in log
        picks = [m for m in seen["record"]["moves"] if "cut" in m]
        assert sorted((m["seat"], m["cut"]) for m in picks) == [(0, 2), (1, 5), (2, 3)]
