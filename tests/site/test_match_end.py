"""One way a match ends (games.services.end_match): played out, everyone left, never started,
given up by the worker, resigned. It saves the match, then sends ``match_ended`` inside the same
transaction: a receiver reading the database sees the final status."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.db import transaction
from django.test import Client
from django.utils import timezone

from games import services, worker
from games.engines import get_engine
from games.models import Match
from ratings.models import RatingChange

from .factories import make_user, play_one_move, play_to_the_end, started_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def ended():
    """What every ``match_ended`` receiver would read from the database when it runs."""
    seen: list[dict] = []

    def receiver(sender, match, **kwargs):
        saved = Match.objects.get(pk=match.pk)
        seen.append(
            {
                "id": saved.pk,
                "status": saved.status,
                "reason": saved.end_reason,
                "version": saved.version,
                "ranks": list(saved.seats.order_by("index").values_list("rank", flat=True)),
            }
        )

    services.match_ended.connect(receiver, dispatch_uid="test-ended")
    yield seen
    services.match_ended.disconnect(dispatch_uid="test-ended")


def expire(match: Match) -> None:
    Match.objects.filter(pk=match.pk).update(deadline=timezone.now() - timedelta(seconds=1))


def played_out() -> Match:
    match, users = started_table(players=3)
    return play_to_the_end(match, users, seed=4)


def everyone_left() -> Match:
    owner = make_user()
    match = services.create_table(owner, "part-du-chef", seats=3)
    return services.leave_table(owner, match.pk)


def never_started() -> Match:
    match, _ = started_table(players=3, mode="ranked")
    expire(match)
    worker.play_expired_turns()
    return match


def given_up_by_the_worker(monkeypatch) -> Match:
    match, users = started_table(players=3, mode="ranked")
    match = play_one_move(match, users, random.Random(1))
    engine = get_engine(match.game)

    def broken(*args, **kwargs):
        raise TypeError("a bot that crashes")

    monkeypatch.setattr(type(engine), "bot_move", broken)
    for _ in range(services.JOB_TRIES):
        expire(match)
        worker.play_expired_turns()
    return match


def everyone_resigned() -> Match:
    match, users = started_table(players=2)
    for user in users:
        match = services.resign(user, match.pk)
    return match


ENDINGS = {
    "played out": (played_out, Match.Status.FINISHED, Match.EndReason.PLAYED_OUT),
    "everyone left": (everyone_left, Match.Status.ABORTED, Match.EndReason.EVERYONE_LEFT),
    "never started": (never_started, Match.Status.ABORTED, Match.EndReason.NEVER_STARTED),
    "given up": (given_up_by_the_worker, Match.Status.ABORTED, Match.EndReason.FAILED),
    "resigned": (everyone_resigned, Match.Status.FINISHED, Match.EndReason.PLAYED_OUT),
}


@pytest.mark.parametrize("ending", list(ENDINGS))
def test_every_ending_saves_the_match_then_signals_once(ending, ended, monkeypatch):
    make, status, reason = ENDINGS[ending]
    match = make(monkeypatch) if ending == "given up" else make()
    saved = Match.objects.get(pk=match.pk)
    assert (saved.status, saved.end_reason) == (status, reason)
    assert saved.finished_at is not None and saved.deadline is None
    # The receiver read exactly what was saved: the final status, reason and version.
    assert ended == [
        {
            "id": saved.pk,
            "status": status,
            "reason": reason,
            "version": saved.version,
            "ranks": list(saved.seats.order_by("index").values_list("rank", flat=True)),
        }
    ]
    finished = status == Match.Status.FINISHED
    assert all((rank is not None) == finished for rank in ended[0]["ranks"])


def test_an_ending_is_a_new_version_of_the_table():
    match, _ = started_table(players=3, mode="ranked")
    expire(match)
    worker.play_expired_turns()
    assert Match.objects.get(pk=match.pk).version == match.version + 1


def test_a_receiver_that_fails_rolls_the_whole_end_back_with_the_rating():
    """Ratings are written in the transaction that ends the match: if anything in it fails, the
    match is still playing and nobody's rating moved."""
    match, users = started_table(players=2, mode="ranked")

    def fails(sender, match, **kwargs):
        assert RatingChange.objects.filter(match=match).count() == 2  # written before it
        raise RuntimeError("a receiver fails")

    services.match_ended.connect(fails, dispatch_uid="test-fails")
    try:
        with pytest.raises(RuntimeError), transaction.atomic():
            play_to_the_end(match, users)
    finally:
        services.match_ended.disconnect(dispatch_uid="test-fails")
    assert Match.objects.get(pk=match.pk).status == Match.Status.PLAYING
    assert not RatingChange.objects.exists()


def test_players_read_why_a_table_was_called_off(monkeypatch):
    match = given_up_by_the_worker(monkeypatch)
    html = Client().get(f"/tables/{match.pk}/").content.decode()
    assert "This table was closed." in html
    assert str(Match.EndReason.FAILED.label) in html
    table = Client().get(f"/api/tables/{match.pk}").json()
    assert table["status"] == "aborted" and table["end_reason"] == "failed"


@pytest.mark.parametrize("ending", ["played out", "everyone left"])
def test_a_friendly_match_s_end_asks_nothing_of_ratings_and_arenas(
    ending, django_assert_num_queries
):
    """Friendly matches are never rated nor arena tables (arena tables are ranked, and a match
    keeps its mode), so the end of one costs their receivers no query."""
    from arena.services import arena_match_ended
    from ratings.services import rate_finished_match

    match = ENDINGS[ending][0]()
    assert match.mode == Match.Mode.FRIENDLY
    with django_assert_num_queries(0):
        rate_finished_match(Match, match=match)
        arena_match_ended(Match, match=match)


def test_a_ranked_match_s_end_is_still_rated():
    """The other side of the test above: a ranked match's end is rated."""
    match, users = started_table(players=2, mode="ranked")
    play_to_the_end(match, users)
    assert RatingChange.objects.filter(match=match).count() == 2
