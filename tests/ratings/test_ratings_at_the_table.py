"""Issue 12: ratings next to the players' names at ranked tables, and each player's Elo change in
the result (the ratings app computes them; the table and the API show them)."""

from __future__ import annotations

import pytest
from django.test import Client

from games import rendering, services
from games.models import Match
from players.models import ApiToken
from ratings.models import Rating
from tests.site.factories import make_user, play_to_the_end, players_by_seat

pytestmark = pytest.mark.django_db


def bearer(user) -> dict[str, str]:
    _, raw = ApiToken.issue(user, "test")
    return {"HTTP_AUTHORIZATION": f"Bearer {raw}"}


def ranked_pair(first_rating: float | None = None) -> tuple[Match, list]:
    """A ranked Café Fatal match of two players (the first with ``first_rating``, if given), and
    its players by seat."""
    first, second = make_user(), make_user()
    if first_rating is not None:
        Rating.objects.create(user=first, game="cafe-fatal", value=first_rating, matches=30)
    match = services.create_table(first, "cafe-fatal", mode="ranked", seats=2)
    match = services.join_table(second, match.pk)
    return match, players_by_seat(match)


def api_seats(match: Match, user) -> list[dict]:
    return Client().get(f"/api/tables/{match.pk}", **bearer(user)).json()["seats"]


def test_a_ranked_table_shows_each_players_rating_rounded_and_1500_for_a_newcomer():
    match, users = ranked_pair(first_rating=1612.4)
    veteran = next(u for u in users if u.ratings.exists())
    expected = {u.username: 1612 if u == veteran else 1500 for u in users}
    seats = api_seats(match, users[0])
    assert {s["player"]: s["elo"] for s in seats} == expected
    assert [s["elo_change"] for s in seats] == [None, None]
    html = rendering.table_fragments(match, users[0])
    assert html.count('data-testid="elo"') == 2
    assert ">1612</span>" in html and ">1500</span>" in html


def test_a_friendly_table_shows_no_ratings():
    first, second = make_user(), make_user()
    match = services.create_table(first, "cafe-fatal", seats=2)
    match = services.join_table(second, match.pk)
    assert [s["elo"] for s in api_seats(match, first)] == [None, None]
    assert 'data-testid="elo"' not in rendering.table_fragments(match, first)


def test_the_result_shows_each_players_elo_change():
    """Two newcomers (K = 60 for a first match, x1 for two players, expected score 1/2): the one
    who stayed gains 60 x (1 - 1/2) = +30, the one who resigned loses 30."""
    match, users = ranked_pair()
    quitter, stayer = users
    services.resign(quitter, match.pk)
    match = play_to_the_end(Match.objects.get(pk=match.pk), users)
    assert match.status == Match.Status.FINISHED
    seats = {s["player"]: s for s in api_seats(match, stayer)}
    assert (seats[stayer.username]["elo"], seats[stayer.username]["elo_change"]) == (1500, 30.0)
    assert (seats[quitter.username]["elo"], seats[quitter.username]["elo_change"]) == (1500, -30.0)
    context = rendering.table_context(match, stayer)
    assert context["result"]["rated"] is True
    changes = {row["name"]: row["facts"]["elo_change_text"] for row in context["result"]["rows"]}
    assert changes == {stayer.username: "+30", quitter.username: "-30"}
    html = rendering.table_fragments(match, stayer)
    assert html.count('data-testid="elo-change"') == 2
    assert "(1500 → 1530)" in html and "(1500 → 1470)" in html


def test_the_elo_change_shows_in_every_language_with_plain_digits():
    match, users = ranked_pair(first_rating=1612.4)
    services.resign(users[0], match.pk)
    match = play_to_the_end(Match.objects.get(pk=match.pk), users)
    from django.utils import translation

    with translation.override("de"):
        html = rendering.table_fragments(match, users[1])
    assert ">1612</span>" in html or "(1612 →" in html
    assert "1.612" not in html
