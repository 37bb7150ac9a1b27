"""A move's writes and its commit in one round trip (games/rows.py ``save_and_commit``): on
PostgreSQL a move sent its insert, its update and ``COMMIT`` each after the answer to the one
before. Together they must keep what the transaction promised: nothing is committed early
inside an outer transaction, a write that fails commits nothing, and the doorbell still rings
after the commit."""

from __future__ import annotations

import random

import pytest
from django.db import IntegrityError, connection, transaction

from games.models import Match, Move

from .factories import play_one_move, started_table

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="a psycopg pipeline"),
]


class Rollback(Exception):
    pass


def test_a_moves_writes_and_commit_go_together_and_the_doorbell_rings_after(monkeypatch, rung):
    match, users = started_table()
    rung.clear()  # the table's opening rang too
    before = Move.objects.filter(match=match).count()
    connection.ensure_connection()
    raw = connection.connection
    found_at_commit = []
    commit = raw.commit

    def recorded() -> None:
        found_at_commit.append(raw.pgconn.transaction_status)
        commit()

    monkeypatch.setattr(raw, "commit", recorded)
    played = play_one_move(match, users, random.Random(4))
    from psycopg.pq import TransactionStatus

    # Django's commit found the transaction committed already, with the writes.
    assert found_at_commit == [TransactionStatus.IDLE]
    assert rung == [(match.pk, played.version)]
    assert Match.objects.get(pk=match.pk).version == played.version == match.version + 1
    assert Move.objects.filter(match=match).count() > before


def test_inside_an_outer_transaction_a_move_commits_nothing(rung):
    match, users = started_table()
    rung.clear()  # the table's opening rang too
    moves = Move.objects.filter(match=match).count()
    with pytest.raises(Rollback), transaction.atomic():
        play_one_move(match, users, random.Random(4))
        raise Rollback
    assert Match.objects.get(pk=match.pk).version == match.version
    assert Move.objects.filter(match=match).count() == moves
    assert rung == []


def test_a_write_that_fails_commits_nothing_and_the_connection_goes_on(rung):
    match, users = started_table()
    rung.clear()  # the table's opening rang too
    # The number the move will take is already written: its insert fails.
    Move.objects.create(match=match, number=len(match.state["log"]), seat=0, payload={})
    with pytest.raises(IntegrityError):
        play_one_move(match, users, random.Random(4))
    assert Match.objects.get(pk=match.pk).version == match.version
    assert rung == []
    Move.objects.filter(match=match, number=len(match.state["log"])).delete()
    played = play_one_move(match, users, random.Random(4))
    assert Match.objects.get(pk=match.pk).version == played.version == match.version + 1
