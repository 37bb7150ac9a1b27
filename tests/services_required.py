"""Tests that need PostgreSQL or Redis: in CI (CI set) a missing service fails the test; on a
developer's machine without it the test is skipped with the reason."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest
from django.db import connection


def missing(service: str, reason: str) -> NoReturn:
    """A test without ``service``: in CI it fails, elsewhere it is skipped, with ``reason``."""
    if os.environ.get("CI"):
        pytest.fail(f"CI must run this {service} ({reason})")
    pytest.skip(reason)


def require_postgres() -> None:
    if connection.vendor != "postgresql":
        missing("on PostgreSQL", "needs PostgreSQL: set DATABASE_URL=postgres://…")


def require_redis() -> str:
    url = os.environ.get("REDIS_URL", "")
    if not url:
        missing("with Redis", "needs Redis: set REDIS_URL=redis://…")
    return url
