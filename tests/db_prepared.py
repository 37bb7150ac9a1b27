"""The database connection as ``DATABASE_PREPARED=0`` leaves it, for tests of that setting."""

from __future__ import annotations

from typing import Any

from django.db import connection


def without_prepared_statements(monkeypatch: Any) -> None:
    """This test's PostgreSQL connection as ``DATABASE_PREPARED=0`` makes one: psycopg prepares
    nothing, and Django's cursors bind values on the client (Django's own defaults)."""
    from django.db.backends.postgresql.base import Cursor

    connection.ensure_connection()
    monkeypatch.setattr(connection.connection, "prepare_threshold", None)
    monkeypatch.setattr(connection.connection, "cursor_factory", Cursor)
