"""The statements of a move built once (games/rows.py) read and write exactly what the ORM does."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from django.db import connection, transaction
from django.db.models.signals import pre_save
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import rows, services
from games.models import Match, Move, Seat

from ..db_prepared import without_prepared_statements
from .factories import make_user, play_one_move, started_table

pytestmark = pytest.mark.django_db


def field_values(instance) -> dict:
    return {f.attname: getattr(instance, f.attname) for f in type(instance)._meta.concrete_fields}


def friendly_table_with_a_bot() -> tuple[Match, list]:
    creator, friend = make_user(), make_user()
    match = services.create_table(creator, "part-du-chef", seats=3)
    services.join_table(friend, match.pk)
    services.add_bot(creator, match.pk, 1)
    match = Match.objects.get(pk=match.pk)
    return play_one_move(match, [creator, friend], random.Random(2)), [creator, friend]


def test_a_read_gives_the_match_seats_and_players_the_orm_gives():
    match, _users = friendly_table_with_a_bot()
    expected = Match.objects.prefetch_related(services.seats_with_players()).get(pk=match.pk)
    with CaptureQueriesContext(connection) as read:
        found = rows.match_with_seats(match.pk)
        seats = list(found.seats.all())
        players = [seat.user for seat in seats]
        back = [seat.match for seat in seats]
    assert len(read.captured_queries) == 1
    assert field_values(found) == field_values(expected)
    assert found.state == expected.state and isinstance(found.state, dict)
    assert [field_values(s) for s in seats] == [field_values(s) for s in expected.seats.all()]
    assert [p and field_values(p) for p in players] == [
        s.user and field_values(s.user) for s in expected.seats.all()
    ]
    assert sum(p is None for p in players) == 1  # the bot's seat
    assert all(m is found for m in back)
    assert not found._state.adding and found._state.db == "default"


def test_filtering_the_seats_read_asks_about_this_match_only():
    match, _users = friendly_table_with_a_bot()
    started_table()  # other seats, of another match
    found = rows.match_with_seats(match.pk)
    assert found.seats.filter(user__isnull=False).count() == 2
    assert found.seats.count() == 3


def test_a_missing_match_or_an_impossible_key_reads_nothing():
    assert rows.match_with_seats(10**9) is None
    assert rows.match_with_seats(10**30) is None  # past the column's range: no overflow
    with pytest.raises((ValueError, TypeError)):
        rows.match_with_seats("seven")
    assert services.read_table("seven") is None


def test_an_open_table_without_seats_reads_with_none():
    match, _users = started_table()
    Seat.objects.filter(match=match).delete()
    found = rows.match_with_seats(match.pk)
    assert found.pk == match.pk and list(found.seats.all()) == []


def test_a_locked_read_locks_the_match_row():
    match, _users = started_table()
    with CaptureQueriesContext(connection) as read, transaction.atomic():
        rows.match_with_seats(match.pk, lock=True)
    select = next(q["sql"] for q in read.captured_queries if q["sql"].startswith("SELECT"))
    assert ("FOR UPDATE" in select) == connection.features.has_select_for_update


def test_saving_a_match_writes_what_save_writes():
    match, _users = started_table(mode="ranked", turn_seconds=60)
    by_rows, by_orm = Match.objects.get(pk=match.pk), Match.objects.get(pk=match.pk)
    for each in (by_rows, by_orm):
        each.version += 3
        each.state = {**each.state, "note": ["é", 1.5, None]}
        each.deadline = timezone.now().replace(microsecond=123456)
        each.step, each.step_version, each.had_first_move = "pick", 7, True
    rows.save_match(by_rows)
    written_by_rows = field_values(Match.objects.get(pk=match.pk))
    by_orm.save()
    assert written_by_rows == field_values(Match.objects.get(pk=match.pk))
    assert written_by_rows["state"]["note"] == ["é", 1.5, None]


def test_saving_a_match_with_a_save_receiver_goes_through_save():
    match, _users = started_table()
    heard = []

    def receiver(**kwargs):
        heard.append(kwargs["instance"].pk)

    pre_save.connect(receiver, sender=Match)
    try:
        rows.save_match(match)
    finally:
        pre_save.disconnect(receiver, sender=Match)
    assert heard == [match.pk]


def test_inserting_moves_writes_what_bulk_create_writes():
    match, _users = started_table()
    now = timezone.now()

    def moves(start: int) -> list[Move]:
        return [
            Move(match=match, number=start, seat=0, payload={"take": 1}, description=None),
            Move(
                match=match,
                number=start + 1,
                seat=-1,
                payload=[3, "x"],
                description={"text": "ça", "n": 2},
                by_bot=True,
                created_at=now,
            ),
        ]

    rows.insert_moves(moves(100))
    Move.objects.bulk_create(moves(200))
    written = {m.number: m for m in Move.objects.filter(match=match, number__gte=100)}
    for number in (0, 1):
        mine, orms = field_values(written[100 + number]), field_values(written[200 + number])
        for values in (mine, orms):
            values.pop("id"), values.pop("number")
            if number == 0:
                values.pop("created_at")  # each Move() took its own now
        assert mine == orms


def prepared_statements() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        # Less this very read, prepared once this helper has run it twice on the connection.
        return [s for (s,) in cursor.fetchall() if "FROM pg_prepared_statements" not in s]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL prepares statements")
def test_a_moves_statements_are_prepared_once_per_connection_on_postgresql():
    match, users = friendly_table_with_a_bot()
    with transaction.atomic():  # one connection for all (the pool lends one per atomic block)
        for _ in range(3):
            match = play_one_move(match, users, random.Random(3))
        rows.match_with_seats(match.pk)
        first = prepared_statements()
        for _ in range(3):
            rows.match_with_seats(match.pk)
        again = prepared_statements()
    # One per statement and types of its values (a value None, a small or a large number).
    texts = {s for s in first if '"games_match"' in s or '"games_move"' in s}
    kinds = Counter("locked read" if "FOR UPDATE" in s else s.split(None, 1)[0] for s in texts)
    assert kinds == {"locked read": 1, "SELECT": 1, "UPDATE": 1, "INSERT": kinds["INSERT"]}
    assert kinds["INSERT"] >= 1  # one per number of moves inserted at once
    assert all("$1" in s for s in texts)
    assert sorted(again) == sorted(first)  # run again, nothing is prepared again


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL prepares statements")
def test_without_prepared_statements_nothing_is_prepared(monkeypatch):
    match, users = friendly_table_with_a_bot()
    with transaction.atomic():
        without_prepared_statements(monkeypatch)
        before = prepared_statements()
        play_one_move(match, users, random.Random(3))
        assert prepared_statements() == before
