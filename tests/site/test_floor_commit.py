"""The committed floor of ``bench/live.py --commit-floor`` (``bench/floor_asgi.py``): a move is
saved in one durable statement before its table's group is rung, and a stale version saves
nothing and rings nothing."""

from __future__ import annotations

import asyncio

import psycopg
import pytest
import pytest_asyncio
from channels.layers import get_channel_layer
from channels.testing import HttpCommunicator

from bench import floor_asgi
from tests.services_required import require_postgres

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio, pytest.mark.postgres]

#: A bound on a wait that only a lost ring would reach (not a timing assert).
LOST_GUARD = 10


@pytest_asyncio.fixture
async def floor_tables():
    require_postgres()
    await asyncio.to_thread(floor_asgi.create_commit_tables, floor_asgi.database_conninfo(), 5)
    yield
    await floor_asgi.commit_connections().close()
    floor_asgi._commit_connections = None

    async with await psycopg.AsyncConnection.connect(
        floor_asgi.database_conninfo(), autocommit=True
    ) as conn:
        await conn.execute("DROP TABLE IF EXISTS bench_floor_move, bench_floor_table")


async def saved() -> list[tuple]:
    """The floor's moves with their table's version, read apart from the floor's connections."""
    async with await psycopg.AsyncConnection.connect(floor_asgi.database_conninfo()) as conn:
        cursor = await conn.execute(
            "SELECT m.table_id, m.number, m.body, t.version FROM bench_floor_move m "
            "JOIN bench_floor_table t ON t.id = m.table_id ORDER BY m.table_id, m.number"
        )
        return await cursor.fetchall()


async def post(path: str, body: bytes) -> dict:
    communicator = HttpCommunicator(floor_asgi.application, "POST", path, body=body)
    return await communicator.get_response(timeout=LOST_GUARD)


async def test_a_move_is_saved_before_its_table_is_rung(floor_tables):
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(floor_asgi.group_of(3), channel)
    answer = await post("/commit/3/1", b'{"move": {"cut": 2}}')
    assert answer["status"] == 200
    ring = await asyncio.wait_for(layer.receive(channel), LOST_GUARD)
    assert ring == {"type": "floor.push", "version": 1}
    assert await saved() == [(3, 1, '{"move": {"cut": 2}}', 1)]
    await layer.group_discard(floor_asgi.group_of(3), channel)


async def test_a_stale_version_saves_nothing_and_rings_nothing(floor_tables):
    assert (await post("/commit/2/1", b"{}"))["status"] == 200
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(floor_asgi.group_of(2), channel)
    for stale in (1, 3):  # played already; a version skipped
        assert (await post(f"/commit/2/{stale}", b"{}"))["status"] == 409
    assert (await post("/commit/2/2", b"{}"))["status"] == 200
    # The first ring the group hears is the next version's.
    ring = await asyncio.wait_for(layer.receive(channel), LOST_GUARD)
    assert ring == {"type": "floor.push", "version": 2}
    assert [row[:2] for row in await saved()] == [(2, 1), (2, 2)]
    await layer.group_discard(floor_asgi.group_of(2), channel)
