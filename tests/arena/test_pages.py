"""The arena's HTML pages: the list, an arena's page, its forms, and the fragments its socket and
htmx answers send."""

from __future__ import annotations

import re
from datetime import timedelta
from unittest import mock

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from arena import jobs, rendering, services
from arena.models import ArenaMatch, Entry, Tournament
from tests.site.factories import make_user

from .builders import (
    end_arena_now,
    finish_with_ranks,
    live_tables,
    open_table,
    play_tables,
    players_of,
    running_arena,
)

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def client_for(user=None, csrf: bool = False) -> Client:
    client = Client(enforce_csrf_checks=csrf)
    if user is not None:
        client.force_login(user)
    return client


def page(tournament: Tournament, **query) -> str:
    url = reverse("arena:detail", args=[tournament.pk])
    if query:
        url += "?" + "&".join(f"{k}={v}" for k, v in query.items())
    return url


def action(tournament: Tournament, name: str) -> str:
    return reverse(f"arena:{name}", args=[tournament.pk])


def announced(**kwargs) -> Tournament:
    start = timezone.now() + timedelta(hours=1)
    return services.create_tournament(make_user(), "part-du-chef", starts_at=start, **kwargs)


def entry(tournament: Tournament, user) -> Entry | None:
    return Entry.objects.filter(tournament=tournament, user=user).first()


def create_fields(**overrides) -> dict:
    return {
        "game": "part-du-chef",
        "name": "Friday slices",
        "starts_at": "",
        "minutes": "45",
        "seats": "3",
        "turn_seconds": "30",
        **overrides,
    }


# --- the list ----------------------------------------------------------------------------------
def test_the_list_shows_running_upcoming_and_finished_arenas_to_anyone():
    running, _ = running_arena(players=3)
    upcoming = announced(name="Later slices")
    finished, users = running_arena(players=3, name="Done slices")
    table = open_table(finished, users)
    finish_with_ranks(table, users, [1, 2, 3])
    end_arena_now(finished)
    assert jobs.finish_ended_arenas() == 1

    answer = client_for().get(reverse("arena:list"))
    assert answer.status_code == 200
    html = answer.content.decode()
    running_part = html[html.index('id="arenas-running"') : html.index('id="arenas-upcoming"')]
    upcoming_part = html[html.index('id="arenas-upcoming"') : html.index('id="arenas-finished"')]
    finished_part = html[html.index('id="arenas-finished"') :]
    assert f'data-arena="{running.pk}"' in running_part
    assert "3 players" in running_part
    assert f'data-arena="{upcoming.pk}"' in upcoming_part
    # Without JavaScript the start reads as a plain time; the countdown has its seconds.
    assert 'class="arena-countdown"' in upcoming_part
    assert re.search(r'data-seconds-left="3[56]\d\d"', upcoming_part)
    assert f'data-arena="{finished.pk}"' in finished_part
    assert "🥇" in finished_part and users[0].username in finished_part
    # Anonymous visitors get no form, only the way to log in.
    assert "create-arena-form" not in html
    assert "/accounts/login/?next=" in html


def test_private_arenas_are_listed_only_to_their_creator_and_players():
    owner, player, stranger = make_user(), make_user(), make_user()
    private = services.create_tournament(owner, "part-du-chef", private=True, name="Secret")
    services.join(player, private.pk, private.invite_code)
    for user, listed in ((owner, True), (player, True), (stranger, False), (None, False)):
        html = client_for(user).get(reverse("arena:list")).content.decode()
        assert (f'data-arena="{private.pk}"' in html) is listed, user


def test_a_logged_in_player_may_join_from_the_list():
    tournament = announced()
    ann = make_user()
    html = client_for(ann).get(reverse("arena:list")).content.decode()
    assert f'data-testid="join-arena-{tournament.pk}"' in html
    answer = client_for(ann).post(action(tournament, "join"))
    assert answer.status_code == 302 and answer.url == page(tournament)
    assert entry(tournament, ann) is not None
    html = client_for(ann).get(reverse("arena:list")).content.decode()
    assert f'data-testid="join-arena-{tournament.pk}"' not in html


# --- creating ----------------------------------------------------------------------------------
def test_creating_an_arena_starts_it_now_by_default_and_goes_to_its_page():
    ann = make_user()
    answer = client_for(ann).post(reverse("arena:create"), create_fields())
    tournament = Tournament.objects.get(created_by=ann)
    assert answer.status_code == 302 and answer.url == page(tournament)
    assert tournament.name == "Friday slices"
    assert (tournament.minutes, tournament.seats, tournament.turn_seconds) == (45, 3, 30)
    assert tournament.options == {"marianne": False}
    assert not tournament.private
    assert abs((tournament.starts_at - timezone.now()).total_seconds()) < 60
    html = client_for(ann).get(answer.url).content.decode()
    assert "Friday slices" in html


@pytest.mark.parametrize(
    ("game", "seats", "fields", "options"),
    [
        ("part-du-chef", "3", {"part_du_chef__marianne": "on"}, {"marianne": True}),
        ("pizza-party", "2", {}, {"variant": "duel"}),
        ("pizza-party", "3", {}, {"variant": "standard"}),
        ("cafe-fatal", "4", {}, {}),
    ],
)
def test_an_arena_of_every_game_takes_the_options_its_engine_declares(game, seats, fields, options):
    ann = make_user()
    answer = client_for(ann).post(
        reverse("arena:create"), create_fields(game=game, seats=seats, **fields)
    )
    assert answer.status_code == 302
    tournament = Tournament.objects.get(created_by=ann)
    assert (tournament.game, tournament.options) == (game, options)


def test_the_form_offers_the_current_time_and_a_start_later():
    ann = make_user()
    html = client_for(ann).get(reverse("arena:list")).content.decode()
    assert 'type="datetime-local"' in html
    assert timezone.now().strftime("%Y-%m-%dT") in html
    later = (timezone.now() + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M")
    client_for(ann).post(reverse("arena:create"), create_fields(starts_at=later, name=""))
    tournament = Tournament.objects.get(created_by=ann)
    assert tournament.status == Tournament.Status.SCHEDULED
    assert tournament.starts_at.strftime("%Y-%m-%dT%H:%M") == later
    assert tournament.name == "La Part du Chef arena"


def test_a_private_arena_redirects_to_its_invitation_link():
    ann = make_user()
    answer = client_for(ann).post(reverse("arena:create"), create_fields(private="on"))
    tournament = Tournament.objects.get(created_by=ann)
    assert tournament.private
    assert answer.url == page(tournament, invite=tournament.invite_code)


@pytest.mark.parametrize(
    "fields",
    [
        {"minutes": "2"},
        {"minutes": "ten"},
        {"seats": "9"},
        {"game": "chess"},
        {"turn_seconds": "5"},
        {"starts_at": "2001-01-01T10:00"},
        {"name": "x" * 101},
    ],
)
def test_an_invalid_form_creates_nothing_and_says_why(fields):
    ann = make_user()
    answer = client_for(ann).post(reverse("arena:create"), create_fields(**fields))
    assert answer.status_code == 400
    assert 'class="errorlist' in answer.content.decode()
    assert not Tournament.objects.exists()


def test_the_service_refusal_shows_on_the_form():
    ann = make_user()
    for _ in range(services.OWN_ARENAS_LIMIT):
        services.create_tournament(ann, "part-du-chef")
    answer = client_for(ann).post(reverse("arena:create"), create_fields())
    assert answer.status_code == 409
    assert "wait for one to end" in answer.content.decode()
    assert Tournament.objects.filter(created_by=ann).count() == services.OWN_ARENAS_LIMIT


def test_creating_needs_a_login_and_a_csrf_token():
    answer = client_for().post(reverse("arena:create"), create_fields())
    assert answer.status_code == 302 and "/accounts/login/" in answer.url
    answer = client_for(make_user(), csrf=True).post(reverse("arena:create"), create_fields())
    assert answer.status_code == 403
    assert not Tournament.objects.exists()


# --- an arena's page -------------------------------------------------------------------------
def test_anonymous_visitors_see_the_standings_and_a_way_to_log_in():
    tournament, users = running_arena(players=3)
    answer = client_for().get(page(tournament))
    assert answer.status_code == 200
    html = answer.content.decode()
    assert 'data-status="running"' in html
    assert f'ws-connect="/ws/arenas/{tournament.pk}/"' in html
    for user in users:
        assert f'href="/players/{user.username}/"' in html
    assert '<th scope="col" class="num">Rank</th>' in html
    assert "arena-join" not in html and "arena-pause" not in html
    assert f"/accounts/login/?next=%2Farenas%2F{tournament.pk}%2F" in html


def test_an_unjoined_player_sees_join_and_a_joined_one_pause_and_withdraw():
    tournament, users = running_arena(players=3)
    stranger = make_user()
    html = client_for(stranger).get(page(tournament)).content.decode()
    assert 'data-testid="arena-join"' in html
    assert 'data-testid="arena-pause"' not in html
    assert 'data-joined="false"' in html

    html = client_for(users[0]).get(page(tournament)).content.decode()
    assert 'data-joined="true"' in html and 'data-state="active"' in html
    assert 'data-testid="arena-pause"' in html and 'data-testid="arena-withdraw"' in html
    assert 'data-testid="arena-join"' not in html
    assert f'tr data-player="{users[0].username}"' in html
    assert 'class="you' in html


def test_join_pause_resume_and_withdraw_change_the_entry():
    tournament, _ = running_arena(players=3)
    ann = make_user()
    client = client_for(ann)
    assert client.post(action(tournament, "join")).status_code == 302
    assert entry(tournament, ann).active

    assert client.post(action(tournament, "pause")).status_code == 302
    assert entry(tournament, ann).paused
    html = client.get(page(tournament)).content.decode()
    assert 'data-state="paused"' in html and 'data-testid="arena-resume"' in html
    assert re.search(rf'data-player="{ann.username}"[^>]*class="[^"]*paused', html)
    assert '<span class="badge paused">paused</span>' in html

    assert client.post(action(tournament, "resume")).status_code == 302
    assert entry(tournament, ann).active

    assert client.post(action(tournament, "withdraw")).status_code == 302
    assert entry(tournament, ann).withdrawn
    html = client.get(page(tournament)).content.decode()
    assert 'data-state="withdrawn"' in html and "Join again" in html


def test_htmx_forms_answer_the_fresh_fragments():
    tournament, _ = running_arena(players=3)
    ann = make_user()
    answer = client_for(ann).post(action(tournament, "join"), **HTMX)
    assert answer.status_code == 200
    html = answer.content.decode()
    for part in ("arena-status", "arena-you", "arena-standings", "arena-tables", "page-error"):
        assert re.search(rf'id="{part}"[^>]*hx-swap-oob="true"', html), part
    assert 'data-testid="arena-pause"' in html
    assert ann.username in html
    # The forms post in the background and keep plain HTML for browsers without htmx.
    assert f'hx-post="{action(tournament, "pause")}"' in html
    assert 'name="csrfmiddlewaretoken"' in html


def test_forged_or_refused_forms_change_nothing():
    tournament, users = running_arena(players=3)
    ann = make_user()
    # No CSRF token: refused before anything happens.
    for name in ("join", "pause", "withdraw"):
        forger = client_for(ann if name == "join" else users[0], csrf=True)
        assert forger.post(action(tournament, name)).status_code == 403
    assert entry(tournament, ann) is None
    assert entry(tournament, users[0]).active
    # Not joined: nothing to pause; the page says why.
    answer = client_for(ann).post(action(tournament, "pause"), follow=True)
    assert "You have not joined this arena." in answer.content.decode()
    assert entry(tournament, ann) is None
    answer = client_for(ann).post(action(tournament, "pause"), **HTMX)
    assert answer.status_code == 200
    assert 'id="page-error"' in answer.content.decode()
    assert "arena-standings" not in answer.content.decode()
    # GET does not act; an anonymous POST goes to the login page.
    assert client_for(ann).get(action(tournament, "join")).status_code == 405
    answer = client_for().post(action(tournament, "join"))
    assert answer.status_code == 302 and "/accounts/login/" in answer.url
    assert Entry.objects.filter(tournament=tournament).count() == 3


def test_a_finished_arena_refuses_joining_and_shows_the_podium():
    tournament, users = running_arena(players=3)
    table = open_table(tournament, users)
    finish_with_ranks(table, users, [2, 1, 3])
    end_arena_now(tournament)
    assert jobs.finish_ended_arenas() == 1
    late = make_user()
    client_for(late).post(action(tournament, "join"))
    assert entry(tournament, late) is None
    html = client_for(late).get(page(tournament)).content.decode()
    assert 'data-status="finished"' in html
    podium = html[html.index('data-testid="podium"') :]
    assert podium.index(users[1].username) < podium.index(users[0].username)
    assert podium.index(users[0].username) < podium.index(users[2].username)
    assert "🥇" in podium and "Place 1:" in podium
    assert 'data-testid="arena-join"' not in html


def test_a_private_arena_is_404_without_its_link():
    owner, stranger = make_user(), make_user()
    private = services.create_tournament(owner, "part-du-chef", private=True)
    assert client_for(stranger).get(page(private)).status_code == 404
    assert client_for().get(page(private)).status_code == 404
    assert client_for(stranger).get(page(private, invite="wrong")).status_code == 404
    assert client_for(stranger).post(action(private, "join")).status_code == 404
    assert entry(private, stranger) is None

    html = client_for(owner).get(page(private)).content.decode()
    assert f"?invite={private.invite_code}" in html  # the link to share

    with_link = page(private, invite=private.invite_code)
    html = client_for(stranger).get(with_link).content.decode()
    assert f'name="invite" value="{private.invite_code}"' in html
    assert f"/ws/arenas/{private.pk}/?invite={private.invite_code}" in html
    answer = client_for(stranger).post(action(private, "join"), {"invite": private.invite_code})
    assert answer.status_code == 302 and answer.url == with_link
    assert entry(private, stranger) is not None
    # Once in, the player sees it without the link.
    assert client_for(stranger).get(page(private)).status_code == 200


def test_withdrawing_from_a_private_arena_before_it_starts_leaves_for_the_list():
    owner, guest = make_user(), make_user()
    start = timezone.now() + timedelta(hours=1)
    private = services.create_tournament(owner, "part-du-chef", private=True, starts_at=start)
    services.join(guest, private.pk, private.invite_code)
    answer = client_for(guest).post(action(private, "withdraw"))
    assert answer.status_code == 302 and answer.url == reverse("arena:list")
    assert entry(private, guest) is None


def test_standings_mark_players_on_fire_with_a_text_alternative():
    tournament, users = running_arena(players=3)
    Entry.objects.filter(tournament=tournament, user=users[1]).update(points=8, fire_streak=2)
    html = client_for().get(page(tournament)).content.decode()
    row = re.search(rf'<tr data-player="{users[1].username}".*?</tr>', html, re.S)
    assert 'data-points="8"' in row.group(0)
    assert "🔥" in row.group(0) and "on fire: points doubled" in row.group(0)
    assert 'aria-hidden="true">🔥' in row.group(0)
    assert 'data-rank="1"' in row.group(0)


# --- a seated player ---------------------------------------------------------------------------
def test_a_seated_player_sees_their_table_and_the_arena_lists_it():
    tournament, users = running_arena(players=3)
    table = open_table(tournament, users)
    html = client_for(users[0]).get(page(tournament)).content.decode()
    assert 'data-testid="current-table"' in html
    assert f'href="/tables/{table.match_id}/"' in html
    tables = html[html.index('id="arena-tables"') :]
    assert f'data-table="{table.match_id}"' in tables
    # Others see the table too, without "your table".
    html = client_for(make_user()).get(page(tournament)).content.decode()
    assert f'href="/tables/{table.match_id}/"' in html
    assert 'data-testid="current-table"' not in html


def test_tables_are_listed_newest_first():
    tournament, users = running_arena(players=6)
    first = open_table(tournament, users[:3])
    second = open_table(tournament, users[3:])
    html = client_for().get(page(tournament)).content.decode()
    assert html.index(f'data-table="{second.match_id}"') < html.index(
        f'data-table="{first.match_id}"'
    )


def test_the_current_table_link_redirects_to_the_players_table():
    tournament, users = running_arena(players=3)
    url = action(tournament, "table")
    assert client_for(users[0]).get(url).url == page(tournament)
    answer = client_for(users[0]).get(url, **HTMX)
    assert answer.status_code == 204 and "HX-Redirect" not in answer
    table = open_table(tournament, users)
    answer = client_for(users[0]).get(url, **HTMX)
    assert answer["HX-Redirect"] == f"/tables/{table.match_id}/"
    assert client_for(users[0]).get(url).url == f"/tables/{table.match_id}/"


def test_a_page_loaded_just_after_seating_lets_its_socket_take_the_player_there():
    tournament, users = running_arena(players=3)
    table = open_table(tournament, users)
    html = client_for(users[0]).get(page(tournament)).content.decode()
    # A fresh table: the socket is not told the page shows it, so it redirects.
    assert f'ws-connect="/ws/arenas/{tournament.pk}/"' in html
    ArenaMatch.objects.filter(pk=table.pk).update(
        created_at=timezone.now() - rendering.FRESH_TABLE - timedelta(seconds=1)
    )
    html = client_for(users[0]).get(page(tournament)).content.decode()
    # Come back during a match: the page shows the table and stays.
    assert f'ws-connect="/ws/arenas/{tournament.pk}/?table={table.match_id}"' in html


def test_the_socket_fragments_redirect_only_to_a_new_table():
    tournament, users = running_arena(players=3)
    rendered = rendering.render_for_socket(tournament.pk, users[0], None, None)
    assert rendered is not None
    _, current, html = rendered
    assert current is None and "hx-trigger" not in html
    table = open_table(tournament, users)
    _, current, html = rendering.render_for_socket(tournament.pk, users[0], None, None)
    assert current == table.match_id
    redirect = html[html.index('id="arena-redirect"') :]
    assert 'hx-swap-oob="true"' in redirect[:200]
    assert f'hx-get="{action(tournament, "table")}"' in redirect
    assert 'hx-trigger="load"' in redirect
    assert f'href="/tables/{table.match_id}/"' in redirect
    # Already shown: no redirect again.
    _, _, html = rendering.render_for_socket(tournament.pk, users[0], None, table.match_id)
    assert 'hx-trigger="load"' not in html
    # Another player (or a spectator) is never redirected.
    _, current, html = rendering.render_for_socket(tournament.pk, None, None, None)
    assert current is None and 'hx-trigger="load"' not in html


def arena_digests(html: str) -> set[str]:
    return set(re.findall(r'id="arena-[a-z]+" data-digest="([0-9a-f]+)"', html))


def test_the_page_and_its_socket_carry_one_digest_that_changes_only_with_what_they_show():
    tournament, users = running_arena(players=3)
    html = client_for(users[0]).get(page(tournament)).content.decode()
    shown = arena_digests(html)
    assert len(shown) == 1  # every live part, one digest
    _, _, frame = rendering.render_for_socket(tournament.pk, users[0], None, None)
    assert arena_digests(frame) == shown
    # Seconds later only the countdowns differ, and the page counts them down itself.
    later = timezone.now() + timedelta(seconds=7)
    with mock.patch("django.utils.timezone.now", return_value=later):
        _, _, frame = rendering.render_for_socket(tournament.pk, users[0], None, None)
    seconds = re.compile(r'data-seconds-left="(\d+)"')
    assert seconds.findall(frame) and seconds.findall(frame) != seconds.findall(html)
    assert arena_digests(frame) == shown
    # Another viewer sees other parts (no "you"); a table opened for the player changes them.
    _, _, other = rendering.render_for_socket(tournament.pk, None, None, None)
    assert arena_digests(other) != shown
    open_table(tournament, users)
    _, _, frame = rendering.render_for_socket(tournament.pk, users[0], None, None)
    assert arena_digests(frame) != shown


def test_pages_speak_the_visitors_language():
    tournament, _ = running_arena(players=3)
    html = client_for().get(page(tournament), HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert '<html lang="fr">' in html


def test_a_table_the_arena_opened_links_back_to_the_arena():
    from games import services as game_services

    tournament, users = running_arena(players=3, name="Lunch rush")
    table = open_table(tournament, users)
    html = Client().get(f"/tables/{table.match_id}/").content.decode()
    assert f'href="/arenas/{tournament.pk}/"' in html and "Lunch rush" in html
    other = game_services.start_match_for_players("part-du-chef", users[:2], turn_seconds=60)
    page = Client().get(f"/tables/{other.pk}/").content.decode()
    assert f'href="/arenas/{tournament.pk}/"' not in page


@pytest.mark.parametrize(
    ("game", "seats"), [("part-du-chef", 3), ("pizza-party", 3), ("cafe-fatal", 2)]
)
def test_an_arena_of_every_game_seats_its_players_at_a_table_they_play_in_the_browser(game, seats):
    tournament, _users = running_arena(players=seats, seats=seats, game=game)
    assert jobs.seat_waiting_players() == 1
    (table,) = live_tables(tournament)
    for user in players_of(table):
        html = client_for(user).get(reverse("games:table", args=[table.match_id])).content.decode()
        assert 'id="table-board"' in html and "<svg" in html
        assert page(tournament) in html  # the way back to the arena
    assert play_tables(tournament, seed=3) == 1
    # spec/arena.md: 2 points for each opponent ranked behind, 1 for each sharing the rank.
    ranks = {s.user_id: s.rank for s in table.match.seats.all()}
    for entry in Entry.objects.filter(tournament=tournament):
        mine = ranks[entry.user_id]
        others = [rank for user, rank in ranks.items() if user != entry.user_id]
        expected = 2 * sum(r > mine for r in others) + sum(r == mine for r in others)
        assert (entry.matches, entry.points) == (1, expected)
