"""Rate limits (games/ratelimit.py): a sliding window on the shared cache, driven here by a clock
the tests move by hand; and who an anonymous caller is behind a trusted proxy."""

from __future__ import annotations

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.live import players_limits
from games import api, ratelimit
from tests.site.test_collector import what_a_server_process_reports

pytestmark = pytest.mark.django_db


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(ratelimit, "clock", fake)
    return fake


def test_a_limit_lets_through_exactly_its_count_then_refuses(clock):
    assert all(ratelimit.allow("k", 5, 60) for _ in range(5))
    assert not ratelimit.allow("k", 5, 60)


def test_the_boundary_of_a_minute_does_not_let_twice_the_limit_through(clock):
    clock.now = 60 * 20_000 - 0.5  # half a second before a minute starts
    assert all(ratelimit.allow("k", 10, 60) for _ in range(10))
    clock.now += 1.0  # a fixed window would start counting from zero here
    assert not any(ratelimit.allow("k", 10, 60) for _ in range(10))


def test_hits_leave_the_window_as_it_slides(clock):
    assert all(ratelimit.allow("k", 10, 60) for _ in range(10))
    clock.now += 59
    assert not ratelimit.allow("k", 10, 60)
    # One slot (6 s) later than a minute after them, they no longer count.
    clock.now += 1 + 60 / ratelimit.SLOTS
    assert all(ratelimit.allow("k", 10, 60) for _ in range(10))


def test_refused_hits_are_not_counted(clock):
    start = clock.now
    assert all(ratelimit.allow("k", 3, 10) for _ in range(3))
    for knock in range(40):
        clock.now = start + knock / 4
        assert not ratelimit.allow("k", 3, 10)
    # The three hits' slot leaves the window one slot after ten seconds; the knocks do not count.
    clock.now = start + 10 + 10 / ratelimit.SLOTS
    assert ratelimit.allow("k", 3, 10)


def test_a_hit_given_back_frees_its_place(clock):
    tickets = [ratelimit.take("k", 2, 60) for _ in range(2)]
    assert ratelimit.full("k", 2, 60)
    ratelimit.give_back(tickets[0])
    assert not ratelimit.full("k", 2, 60)
    assert ratelimit.allow("k", 2, 60)


def test_seconds_until_free_is_when_the_oldest_hits_leave(clock):
    clock.now = 6_000.0  # the start of a 6-second slot
    assert ratelimit.allow("k", 2, 60)
    clock.now += 12
    assert ratelimit.allow("k", 2, 60)
    # The first hit's slot leaves the window 66 s after it opened: 54 s from now.
    assert ratelimit.seconds_until_free("k", 2, 60) == pytest.approx(54)
    clock.now += 54
    assert ratelimit.seconds_until_free("k", 2, 60) == 0
    assert ratelimit.allow("k", 2, 60)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(gaps=st.lists(st.floats(0, 8, allow_nan=False), min_size=1, max_size=120))
def test_no_window_of_that_length_ever_lets_more_than_the_limit_through(gaps, monkeypatch):
    fake = Clock(1_000_000.0 + sum(gaps) * 1000)  # a fresh stretch of time for each example
    monkeypatch.setattr(ratelimit, "clock", fake)
    key = f"prop-{fake.now}"
    allowed = []
    for gap in gaps:
        fake.now += gap
        if ratelimit.allow(key, 7, 20):
            allowed.append(fake.now)
    for start in allowed:
        assert sum(start <= t < start + 20 for t in allowed) <= 7


def test_a_steady_caller_gets_the_limit_once_per_window_and_a_slot(clock):
    # One call a second for 600 s against 30 per minute: 30 per 66 s (11 slots of 6 s).
    allowed = 0
    for _ in range(600):
        clock.now += 1
        allowed += ratelimit.allow("k", 30, 60)
    cycle = 60 * (ratelimit.SLOTS + 1) / ratelimit.SLOTS
    assert 30 * (600 // cycle) <= allowed <= 30 * (600 // cycle + 1)


# --- who is calling -------------------------------------------------------------------------------
def test_without_trusted_proxies_the_peer_is_the_caller(settings):
    settings.TRUSTED_PROXIES = []
    assert ratelimit.client_address_of("10.0.0.2", "1.2.3.4") == "10.0.0.2"


def test_behind_a_trusted_proxy_the_forwarded_address_is_the_caller(settings):
    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]
    assert ratelimit.client_address_of("10.0.0.2", "1.2.3.4") == "1.2.3.4"
    # Each proxy appends what it saw: a client's own entries (left) prove nothing.
    assert ratelimit.client_address_of("10.0.0.2", "6.6.6.6, 1.2.3.4, 10.0.0.9") == "1.2.3.4"
    assert ratelimit.client_address_of("10.0.0.2", "not-an-address") == "10.0.0.2"
    assert ratelimit.client_address_of("10.0.0.2", None) == "10.0.0.2"


def test_an_untrusted_peer_cannot_choose_its_address_by_a_header(settings):
    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]
    assert ratelimit.client_address_of("8.8.8.8", "1.2.3.4") == "8.8.8.8"


def test_anonymous_api_callers_behind_a_proxy_have_a_limit_each(settings, monkeypatch, clock):
    settings.TRUSTED_PROXIES = ["127.0.0.1"]
    monkeypatch.setattr(api, "CALLS_PER_WINDOW", (3, 60))
    client = Client(REMOTE_ADDR="127.0.0.1")
    first = [client.get("/api/games", HTTP_X_FORWARDED_FOR="1.1.1.1").status_code for _ in range(4)]
    second = client.get("/api/games", HTTP_X_FORWARDED_FOR="2.2.2.2").status_code
    assert first == [200, 200, 200, 429]
    assert second == 200
    settings.TRUSTED_PROXIES = []  # without trusting the proxy, everyone behind it shares one
    shared = [
        client.get("/api/games", HTTP_X_FORWARDED_FOR=f"3.3.3.{n}").status_code for n in range(4)
    ]
    assert shared == [200, 200, 200, 429]


#: A player's limits, unset in a fresh process unless a test gives them.
LIMIT_SETTINGS = ("API_CALLS_PER_MINUTE", "MOVES_PER_TEN_SECONDS")


def limits_in_a_process(**env: str) -> list[int]:
    """A player's limits as a fresh process of the site reads them, with ``env`` set."""
    return what_a_server_process_reports(
        "[*api.CALLS_PER_WINDOW, *ratelimit.MOVES_PER_WINDOW]",
        unset=LIMIT_SETTINGS,
        env=env,
        imports="from games import api, ratelimit",
    )


def test_a_players_limits_are_300_calls_a_minute_and_30_moves_in_10_seconds_unless_set() -> None:
    assert limits_in_a_process() == [300, 60, 30, 10]
    set_ = limits_in_a_process(API_CALLS_PER_MINUTE="7", MOVES_PER_TEN_SECONDS="3")
    assert set_ == [7, 60, 3, 10]


def test_the_live_bench_lifts_the_players_limits_only_when_it_saturates() -> None:
    assert players_limits("latency") == {}
    lifted = players_limits("saturation")
    assert int(lifted["API_CALLS_PER_MINUTE"]) >= 10**6
    assert int(lifted["MOVES_PER_TEN_SECONDS"]) >= 10**6
