"""Ladder pages kept under the ladder's generation: read once per state of the ladder, never
served after a change of what they show, whoever made it and however (a rated match, a raw write
from another connection, a rename, a deleted player), and per viewer where they differ (friends).

These tests commit (``transaction=True``): inside a transaction nothing is kept, since what it
wrote may yet be rolled back."""

from __future__ import annotations

import re
import threading

import pytest
from django.db import connection, connections
from django.test import Client
from django.test.utils import CaptureQueriesContext

from games import services
from games.models import Match
from players import friends
from ratings import buckets, ladder
from ratings.models import Rating

from ..site.factories import make_user, play_to_the_end

pytestmark = pytest.mark.django_db(transaction=True)

GAME = "part-du-chef"
PATH = f"/rankings/{GAME}/"


@pytest.fixture(autouse=True)
def nothing_kept_from_earlier_tests():
    # Which pages the process kept, and under which generation it last read each ladder,
    # decide whether a page's query goes with the generation's: none from earlier tests.
    ladder._kept.clear()
    ladder._last_generation.clear()


def rate(name: str, value: float, matches: int = 20):
    user = make_user(name)
    Rating.objects.create(user=user, game=GAME, value=value, matches=matches)
    return user


def rows_of(html: str) -> list[str]:
    return re.findall(r'<tr data-player="([^"]+)"', html)


def elos_of(html: str) -> list[int]:
    return [int(elo) for elo in re.findall(r'data-testid="elo">(\d+)', html)]


def get(client: Client, path: str = PATH) -> tuple[str, int]:
    """The page's HTML and how many queries it took."""
    with CaptureQueriesContext(connection) as captured:
        response = client.get(path)
    assert response.status_code == 200
    return response.content.decode(), len(captured.captured_queries)


def write_from_another_connection(sql: str, params: list) -> None:
    """A write this process's code never sees: raw SQL, committed on another connection (as
    another process would)."""

    def write() -> None:
        try:
            with connections["default"].cursor() as cursor:
                cursor.execute(sql, params)
        finally:
            connections.close_all()

    thread = threading.Thread(target=write)
    thread.start()
    thread.join()


def test_a_page_is_read_once_until_a_rating_changes_and_the_next_page_shows_the_change():
    ann, bob = rate("ann", 1500.0), rate("bob", 1400.0)
    visitor = Client()
    first, read = get(visitor)
    again, kept = get(visitor)
    # A visitor's page: the generation, and the page's query with it (one round trip on
    # PostgreSQL, two statements on SQLite); kept, the generation only.
    together = 1 if connection.vendor == "postgresql" else 2
    assert (read, kept) == (together, 1)
    assert without_tokens(again) == without_tokens(first) and rows_of(first) == ["ann", "bob"]

    write_from_another_connection(
        f"UPDATE {Rating._meta.db_table} SET value = %s WHERE user_id = %s", [1600.0, bob.pk]
    )
    changed, read = get(visitor)
    # The page was kept under the generation before: its query went afterwards, on its own.
    assert read == 2 and rows_of(changed) == ["bob", "ann"] and elos_of(changed) == [1600, 1500]
    # A page not kept under the ladder's generation, the last one this process saw, goes with it.
    assert get(visitor, f"{PATH}?q=b")[1] == together

    ann.username = "anna"
    ann.save()
    assert rows_of(get(visitor)[0]) == ["bob", "anna"]
    bob.delete()
    assert rows_of(get(visitor)[0]) == ["anna"]
    # Folding the rows of changes changes no page (it only moves the generation on).
    buckets.fold(GAME)
    assert rows_of(get(visitor)[0]) == ["anna"]


def test_a_rated_match_shows_on_the_next_page_and_in_the_api():
    players = [rate(name, 1500.0) for name in ("ann", "bob", "cid")]
    visitor = Client()
    before = get(visitor)[0]
    api_before = visitor.get(f"/api/rankings/{GAME}").json()
    assert elos_of(before) == [1500, 1500, 1500]
    match = services.create_table(players[0], GAME, seats=3, mode="ranked")
    for user in players[1:]:
        services.join_table(user, match.pk, invite_code=match.invite_code)
    play_to_the_end(Match.objects.get(pk=match.pk), players, seed=3)
    after = get(visitor)[0]
    values = dict(Rating.objects.filter(game=GAME).values_list("name", "value"))
    expected = sorted(values, key=lambda name: -values[name])
    assert rows_of(after) == expected and elos_of(after) != elos_of(before)
    assert elos_of(after) == [round(values[name]) for name in expected]
    api_after = visitor.get(f"/api/rankings/{GAME}").json()
    assert api_after != api_before
    assert [row["elo"] for row in api_after["players"]] == elos_of(after)


def without_tokens(html: str) -> str:
    """The page without its CSRF tokens, which are masked afresh on every response."""
    html = re.sub(r'value="[A-Za-z0-9]{64}"', 'value="token"', html)
    return re.sub(r'"X-CSRFToken": "[A-Za-z0-9]{64}"', '"X-CSRFToken": "token"', html)


def test_a_kept_page_is_the_page_read_afresh():
    for i in range(120):
        Rating.objects.create(
            user=make_user(f"olive{i:03}"), game=GAME, value=1300.0 + 7 * (i % 40), matches=i % 13
        )
    viewer = Client()
    viewer.force_login(make_user("viewer"))
    paths = [PATH, f"{PATH}?page=2", f"{PATH}?page=99", f"{PATH}?q=olive01", "/rankings/"]
    kept = [without_tokens(get(viewer, path)[0]) for path in paths]
    assert [without_tokens(get(viewer, path)[0]) for path in paths] == kept
    ladder._kept.clear()
    assert [without_tokens(get(viewer, path)[0]) for path in paths] == kept


def test_friends_only_pages_are_each_viewers_own_and_follow_new_friends():
    me, other = rate("me", 1500.0), rate("other", 1450.0)
    pal, stranger = rate("pal", 1600.0), rate("stranger", 1700.0)
    friends.request_friend(me, pal)
    friends.accept(pal, me)
    mine, theirs = Client(), Client()
    mine.force_login(me)
    theirs.force_login(other)
    path = f"{PATH}?friends=1"
    for _ in range(2):  # read, then kept
        assert rows_of(get(mine, path)[0]) == ["pal", "me"]
        assert rows_of(get(theirs, path)[0]) == ["other"]
    friends.request_friend(other, stranger)
    friends.accept(stranger, other)
    assert rows_of(get(theirs, path)[0]) == ["stranger", "other"]
    assert rows_of(get(mine, path)[0]) == ["pal", "me"]
    friends.remove(me, pal)
    assert rows_of(get(mine, path)[0]) == ["me"]


def test_the_viewers_place_and_badge_are_read_on_every_page():
    me = rate("me", 1500.0)
    rate("ann", 1400.0)
    client = Client()
    client.force_login(me)
    assert "You are #1" in get(client)[0]
    write_from_another_connection(
        f"UPDATE {Rating._meta.db_table} SET value = %s WHERE user_id = %s", [1300.0, me.pk]
    )
    html = get(client)[0]
    assert "You are #2" in html and rows_of(html) == ["ann", "me"]
    friends.request_friend(make_user("asker"), me)
    assert '<span class="badge" aria-label="1 friend request">1</span>' in get(client)[0]
