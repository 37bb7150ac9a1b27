"""A move's insert and its match's update as one statement (games/rows.py
``_insert_then_update``), where a move commits with its last write (a real, outermost
transaction on PostgreSQL): every move row it brings is written, the match is saved as the ORM
reads it back, and a write that fails still commits nothing."""

from __future__ import annotations

import random

import pytest
from django.db import IntegrityError, connection
from django.test.utils import CaptureQueriesContext

from games import rows, services
from games.models import Match, Move

from .factories import make_user, play_one_move, started_table

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="a psycopg pipeline"),
]


def written(captured: CaptureQueriesContext) -> list[str]:
    return [
        q["sql"]
        for q in captured.captured_queries
        if q["sql"].lstrip().upper().startswith(("INSERT", "UPDATE", "WITH"))
    ]


def move_rows(match: Match) -> list[tuple]:
    return list(
        Move.objects.filter(match=match)
        .order_by("number")
        .values_list("number", "seat", "payload", "description", "by_bot")
    )


def test_a_moves_insert_and_update_go_as_one_statement():
    match, users = started_table()
    connection.ensure_connection()
    if not rows.prepares(connection):
        pytest.skip("statements are not prepared (DATABASE_PREPARED=0)")
    before = len(move_rows(match))
    with CaptureQueriesContext(connection) as captured:
        played = play_one_move(match, users, random.Random(6))
    statements = written(captured)
    assert len(statements) == 1
    assert statements[0].startswith("WITH") and "INSERT" in statements[0]
    assert "UPDATE" in statements[0]
    saved = Match.objects.get(pk=match.pk)
    assert (saved.version, saved.state, saved.deadline) == (
        played.version,
        played.state,
        played.deadline,
    )
    assert len(move_rows(match)) == len(saved.state["log"]) > before


def test_the_moves_a_move_brings_are_all_written_with_it():
    creator, friend = make_user(), make_user()
    match = services.create_table(creator, "part-du-chef", seats=3)
    services.join_table(friend, match.pk)
    services.add_bot(creator, match.pk, 1)
    match = Match.objects.get(pk=match.pk)
    rng = random.Random(8)
    brought = 0
    for _ in range(12):
        if not match.is_playing:
            break
        before = len(move_rows(match))
        match = play_one_move(match, [creator, friend], rng)
        after = move_rows(match)
        brought = max(brought, len(after) - before)
        assert [row[0] for row in after] == list(range(len(after)))
        assert len(after) == len(Match.objects.get(pk=match.pk).state["log"])
    assert brought > 1  # some move brought the bot's (or chance's) moves with it


def test_a_write_that_fails_commits_neither_the_moves_nor_the_match():
    match, users = started_table()
    match = play_one_move(match, users, random.Random(2))
    before = (Match.objects.get(pk=match.pk).version, move_rows(match))
    engine = services.engine_for(match)
    seat = engine.to_move(match.state)[0]
    user = next(u for u in users if match.seats.get(index=seat).user_id == u.pk)
    # The next move's number already taken: the insert fails inside the one statement.
    Move.objects.create(match=match, number=len(match.state["log"]), seat=seat, payload={})
    taken = move_rows(match)
    with pytest.raises(IntegrityError):
        services.play(
            match.pk, user, engine.random_move(match.state, seat, random.Random(1)), match.version
        )
    assert Match.objects.get(pk=match.pk).version == before[0]
    assert move_rows(match) == taken
