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
from players.together import read_together
from ratings import buckets, ladder
from ratings.models import Rating

from ..site.factories import make_user, play_to_the_end

pytestmark = pytest.mark.django_db(transaction=True)

GAME = "part-du-chef"
PATH = f"/rankings/{GAME}/"


@pytest.fixture(autouse=True)
def nothing_kept_from_earlier_tests():
    # Which pages the process kept, and with which generations, decide whether a page's query
    # or the changes since go with the generation's: none from earlier tests.
    ladder._kept.clear()


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
    # A visitor's page: the generation, the page's query and the generation again (one round
    # trip on PostgreSQL, three statements on SQLite); kept, the generation and the changes
    # since (two statements on SQLite).
    postgres = connection.vendor == "postgresql"
    together, checked = (1, 1) if postgres else (3, 2)
    assert (read, kept) == (together, checked)
    assert without_tokens(again) == without_tokens(first) and rows_of(first) == ["ann", "bob"]

    write_from_another_connection(
        f"UPDATE {Rating._meta.db_table} SET value = %s WHERE user_id = %s", [1600.0, bob.pk]
    )
    changed, read = get(visitor)
    # Bob, on the page, moved: the changes since said so, and the page's query (and the
    # generation) went afterwards.
    assert (
        read == checked + (1 if postgres else 2)
        and rows_of(changed) == ["bob", "ann"]
        and elos_of(changed) == [1600, 1500]
    )
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


# --- pages kept across the ratings that moved since (ladder.carried_page) ---------------------


def move(user, value: float) -> None:
    """A rating moved as a rated match moves it, committed by another connection."""
    write_from_another_connection(
        f"UPDATE {Rating._meta.db_table} SET value = %s WHERE user_id = %s", [value, user.pk]
    )


def test_a_page_is_still_served_after_a_rating_moved_where_it_changes_no_rank_on_it():
    for i in range(3):
        rate(f"top{i}", 1900.0 - i)
    low = rate("low", 1200.0)
    kept = ladder.kept_ladder_page(generation_now(), GAME, size=3)
    move(low, 1250.0)  # below every rating of a page of the three best: no rank on it changes
    generation = generation_now()
    with CaptureQueriesContext(connection) as captured:
        served = ladder.kept_ladder_page(generation, GAME, size=3)
    # Only the changes since were read (the generation is the caller's), not the page.
    assert len(captured.captured_queries) == 1 and served is kept
    assert served == ladder.ladder_page(GAME, size=3)


def test_a_player_the_page_does_not_keep_passing_its_rows_moves_their_ranks_without_a_read():
    _ann, bob, cid = rate("ann", 1600.0), rate("bob", 1500.0), rate("cid", 1400.0)
    kept = ladder.kept_ladder_page(generation_now(), GAME, search="ann")
    move(cid, 1700.0)  # not an "ann": passes her, and she is second now
    generation = generation_now()
    with CaptureQueriesContext(connection) as captured:
        served = ladder.kept_ladder_page(generation, GAME, search="ann")
    assert len(captured.captured_queries) == 1  # the changes since, not the page
    assert [row.rank for row in kept.rows] == [1] and [row.rank for row in served.rows] == [2]
    assert served == ladder.ladder_page(GAME, search="ann")
    assert bob


def test_a_player_the_page_keeps_passing_its_rows_reads_the_page_again():
    ann, anna = rate("ann", 1600.0), rate("anna", 1400.0)
    ladder.kept_ladder_page(generation_now(), GAME, search="ann", size=1)
    move(anna, 1700.0)  # an "ann" too: she takes the first place of the search
    served = ladder.kept_ladder_page(generation_now(), GAME, search="ann", size=1)
    assert [(row.username, row.rank) for row in served.rows] == [("anna", 1)]
    assert ann


def test_a_rating_moving_to_a_value_on_the_page_reads_it_again_as_ties_share_a_rank():
    ann, bob = rate("ann", 1600.0), rate("bob", 1400.0)
    visitor = Client()
    search = f"{PATH}?q=ann"
    get(visitor, search)
    move(bob, 1600.0)  # ties with ann: she keeps rank 1 (ties share the best rank)
    get(visitor, search)
    move(bob, 1600.5)  # now above her
    get(visitor, search)
    kept = ladder.kept_ladder_page(generation_now(), GAME, search="ann")
    assert (
        [row.rank for row in kept.rows]
        == [2]
        == [row.rank for row in ladder.ladder_page(GAME, search="ann").rows]
    )
    assert ann


def test_a_player_on_the_page_whose_rating_moved_is_shown_anew():
    ann, bob = rate("ann", 1600.0), rate("bob", 1400.0)
    visitor = Client()
    get(visitor)
    write_from_another_connection(
        f"UPDATE {Rating._meta.db_table} SET matches = matches + 1 WHERE user_id = %s", [bob.pk]
    )
    page = ladder.kept_ladder_page(generation_now(), GAME)
    assert [row.matches for row in page.rows] == [20, 21]
    assert ann


def generation_now() -> ladder.Generation:
    sql, params = ladder.generation_sql(GAME)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return ladder.generation_from(cursor.fetchall())


def changes_since(since: ladder.Generation) -> list[tuple]:
    sql, params = ladder.changes_since_sql(GAME, since)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def test_changes_that_do_not_add_up_to_the_generation_or_name_no_player_keep_nothing():
    ann = rate("ann", 1600.0)
    low = rate("low", 1200.0)
    since = generation_now()
    page = ladder.ladder_page(GAME, size=1)  # ann alone
    move(low, 1210.0)
    now, found = generation_now(), changes_since(since)
    assert ladder.carried_page(page, since, now, found) is page
    # A write that committed late, with a lower id than the generation's highest, adds to the
    # sum without a row above that id: the sums no longer agree.
    late = [(total + 1, highest, *rest) for total, highest, *rest in found]
    assert ladder.carried_page(page, since, (now[0] + 1, now[1]), late) is None
    # Changes read at another generation than the page's caller's tell nothing.
    assert ladder.carried_page(page, since, (now[0] + 1, now[1]), found) is None
    rate("new", 1100.0)  # an insert says no player: what it changed is not known
    assert ladder.carried_page(page, since, generation_now(), changes_since(since)) is None
    buckets.fold(GAME)  # a fold's row says no player either
    since = generation_now()
    move(low, 1220.0)
    buckets.fold(GAME)
    assert ladder.carried_page(page, since, generation_now(), changes_since(since)) is None
    assert ann


def test_pages_kept_across_random_moves_are_the_pages_read_afresh():
    """Whatever moved, a page served from what was kept is the page a fresh read gives: ranks,
    rows, totals, for plain pages, searches and friends' pages."""
    rng = __import__("random").Random(10)
    users = [rate(f"{'ab'[i % 2]}cook{i:02}", 1400.0 + rng.randrange(0, 60) / 2) for i in range(40)]
    friend_ids = [u.pk for u in users[::3]]
    pages = [
        {"page": 1, "size": 7},
        {"page": 3, "size": 7},
        {"page": 1, "size": 5, "search": "bcook"},
        {"page": 2, "size": 5, "search": "a"},
        {"page": 1, "size": 5, "only_user_ids": friend_ids},
    ]
    for step in range(30):
        mover = rng.choice(users)
        move(mover, 1400.0 + rng.randrange(0, 60) / 2)
        generation = generation_now()
        for asked in pages:
            served = ladder.kept_ladder_page(generation, GAME, **asked)
            fresh = ladder.ladder_page(GAME, **asked)
            assert served == fresh, (step, asked)


def test_a_page_read_while_the_ladder_moved_on_is_not_kept():
    """A page read a moment after its generation may already show a rating that moved since:
    carried forward from that generation, its ranks would move twice. It is kept only when the
    generation read again after it is the same."""
    rate("ann", 1600.0)
    generation = generation_now()
    read = ladder.kept_page_read(GAME)
    page_rows, _after = read_together(read.statements)
    moved_on = [[(generation[0] + 1, (generation[1] or 0) + 1)]]
    ladder.kept_page(read, generation, [page_rows, *moved_on])
    assert ladder.kept_page_read(GAME).kept is None
    ladder.kept_page(read, generation, [page_rows, [generation]])
    assert ladder.kept_page_read(GAME).kept is not None
