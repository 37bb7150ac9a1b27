"""Bot profile pages (games/bot_profiles.py): what a level does, its record against people by
player count, recent matches, links from a bot's name, and a fixed number of queries."""

from __future__ import annotations

import random

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from games import services
from games.engines import all_engines, get_engine
from games.models import Match, Seat

from .factories import make_user, players_by_seat

pytestmark = pytest.mark.django_db


def finished_with_bots(levels: list[int], people: int = 1, game: str = "cafe-fatal") -> Match:
    """A friendly match of ``people`` persons and bots of ``levels``, played to its end (the
    persons at random, the bots by themselves)."""
    users = [make_user() for _ in range(people)]
    match = services.create_table(users[0], game, seats=people + len(levels))
    for user in users[1:]:
        services.join_table(user, match.pk, invite_code=match.invite_code)
    for level in levels:
        match = services.add_bot(users[0], match.pk, level=level)
    match.refresh_from_db()
    rng = random.Random(match.pk)
    engine = get_engine(game)
    while match.is_playing:
        seated = players_by_seat(match)
        seat = next(s for s in engine.to_move(match.state) if seated[s] is not None)
        move = engine.random_move(match.state, seat, rng)
        match = services.play(match.pk, seated[seat], move, match.version)
    assert match.status == Match.Status.FINISHED
    return match


def results_by_hand(level: int) -> dict[tuple[int, str], int]:
    """(players, wins/losses/draws) counted from the seats: each person against each bot seat
    of ``level`` at the same finished table."""
    counts: dict[tuple[int, str], int] = {}
    for match in Match.objects.filter(status=Match.Status.FINISHED):
        seats = list(Seat.objects.filter(match=match))
        for bot in (s for s in seats if s.user_id is None and s.bot_level == level):
            for person in (s for s in seats if s.user_id is not None):
                outcome = (
                    "wins"
                    if person.rank < bot.rank
                    else "losses"
                    if person.rank > bot.rank
                    else "draws"
                )
                key = (match.seats_count, outcome)
                counts[key] = counts.get(key, 0) + 1
    return counts


def test_every_game_and_level_has_a_page_and_others_are_not_found():
    client = Client()
    for engine in all_engines():
        for level in engine.bot_levels:
            html = client.get(f"/bots/{engine.slug}/{level}/").content.decode()
            assert f"Bot level {level} · {engine.name}" in html
            assert "How it plays" in html
        assert client.get(f"/bots/{engine.slug}/{max(engine.bot_levels) + 1}/").status_code == 404
    assert client.get("/bots/chess/1/").status_code == 404


def test_the_record_counts_each_persons_result_against_the_bot_by_player_count():
    finished_with_bots([1])
    finished_with_bots([1, 2])
    finished_with_bots([1], people=2)
    finished_with_bots([2])
    page = Client().get("/bots/cafe-fatal/1/")
    record = page.context["record"]
    expected = results_by_hand(1)
    assert {row["players"] for row in record["rows"]} == {2, 3}
    for row in record["rows"]:
        for outcome in ("wins", "losses", "draws"):
            assert row[outcome] == expected.get((row["players"], outcome), 0)
    by_players = {row["players"]: row["matches"] for row in record["rows"]}
    assert by_players == {2: 1, 3: 2}
    # Each person meets each bot of the level once: 1 + 1 + 2 results.
    assert sum(record["totals"][k] for k in ("wins", "losses", "draws")) == 4


def test_recent_matches_link_to_their_replays_and_leave_private_ones_out():
    public = finished_with_bots([1])
    hidden = finished_with_bots([1])
    Match.objects.filter(pk=hidden.pk).update(private=True)
    html = Client().get("/bots/cafe-fatal/1/").content.decode()
    assert f"/tables/{public.pk}/replay/" in html
    assert f"/tables/{hidden.pk}/replay/" not in html


def queries_for_page(path: str) -> int:
    client = Client()
    with CaptureQueriesContext(connection) as queries:
        assert client.get(path).status_code == 200
    return len(queries)


def test_the_page_runs_the_same_few_queries_whatever_the_number_of_matches():
    finished_with_bots([1])
    one = queries_for_page("/bots/cafe-fatal/1/")
    for _ in range(4):
        finished_with_bots([1], people=2)
    assert queries_for_page("/bots/cafe-fatal/1/") == one
    assert one <= 3


def test_a_bots_name_links_to_its_profile_at_the_table_and_in_the_result():
    match = finished_with_bots([2])
    owner = next(s.user for s in match.seats.all() if s.user_id)
    client = Client()
    client.force_login(owner)
    table = client.get(f"/tables/{match.pk}/").content.decode()
    assert table.count('href="/bots/cafe-fatal/2/"') >= 2  # the seats and the result
    replay = client.get(f"/tables/{match.pk}/replay/?step=10000").content.decode()
    assert 'href="/bots/cafe-fatal/2/"' in replay


@pytest.mark.parametrize("language", ["fr", "de", "it"])
def test_the_page_speaks_every_language(language):
    finished_with_bots([2])
    client = Client()
    client.cookies["django_language"] = language
    html = client.get("/bots/cafe-fatal/2/").content.decode()
    assert f'lang="{language}"' in html
    assert "How it plays" not in html and "Its record against people" not in html


def test_a_players_recent_matches_link_a_bot_opponent_to_its_profile():
    match = finished_with_bots([2])
    person = next(s.user for s in match.seats.all() if s.user_id)
    html = Client().get(f"/players/{person.username}/").content.decode()
    assert 'href="/bots/cafe-fatal/2/"' in html
