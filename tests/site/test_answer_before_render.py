"""A move's POST is answered before its version is published for the other processes
(pdc_site/request_threads.after_answer, games/notify.after_commit); its parts for the watchers
are rendered while its commit is on its way where they can be (PostgreSQL), else after the
answer; every seat gets the version, rendered or not."""

from __future__ import annotations

import json
import threading

import pytest
from asgiref.sync import sync_to_async
from channels.testing import HttpCommunicator
from django.db import connection

from games import published
from games.engines import get_engine
from players.models import ApiToken
from tests.services_required import require_redis
from tests.sockets import connected

from .factories import started_table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

#: A bound on a wait that only a broken ordering would reach (not a timing assert).
DEADLOCK_GUARD = 30


async def post_first_move(app, match, users) -> HttpCommunicator:
    """The chef's first move through the site's handler, its answer not yet read."""
    chef = get_engine(match.game).to_move(match.state)[0]
    _token, raw = await sync_to_async(ApiToken.issue)(users[chef], "bot")
    body = json.dumps({"version": match.version, "move": {"cut": [0, 4, 8]}}).encode()
    headers = [
        (b"host", b"localhost"),
        (b"content-type", b"application/json"),
        (b"authorization", f"Bearer {raw}".encode()),
    ]
    post = HttpCommunicator(app, "POST", f"/api/tables/{match.pk}/moves", body, headers)
    post.scope["server"] = ("localhost", 80)
    return post


async def every_seat_gets_the_move(app, match, users, sockets) -> None:
    """The chef's first move answered, and every socket then shown its new version (closed
    after)."""
    post = await post_first_move(app, match, users)
    response = await post.get_response(timeout=DEADLOCK_GUARD)
    assert response["status"] == 200
    for socket in sockets:
        frame = await socket.receive_from(timeout=DEADLOCK_GUARD)
        assert f'data-version="{match.version + 1}"' in frame
        await socket.disconnect()


async def test_the_movers_answer_comes_before_the_watchers_render(monkeypatch, site_app):
    """A render for the watchers that was not made while the commit was on its way
    (``published.render_ahead``: none here) waits until the mover has its answer: were it
    rendered before the answer, it would wait in vain and the request would never answer."""
    monkeypatch.setattr(published, "render_ahead", lambda match: None)
    answered = threading.Event()
    rendered_after_the_answer: list[bool] = []
    real = published.render_for_watchers

    def render_once_answered(match):
        rendered_after_the_answer.append(answered.wait(DEADLOCK_GUARD))
        return real(match)

    match, users = await sync_to_async(started_table)(players=3)
    socket, _first = await connected(f"/ws/tables/{match.pk}/", users[1])
    monkeypatch.setattr(published, "render_for_watchers", render_once_answered)
    post = await post_first_move(site_app, match, users)
    response = await post.get_response(timeout=DEADLOCK_GUARD)
    answered.set()
    assert response["status"] == 200
    assert json.loads(response["body"])["version"] == match.version + 1
    frame = await socket.receive_from(timeout=DEADLOCK_GUARD)
    assert f'data-version="{match.version + 1}"' in frame
    assert rendered_after_the_answer == [True]
    await socket.disconnect()


@pytest.mark.parametrize("render", ["published", "failed"])
async def test_every_seat_gets_the_version_rung_after_the_answer(monkeypatch, site_app, render):
    """Published parts or, when the render fails, a doorbell with the version only that each
    process's sockets answer by a read: every seat ends on the new version."""
    match, users = await sync_to_async(started_table)(players=3)
    sockets = [(await connected(f"/ws/tables/{match.pk}/", user))[0] for user in users]
    if render == "failed":
        monkeypatch.setattr(published, "render_for_watchers", lambda match: 1 / 0)
    await every_seat_gets_the_move(site_app, match, users, sockets)


async def test_the_doorbell_after_the_answer_takes_no_hop_of_its_own(monkeypatch, site_app):
    """The doorbell runs as Django closes the sent answer, in the hop closing takes anyway: a
    move hops to its thread for the chain (with Django's request_started signal) and the closing
    only, and its PUBLISH needs no hop back to the loop (it leaves from the request's thread with
    Redis, from the event loop with the in-memory layer)."""
    import asyncio

    from asgiref.sync import AsyncToSync
    from channels.layers import get_channel_layer

    from games import notify

    match, users = await sync_to_async(started_table)(players=3)
    layer = get_channel_layer()
    listener = await layer.new_channel()
    await layer.group_add(notify.table_group(match.pk), listener)
    post = await post_first_move(site_app, match, users)
    hops: list[object] = []
    loop = asyncio.get_running_loop()
    to_loop, in_executor = AsyncToSync.__call__, loop.run_in_executor

    def counted_to_loop(self, *args, **kwargs):
        hops.append(self.awaitable)
        return to_loop(self, *args, **kwargs)

    def counted_in_executor(executor, func, *args):  # every hop to a thread, SyncToAsync's too
        hops.append(func)
        return in_executor(executor, func, *args)

    monkeypatch.setattr(AsyncToSync, "__call__", counted_to_loop)
    monkeypatch.setattr(loop, "run_in_executor", counted_in_executor)
    response = await post.get_response(timeout=DEADLOCK_GUARD)
    await post.wait(timeout=DEADLOCK_GUARD)  # the request's application has ended
    monkeypatch.undo()
    assert response["status"] == 200
    doorbell = await asyncio.wait_for(layer.receive(listener), DEADLOCK_GUARD)
    assert doorbell["version"] == match.version + 1
    assert len(hops) == 2, hops
    await layer.group_discard(notify.table_group(match.pk), listener)


@pytest.mark.redis
async def test_with_redis_the_doorbell_leaves_from_the_requests_thread(monkeypatch, site_app):
    """With the Redis layer the doorbell leaves from the request's thread, not handed to the
    event loop to send: rendered while the commit was on its way, it is queued for this
    process's sockets at once (``PubSubChannelLayer.deliver_here``) and published for the other
    processes after the answer (``publish_delivered``); every seat gets the version."""
    from channels.layers import get_channel_layer

    from games import notify
    from pdc_site.layer import PubSubChannelLayer

    require_redis()
    assert isinstance(get_channel_layer(), PubSubChannelLayer)
    loop_thread = threading.current_thread()
    from_threads: list[tuple[str, str, threading.Thread]] = []
    from_the_loop: list[str] = []
    deliver_here = PubSubChannelLayer.deliver_here
    publish_delivered = PubSubChannelLayer.publish_delivered
    group_send = PubSubChannelLayer.group_send

    def recorded_deliver_here(self, group, message):
        from_threads.append(("here", group, threading.current_thread()))
        return deliver_here(self, group, message)

    def recorded_publish_delivered(self, channel, data):
        from_threads.append(("elsewhere", channel, threading.current_thread()))
        return publish_delivered(self, channel, data)

    async def recorded_group_send(self, group, message):
        # The doorbell only: a socket that closes rings its viewer's going from the loop.
        if message.get("type") == "table.changed":
            from_the_loop.append(group)
        return await group_send(self, group, message)

    match, users = await sync_to_async(started_table)(players=3)
    sockets = [(await connected(f"/ws/tables/{match.pk}/", user))[0] for user in users]
    monkeypatch.setattr(PubSubChannelLayer, "deliver_here", recorded_deliver_here)
    monkeypatch.setattr(PubSubChannelLayer, "publish_delivered", recorded_publish_delivered)
    monkeypatch.setattr(PubSubChannelLayer, "group_send", recorded_group_send)
    await every_seat_gets_the_move(site_app, match, users, sockets)
    group = notify.table_group(match.pk)
    channel = get_channel_layer()._naming._get_group_channel_name(group)
    assert [(kind, name) for kind, name, _thread in from_threads] == [
        ("here", group),
        ("elsewhere", channel),
    ]
    assert all(thread is not loop_thread for _kind, _name, thread in from_threads)
    assert from_the_loop == []


@pytest.mark.redis
async def test_a_doorbell_rendered_ahead_reaches_this_process_before_the_answer(
    monkeypatch, site_app
):
    """Rendered while the commit was on its way, the doorbell is queued for this process's
    sockets once the commit is known, before the mover's answer, and published for the other
    processes only after it: were it published before the answer, it would wait in vain and
    the request would never answer."""
    from channels.layers import get_channel_layer

    from pdc_site.layer import PubSubChannelLayer

    require_redis()
    assert isinstance(get_channel_layer(), PubSubChannelLayer)
    answered = threading.Event()
    order: list[tuple[str, bool]] = []
    deliver_here = PubSubChannelLayer.deliver_here
    publish_delivered = PubSubChannelLayer.publish_delivered

    def recorded_deliver_here(self, group, message):
        order.append(("here", answered.is_set()))
        return deliver_here(self, group, message)

    def publish_once_answered(self, channel, data):
        order.append(("elsewhere", answered.wait(DEADLOCK_GUARD)))
        return publish_delivered(self, channel, data)

    match, users = await sync_to_async(started_table)(players=3)
    socket, _first = await connected(f"/ws/tables/{match.pk}/", users[1])
    monkeypatch.setattr(PubSubChannelLayer, "deliver_here", recorded_deliver_here)
    monkeypatch.setattr(PubSubChannelLayer, "publish_delivered", publish_once_answered)
    post = await post_first_move(site_app, match, users)
    response = await post.get_response(timeout=DEADLOCK_GUARD)
    answered.set()
    assert response["status"] == 200
    frame = await socket.receive_from(timeout=DEADLOCK_GUARD)
    assert f'data-version="{match.version + 1}"' in frame
    await post.wait(timeout=DEADLOCK_GUARD)  # the request's jobs after the answer have run
    if connection.vendor == "postgresql":  # rendered ahead of the commit: here first
        assert order == [("here", False), ("elsewhere", True)]
    else:  # no render ahead (SQLite): rendered and rung after the answer, as before
        assert order == [("here", True), ("elsewhere", True)]
    await socket.disconnect()
