"""``GET /api/tables/{id}?since=V``: it waits for a newer version, holds no database connection
while it waits, caps the polls one caller has waiting, and a failing doorbell (Redis errors)
only leaves it to its looks at the database."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.test import AsyncClient
from redis import exceptions as redis_errors

from games import api, limits, services
from games.engines import get_engine
from players.models import ApiToken

from .factories import make_user, started_table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

ANONYMOUS = "ip:127.0.0.1"


async def until(condition: Callable[[], bool]) -> None:
    """Wait (at most five seconds) until ``condition`` holds."""
    for _ in range(500):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the condition never held")


def token_for(user) -> dict[str, str]:
    _, raw = ApiToken.issue(user, "poll")
    return {"Authorization": f"Bearer {raw}"}


async def cut(match, users) -> None:
    chef = get_engine(match.game).to_move(match.state)[0]
    await sync_to_async(services.play)(match.pk, users[chef], {"cut": [0, 6]}, match.version)


async def test_since_waits_for_the_next_version():
    match, users = await sync_to_async(started_table)(players=2)
    poll = asyncio.ensure_future(AsyncClient().get(f"/api/tables/{match.pk}?since={match.version}"))
    await until(lambda: limits.held("poll", ANONYMOUS) == 1)
    assert not poll.done()
    await cut(match, users)
    answer = await poll
    assert answer.status_code == 200
    assert answer.json()["version"] == match.version + 1
    assert limits.held("poll", ANONYMOUS) == 0


async def test_one_caller_has_at_most_four_polls_waiting(monkeypatch):
    monkeypatch.setattr(api, "POLLS_PER_CALLER", 4)
    match, users = await sync_to_async(started_table)(players=2)
    caller = await sync_to_async(make_user)()
    headers = await sync_to_async(token_for)(caller)
    url = f"/api/tables/{match.pk}?since={match.version}"
    client = AsyncClient()
    polls = [asyncio.ensure_future(client.get(url, headers=headers)) for _ in range(4)]
    await until(lambda: limits.held("poll", f"user:{caller.pk}") == 4)
    refused = await client.get(url, headers=headers)
    assert refused.status_code == 429 and refused.json()["error"]
    # Another caller is counted on its own.
    other = asyncio.ensure_future(client.get(url))
    await until(lambda: limits.held("poll", ANONYMOUS) == 1)
    await cut(match, users)
    for answer in await asyncio.gather(*polls, other):
        assert answer.status_code == 200 and answer.json()["version"] == match.version + 1
    assert limits.held("poll", f"user:{caller.pk}") == 0


def layer_fails(monkeypatch, where: str, error: Exception) -> None:
    """The channel layer in use (in memory, or Redis) raises ``error`` from ``where``."""

    async def fails(*args, **kwargs):
        raise error

    # raising=False: the Pub/Sub layer provides its methods through __getattr__.
    monkeypatch.setattr(type(get_channel_layer()), where, fails, raising=False)


@pytest.mark.parametrize(
    ("where", "error"),
    [
        ("receive", redis_errors.TimeoutError("Timeout reading from socket")),
        ("receive", redis_errors.ConnectionError("Connection closed by server.")),
        ("group_add", redis_errors.ConnectionError("Error 111 connecting to localhost:6379.")),
    ],
)
async def test_a_redis_error_leaves_the_poll_to_the_database(monkeypatch, where, error):
    layer_fails(monkeypatch, where, error)
    match, users = await sync_to_async(started_table)(players=2)
    poll = asyncio.ensure_future(AsyncClient().get(f"/api/tables/{match.pk}?since={match.version}"))
    await until(lambda: limits.held("poll", ANONYMOUS) == 1)
    await cut(match, users)
    answer = await poll
    assert answer.status_code == 200
    assert answer.json()["version"] == match.version + 1
