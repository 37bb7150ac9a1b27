"""A player's standings on their profile are kept per process with the generations of their
ladders and carried across the ratings that moved since (issue 10: adding up the buckets above
each rating was a third of the busiest profile's database time). Whatever moved, what the
profile shows is what a fresh read gives."""

from __future__ import annotations

import random

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from players import profile
from ratings import buckets, ladder
from ratings.models import LadderChange, Rating

from ..site.factories import make_user
from .test_kept_pages import move, write_from_another_connection

pytestmark = pytest.mark.django_db(transaction=True)

GAMES = ("part-du-chef", "pizza-party")


@pytest.fixture(autouse=True)
def nothing_kept_from_earlier_tests():
    ladder._kept_standings.clear()


@pytest.fixture
def afresh(monkeypatch) -> list[int]:
    """Counts the standings read afresh after the kept ones could not be carried."""
    calls: list[int] = []
    original = ladder.standings_afresh

    def counted(user):
        calls.append(user.pk)
        return original(user)

    monkeypatch.setattr(ladder, "standings_afresh", counted)
    return calls


def rated(name: str, values: dict[str, float]):
    user = make_user(name)
    for game, value in values.items():
        Rating.objects.create(user=user, game=game, value=value, matches=12, wins=3)
    return user


def move_in(user, game: str, value: float) -> None:
    write_from_another_connection(
        f"UPDATE {Rating._meta.db_table} SET value = %s WHERE user_id = %s AND game = %s",
        [value, user.pk, game],
    )


def shown(target) -> dict[str, ladder.Standing]:
    """The standings the profile reads, through what this process keeps."""
    return profile.profile_reads(target, make_viewer()).standings


def make_viewer():
    from django.contrib.auth.models import AnonymousUser

    return AnonymousUser()


def test_standings_kept_across_random_moves_are_the_standings_read_afresh(afresh):
    rng = random.Random(10)
    players = [
        rated(f"cook{i:02}", {g: 1400.0 + rng.randrange(0, 16) * 5 for g in GAMES})
        for i in range(30)
    ]
    watched = players[:4]
    for target in watched:
        shown(target)
    for step in range(60):
        mover, game = rng.choice(players), rng.choice(GAMES)
        kind = rng.random()
        if kind < 0.05:
            buckets.fold(game)
        elif kind < 0.1:
            rated(f"newcomer{step}", {game: 1400.0 + rng.randrange(0, 16) * 5})
        else:
            move_in(mover, game, 1400.0 + rng.randrange(0, 16) * 5)
        for target in watched:
            assert shown(target) == ladder.standings(target), (step, target.username)
    # Most reads were carried: only folds, newcomers and the watched players' own moves read
    # the standings afresh.
    assert 0 < len(afresh) < 60 * len(watched) / 3


def test_a_profile_after_another_player_moved_past_shows_the_new_rank_without_a_read(afresh):
    ann = rated("ann", {GAMES[0]: 1500.0})
    bob = rated("bob", {GAMES[0]: 1450.0})
    client = Client()
    client.get("/players/ann/")
    with CaptureQueriesContext(connection) as kept:
        client.get("/players/ann/")
    move(bob, 1600.0)  # bob passes ann: she is second now
    with CaptureQueriesContext(connection) as carried:
        html = client.get("/players/ann/").content.decode()
    assert 'data-testid="rank">#2</a>' in html
    assert ladder.standings(ann)[GAMES[0]].rank == 2
    assert len(carried.captured_queries) == len(kept.captured_queries) and afresh == []
    move(bob, 1500.0)  # a tie: ties share the best rank
    assert shown(ann)[GAMES[0]].rank == 1 and afresh == []
    move(bob, 1400.0)
    assert shown(ann)[GAMES[0]].rank == 1 and afresh == []


def test_the_players_own_move_reads_their_standings_afresh(afresh):
    ann = rated("ann", {GAMES[0]: 1500.0, GAMES[1]: 1500.0})
    rated("bob", {GAMES[0]: 1450.0})
    shown(ann)
    move_in(ann, GAMES[0], 1400.0)
    assert shown(ann) == ladder.standings(ann) and afresh == [ann.pk]
    assert shown(ann)[GAMES[0]].rank == 2 and afresh == [ann.pk]


def test_changes_that_do_not_add_up_to_the_generation_read_the_standings_afresh(afresh):
    """A write that committed late, with a lower id than the generation's highest, adds to the
    sum without a row after it: the changes since cannot tell what it did."""
    ann = rated("ann", {GAMES[0]: 1500.0})
    rated("bob", {GAMES[0]: 1450.0})
    shown(ann)
    lowest = LadderChange.objects.filter(game=GAMES[0]).order_by("id").first()
    LadderChange.objects.filter(pk=lowest.pk).update(changes=lowest.changes + 1)
    assert shown(ann) == ladder.standings(ann) and afresh == [ann.pk]


def test_nothing_is_kept_inside_a_transaction(afresh):
    from django.db import transaction

    ann = rated("ann", {GAMES[0]: 1500.0})
    with transaction.atomic():
        shown(ann)
    assert ladder.standings_read(ann).kept == {}
    shown(ann)
    assert ladder.standings_read(ann).kept != {}
