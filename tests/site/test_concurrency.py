"""The same move sent several times at once is accepted exactly once."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from games import services
from games.engines import get_engine
from games.models import Match, Move

from ..services_required import require_postgres
from .factories import started_table


def submit_concurrently(match: Match, user, move: dict, copies: int) -> list[str]:
    barrier = threading.Barrier(copies)
    outcomes: list[str] = []

    def submit() -> None:
        barrier.wait()
        try:
            services.play(match.pk, user, move, match.version)
            outcomes.append("accepted")
        except services.ServiceError as refusal:
            outcomes.append(type(refusal).__name__)
        except Exception as failure:  # anything else is a bug the test must show
            outcomes.append(repr(failure))
        finally:
            connection.close()

    threads = [threading.Thread(target=submit) for _ in range(copies)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_copies_of_a_move_are_accepted_exactly_once_on_postgresql():
    require_postgres()
    match, users = started_table(players=3)
    chef = get_engine(match.game).to_move(match.state)[0]
    moves_before = Move.objects.filter(match=match).count()
    outcomes = submit_concurrently(match, users[chef], {"cut": [0, 4, 8]}, copies=4)
    assert outcomes.count("accepted") == 1
    assert set(outcomes) - {"accepted"} <= {"NotAllowed", "Conflict"}
    assert Move.objects.filter(match=match).count() == moves_before + 1
    assert Match.objects.get(pk=match.pk).version == match.version + 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_copies_of_a_move_are_accepted_exactly_once_on_the_embedded_database():
    if connection.vendor != "sqlite":
        pytest.skip("the PostgreSQL variant above covers this database")
    match, users = started_table(players=3)
    chef = get_engine(match.game).to_move(match.state)[0]
    outcomes = submit_concurrently(match, users[chef], {"cut": [0, 4, 8]}, copies=3)
    assert outcomes.count("accepted") == 1
    assert set(outcomes) - {"accepted"} <= {"NotAllowed", "Conflict"}
    assert Match.objects.get(pk=match.pk).version == match.version + 1
