"""A token's last use is written at most once a minute, and in a request served by the site's
threads only after its answer and its other jobs (a move's doorbell): nobody waits for it."""

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
    real_render, real_write = published.render_for_watchers, auth._write_last_use

    def render(match):
        happened.append("render")
        return real_render(match)

    def write(token_id, when):
        happened.append("last use" if answered.wait(DEADLOCK_GUARD) else "last use, unanswered")
        real_write(token_id, when)

    match, users = await sync_to_async(started_table)(players=3)
    socket, _first = await connected(f"/ws/tables/{match.pk}/", users[1])
    monkeypatch.setattr(published, "render_for_watchers", render)
    monkeypatch.setattr(auth, "_write_last_use", write)
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
    monkeypatch.setattr(auth, "_write_last_use", lambda token_id, when: written.append(token_id))
    token, raw = ApiToken.issue(make_user("ann"), "bot")
    client = Client()
    assert client.get("/api/games", HTTP_AUTHORIZATION=f"Bearer {raw}").status_code == 200
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=auth.timezone.now())
    assert client.get("/api/games", HTTP_AUTHORIZATION=f"Bearer {raw}").status_code == 200
    assert written == [token.pk]
