"""The ladder's queries: order, ranks with ties, search, friends, pages, standings, history."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.utils import timezone

from games import services
from games.models import Match
from ratings import ladder
from ratings.ladder import ladder_page, level_for
from ratings.models import Rating, RatingChange

from ..site.factories import make_user, play_to_the_end, started_table

pytestmark = pytest.mark.django_db

GAME = "part-du-chef"


def rate(name: str, value: float, matches: int = 20, game: str = GAME, wins: int = 0):
    user = make_user(name)
    Rating.objects.create(user=user, game=game, value=value, matches=matches, wins=wins)
    return user


def ranks_and_names(page) -> list[tuple[int, str]]:
    return [(row.rank, row.username) for row in page.rows]


def test_the_ladder_is_best_first_and_tied_ratings_share_a_rank():
    rate("ann", 1550.0)
    rate("bob", 1600.2)
    rate("cid", 1550.0)
    rate("dan", 1400.0)
    page = ladder_page(GAME)
    # Ties keep their order of arrival (the id), so that pages never shuffle them.
    assert ranks_and_names(page) == [(1, "bob"), (2, "ann"), (2, "cid"), (4, "dan")]
    assert page.total == 4 and page.pages == 1 and page.number == 1
    assert [row.elo for row in page.rows] == [1600, 1550, 1550, 1400]


def test_a_tie_across_a_page_break_shares_the_rank_on_both_pages():
    rate("ann", 1700.0)
    rate("bob", 1600.0)
    rate("cid", 1600.0)
    rate("dan", 1600.0)
    rate("eve", 1500.0)
    first = ladder_page(GAME, 1, size=2)
    second = ladder_page(GAME, 2, size=2)
    third = ladder_page(GAME, 3, size=2)
    assert ranks_and_names(first) == [(1, "ann"), (2, "bob")]
    assert ranks_and_names(second) == [(2, "cid"), (2, "dan")]
    assert ranks_and_names(third) == [(5, "eve")]
    assert first.pages == 3 and first.has_next and not first.has_previous
    assert third.has_previous and not third.has_next


def test_other_games_do_not_count():
    rate("ann", 1500.0)
    rate("bob", 1900.0, game="pizza-party")
    assert ranks_and_names(ladder_page(GAME)) == [(1, "ann")]


@pytest.mark.parametrize(("asked", "shown"), [(0, 1), (-3, 1), (1, 1), (3, 3), (4, 3), (10_000, 3)])
def test_pages_out_of_range_are_clamped(asked, shown):
    for i in range(5):
        rate(f"p{i}", 1500.0 + i)
    page = ladder_page(GAME, asked, size=2)
    assert page.number == shown
    assert page.rows


def test_an_empty_ladder_has_one_empty_page():
    page = ladder_page(GAME, 7)
    assert (page.number, page.pages, page.total, page.rows) == (1, 1, 0, [])


def test_search_keeps_names_containing_the_text_with_their_whole_ladder_ranks():
    rate("pizzaiolo", 1800.0)
    rate("ann", 1700.0)
    rate("PizzaFan", 1600.0)
    rate("bob", 1600.0)
    rate("margherita", 1500.0)
    page = ladder_page(GAME, search="pizza")
    assert ranks_and_names(page) == [(1, "pizzaiolo"), (3, "PizzaFan")]
    assert page.total == 2
    assert ranks_and_names(ladder_page(GAME, search="RITA")) == [(5, "margherita")]


def test_search_treats_like_wildcards_as_plain_characters():
    rate("a_b", 1500.0)
    rate("axb", 1500.0)
    rate("100%", 1500.0)
    assert [r.username for r in ladder_page(GAME, search="a_b").rows] == ["a_b"]
    assert [r.username for r in ladder_page(GAME, search="0%").rows] == ["100%"]


def test_friends_only_keeps_the_given_players_with_their_whole_ladder_ranks():
    ann = rate("ann", 1700.0)
    rate("bob", 1650.0)
    cid = rate("cid", 1650.0)
    rate("dan", 1600.0)
    eve = rate("eve", 1500.0)
    page = ladder_page(GAME, only_user_ids={ann.pk, cid.pk, eve.pk})
    assert ranks_and_names(page) == [(1, "ann"), (2, "cid"), (5, "eve")]
    assert ladder_page(GAME, only_user_ids=set()).rows == []


def test_filtered_ranks_match_a_count_of_everyone_above_on_random_ladders():
    rng = random.Random(7)
    users = [
        rate(f"r{i}", rng.choice([1400.0, 1450.5, 1500.0, rng.uniform(1000, 2000)]))
        for i in range(120)
    ]
    values = {u.pk: Rating.objects.get(user=u).value for u in users}
    chosen = set(rng.sample(sorted(values), 60))
    for number in (1, 2):
        for row in ladder_page(GAME, number, only_user_ids=chosen, size=25).rows:
            assert row.rank == 1 + sum(v > row.value for v in values.values())
    for row in ladder_page(GAME, 2, size=50).rows:
        assert row.rank == 1 + sum(v > row.value for v in values.values())


def test_provisional_means_fewer_than_ten_rated_matches():
    rate("new", 1500.0, matches=9)
    rate("old", 1500.0, matches=10)
    flags = {row.username: row.provisional for row in ladder_page(GAME).rows}
    assert flags == {"new": True, "old": False}


@pytest.mark.parametrize(
    ("value", "level"),
    [
        (900.0, "Commis"),
        (1299.4, "Commis"),
        (1299.6, "Chef de partie"),
        (1499.0, "Chef de partie"),
        (1500.0, "Sous-chef"),
        (1700.0, "Chef"),
        (1899.0, "Chef"),
        (1900.0, "Grand chef"),
        (2600.0, "Grand chef"),
    ],
)
def test_levels_follow_the_shown_rating(value, level):
    assert level_for(value) == level


@pytest.mark.parametrize("rows", [1, 60])
def test_a_ladder_page_takes_one_query_and_three_past_the_last_page(
    rows, django_assert_num_queries
):
    users = [rate(f"q{i}", 1500.0 + i % 7) for i in range(rows)]
    viewer = users[0].pk
    # With one player, page 2 is past the last page: the ladder is counted and read again.
    with django_assert_num_queries(1 if rows > 20 else 3):
        ladder_page(GAME, 2, size=20, viewer_id=viewer)
    with django_assert_num_queries(1):
        ladder_page(GAME, 2, search="q1", size=20, viewer_id=viewer)
    with django_assert_num_queries(1):
        ladder_page(GAME, 2, only_user_ids={u.pk for u in users}, size=20, viewer_id=viewer)
    with django_assert_num_queries(1):
        ladder_page(GAME, 9, only_user_ids=Rating.objects.values("user_id"), viewer_id=viewer)


def test_standings_give_each_rated_game_with_its_rank_in_one_query(
    django_assert_num_queries,
):
    ann = rate("ann", 1600.0, matches=3, wins=2)
    rate("bob", 1700.0)
    Rating.objects.create(user=ann, game="cafe-fatal", value=1450.0, matches=30, wins=11)
    with django_assert_num_queries(1):
        standings = ladder.standings(ann)
    assert set(standings) == {GAME, "cafe-fatal"}
    assert (standings[GAME].rank, standings[GAME].elo, standings[GAME].provisional) == (
        2,
        1600,
        True,
    )
    assert (standings["cafe-fatal"].rank, standings["cafe-fatal"].wins) == (1, 11)
    assert ladder.rank_of(GAME, 1600.0) == 2


def _change(user, match, after: float, when) -> RatingChange:
    return RatingChange.objects.create(
        match=match, user=user, game=match.game, before=1500, after=after, delta=after - 1500,
        rank=1, created_at=when,
    )  # fmt: skip


def test_rating_history_keeps_the_last_matches_of_each_game_oldest_first():
    ann, bob = make_user(), make_user()
    now = timezone.now()
    matches = [Match.objects.create(game=GAME, seats_count=2) for _ in range(5)]
    for i, m in enumerate(matches):
        _change(ann, m, 1500.0 + i, now - timedelta(days=5 - i))
    other = Match.objects.create(game="cafe-fatal", seats_count=2)
    _change(ann, other, 1490.0, now)
    _change(bob, matches[0], 1400.0, now)
    history = ladder.rating_history(ann, per_game=3)
    assert [value for _, value in history[GAME]] == [1502.0, 1503.0, 1504.0]
    assert [value for _, value in history["cafe-fatal"]] == [1490.0]


def test_recent_matches_are_finished_public_ones_newest_first_with_the_rating_change():
    match, users = started_table(players=2, mode="ranked")
    match = play_to_the_end(match, users)
    friend = make_user()
    friendly = services.create_table(users[0], GAME, seats=2)
    services.join_table(friend, friendly.pk)
    friendly = play_to_the_end(Match.objects.get(pk=friendly.pk), [users[0], friend])
    hidden, others = started_table(players=2, private=True)
    play_to_the_end(hidden, others)
    recent = ladder.recent_matches(users[0])
    assert [m.pk for m in recent] == [friendly.pk, match.pk]
    change = RatingChange.objects.get(match=match, user=users[0])
    assert recent[1].rating_delta == pytest.approx(change.delta)
    assert recent[0].rating_delta is None
    assert ladder.recent_matches(others[0]) == []
    assert ladder.recent_matches(make_user()) == []


@pytest.mark.parametrize("name", ["ann", "a.b+c-d_e@f", "émile"])
def test_a_ladder_row_links_to_the_profile_as_the_url_tag_would(name):
    from django.urls import reverse

    rate(name, 1500.0)
    (row,) = ladder_page(GAME).rows
    assert row.profile_url == reverse("profile", args=[name])


def test_the_rows_the_page_prints_say_what_the_ladder_rows_say():
    from django.utils import translation

    for i, value in enumerate([1299.6, 1499.4, 1950.0]):
        rate(f"cook{i}", value, matches=8 + i)
    page = ladder_page(GAME)
    with translation.override("fr"):
        shown = ladder.display_rows(page.rows)
        expected = [
            (row.rank, row.username, row.profile_url, row.elo, row.provisional, row.level)
            for row in page.rows
        ]
    assert [
        (
            row["rank"],
            row["username"],
            row["profile_url"],
            row["elo"],
            row["provisional"],
            row["level"],
        )
        for row in shown
    ] == expected
    assert shown[0]["level"] == "Grand chef" and not shown[0]["provisional"]


def test_every_kind_of_page_says_where_the_viewer_stands_as_standings_do():
    rng = random.Random(11)
    users = [
        rate(f"v{i}", rng.choice([1450.5, 1500.0, rng.uniform(1000, 2000)])) for i in range(90)
    ]
    viewer = users[40]
    expected = ladder.standings(viewer)[GAME]
    assert expected.rank == 1 + sum(
        r.value > expected.value for r in Rating.objects.filter(game=GAME)
    )
    pages = [
        ladder_page(GAME, 1, viewer_id=viewer.pk),
        ladder_page(GAME, 3, size=20, viewer_id=viewer.pk),
        ladder_page(GAME, 99, size=20, viewer_id=viewer.pk),  # past the end
        ladder_page(GAME, 2, search="v1", size=5, viewer_id=viewer.pk),
        ladder_page(GAME, 1, search="nobody", viewer_id=viewer.pk),
        ladder_page(GAME, 1, only_user_ids={users[0].pk}, viewer_id=viewer.pk),
        ladder_page(GAME, 1, only_user_ids=set(), viewer_id=viewer.pk),
    ]
    assert [page.mine for page in pages] == [expected] * len(pages)
    outsider = make_user("outsider")
    assert ladder_page(GAME, viewer_id=outsider.pk).mine is None
    assert ladder_page(GAME, search="v", viewer_id=outsider.pk).mine is None
    assert ladder_page(GAME).mine is None


def expected_page(ratings, number, size, keep=lambda r: True, limit=None):
    """A page worked out the plain way: everyone sorted best first (ties by id), ranks counted
    as one plus the players above, the kept ones paged after keeping the best ``limit``."""
    ladder_rows = sorted(ratings, key=lambda r: (-r.value, r.pk))
    kept = [r for r in ladder_rows if keep(r)]
    shown = kept[:limit] if limit is not None else kept
    pages = max(1, -(-len(shown) // size))
    number = min(max(number, 1), pages)
    rows = shown[(number - 1) * size : number * size]
    ranks = [1 + sum(other.value > r.value for other in ratings) for r in rows]
    return (
        number,
        pages,
        len(shown),
        len(kept) > len(shown),
        list(zip(ranks, [r.name for r in rows], strict=True)),
    )


def test_pages_searches_and_friends_match_a_plain_computation_on_random_ladders(monkeypatch):
    monkeypatch.setattr(ladder, "SEARCH_LIMIT", 23)
    rng = random.Random(3)
    for i in range(140):
        name = f"{rng.choice(['ann', 'bob', 'cid'])}{rng.choice(['_x', 'y', '%'])}{i}"
        value = rng.choice([1450.0, 1500.0, 1500.5, 999.25, round(rng.uniform(800, 2200), 2)])
        rate(name, value, matches=rng.randrange(20))
    rate("elsewhere", 3000.0, game="pizza-party")
    ratings = list(Rating.objects.filter(game=GAME))
    friends_of = {r.user_id for r in rng.sample(ratings, 30)}
    viewer = ratings[17]
    mine = (1 + sum(o.value > viewer.value for o in ratings), viewer.value)
    cases = [
        ({}, lambda r: True, None),
        ({"search": "ann"}, lambda r: "ann" in r.name, 23),  # more than 23: capped
        ({"search": "Y1"}, lambda r: "y1" in r.name.lower(), 23),
        ({"search": "_x"}, lambda r: "_x" in r.name, 23),
        ({"search": "%"}, lambda r: "%" in r.name, 23),
        ({"only_user_ids": friends_of}, lambda r: r.user_id in friends_of, None),
    ]
    for kwargs, keep, limit in cases:
        for number in (1, 2, 3, 7, 10**12):
            page = ladder_page(GAME, number, size=10, viewer_id=viewer.user_id, **kwargs)
            assert (
                page.number,
                page.pages,
                page.total,
                page.capped,
                ranks_and_names(page),
            ) == expected_page(ratings, number, 10, keep, limit), (kwargs, number)
            assert (page.mine.rank, page.mine.value) == mine
