"""Issue 12: a clock per player at timed tables, the time left on the current turn, counted down
by the page from the seconds the server gave (no push every second)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client

from games import clocks, rendering
from games.clocks import clock_text, seat_clocks
from games.engines import get_engine
from games.models import Match
from players.models import ApiToken

from .factories import started_table

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)


def at_fixed_time(monkeypatch, match: Match, seconds_left: float) -> Match:
    """The table's deadline ``seconds_left`` after a fixed now, and the clocks reading that now."""
    monkeypatch.setattr(clocks.timezone, "now", lambda: NOW)
    Match.objects.filter(pk=match.pk).update(deadline=NOW + timedelta(seconds=seconds_left))
    match.refresh_from_db()
    return match


def bearer(user) -> dict[str, str]:
    _, raw = ApiToken.issue(user, "test")
    return {"HTTP_AUTHORIZATION": f"Bearer {raw}"}


def test_clock_text_reads_minutes_and_seconds_then_hours():
    assert clock_text(0) == "0:00"
    assert clock_text(59) == "0:59"
    assert clock_text(61) == "1:01"
    assert clock_text(3600) == "1:00:00"
    assert clock_text(86399) == "23:59:59"


def test_the_seat_to_move_has_the_running_clock_and_the_others_a_whole_turn(monkeypatch):
    match, _users = started_table(players=3, turn_seconds=60)
    match = at_fixed_time(monkeypatch, match, 42.5)
    to_move = get_engine(match.game).to_move(match.state)
    found = seat_clocks(match)
    assert set(found) == {0, 1, 2}
    for seat, clock in found.items():
        if seat in to_move:
            # 42.5 s left reads 43: a clock shows 0:00 only once the time is really up.
            assert (clock.running, clock.seconds_left, clock.deadline) == (True, 43, match.deadline)
        else:
            assert (clock.running, clock.seconds_left, clock.deadline) == (False, 60, None)


def test_a_clock_past_its_deadline_reads_zero(monkeypatch):
    match, _users = started_table(players=2, turn_seconds=30)
    match = at_fixed_time(monkeypatch, match, -5)
    assert {c.seconds_left for c in seat_clocks(match).values() if c.running} == {0}


def test_tables_without_a_timer_or_not_running_have_no_clocks():
    untimed, users = started_table(players=2)
    assert untimed.turn_seconds is None
    assert seat_clocks(untimed) == {}
    from games import services

    services.resign(users[0], untimed.pk)
    services.resign(users[1], untimed.pk)
    over = Match.objects.get(pk=untimed.pk)
    assert over.is_over and seat_clocks(over) == {}


def test_the_api_gives_each_seat_its_clock(monkeypatch):
    match, users = started_table(players=2, turn_seconds=120)
    match = at_fixed_time(monkeypatch, match, 100)
    to_move = get_engine(match.game).to_move(match.state)
    table = Client().get(f"/api/tables/{match.pk}", **bearer(users[0])).json()
    for seat in table["seats"]:
        if seat["seat"] in to_move:
            assert seat["clock"] == {
                "running": True,
                "seconds_left": 100,
                "deadline": match.deadline.isoformat(),
            }
        else:
            assert seat["clock"] == {"running": False, "seconds_left": 120, "deadline": None}
    json.dumps(table)


def test_the_api_gives_no_clock_at_an_untimed_table():
    match, users = started_table(players=2)
    table = Client().get(f"/api/tables/{match.pk}", **bearer(users[0])).json()
    assert [seat["clock"] for seat in table["seats"]] == [None, None]


def test_the_seats_panel_shows_a_countdown_for_the_seat_to_move(monkeypatch):
    match, users = started_table(players=2, turn_seconds=60)
    match = at_fixed_time(monkeypatch, match, 75)
    assert len(get_engine(match.game).to_move(match.state)) == 1
    html = rendering.table_fragments(match, users[0])
    seats_part = html[html.index('id="table-seats"') :]
    seats_part = seats_part[: seats_part.index("</section>")]
    assert 'data-seconds-left="75"' in seats_part
    assert ">1:15</time>" in seats_part
    assert seats_part.count('data-testid="clock"') == 2
    assert ">1:00</span>" in seats_part  # the other seat's clock at rest: a whole turn
