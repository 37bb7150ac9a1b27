"""Arenas seat only players who are there: a player who did not play an arena table and has no
arena page or table open is paused after it, and their arena page says why."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.utils import timezone

from arena import services
from arena.models import Entry
from games import services as games_services
from games.engines import get_engine
from games.models import Match
from players import presence
from tests.sockets import connected

from .builders import finish_with_ranks, open_table, players_of, running_arena

pytestmark = pytest.mark.django_db


def forget_presence(users) -> None:
    """No page of these players is open (user ids repeat across test runs that share a Redis:
    their keys alone are cleared, never the whole cache other tests use)."""
    presence.cache.delete_many(
        [key for u in users for key in (presence._key(u.pk), presence._at_play_key(u.pk))]
    )


def arena_table():
    tournament, users = running_arena(players=3, seats=3)
    forget_presence(users)
    table = open_table(tournament, users)
    return tournament, table, players_of(table)


def entry_of(tournament, user) -> Entry:
    return Entry.objects.get(tournament=tournament, user=user)


def time_is_up(match: Match) -> None:
    Match.objects.filter(pk=match.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert games_services.play_for_timeouts(match.pk)


def first_move(table) -> tuple[Match, object]:
    """The player to move plays; the match and who is to move next."""
    match = Match.objects.get(pk=table.match_id)
    engine = get_engine(match.game)
    seat = engine.to_move(match.state)[0]
    users = players_of(table)
    move = engine.random_move(match.state, seat, random.Random(0))
    match = games_services.play(match.pk, users[seat], move, match.version)
    return match, users[engine.to_move(match.state)[0]]


def test_a_player_the_timer_played_for_with_no_arena_page_open_is_paused_as_away():
    tournament, table, users = arena_table()
    match, sleeper = first_move(table)
    time_is_up(match)  # the bot plays for the sleeper
    finish_with_ranks(table, users, [1, 2, 3])
    assert entry_of(tournament, sleeper).paused
    assert entry_of(tournament, sleeper).paused_reason == Entry.PauseReason.AWAY
    movers = [u for u in users if u != sleeper]
    assert not any(entry_of(tournament, u).paused for u in movers)


def test_a_player_who_keeps_a_table_or_arena_page_open_is_not_paused():
    tournament, table, users = arena_table()
    match, sleeper = first_move(table)
    presence.heartbeat(sleeper.pk, at_play=True)
    time_is_up(match)
    finish_with_ranks(table, users, [1, 2, 3])
    assert not entry_of(tournament, sleeper).paused


def test_another_page_of_the_site_does_not_count_as_being_there_to_play():
    tournament, table, users = arena_table()
    match, sleeper = first_move(table)
    presence.heartbeat(sleeper.pk)  # reading the rankings, say
    time_is_up(match)
    finish_with_ranks(table, users, [1, 2, 3])
    assert entry_of(tournament, sleeper).paused_reason == Entry.PauseReason.AWAY


def test_a_table_called_off_for_a_first_move_that_never_came_pauses_only_the_absent_first_mover():
    tournament, table, users = arena_table()
    match = Match.objects.get(pk=table.match_id)
    first = users[get_engine(match.game).to_move(match.state)[0]]
    time_is_up(match)
    assert Match.objects.get(pk=match.pk).status == Match.Status.ABORTED
    assert entry_of(tournament, first).paused_reason == Entry.PauseReason.AWAY
    others = [u for u in users if u != first]
    assert all(entry_of(tournament, u).active for u in others)
    assert all(entry_of(tournament, u).waiting_since is not None for u in others)


def test_a_player_who_played_is_never_paused_as_away_even_with_the_page_closed():
    tournament, table, users = arena_table()
    match = Match.objects.get(pk=table.match_id)
    mover = users[get_engine(match.game).to_move(match.state)[0]]
    first_move(table)
    finish_with_ranks(table, users, [1, 2, 3])
    assert entry_of(tournament, mover).active


def test_the_arena_page_tells_the_player_why_and_resuming_seats_them_again():
    tournament, table, users = arena_table()
    match, sleeper = first_move(table)
    time_is_up(match)
    finish_with_ranks(table, users, [1, 2, 3])
    client = Client()
    client.force_login(sleeper)
    html = client.get(f"/arenas/{tournament.pk}/").content.decode()
    assert 'data-testid="paused-away"' in html and "no arena page or table open" in html
    services.resume(sleeper, tournament.pk)
    entry = entry_of(tournament, sleeper)
    assert entry.active and entry.paused_reason == Entry.PauseReason.CHOSEN
    html = client.get(f"/arenas/{tournament.pk}/").content.decode()
    assert 'data-testid="paused-away"' not in html


def test_an_abandoner_is_told_they_abandoned():
    tournament, table, users = arena_table()
    finish_with_ranks(table, users, [1, 2, 3], abandoned=[True, False, False])
    assert entry_of(tournament, users[0]).paused_reason == Entry.PauseReason.ABANDONED
    client = Client()
    client.force_login(users[0])
    html = client.get(f"/arenas/{tournament.pk}/").content.decode()
    assert 'data-testid="paused-abandoned"' in html


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_arena_pages_and_tables_say_the_player_is_there_to_play_other_pages_do_not():
    from tests.site.factories import make_user

    ann = await sync_to_async(make_user)()
    await sync_to_async(forget_presence)([ann])
    socket, _ = await connected("/ws/me/", ann)
    assert await sync_to_async(presence.is_online)(ann.pk)
    assert not await sync_to_async(presence.is_at_play)(ann.pk)
    await socket.disconnect()
    socket, _ = await connected("/ws/me/?page=play", ann)
    assert await sync_to_async(presence.is_at_play)(ann.pk)
    await socket.disconnect()


def test_the_arena_and_table_pages_open_the_player_socket_as_there_to_play():
    tournament, table, users = arena_table()
    client = Client()
    client.force_login(users[0])
    for path in (f"/arenas/{tournament.pk}/", f"/tables/{table.match_id}/"):
        assert 'ws-connect="/ws/me/?page=play"' in client.get(path).content.decode()
    assert 'ws-connect="/ws/me/"' in client.get("/rankings/").content.decode()
