"""Fixtures shared by the site's tests."""

from __future__ import annotations

import pytest

from games import notify


@pytest.fixture
def rung(monkeypatch) -> list[tuple[int, int]]:
    """The doorbells rung, as (match, version) (outside a request they ring at once, after the
    commit)."""
    calls: list[tuple[int, int]] = []
    monkeypatch.setattr(
        notify, "ring", lambda match_id, version, *a, **k: calls.append((match_id, version))
    )
    return calls
