"""The ladder's bucket counts and copied names, kept by database triggers, and the pages, ranks and
searches read through them: the same answers as sorting the whole ladder by hand, on SQLite and
PostgreSQL alike."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest
from django.contrib.auth import get_user_model
from django.db.models import Sum

from ratings import buckets, ladder
from ratings.ladder import ladder_page
from ratings.models import LadderBucket, Rating

from ..site.factories import make_user

pytestmark = pytest.mark.django_db

GAME = "part-du-chef"


def bucket_sums(game: str = GAME) -> dict[int, int]:
    rows = LadderBucket.objects.filter(game=game).values("bucket").annotate(n=Sum("players"))
    return {row["bucket"]: row["n"] for row in rows if row["n"]}


def counted_by_hand(game: str = GAME) -> dict[int, int]:
    return dict(
        Counter(
            math.floor(v) for v in Rating.objects.filter(game=game).values_list("value", flat=True)
        )
    )


def test_buckets_follow_every_insert_move_and_delete_of_a_rating():
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    Rating.objects.create(user=ann, game=GAME, value=1500.0)
    Rating.objects.bulk_create(
        [Rating(user=bob, game=GAME, value=1499.99), Rating(user=cid, game=GAME, value=1500.5)]
    )
    assert bucket_sums() == {1500: 2, 1499: 1}
    Rating.objects.filter(user=bob).update(value=1720.25)  # to another bucket
    Rating.objects.filter(user=cid).update(value=1500.75)  # within its bucket
    rating = Rating.objects.get(user=ann)
    rating.value = -3.5  # floor, not truncation, even below zero
    rating.save()
    assert bucket_sums() == {-4: 1, 1500: 1, 1720: 1}
    Rating.objects.filter(user=cid).update(game="cafe-fatal")
    assert bucket_sums() == {-4: 1, 1720: 1}
    assert bucket_sums("cafe-fatal") == {1500: 1}
    bob.delete()  # the rating goes with its player
    assert bucket_sums() == {-4: 1}


def test_folding_keeps_every_sum_and_leaves_one_row_per_bucket():
    rng = random.Random(3)
    users = [make_user() for _ in range(40)]
    for user in users:
        Rating.objects.create(user=user, game=GAME, value=rng.choice([1500.0, 1500.5, 1620.0]))
    for user in users[::3]:
        Rating.objects.filter(user=user).update(value=rng.uniform(1000, 2000))
    before = bucket_sums()
    assert before == counted_by_hand()
    buckets.fold(GAME)
    assert bucket_sums() == before
    assert LadderBucket.objects.filter(game=GAME).count() == len(before)


def test_folding_rewrites_only_the_buckets_that_gathered_loose_rows():
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    for user, value in [(ann, 1500.0), (bob, 1600.0), (cid, 1700.0)]:
        Rating.objects.create(user=user, game=GAME, value=value)
    buckets.fold(GAME)
    kept = LadderBucket.objects.get(game=GAME, bucket=1500).pk
    Rating.objects.filter(user=bob).update(value=1700.5)  # 1600 loses its one, 1700 gains one
    buckets.fold(GAME)
    assert bucket_sums() == {1500: 1, 1700: 2}
    assert LadderBucket.objects.filter(game=GAME).count() == 2  # the emptied 1600 is gone
    assert LadderBucket.objects.get(game=GAME, bucket=1500).pk == kept


def test_the_worker_folds_a_game_only_once_it_gathered_many_loose_rows(monkeypatch):
    monkeypatch.setattr(buckets, "FOLD_AFTER", 5)
    users = [make_user() for _ in range(4)]
    for user in users:
        Rating.objects.create(user=user, game=GAME, value=1500.0)
    assert buckets.fold_ladder_buckets() == 0
    for user in users:
        Rating.objects.filter(user=user).update(value=1600.0)
    assert buckets.fold_ladder_buckets() == 1
    assert bucket_sums() == {1600: 4}
    assert LadderBucket.objects.filter(game=GAME).count() == 1


def test_a_rating_carries_its_players_name_even_after_a_rename_or_a_stale_save():
    ann = make_user("ann")
    rating = Rating.objects.create(user=ann, game=GAME, value=1500.0)
    assert Rating.objects.get(pk=rating.pk).name == "ann"
    ann.username = "anna"
    ann.save()
    assert Rating.objects.get(pk=rating.pk).name == "anna"
    rating.value = 1510.0
    rating.save()  # this instance still says name="" : the database copies the name again
    assert Rating.objects.get(pk=rating.pk).name == "anna"
    assert [row.username for row in ladder_page(GAME, search="ANNA").rows] == ["anna"]


def whole_ladder_by_hand() -> list[tuple[int, str, float]]:
    """(rank, name, value) of every rating, best first, ties by id, sharing the best rank."""
    rows = sorted(
        Rating.objects.filter(game=GAME).values_list("id", "user__username", "value"),
        key=lambda row: (-row[2], row[0]),
    )
    values = [value for _, _, value in rows]
    return [(1 + sum(v > value for v in values), name, value) for _, name, value in rows]


def random_ladder(seed: int, players: int) -> None:
    rng = random.Random(seed)
    user_model = get_user_model()
    users = user_model.objects.bulk_create(
        user_model(username=f"{rng.choice(['ann', 'bob', 'zed'])}{i}") for i in range(players)
    )
    # Many ties, several within one bucket, some on bucket edges.
    choices = [1500.0, 1500.0, 1500.25, 1501.0, 1499.999, 1623.0, 1623.0]
    Rating.objects.bulk_create(
        Rating(user=user, game=GAME, value=rng.choice([*choices, rng.uniform(1200, 1800)]))
        for user in users
    )
    Rating.objects.bulk_create(  # another game, which must not count
        Rating(user=user, game="cafe-fatal", value=rng.uniform(1200, 1800)) for user in users[::2]
    )


@pytest.mark.parametrize("seed", [1, 2])
def test_every_page_of_the_ladder_matches_a_sort_by_hand(seed):
    random_ladder(seed, 230)
    if seed == 2:
        buckets.fold(GAME)
    expected = whole_ladder_by_hand()
    shown = []
    for number in range(1, 12):
        page = ladder_page(GAME, number, size=23)
        assert (page.number, page.pages, page.total) == (number, 10, 230) or number > 10
        if number <= 10:
            shown += [(row.rank, row.username, row.value) for row in page.rows]
    assert shown == expected


def test_searches_and_friends_rank_on_the_whole_ladder():
    random_ladder(4, 150)
    expected = whole_ladder_by_hand()
    zeds = [row for row in expected if row[1].startswith("zed")]
    pages = ladder_page(GAME, search="ZeD", size=20).pages
    assert pages == math.ceil(len(zeds) / 20) > 1
    found = []
    for number in range(1, pages + 1):
        found += [
            (row.rank, row.username, row.value)
            for row in ladder_page(GAME, number, search="ZeD", size=20).rows
        ]
    assert found == zeds
    some = {u.pk: u.username for u in get_user_model().objects.order_by("?")[:30]}
    friends = [row for row in expected if row[1] in some.values()]
    page = ladder_page(GAME, only_user_ids=set(some), size=50)
    assert [(row.rank, row.username, row.value) for row in page.rows] == friends


def test_a_search_shows_the_best_matches_only_and_says_so(monkeypatch):
    monkeypatch.setattr(ladder, "SEARCH_LIMIT", 6)
    random_ladder(5, 60)
    anns = [row for row in whole_ladder_by_hand() if row[1].startswith("ann")]
    assert len(anns) > 6
    first = ladder_page(GAME, 1, search="ann", size=4)
    last = ladder_page(GAME, 99, search="ann", size=4)
    assert (first.capped, first.total, first.pages, last.number) == (True, 6, 2, 2)
    shown = [(r.rank, r.username, r.value) for r in [*first.rows, *last.rows]]
    assert shown == anns[:6]
    few = ladder_page(GAME, search="ann1", size=50)
    assert not few.capped and few.total == len([r for r in anns if r[1].startswith("ann1")])


@pytest.mark.parametrize("players", [30, 300])
def test_a_ladder_page_takes_the_same_queries_however_long_the_ladder_and_deep_the_page(
    players, django_assert_num_queries
):
    random_ladder(6, players)
    for number in (1, 2, players // 10):
        with django_assert_num_queries(1):
            ladder_page(GAME, number, size=10)
    with django_assert_num_queries(3):  # past the end: count, then show the last page
        assert ladder_page(GAME, players, size=10).number == players // 10
    someone = Rating.objects.filter(game=GAME).select_related("user").last().user
    with django_assert_num_queries(1):
        ladder.standings(someone)


def test_a_rating_deleted_after_its_buckets_were_emptied_leaves_no_row_of_minus_one():
    """What SQLite's flush between tests does: the bucket table emptied first, then the
    ratings deleted row by row. No row of -1 may be left for the next test to meet."""
    for name, value in (("ann", 1500.0), ("bob", 1500.5), ("cid", 1620.0)):
        Rating.objects.create(user=make_user(name), game=GAME, value=value)
    LadderBucket.objects.all().delete()
    Rating.objects.all().delete()
    assert not LadderBucket.objects.exists()


def test_a_rating_deleted_from_a_bucket_it_shares_still_leaves_it():
    ann, bob = make_user("ann"), make_user("bob")
    for user in (ann, bob):
        Rating.objects.create(user=user, game=GAME, value=1500.25)
    buckets.fold(GAME)
    ann.delete()
    assert bucket_sums() == {1500: 1}
    bob.delete()
    assert bucket_sums() == {}
