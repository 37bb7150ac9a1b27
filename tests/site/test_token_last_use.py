"""A token's last use is written at most once a minute, and in a request served by the site's
threads only after its answer and its other jobs (a move's doorbell): nobody waits for it. The
uses a process notes within ``TOKEN_USES_WRITE_SECONDS`` of its last write are written
together, by the next request or by a timer."""

from __future__ import annotations

import threading

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from games import published
from games.engines import get_engine
from players import auth
from players.models import ApiToken
from tests.sockets import connected

from .factories import make_user, started_table
from .test_answer_before_render import DEADLOCK_GUARD, post_first_move

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.asyncio
async def test_a_tokens_last_use_is_written_after_the_answer_and_the_doorbell(
    monkeypatch, site_app
):
    answered = threading.Event()
    happened: list[str] = []
    real_render, real_write = published.render_for_watchers, auth._write_uses

    def render(match):
        happened.append("render")
        return real_render(match)

    def write(uses):
        happened.append("last use" if answered.wait(DEADLOCK_GUARD) else "last use, unanswered")
        real_write(uses)

    match, users = await sync_to_async(started_table)(players=3)
    socket, _first = await connected(f"/ws/tables/{match.pk}/", users[1])
    monkeypatch.setattr(published, "render_for_watchers", render)
    monkeypatch.setattr(auth, "_write_uses", write)
    post = await post_first_move(site_app, match, users)
    response = await post.get_response(timeout=DEADLOCK_GUARD)
    answered.set()
    assert response["status"] == 200
    await post.wait(timeout=DEADLOCK_GUARD)  # the request's jobs have run
    assert happened == ["render", "last use"]
    frame = await socket.receive_from(timeout=DEADLOCK_GUARD)
    assert f'data-version="{match.version + 1}"' in frame
    chef = get_engine(match.game).to_move(match.state)[0]
    token = await sync_to_async(ApiToken.objects.get)(user=users[chef])
    assert token.last_used_at is not None
    await socket.disconnect()


def test_outside_the_sites_threads_the_last_use_is_written_at_once(settings):
    settings.API_TOKEN_CACHE = False
    token, raw = ApiToken.issue(make_user("ann"), "bot")
    assert Client().get("/api/games", HTTP_AUTHORIZATION=f"Bearer {raw}").status_code == 200
    token.refresh_from_db()
    assert token.last_used_at is not None


def test_a_tokens_last_use_is_written_at_most_once_a_minute(settings, monkeypatch):
    settings.API_TOKEN_CACHE = False
    written: list[int] = []
    monkeypatch.setattr(auth, "_write_uses", lambda uses: written.extend(uses))
    token, raw = ApiToken.issue(make_user("ann"), "bot")
    client = Client()
    assert client.get("/api/games", HTTP_AUTHORIZATION=f"Bearer {raw}").status_code == 200
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=auth.timezone.now())
    assert client.get("/api/games", HTTP_AUTHORIZATION=f"Bearer {raw}").status_code == 200
    assert written == [token.pk]


class TimerStandIn:
    """``threading.Timer`` recorded, not started: a test runs it when it likes."""

    made: list[TimerStandIn] = []

    def __init__(self, interval: float, function) -> None:
        self.interval, self.function, self.daemon, self.started = interval, function, False, False
        TimerStandIn.made.append(self)

    def start(self) -> None:
        self.started = True


def use(raw: str) -> None:
    assert Client().get("/api/games", HTTP_AUTHORIZATION=f"Bearer {raw}").status_code == 200


def test_uses_noted_soon_after_a_write_are_written_together_in_one_statement_by_a_timer(
    settings, monkeypatch
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    settings.API_TOKEN_CACHE = False
    settings.TOKEN_USES_WRITE_SECONDS = 5
    monkeypatch.setattr(auth.threading, "Timer", TimerStandIn)
    monkeypatch.setattr(auth, "connections", type("C", (), {"close_all": lambda: None}))
    TimerStandIn.made.clear()
    issued = [ApiToken.issue(make_user(name), "bot") for name in ("ann", "bob", "cy")]
    use(issued[0][1])  # the first use after no write: written at once
    assert ApiToken.objects.get(pk=issued[0][0].pk).last_used_at is not None
    assert TimerStandIn.made == []
    use(issued[1][1])
    use(issued[2][1])
    assert [ApiToken.objects.get(pk=t.pk).last_used_at for t, _raw in issued[1:]] == [None, None]
    [timer] = TimerStandIn.made  # one timer for both, due within the interval
    assert timer.started and timer.daemon and 0 < timer.interval <= 5
    with CaptureQueriesContext(connection) as captured:
        timer.function()
    assert len(captured.captured_queries) == 1
    assert all(ApiToken.objects.get(pk=t.pk).last_used_at is not None for t, _raw in issued)
    assert auth._uses.pending == {} and auth._uses.timer is None


def test_the_first_use_after_the_interval_writes_every_use_noted_since(settings, monkeypatch):
    settings.API_TOKEN_CACHE = False
    settings.TOKEN_USES_WRITE_SECONDS = 5
    monkeypatch.setattr(auth.threading, "Timer", TimerStandIn)
    monkeypatch.setattr(auth, "connections", type("C", (), {"close_all": lambda: None}))
    clock = [1000.0]
    monkeypatch.setattr(auth.time, "monotonic", lambda: clock[0])
    written: list[list[int]] = []
    monkeypatch.setattr(auth, "_write_uses", lambda uses: written.append(sorted(uses)))
    issued = [ApiToken.issue(make_user(name), "bot") for name in ("ann", "bob", "cy")]
    use(issued[0][1])
    clock[0] += 1
    use(issued[1][1])  # within the interval: kept for later
    clock[0] += 5
    use(issued[2][1])  # past it: written with the one kept
    assert written == [[issued[0][0].pk], sorted([issued[1][0].pk, issued[2][0].pk])]
    # The timer that was set for the kept use finds nothing left to write.
    TimerStandIn.made[-1].function()
    assert written[-1] == []


def test_a_late_write_that_fails_is_logged_and_the_next_uses_are_still_written(
    settings, monkeypatch, caplog
):
    settings.API_TOKEN_CACHE = False
    settings.TOKEN_USES_WRITE_SECONDS = 5
    monkeypatch.setattr(auth.threading, "Timer", TimerStandIn)
    monkeypatch.setattr(auth, "connections", type("C", (), {"close_all": lambda: None}))
    TimerStandIn.made.clear()
    issued = [ApiToken.issue(make_user(name), "bot") for name in ("ann", "bob")]
    use(issued[0][1])
    use(issued[1][1])
    real_write = auth._write_uses
    monkeypatch.setattr(auth, "_write_uses", lambda uses: 1 / 0)
    TimerStandIn.made[-1].function()
    assert "could not write the API tokens' last uses" in caplog.text
    monkeypatch.setattr(auth, "_write_uses", real_write)
    auth._uses.note(issued[1][0].pk, auth.timezone.now())
    TimerStandIn.made[-1].function()
    assert ApiToken.objects.get(pk=issued[1][0].pk).last_used_at is not None
