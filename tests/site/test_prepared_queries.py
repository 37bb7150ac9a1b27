"""Every query of the site binds its values on the server, and PostgreSQL prepares one that a
connection runs a second time (``DATABASE_PREPARED``, on by default with PostgreSQL)."""

from __future__ import annotations

import pytest
from django.db import connection

from games.models import Match

from .factories import started_table
from .test_collector import what_a_server_process_reports
from .test_rows import prepared_statements

pytestmark = pytest.mark.django_db

POSTGRES = "postgres://postgres@127.0.0.1:5432/unused"


def options_in_a_process(**env: str) -> dict:
    """The database's options as a fresh process of the site reads them, with ``env`` set."""
    return what_a_server_process_reports(
        "{k: v for k, v in settings.DATABASES['default']['OPTIONS'].items() if k != 'pool'}",
        unset=("DATABASE_PREPARED",),
        env=env,
        imports="from django.conf import settings",
    )


def test_on_postgresql_queries_bind_on_the_server_and_are_prepared_from_their_second_run():
    assert options_in_a_process(DATABASE_URL=POSTGRES) == {
        "server_side_binding": True,
        "prepare_threshold": 1,
    }


def test_with_database_prepared_0_the_site_keeps_djangos_defaults():
    assert options_in_a_process(DATABASE_URL=POSTGRES, DATABASE_PREPARED="0") == {}


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL prepares statements")
def test_a_query_a_connection_runs_a_second_time_is_prepared():
    match, _users = started_table(players=3)

    def version_of_the_table() -> tuple:
        return Match.objects.filter(pk=match.pk).values_list("version", "deadline").first()

    def prepared() -> list[str]:
        shape = 'SELECT "games_match"."version" AS "version", "games_match"."deadline" AS'
        return [s for s in prepared_statements() if s.startswith(shape)]

    version_of_the_table()
    assert prepared() == []  # a query run once (a migration's, say) is not prepared
    version_of_the_table()
    assert len(prepared()) == 1 and "$1" in prepared()[0]
    version_of_the_table()
    assert len(prepared()) == 1  # and never again on this connection


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL prepares statements")
def test_a_change_that_sends_several_statements_at_once_still_runs():
    # What a migration's schema change does (an added foreign key sends its constraint check
    # with it): values bound on the server cannot go with several statements, none are here.
    with connection.cursor() as cursor:
        cursor.execute("CREATE TEMPORARY TABLE several (n integer); INSERT INTO several VALUES (1)")
        cursor.execute("SELECT n FROM several")
        assert cursor.fetchall() == [(1,)]
