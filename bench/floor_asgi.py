"""The floor of ``bench/live.py``: the least a live site can do for a move.

A socket joins its table's group and forwards every group message; ``POST /send/<table>/<version>``
rings the group. It runs under daphne, on the site's own settings and channel layer (Redis when
``REDIS_URL`` is set), so the only difference from the site is everything the site does for a
move: checking it, saving it and rendering each seat's view.

``POST /commit/<table>/<version>`` is the floor of a site that never loses an accepted move
(``bench/live.py --commit-floor``, PostgreSQL only): before it rings, it saves the move the
cheapest durable way there is, one statement in PostgreSQL's own transaction, committed (its
WAL flushed, as the site's ``COMMIT``) before the answer, on the event loop with no thread.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pdc_site.settings")

import django

django.setup()

import psycopg  # noqa: E402
from channels.generic.http import AsyncHttpConsumer  # noqa: E402
from channels.generic.websocket import AsyncWebsocketConsumer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402
from django.urls import path  # noqa: E402
from psycopg.conninfo import make_conninfo  # noqa: E402

from pdc_site.loop_watch import watching  # noqa: E402


def group_of(table: int) -> str:
    return f"floor-{table}"


class Echo(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.group = group_of(self.scope["url_route"]["kwargs"]["table"])
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def floor_push(self, event: dict) -> None:
        version = int(event["version"])
        await self.send(text_data=f'<div id="table-status" data-version="{version}"></div>')


class Ring(AsyncHttpConsumer):
    async def handle(self, body: bytes) -> None:
        kwargs = self.scope["url_route"]["kwargs"]
        version = int(kwargs["version"])
        await self.channel_layer.group_send(
            group_of(kwargs["table"]), {"type": "floor.push", "version": version}
        )
        await self.send_response(
            200,
            b'{"version": %d}' % version,
            headers=[(b"Content-Type", b"application/json")],
        )


#: The committed floor's tables (``create_commit_tables``): a table's version, and its moves.
TABLES_SQL = (
    "DROP TABLE IF EXISTS bench_floor_move, bench_floor_table",
    "CREATE TABLE bench_floor_table (id integer PRIMARY KEY, version integer NOT NULL)",
    "CREATE TABLE bench_floor_move (table_id integer NOT NULL, number integer NOT NULL, "
    "body text NOT NULL, PRIMARY KEY (table_id, number))",
)
#: A move saved in one statement: the table's version advanced only from the one before, and
#: the move's row inserted only when it was (a stale version saves nothing).
SAVE_MOVE = (
    "WITH advanced AS (UPDATE bench_floor_table SET version = version + 1 "
    "WHERE id = %s AND version = %s RETURNING id, version) "
    "INSERT INTO bench_floor_move (table_id, number, body) SELECT id, version, %s FROM advanced"
)
#: Connections of this process to the site's database, at most as many as the site's pool.
COMMIT_CONNECTIONS = 8


def create_commit_tables(conninfo: str, tables: int) -> None:
    """Fresh tables for ``tables`` floor tables at version 0 (run by the benchmark, not daphne)."""
    with psycopg.connect(conninfo, autocommit=True) as conn:
        for statement in TABLES_SQL:
            conn.execute(statement)
        with conn.cursor() as cursor:
            cursor.executemany(
                "INSERT INTO bench_floor_table (id, version) VALUES (%s, 0)",
                [(table,) for table in range(tables)],
            )


def database_conninfo() -> str:
    """The site's database, as psycopg names it."""
    db = settings.DATABASES["default"]
    given = {
        "dbname": db.get("NAME"),
        "user": db.get("USER"),
        "password": db.get("PASSWORD"),
        "host": db.get("HOST"),
        "port": str(db.get("PORT") or ""),
    }
    return make_conninfo(**{key: value for key, value in given.items() if value})


class CommitConnections:
    """Autocommit connections to the site's database, opened as needed and reused, so that
    each move's save is one round trip of a prepared statement."""

    def __init__(self, size: int) -> None:
        self.idle: list[psycopg.AsyncConnection] = []
        self.slots = asyncio.Semaphore(size)

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[psycopg.AsyncConnection]:
        async with self.slots:
            conn = self.idle.pop() if self.idle else None
            if conn is None or conn.closed:
                conn = await psycopg.AsyncConnection.connect(
                    database_conninfo(), autocommit=True, prepare_threshold=0
                )
            try:
                yield conn
            except BaseException:
                await conn.close()
                raise
            self.idle.append(conn)

    async def close(self) -> None:
        while self.idle:
            await self.idle.pop().close()


_commit_connections: CommitConnections | None = None


def commit_connections() -> CommitConnections:
    global _commit_connections
    if _commit_connections is None:
        _commit_connections = CommitConnections(COMMIT_CONNECTIONS)
    return _commit_connections


class CommitThenRing(AsyncHttpConsumer):
    async def handle(self, body: bytes) -> None:
        kwargs = self.scope["url_route"]["kwargs"]
        table, version = kwargs["table"], int(kwargs["version"])
        async with commit_connections().connection() as conn:
            cursor = await conn.execute(
                SAVE_MOVE, (table, version - 1, body.decode() or "{}"), prepare=True
            )
            saved = cursor.rowcount == 1
        if not saved:
            await self.send_response(
                409, b'{"error": "stale version"}', headers=[(b"Content-Type", b"application/json")]
            )
            return
        await self.channel_layer.group_send(
            group_of(table), {"type": "floor.push", "version": version}
        )
        await self.send_response(
            200,
            b'{"version": %d}' % version,
            headers=[(b"Content-Type", b"application/json")],
        )


class Ping(AsyncHttpConsumer):
    """A trivial endpoint: daphne's own cost of an HTTP request (``bench/bench_http.py``)."""

    async def handle(self, body: bytes) -> None:
        await self.send_response(200, b"{}", headers=[(b"Content-Type", b"application/json")])


application = watching(
    ProtocolTypeRouter(
        {
            "http": URLRouter(
                [
                    path("send/<int:table>/<int:version>", Ring.as_asgi()),
                    path("commit/<int:table>/<int:version>", CommitThenRing.as_asgi()),
                    path("ping", Ping.as_asgi()),
                ]
            ),
            "websocket": URLRouter([path("ws/floor/<int:table>/", Echo.as_asgi())]),
        }
    )
)
