"""Login throttling (players/throttle.py) and unknown API tokens, with a clock the tests move."""

from __future__ import annotations

import pytest
from django.test import Client

from games import ratelimit
from players import auth, throttle

from .factories import make_user

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"
PASSWORD = "pizza-pass-123"


@pytest.fixture
def clock(monkeypatch, settings):
    settings.LOGIN_THROTTLE_SECONDS = 600
    now = [6_000_000.0]  # the start of a slot
    monkeypatch.setattr(ratelimit, "clock", lambda: now[0])
    return now


def log_in(username: str, password: str, address: str = "203.0.113.7"):
    return Client(REMOTE_ADDR=address).post(LOGIN, {"username": username, "password": password})


def logged_in(response) -> bool:
    return response.status_code == 302


def test_a_hundred_wrong_passwords_lock_the_account_for_that_address_until_the_window_passes(
    clock,
):
    user = make_user("margherita", PASSWORD)
    codes = [log_in(user.username, f"wrong-{n}").status_code for n in range(100)]
    assert codes[: throttle.FAILURES_PER_ACCOUNT_AND_ADDRESS] == [200] * 5
    assert set(codes[throttle.FAILURES_PER_ACCOUNT_AND_ADDRESS :]) == {429}
    refused = log_in(user.username, PASSWORD)
    assert refused.status_code == 429
    # The failures' 60-second slot leaves the 600-second window 660 s after it opened.
    assert "Too many failed logins: try again in 11 minutes." in refused.content.decode()
    clock[0] += 659
    assert log_in(user.username, PASSWORD).status_code == 429
    clock[0] += 1
    assert logged_in(log_in(user.username, PASSWORD))


def test_the_lock_is_per_address_for_one_account(clock):
    user = make_user("quattro", PASSWORD)
    for n in range(throttle.FAILURES_PER_ACCOUNT_AND_ADDRESS):
        log_in(user.username, f"wrong-{n}")
    assert log_in(user.username, PASSWORD).status_code == 429
    assert logged_in(log_in(user.username, PASSWORD, address="198.51.100.1"))


def test_one_address_trying_many_accounts_is_locked_too(clock):
    users = [make_user() for _ in range(8)]
    tries = 0
    while tries < throttle.FAILURES_PER_ADDRESS:
        user = users[tries % len(users)]
        assert log_in(user.username, "wrong").status_code == 200
        tries += 1
    fresh = make_user()
    assert log_in(fresh.username, PASSWORD).status_code == 429
    assert logged_in(log_in(fresh.username, PASSWORD, address="198.51.100.1"))


def test_right_passwords_do_not_count_against_the_limit(clock):
    user = make_user("funghi", PASSWORD)
    for _ in range(3 * throttle.FAILURES_PER_ACCOUNT_AND_ADDRESS):
        assert logged_in(log_in(user.username, PASSWORD))
    for n in range(throttle.FAILURES_PER_ACCOUNT_AND_ADDRESS - 1):
        assert log_in(user.username, f"wrong-{n}").status_code == 200
    assert logged_in(log_in(user.username, PASSWORD))


def test_the_account_is_counted_whatever_the_case_of_its_name(clock):
    make_user("Diavola", PASSWORD)
    for name in ["diavola", "DIAVOLA", "Diavola", "dIavola", "diavolA"]:
        log_in(name, "wrong")
    assert log_in("Diavola", PASSWORD).status_code == 429


def test_behind_a_trusted_proxy_the_forwarded_address_is_throttled(clock, settings):
    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]
    user = make_user("capricciosa", PASSWORD)
    proxy = Client(REMOTE_ADDR="10.0.0.5")
    for n in range(throttle.FAILURES_PER_ACCOUNT_AND_ADDRESS):
        proxy.post(
            LOGIN, {"username": user.username, "password": f"w{n}"}, HTTP_X_FORWARDED_FOR="1.1.1.1"
        )
    locked = proxy.post(
        LOGIN, {"username": user.username, "password": PASSWORD}, HTTP_X_FORWARDED_FOR="1.1.1.1"
    )
    other = proxy.post(
        LOGIN, {"username": user.username, "password": PASSWORD}, HTTP_X_FORWARDED_FOR="2.2.2.2"
    )
    assert locked.status_code == 429 and logged_in(other)


# --- API tokens -----------------------------------------------------------------------------------
def test_an_address_sending_unknown_tokens_is_refused_for_a_while(clock):
    limit, window = auth.TOKEN_FAILURES_PER_WINDOW
    client = Client(REMOTE_ADDR="203.0.113.9")
    codes = [
        client.get("/api/games", HTTP_AUTHORIZATION=f"Bearer pdc_guess{n}").status_code
        for n in range(limit + 1)
    ]
    assert codes == [401] * limit + [429]
    assert (
        "Too many unknown tokens"
        in client.get("/api/games", HTTP_AUTHORIZATION="Bearer pdc_guess").json()["error"]
    )
    clock[0] += window + window / ratelimit.SLOTS
    assert client.get("/api/games", HTTP_AUTHORIZATION="Bearer pdc_guess").status_code == 401
