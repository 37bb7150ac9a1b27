"""Timestamps read by the statements built once (games/rows.py) through psycopg's own loader
where it gives exactly what Django's gives: the same instant with the same ``tzinfo`` object.
Django's loader (Python) read each of the twenty-odd timestamps of a move's locked read; psycopg's
(C) is used only when the session's time zone is Django's own."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from games import rows
from games.models import Match

from .factories import play_one_move, started_table

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="psycopg's loaders"),
]


def timestamps(instance) -> dict:
    return {
        f.attname: getattr(instance, f.attname)
        for f in type(instance)._meta.concrete_fields
        if f.get_internal_type() == "DateTimeField"
    }


def timestamptz_loader(cursor) -> type:
    from psycopg.pq import Format

    oid = cursor.adapters.types["timestamptz"].oid
    return cursor.adapters.get_loader(oid, Format.TEXT)


def prepared_cursor():
    connection.ensure_connection()
    if not rows.prepares(connection):
        pytest.skip("statements are not prepared (DATABASE_PREPARED=0)")
    return rows.prepared_cursor(connection)


def test_the_locked_read_gives_the_timestamps_the_orm_gives_with_the_same_zone():
    match, users = started_table()
    match = play_one_move(match, users, random.Random(3))
    Match.objects.filter(pk=match.pk).update(
        finished_at=timezone.now().replace(microsecond=654321) - timedelta(days=400)
    )
    expected = Match.objects.prefetch_related("seats__user").get(pk=match.pk)
    found = rows.match_with_seats(match.pk)
    assert timestamps(found) == timestamps(expected)
    pairs = [(found, expected)]
    for seat, want in zip(found.seats.all(), expected.seats.all(), strict=True):
        pairs += [(seat, want), (seat.user, want.user)]
    for got, want in pairs:
        for name, value in timestamps(want).items():
            assert getattr(got, name) == value
            if value is not None:
                assert getattr(got, name).tzinfo is value.tzinfo is connection.timezone


def test_the_prepared_cursor_reads_with_psycopgs_loader_when_the_zones_agree():
    cursor = prepared_cursor()
    assert not hasattr(timestamptz_loader(cursor), "timezone")  # not Django's loader
    cursor.execute("SELECT '2024-02-29 23:30:00.5+05'::timestamptz, NULL::timestamptz")
    ((value, none),) = cursor.fetchall()
    with connection.cursor() as django_cursor:
        django_cursor.execute("SELECT '2024-02-29 23:30:00.5+05'::timestamptz")
        (djangos,) = django_cursor.fetchone()
    assert none is None
    assert value == djangos and value.tzinfo is djangos.tzinfo
    assert value.utcoffset() == djangos.utcoffset() and value.isoformat() == djangos.isoformat()


def test_a_session_in_another_zone_reads_through_djangos_loader():
    connection.ensure_connection()
    with connection.cursor() as django_cursor:
        django_cursor.execute("SET TIME ZONE 'Asia/Tokyo'")
    try:
        cursor = prepared_cursor()
        assert getattr(timestamptz_loader(cursor), "timezone", None) is connection.timezone
        cursor.execute("SELECT '2024-02-29 23:30:00+05'::timestamptz")
        (value,) = cursor.fetchone()
        with connection.cursor() as django_cursor:
            django_cursor.execute("SELECT '2024-02-29 23:30:00+05'::timestamptz")
            (djangos,) = django_cursor.fetchone()
        # Whatever Django makes of it (its loader assumes the session is in its zone).
        assert value.tzinfo is djangos.tzinfo is connection.timezone
        assert value.isoformat() == djangos.isoformat()
    finally:
        with connection.cursor() as django_cursor:
            # As Django sets it (``SET`` takes no value bound on the server).
            django_cursor.execute(
                "SELECT set_config('TimeZone', %s, false)", [connection.timezone_name]
            )
