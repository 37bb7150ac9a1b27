"""Login throttling: wrong passwords are counted per account and address, and per address, in the
shared cache; once either count is full, further attempts are refused without looking at the
password until the oldest failures are older than the window.

A failure costs the address a place in both counts; a success gives back its places. Attempts
refused by the throttle count nothing, so the lock ends on time however often someone knocks.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

from django.conf import settings
from django.utils.translation import ngettext

from games import ratelimit

#: Wrong passwords one address may try for one account, and for all accounts, per window.
FAILURES_PER_ACCOUNT_AND_ADDRESS = 5
FAILURES_PER_ADDRESS = 30
DEFAULT_WINDOW_SECONDS = 15 * 60


def window_seconds() -> float:
    """How long a failure counts (settings may shorten it, for tests)."""
    return float(getattr(settings, "LOGIN_THROTTLE_SECONDS", DEFAULT_WINDOW_SECONDS))


class LoginThrottled(Exception):
    def __init__(self, seconds: float) -> None:
        minutes = max(1, math.ceil(seconds / 60))
        self.message = ngettext(
            "Too many failed logins: try again in %(count)d minute.",
            "Too many failed logins: try again in %(count)d minutes.",
            minutes,
        ) % {"count": minutes}
        super().__init__(self.message)


@dataclass(frozen=True)
class Attempt:
    """The places one login attempt holds until it is known to have succeeded."""

    tickets: tuple[str, ...]


def _limits(username: str, address: str) -> list[tuple[str, int]]:
    account = hashlib.sha256(username.casefold().encode()).hexdigest()[:32]
    return [
        (f"login:{account}:{address}", FAILURES_PER_ACCOUNT_AND_ADDRESS),
        (f"login:{address}", FAILURES_PER_ADDRESS),
    ]


def begin(username: str, address: str) -> Attempt:
    """Take the attempt's places, or raise ``LoginThrottled`` (taking none)."""
    window = window_seconds()
    taken: list[str] = []
    for key, limit in _limits(username, address):
        ticket = ratelimit.take(key, limit, window)
        if ticket is None:
            for held in taken:
                ratelimit.give_back(held)
            raise LoginThrottled(ratelimit.seconds_until_free(key, limit, window))
        taken.append(ticket)
    return Attempt(tuple(taken))


def succeeded(attempt: Attempt) -> None:
    """The password was right: the attempt does not count as a failure."""
    for ticket in attempt.tickets:
        ratelimit.give_back(ticket)
