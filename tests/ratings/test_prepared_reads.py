"""A page's reads sent together (players/together.py) go on PostgreSQL as one pipeline of
statements prepared once per connection: the busiest profile's statements were parsed and
planned on every read, and planning was about half of their time. The rows, the query count
and what Django logs are those of the one string bound on the client."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext

from players import profile
from players.together import read_together
from ratings import ladder
from ratings.models import Rating

from ..db_prepared import without_prepared_statements
from ..site.factories import make_user
from ..site.test_rows import prepared_statements

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL prepares"),
]


@pytest.fixture
def player():
    user = make_user("ann")
    for game, value in (("part-du-chef", 1500.0), ("pizza-party", 1320.5)):
        Rating.objects.create(user=user, game=game, value=value, matches=12, wins=3)
    return user


def profile_statements(target, viewer) -> list:
    return [
        ladder.player_ratings_sql(target.pk),
        profile.recent_sql(target),
        ladder.rating_history_sql(target),
        profile.link_sql(viewer, target),
        ("SELECT %s::text, %s, NULL", ["it's", 12.5]),
    ]


def test_a_profiles_reads_are_prepared_once_per_connection(player):
    viewer = make_user("bob")
    client = Client()
    client.force_login(viewer)
    ladder._kept_standings.clear()
    with CaptureQueriesContext(connection) as first:
        assert client.get("/players/ann/").status_code == 200
    prepared = prepared_statements()
    recent = [s for s in prepared if "WITH recent AS" in s]
    assert len(recent) == 1 and "$1" in recent[0]
    with CaptureQueriesContext(connection) as again:
        assert client.get("/players/ann/").status_code == 200
    assert len(first.captured_queries) == len(again.captured_queries) == 4
    # The kept standings' two statements are new; nothing read before is prepared again.
    assert set(prepared) <= set(prepared_statements())


def test_prepared_reads_give_the_rows_and_log_of_the_string_bound_on_the_client(
    player, monkeypatch
):
    viewer = make_user("bob")
    reads = profile_statements(player, viewer)
    with CaptureQueriesContext(connection) as pipelined:
        found = read_together(reads)
    without_prepared_statements(monkeypatch)
    with CaptureQueriesContext(connection) as bound:
        expected = read_together(reads)
    assert found == expected and found[-1] == [("it's", 12.5, None)]
    assert [q["sql"] for q in pipelined.captured_queries] == [
        q["sql"] for q in bound.captured_queries
    ]
    assert len(pipelined.captured_queries) == 1


def test_a_failing_read_raises_djangos_error_and_the_connection_goes_on(player):
    with pytest.raises(DatabaseError), transaction.atomic():
        read_together([ladder.player_ratings_sql(player.pk), ("SELECT 1 / %s", [0])])
    assert read_together([ladder.player_ratings_sql(player.pk)])[0][0][0] == "part-du-chef"
