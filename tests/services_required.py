"""Tests that need PostgreSQL or Redis: in CI (CI set) a missing service fails the test; on a
developer's machine without it the test is skipped with the reason."""

from __future__ import annotations

import os

import pytest
from django.db import connection


def require_postgres() -> None:
    if connection.vendor == "postgresql":
        return
    reason = "needs PostgreSQL: set DATABASE_URL=postgres://…"
    if os.environ.get("CI"):
        pytest.fail(f"CI must run this on PostgreSQL ({reason})")
    pytest.skip(reason)


def require_redis() -> str:
    url = os.environ.get("REDIS_URL", "")
    if url:
        return url
    reason = "needs Redis: set REDIS_URL=redis://…"
    if os.environ.get("CI"):
        pytest.fail(f"CI must run this with Redis ({reason})")
    pytest.skip(reason)
