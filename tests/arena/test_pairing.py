"""Pairing in a tiny notation: a waiting player is "name:points:rating"; ``waited`` gives seconds
waited (default 0); ``played`` lists the last tables as "ann bob cid" (each member's last table);
the answer is the tables as lists of names, best standing first."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from arena.pairing import MAX_WAIT, Waiting, pair


def seat(
    players: list[str],
    seats: int,
    waited: dict[str, float] | None = None,
    played: list[str] = (),
    max_wait: float = MAX_WAIT,
) -> list[list[str]]:
    last = {name: frozenset(table.split()) for table in played for name in table.split()}
    waiting = []
    for text in players:
        name, points, rating = text.split(":")
        waiting.append(
            Waiting(
                player=name,
                points=int(points),
                rating=float(rating),
                waited=(waited or {}).get(name, 0.0),
                last_table=last.get(name, frozenset()),
            )
        )
    return pair(waiting, seats, max_wait)


def test_fewer_players_than_seats_wait():
    assert seat(["ann:0:1500", "bob:0:1500"], 3) == []
    assert seat([], 2) == []


def test_players_meet_others_of_their_standing():
    players = ["ann:0:1500", "bob:9:1500", "cid:4:1500", "dan:8:1500", "eve:1:1500", "fay:5:1500"]
    assert seat(players, 3) == [["bob", "dan", "fay"], ["cid", "eve", "ann"]]
    assert seat(players, 2) == [["bob", "dan"], ["fay", "cid"], ["eve", "ann"]]


def test_rating_orders_players_with_equal_points():
    players = ["ann:2:1400", "bob:2:1700", "cid:2:1500", "dan:2:1600"]
    assert seat(players, 2) == [["bob", "dan"], ["cid", "ann"]]


def test_those_left_over_are_those_who_waited_least():
    players = ["ann:9:1500", "bob:8:1500", "cid:7:1500", "dan:6:1500", "eve:5:1500"]
    waited = {"ann": 1, "bob": 5, "cid": 6, "dan": 7, "eve": 8}
    # ann (the leader, just back from a table) waits for the next round.
    assert seat(players, 2, waited) == [["bob", "cid"], ["dan", "eve"]]


def test_an_overdue_player_is_seated_before_those_who_waited_less():
    players = ["ann:9:1500", "bob:8:1500", "cid:0:1500"]
    assert seat(players, 2, {"ann": 3, "bob": 4, "cid": 25}) == [["bob", "cid"]]


def test_two_players_who_just_met_are_split_when_another_pairing_exists():
    players = ["ann:6:1500", "bob:5:1500", "cid:4:1500", "dan:3:1500"]
    played = ["ann bob", "cid dan"]
    assert seat(players, 2, played=played) == [["ann", "cid"], ["bob", "dan"]]


def test_two_old_tables_of_three_make_two_new_ones_with_one_old_pair_each():
    players = [
        f"{name}:{9 - i}:1500" for i, name in enumerate(["ann", "bob", "cid", "dan", "eve", "fay"])
    ]
    played = ["ann bob cid", "dan eve fay"]
    # Six players from two tables of three: every new table must keep one pair (pigeonholes);
    # the swap chosen is the one closest in standing (cid for dan).
    assert seat(players, 3, played=played) == [["ann", "bob", "dan"], ["cid", "eve", "fay"]]


def test_the_table_that_just_played_is_held_back_until_someone_else_waits():
    players = ["ann:4:1500", "bob:2:1500", "cid:0:1500"]
    assert seat(players, 3, {"ann": 5, "bob": 5, "cid": 5}, ["ann bob cid"]) == []


def test_the_held_table_plays_again_once_its_wait_reaches_the_bound():
    players = ["ann:4:1500", "bob:2:1500", "cid:0:1500"]
    waited = {"ann": 20, "bob": 20, "cid": 20}
    assert seat(players, 3, waited, ["ann bob cid"]) == [["ann", "bob", "cid"]]


def test_a_newcomer_breaks_up_the_old_table_and_the_closest_in_standing_waits():
    players = ["ann:6:1500", "bob:4:1500", "cid:2:1500", "dan:0:1500"]
    waited = {"ann": 5, "bob": 5, "cid": 5, "dan": 0}
    assert seat(players, 3, waited, ["ann bob cid"]) == [["ann", "bob", "dan"]]


def test_an_overdue_player_is_never_sent_back_to_wait_to_avoid_a_rematch():
    players = ["ann:6:1500", "bob:4:1500", "cid:2:1500", "dan:0:1500"]
    waited = {"ann": 30, "bob": 30, "cid": 30, "dan": 0}
    assert seat(players, 3, waited, ["ann bob cid"]) == [["ann", "bob", "cid"]]


def test_a_pair_that_just_played_plays_again_only_when_nobody_else_is_there():
    assert seat(["ann:2:1500", "bob:0:1500"], 2, played=["ann bob"]) == []
    assert seat(["ann:2:1500", "bob:0:1500"], 2, {"ann": 20, "bob": 20}, ["ann bob"]) == [
        ["ann", "bob"]
    ]


def test_a_shorter_bound_releases_sooner():
    assert seat(["ann:2:1500", "bob:0:1500"], 2, {"ann": 5, "bob": 5}, ["ann bob"], 5) == [
        ["ann", "bob"]
    ]


waiting_players = st.lists(
    st.builds(
        Waiting,
        player=st.integers(0, 10_000),
        points=st.integers(0, 40),
        rating=st.floats(800, 2400),
        waited=st.floats(0, 40),
    ),
    max_size=40,
    unique_by=lambda w: w.player,
)


@st.composite
def arenas(draw) -> tuple[list[Waiting], int]:
    players = draw(waiting_players)
    seats = draw(st.integers(2, 5))
    # Cut the players, in a drawn order, into their last tables of ``seats``.
    order = draw(st.permutations(players))
    tables = [order[i : i + seats] for i in range(0, len(order), seats)]
    last = {w.player: frozenset(x.player for x in t) for t in tables for w in t}
    keep = draw(st.booleans())
    return [
        Waiting(w.player, w.points, w.rating, w.waited, last[w.player] if keep else frozenset())
        for w in players
    ], seats


@given(arenas())
def test_every_table_is_full_and_nobody_is_seated_twice(arena):
    waiting, seats = arena
    tables = pair(waiting, seats)
    seated = [p for table in tables for p in table]
    assert all(len(table) == seats for table in tables)
    assert len(seated) == len(set(seated))
    assert set(seated) <= {w.player for w in waiting}


@given(arenas())
def test_overdue_players_are_seated_as_soon_as_enough_players_wait(arena):
    waiting, seats = arena
    seated = {p for table in pair(waiting, seats) for p in table}
    overdue = [w.player for w in waiting if w.waited >= MAX_WAIT]
    room = len(waiting) // seats * seats
    assert len([p for p in overdue if p in seated]) == min(len(overdue), room)


@given(waiting_players, st.integers(2, 5))
def test_without_past_tables_everyone_but_the_remainder_is_seated(waiting, seats):
    tables = pair(waiting, seats)
    assert len(tables) == len(waiting) // seats
