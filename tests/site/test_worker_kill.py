"""A worker killed at any moment (SIGKILL) and restarted loses and duplicates nothing: every
expired turn is played exactly once."""

from __future__ import annotations

import json
import signal
import sqlite3
import time

from tests.live_server import LiveSite

MATCHES = 150

SET_UP = """
import random
from datetime import timedelta
from django.contrib.auth import get_user_model
from django.utils import timezone
from games import services
from games.models import Match
User = get_user_model()
for n in range(MATCHES):
    users = [User.objects.create_user(f"p{n}-{i}") for i in range(3)]
    match = services.start_match_for_players("part-du-chef", users, turn_seconds=600)
    chef = services.engine_for(match).to_move(match.state)[0]
    match = services.play(match.pk, match.seats.get(index=chef).user, {"cut": [0, 4, 8]}, match.version)
Match.objects.update(deadline=timezone.now() - timedelta(seconds=1))
"""

REPORT = """
import json
from django.utils import timezone
from games.models import Match, Move
print(json.dumps({
    "expired": Match.objects.filter(deadline__lte=timezone.now()).count(),
    "bot_moves": sorted(Move.objects.filter(by_bot=True).values_list("match_id", flat=True)),
    "versions": sorted(set(Match.objects.values_list("version", flat=True))),
}))
"""


def bot_moves(site: LiveSite) -> int:
    """Read straight from the site's database: quicker than a management command."""
    query = "SELECT count(*) FROM games_move WHERE by_bot"
    if "DATABASE_URL" in site.env and "SQLITE_PATH" not in site.env:
        import psycopg

        with psycopg.connect(site.env["DATABASE_URL"]) as conn:
            return conn.execute(query).fetchone()[0]
    with sqlite3.connect(site.env["SQLITE_PATH"], timeout=10) as conn:
        return conn.execute(query).fetchone()[0]


def report(site: LiveSite) -> dict:
    return json.loads(site.manage("shell", "--no-imports", "-c", REPORT).strip().splitlines()[-1])


def test_a_killed_worker_restarted_plays_every_expired_turn_exactly_once(site):
    site.manage("shell", "--no-imports", "-c", SET_UP.replace("MATCHES", str(MATCHES)))
    first = site.start_worker()
    # Kill it in the middle of its work: once it has played some turns but not all.
    deadline = time.monotonic() + 30
    while bot_moves(site) < 5 and time.monotonic() < deadline:
        time.sleep(0.01)
    first.send_signal(signal.SIGKILL)
    first.wait()
    killed_after = bot_moves(site)
    site.start_worker()
    site.start_worker()  # and a second one beside it
    deadline = time.monotonic() + 60
    while report(site)["expired"] and time.monotonic() < deadline:
        time.sleep(0.5)
    final = report(site)
    assert final["expired"] == 0
    matches = final["bot_moves"]
    assert len(matches) == MATCHES and len(set(matches)) == MATCHES, site.log_text()[-2000:]
    assert len(final["versions"]) == 1
    assert 0 < killed_after < MATCHES  # the kill really came mid-work
