"""A doorbell that cannot be sent (Redis away, the layer failing) is logged and never raised: the
move that rang it is already saved, and the database stays the truth (games/notify.py). Every way
a doorbell leaves is covered: from a thread with the Pub/Sub layer (at once, or here first and to
the other processes after the answer), from the event loop, and the
worker's ``send``. No Redis server is needed: the layer points at a port nobody listens on."""

from __future__ import annotations

import logging

import pytest
from channels.layers import InMemoryChannelLayer

from games import notify
from pdc_site import request_threads
from pdc_site.layer import PubSubChannelLayer


def nowhere() -> PubSubChannelLayer:
    return PubSubChannelLayer(hosts=[{"address": "redis://127.0.0.1:1/0"}], prefix="test")


def failures(caplog: pytest.LogCaptureFixture) -> list[tuple[str, bool]]:
    """The logged failures: (the message, whether the error came with it)."""
    return [
        (record.getMessage(), record.exc_info is not None)
        for record in caplog.records
        if record.name == "games.notify"
    ]


def test_a_doorbell_published_from_a_thread_while_redis_is_away_is_logged_and_the_next_sent(
    monkeypatch, caplog
):
    monkeypatch.setattr(notify, "get_channel_layer", nowhere)
    rung = [("table-1", {"type": "table.changed"}), ("lobby", {"type": "lobby.changed"})]
    with caplog.at_level(logging.WARNING, logger="games.notify"):
        assert notify.publish_here(rung) is None
    # The first failure did not stop the second doorbell from being tried.
    assert failures(caplog) == [
        ("could not notify group table-1", True),
        ("could not notify group lobby", True),
    ]


@pytest.mark.asyncio
async def test_a_doorbell_sent_from_the_event_loop_while_redis_is_away_is_logged(
    monkeypatch, caplog
):
    monkeypatch.setattr(notify, "get_channel_layer", nowhere)
    with caplog.at_level(logging.WARNING, logger="games.notify"):
        await notify.sender([("table-2", {"type": "table.changed"})])()
    assert failures(caplog) == [("could not notify group table-2", True)]


def test_the_workers_doorbell_that_fails_is_logged_not_raised(monkeypatch, caplog):
    class Failing(InMemoryChannelLayer):
        async def group_send(self, group: str, message: dict) -> None:
            raise ConnectionError("the layer is away")

    monkeypatch.setattr(notify, "get_channel_layer", Failing)
    with caplog.at_level(logging.WARNING, logger="games.notify"):
        notify.send("table-3", {"type": "table.changed"})
    assert failures(caplog) == [("could not notify group table-3", True)]


def test_a_doorbell_published_after_the_answer_while_redis_is_away_is_logged_and_the_next_sent(
    monkeypatch, caplog
):
    """Rendered ahead of its commit, a doorbell is queued here at once (no Redis needed) and
    published for the other processes after the answer: there it fails, is logged, and the
    next doorbell is still tried."""
    monkeypatch.setattr(notify, "get_channel_layer", nowhere)
    rung = [("table-4", {"type": "table.changed"}), ("lobby", {"type": "lobby.changed"})]
    jobs = request_threads.AfterAnswerJobs()
    in_a_request = request_threads._after_answer.set(jobs)
    try:
        with caplog.at_level(logging.WARNING, logger="games.notify"):
            assert notify.here_now_elsewhere_after_answer(lambda: rung)
    finally:
        request_threads._after_answer.reset(in_a_request)
    assert failures(caplog) == []  # queued here; nothing published before the answer
    with caplog.at_level(logging.WARNING, logger="games.notify"):
        jobs.run_jobs()
    assert failures(caplog) == [
        ("could not notify group table-4", True),
        ("could not notify group lobby", True),
    ]


def test_a_doorbell_that_cannot_be_queued_here_is_logged_not_raised_to_the_commit(
    monkeypatch, caplog
):
    class Unqueueable(PubSubChannelLayer):
        def deliver_here(self, group: str, message: dict) -> tuple[str, bytes]:
            raise RuntimeError("cannot queue")

    monkeypatch.setattr(
        notify,
        "get_channel_layer",
        lambda: Unqueueable(hosts=[{"address": "redis://127.0.0.1:1/0"}], prefix="test"),
    )
    jobs = request_threads.AfterAnswerJobs()
    in_a_request = request_threads._after_answer.set(jobs)
    try:
        with caplog.at_level(logging.WARNING, logger="games.notify"):
            assert notify.here_now_elsewhere_after_answer(
                lambda: [("table-5", {"type": "table.changed"})]
            )
    finally:
        request_threads._after_answer.reset(in_a_request)
    assert failures(caplog) == [("could not notify group table-5", True)]
    jobs.run_jobs()  # nothing was queued, so nothing is published
    assert failures(caplog) == [("could not notify group table-5", True)]
