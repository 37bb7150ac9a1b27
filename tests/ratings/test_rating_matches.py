"""Finished matches move ratings: ranked ones exactly once, friendly ones never."""

from __future__ import annotations

import random
import threading
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import services, worker
from games.models import Match
from ratings.models import Rating, RatingChange
from ratings.services import rate_finished_match

from ..services_required import require_postgres
from ..site.factories import play_one_move, play_to_the_end, started_table

pytestmark = pytest.mark.django_db


def test_a_ranked_match_writes_one_change_per_player_and_moves_ratings():
    match, users = started_table(players=3, mode="ranked")
    match = play_to_the_end(match, users, seed=2)
    changes = RatingChange.objects.filter(match=match)
    assert changes.count() == 3
    for change in changes:
        rating = Rating.objects.get(user=change.user, game=match.game)
        assert rating.value == pytest.approx(change.after)
        assert change.before == 1500.0
        assert rating.matches == 1
    assert sum(c.delta for c in changes) == pytest.approx(0)


def test_the_players_ratings_are_written_in_one_statement_with_their_wins():
    match, users = started_table(players=3, mode="ranked")
    rng = random.Random(2)
    while True:
        with CaptureQueriesContext(connection) as captured:
            match = play_one_move(match, users, rng)
        if not match.is_playing:
            break
    writes = [q["sql"] for q in captured.captured_queries if 'UPDATE "ratings_rating"' in q["sql"]]
    assert len(writes) == 1
    winners = {s.user_id for s in match.seats.all() if s.rank == 1}
    for rating in Rating.objects.filter(game=match.game):
        change = RatingChange.objects.get(match=match, user_id=rating.user_id)
        assert (rating.value, rating.matches) == (pytest.approx(change.after), 1)
        assert rating.wins == (1 if rating.user_id in winners else 0)
        assert rating.updated_at == change.created_at


def test_a_friendly_match_leaves_every_rating_untouched():
    match, users = started_table(players=3, mode="friendly")
    play_to_the_end(match, users)
    assert not RatingChange.objects.exists()
    assert not Rating.objects.exists()


def expire(match: Match) -> None:
    Match.objects.filter(pk=match.pk).update(deadline=timezone.now() - timedelta(seconds=1))


def test_a_ranked_match_that_started_and_was_aborted_by_the_worker_is_not_rated():
    """spec/ratings.md: never rated, a match aborted before its first round was complete. The
    match starts (the deal is played), nobody moves, the worker calls it off."""
    match, _ = started_table(players=3, mode="ranked")
    assert match.status == Match.Status.PLAYING and match.state is not None
    expire(match)
    worker.play_expired_turns()
    assert Match.objects.get(pk=match.pk).status == Match.Status.ABORTED
    assert not RatingChange.objects.exists()
    assert not Rating.objects.exists()


def test_a_ranked_match_called_off_by_the_worker_mid_game_is_not_rated(monkeypatch):
    """A table the worker gives up on after moves were played has no result to rate."""
    match, users = started_table(players=3, mode="ranked")
    match = play_one_move(match, users, random.Random(1))

    def crashes(*args, **kwargs):
        raise TypeError("a bot that crashes")

    monkeypatch.setattr(type(services.engine_for(match)), "bot_move", crashes)
    for _ in range(services.JOB_TRIES):
        expire(match)
        worker.play_expired_turns()
    assert Match.objects.get(pk=match.pk).end_reason == Match.EndReason.FAILED
    assert not RatingChange.objects.exists()


def test_finishing_the_same_match_twice_rates_it_once():
    match, users = started_table(players=2, mode="ranked")
    match = play_to_the_end(match, users)
    before = list(Rating.objects.order_by("pk").values_list("value", "matches"))
    with transaction.atomic():
        rate_finished_match(Match, match=Match.objects.select_for_update().get(pk=match.pk))
    assert RatingChange.objects.filter(match=match).count() == 2
    assert list(Rating.objects.order_by("pk").values_list("value", "matches")) == before


def test_the_unique_constraint_refuses_a_second_change_for_the_same_match():
    from django.db import IntegrityError

    match, users = started_table(players=2, mode="ranked")
    match = play_to_the_end(match, users)
    change = RatingChange.objects.filter(match=match).first()
    with pytest.raises(IntegrityError), transaction.atomic():
        RatingChange.objects.create(
            match=match,
            user=change.user,
            game=match.game,
            before=1500,
            after=1600,
            delta=100,
            rank=1,
        )


def test_an_abandoner_is_rated_as_last():
    match, users = started_table(players=3, mode="ranked")
    engine = services.engine_for(match)
    rng = random.Random(9)
    match = play_one_move(match, users, rng)
    sleeper = engine.to_move(match.state)[0]
    while match.is_playing:
        if sleeper in engine.to_move(match.state):
            expire(match)
            worker.play_expired_turns()
            match.refresh_from_db()
        else:
            match = play_one_move(match, users, rng)
    change = RatingChange.objects.get(match=match, user=match.seats.get(index=sleeper).user)
    assert change.rank == 3
    assert change.delta < 0


def test_a_player_who_resigns_is_rated_as_last():
    match, users = started_table(players=3, mode="ranked")
    rng = random.Random(5)
    match = play_one_move(match, users, rng)
    quitter = users[1]
    services.resign(quitter, match.pk)
    match.refresh_from_db()
    while match.is_playing:
        match = play_one_move(match, users, rng)
    change = RatingChange.objects.get(match=match, user=quitter)
    assert change.rank == 3


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_finishers_rate_a_match_once_on_postgresql():
    require_postgres()
    match, users = started_table(players=2, mode="ranked")
    match = play_to_the_end(match, users)
    RatingChange.objects.all().delete()
    Rating.objects.all().delete()
    barrier = threading.Barrier(3)
    errors = []

    def finish_again() -> None:
        barrier.wait()
        try:
            with transaction.atomic():
                locked = Match.objects.select_for_update().get(pk=match.pk)
                rate_finished_match(Match, match=locked)
        except Exception as failure:
            errors.append(failure)
        finally:
            connection.close()

    threads = [threading.Thread(target=finish_again) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert RatingChange.objects.filter(match=match).count() == 2
    assert list(Rating.objects.values_list("matches", flat=True)) == [1, 1]
