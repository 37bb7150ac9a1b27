"""The HTML pages: lobby, table, move forms, seats, record download and the replay viewer."""

from __future__ import annotations

import itertools
import json
import random
import re

import pytest
from django.test import Client
from django.urls import reverse

from games import services
from games.engines import get_engine
from games.models import Match, Move

from .factories import make_user, play_one_move, play_to_the_end, started_table

pytestmark = pytest.mark.django_db

ENGINE = get_engine("part-du-chef")
HTMX = {"HTTP_HX_REQUEST": "true"}


# --- helpers -----------------------------------------------------------------------------------
@pytest.fixture(autouse=True)
def fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def client_for(user=None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def user_at(match: Match, users: list, seat: int):
    user_id = match.seats.get(index=seat).user_id
    return next(u for u in users if u.pk == user_id)


def mover(match: Match, users: list):
    seat = ENGINE.to_move(match.state)[0]
    return seat, user_at(match, users, seat)


def table_url(match: Match, name: str = "table") -> str:
    return reverse(f"games:{name}", args=[match.pk])


def unchanged(match: Match):
    """A snapshot to compare: the version and the number of moves logged."""
    match.refresh_from_db()
    return match.version, Move.objects.filter(match=match).count()


def take_fields(move: dict, version: int) -> dict:
    """The take form as the board posts it: bites and steals named with their portion."""
    take = move["take"]
    eat = [f"{take}:{i}" for i in move["eat"]]
    data = {"action": "take", "take": take, "eat": eat, "version": version}
    for kind, target in move.get("steal", {}).items():
        data[f"steal_{take}_{kind}"] = target
    return data


# --- the lobby ---------------------------------------------------------------------------------
def test_the_lobby_asks_anonymous_visitors_to_log_in_and_lists_open_tables():
    creator = make_user("ann")
    match = services.create_table(creator, "part-du-chef", seats=3, options={"marianne": True})
    page = Client().get(reverse("games:lobby"))
    assert page.status_code == 200
    html = page.content.decode()
    assert 'ws-connect="/ws/lobby/"' in html
    assert "to open or join a table" in html
    assert 'data-testid="create-form"' not in html
    assert f'data-table="{match.pk}"' in html
    assert "1/3 seats" in html and "La Marianne" in html and "by ann" in html


def test_the_lobby_offers_every_game_with_its_options_and_links_every_table():
    user = make_user()
    other = make_user("cafe-owner")
    cafe = services.create_table(other, "cafe-fatal", seats=2)
    html = client_for(user).get(reverse("games:lobby")).content.decode()
    assert 'data-testid="create-form"' in html
    assert 'name="part_du_chef__marianne"' in html and 'name="turn_seconds"' in html
    for slug in ("part-du-chef", "pizza-party", "cafe-fatal"):
        assert f'<option value="{slug}"' in html
    assert '<option value="part-du-chef" selected>' in html
    assert "API only" not in html
    assert f'data-table="{cafe.pk}"' in html
    assert reverse("games:table", args=[cafe.pk]) in html
    assert f'data-testid="join-{cafe.pk}"' in html


@pytest.mark.parametrize(
    ("game", "seats", "options"),
    [("pizza-party", "3", {"variant": "standard"}), ("cafe-fatal", "5", {})],
)
def test_every_game_opens_from_the_lobby_form(game, seats, options):
    user = make_user()
    answer = client_for(user).post(
        reverse("games:create"), {"game": game, "seats": seats, "mode": "friendly"}
    )
    match = Match.objects.get()
    assert answer.status_code == 302 and answer["Location"] == table_url(match)
    assert (match.game, match.seats_count, match.options) == (game, int(seats), options)


@pytest.mark.parametrize("game", ["part-du-chef", "pizza-party", "cafe-fatal"])
def test_your_turn_badges_link_to_the_table_of_every_game(game):
    match, users = started_table(game=game, players=3)
    seat = get_engine(game).to_move(match.state)[0]
    html = client_for(user_at(match, users, seat)).get(reverse("games:lobby")).content.decode()
    badge = re.search(
        rf'<a class="badge turn" href="([^"]+)" data-testid="your-turn-{match.pk}"', html
    )
    assert badge and badge.group(1) == table_url(match)


def test_my_tables_lists_open_and_playing_tables_with_a_seat_even_private_ones():
    match, users = started_table(players=2, private=True)
    html = client_for(users[0]).get(reverse("games:lobby")).content.decode()
    section = html[html.index('id="lobby-my-tables"') :]
    assert f'data-table="{match.pk}"' in section
    stranger = client_for(make_user()).get(reverse("games:lobby")).content.decode()
    assert f'data-table="{match.pk}"' not in stranger


def test_creating_a_table_redirects_to_it():
    user = make_user()
    answer = client_for(user).post(
        reverse("games:create"),
        {"game": "part-du-chef", "seats": "3", "mode": "ranked", "turn_seconds": "120"},
    )
    match = Match.objects.get()
    assert answer.status_code == 302 and answer["Location"] == table_url(match)
    assert (match.mode, match.seats_count, match.turn_seconds) == ("ranked", 3, 120)
    assert match.options == {"marianne": False}


def test_a_private_table_redirects_with_its_invitation():
    user = make_user()
    client_for(user).post(
        reverse("games:create"),
        {
            "game": "part-du-chef",
            "seats": "2",
            "mode": "friendly",
            "private": "on",
            "part_du_chef__marianne": "on",
        },
    )
    match = Match.objects.get()
    assert match.private and match.options == {"marianne": True} and match.turn_seconds is None


def test_a_ranked_table_without_a_timer_is_refused_with_a_sentence():
    answer = client_for(make_user()).post(
        reverse("games:create"), {"game": "part-du-chef", "seats": "3", "mode": "ranked"}
    )
    assert answer.status_code == 400
    assert "A ranked table needs a turn timer." in answer.content.decode()
    assert not Match.objects.exists()


def test_anonymous_visitors_cannot_create_tables():
    answer = Client().post(reverse("games:create"), {"game": "part-du-chef", "seats": "3"})
    assert answer.status_code == 302 and reverse("players:login") in answer["Location"]
    assert not Match.objects.exists()


# --- the table page ----------------------------------------------------------------------------
def test_an_open_table_offers_join_to_visitors_and_leave_and_bots_to_its_players():
    creator = make_user()
    match = services.create_table(creator, "part-du-chef", seats=3)
    own = client_for(creator).get(table_url(match)).content.decode()
    assert 'data-testid="leave"' in own and 'data-testid="add-bot"' in own
    assert 'data-testid="join"' not in own
    visitor = client_for(make_user()).get(table_url(match)).content.decode()
    assert 'data-testid="join"' in visitor and 'data-testid="leave"' not in visitor
    anonymous = Client().get(table_url(match)).content.decode()
    assert "Log in to join this table." in anonymous and 'data-testid="join"' not in anonymous


def test_bots_are_offered_only_at_friendly_tables():
    creator = make_user()
    match = services.create_table(creator, "part-du-chef", seats=3, mode="ranked")
    assert 'data-testid="add-bot"' not in client_for(creator).get(table_url(match)).content.decode()


@pytest.mark.parametrize("who", ["player", "spectator", "anonymous"])
def test_a_running_table_renders_for_players_spectators_and_anonymous_visitors(who):
    match, users = started_table(players=3)
    viewer = {"player": users[0], "spectator": make_user(), "anonymous": None}[who]
    page = client_for(viewer).get(table_url(match))
    assert page.status_code == 200
    html = page.content.decode()
    assert f'ws-connect="/ws/tables/{match.pk}/"' in html
    assert f'data-version="{match.version}"' in html
    assert '<svg class="pizza"' in html and html.count('class="wedge"') == 13
    for part in ("table-status", "table-board", "table-players", "table-log", "table-result"):
        assert f'id="{part}"' in html
    chef = ENGINE.to_move(match.state)[0]
    has_cut_form = 'data-testid="cut-form"' in html
    assert has_cut_form == (who == "player" and chef == 0)


def test_only_the_player_to_move_gets_move_forms():
    match, users = started_table(players=3)
    _, chef_user = mover(match, users)
    for user in users:
        html = client_for(user).get(table_url(match)).content.decode()
        assert ('data-testid="cut-form"' in html) == (user == chef_user)
        assert 'data-testid="take-form"' not in html
    assert html.count('name="cut"') in (0, 13)


def test_a_private_table_is_a_404_without_its_invitation():
    match, users = started_table(players=2, private=True)
    stranger = client_for(make_user())
    for name in ("table", "record", "replay"):
        assert stranger.get(table_url(match, name)).status_code == 404
    assert Client().get(table_url(match)).status_code == 404
    answer = stranger.post(table_url(match, "move"), {"action": "cut", "cut": [0, 5]})
    assert answer.status_code == 404
    invited = stranger.get(table_url(match), {"invite": match.invite_code})
    assert invited.status_code == 200
    assert f"?invite={match.invite_code}" in invited.content.decode()  # the socket needs it too
    assert client_for(users[1]).get(table_url(match)).status_code == 200
    assert stranger.get(table_url(match), {"invite": "wrong"}).status_code == 404


def test_seated_players_of_a_private_table_see_the_invitation_link():
    creator = make_user()
    match = services.create_table(creator, "part-du-chef", seats=3, private=True)
    html = client_for(creator).get(table_url(match)).content.decode()
    assert f"{table_url(match)}?invite={match.invite_code}" in html
    invited = client_for(make_user()).get(table_url(match), {"invite": match.invite_code})
    assert 'class="invite-link"' not in invited.content.decode()


def test_a_missing_table_is_a_404():
    assert Client().get(reverse("games:table", args=[9999])).status_code == 404


# --- seats -------------------------------------------------------------------------------------
def test_joining_from_a_form_takes_a_seat_and_redirects_to_the_table():
    match = services.create_table(make_user(), "part-du-chef", seats=3)
    joiner = make_user()
    answer = client_for(joiner).post(table_url(match, "join"))
    assert answer.status_code == 302 and answer["Location"] == table_url(match)
    assert match.seats.filter(user=joiner).exists()


def test_joining_with_htmx_answers_a_client_side_redirect():
    match = services.create_table(make_user(), "part-du-chef", seats=3)
    answer = client_for(make_user()).post(table_url(match, "join"), **HTMX)
    assert answer["HX-Redirect"] == table_url(match)


def test_joining_a_private_table_needs_the_invitation():
    match = services.create_table(make_user(), "part-du-chef", seats=2, private=True)
    joiner = client_for(make_user())
    assert joiner.post(table_url(match, "join")).status_code == 404
    answer = joiner.post(table_url(match, "join"), {"invite": match.invite_code})
    assert answer.status_code == 302
    assert answer["Location"] == f"{table_url(match)}?invite={match.invite_code}"
    match.refresh_from_db()
    assert match.is_playing


def test_a_refused_join_says_why_and_changes_nothing():
    match, _ = started_table(players=2)
    before = unchanged(match)
    client = client_for(make_user())
    answer = client.post(table_url(match, "join"), **HTMX)
    assert answer.status_code == 200
    assert 'id="page-error"' in answer.content.decode()
    assert "This table has already started." in answer.content.decode()
    answer = client.post(table_url(match, "join"), follow=True)
    assert "This table has already started." in answer.content.decode()
    assert unchanged(match) == before


def test_leaving_and_adding_bots():
    creator = make_user()
    match = services.create_table(creator, "part-du-chef", seats=2)
    client = client_for(creator)
    answer = client.post(table_url(match, "add_bot"), {"level": "2"}, **HTMX)
    assert answer.status_code == 200 and 'hx-swap-oob="true"' in answer.content.decode()
    match.refresh_from_db()
    assert match.is_playing and match.seats.get(index=1).bot_level == 2

    other = services.create_table(creator, "part-du-chef", seats=2)
    answer = client.post(table_url(other, "leave"))
    assert answer.status_code == 302 and answer["Location"] == reverse("games:lobby")
    other.refresh_from_db()
    assert other.status == Match.Status.ABORTED
    assert "This table was closed." in client.get(table_url(other)).content.decode()


def test_a_bot_of_a_level_that_does_not_exist_is_refused():
    creator = make_user()
    match = services.create_table(creator, "part-du-chef", seats=2)
    answer = client_for(creator).post(table_url(match, "add_bot"), {"level": "7"}, **HTMX)
    assert "There is no bot of that level for this game." in answer.content.decode()
    assert match.seats.count() == 1


# --- moves -------------------------------------------------------------------------------------
def test_the_chef_cuts_through_the_form_and_is_redirected_to_the_table():
    match, users = started_table(players=3)
    chef, user = mover(match, users)
    answer = client_for(user).post(
        table_url(match, "move"),
        {"action": "cut", "cut": ["0", "4", "9"], "version": match.version},
    )
    assert answer.status_code == 302 and answer["Location"] == table_url(match)
    last = Move.objects.filter(match=match).last()
    assert (last.seat, last.payload) == (chef, {"cut": [0, 4, 9]})


def test_an_htmx_move_answers_the_fresh_fragments():
    match, users = started_table(players=3)
    _, user = mover(match, users)
    answer = client_for(user).post(
        table_url(match, "move"),
        {"action": "cut", "cut": ["2", "6", "11"], "version": match.version},
        **HTMX,
    )
    assert answer.status_code == 200
    html = answer.content.decode()
    match.refresh_from_db()
    assert f'id="table-status" class="table-status" data-version="{match.version}"' in html
    assert html.count('hx-swap-oob="true"') >= 7
    assert 'data-testid="cut-form"' not in html  # the chef now waits for the others


def test_taking_a_portion_with_eaten_slices_and_a_steal_through_the_form():
    match, users = started_table(players=3)
    rng = random.Random(5)
    # Play on until the player to move may steal: then play such a move through the form.
    for _ in range(60):
        seat, user = mover(match, users)
        if match.state["phase"] == "take":
            legal = itertools.islice(ENGINE.legal(match.state, seat), 20000)
            wanted = next((m for m in legal if m.get("steal") and m.get("eat")), None)
            if wanted is not None:
                break
        match = play_one_move(match, users, rng)
    else:
        pytest.skip("no steal came up in this deal")
    html = client_for(user).get(table_url(match)).content.decode()
    kind, target = next(iter(wanted["steal"].items()))
    take = wanted["take"]
    assert f'name="steal_{take}_{kind}" value="{target}"' in html
    for slice_id in wanted["eat"]:
        assert f'name="eat" value="{take}:{slice_id}"' in html
    answer = client_for(user).post(table_url(match, "move"), take_fields(wanted, match.version))
    assert answer.status_code == 302
    last = Move.objects.filter(match=match).last()
    assert last.payload == wanted and last.seat == seat


def test_la_marianne_through_the_form():
    match, users = started_table(players=3, options={"marianne": True})
    rng = random.Random(2)
    for _ in range(80):
        seat, user = mover(match, users)
        if ENGINE.may_play_marianne(match.state, seat):
            swap = next(
                (m for m in ENGINE.legal(match.state, seat) if "marianne" in m),
                None,
            )
            if swap is not None:
                break
        move = ENGINE.random_move(match.state, seat, rng)
        if "marianne" in move:
            move = next(m for m in ENGINE.legal(match.state, seat) if "marianne" not in m)
        match = services.play(match.pk, user, move, match.version)
    else:
        pytest.skip("La Marianne never became playable")
    html = client_for(user).get(table_url(match)).content.decode()
    assert 'data-testid="marianne-form"' in html
    give, get = swap["marianne"]["give"], swap["marianne"]["get"]
    data = {"action": "marianne", "version": match.version}
    for slice_id in give:
        assert f'name="give" value="{slice_id}"' in html
    for seat, slice_id in get:
        assert f'name="get" value="{seat}:{slice_id}"' in html
    data["give"] = give
    data["get"] = [f"{seat}:{slice_id}" for seat, slice_id in get]
    answer = client_for(user).post(table_url(match, "move"), data)
    assert answer.status_code == 302
    assert Move.objects.filter(match=match).last().payload == swap


@pytest.mark.parametrize(
    "fields, status, sentence",
    [
        ({"action": "cut", "cut": ["0", "4"]}, 400, "Cut the pizza into 3 portions"),
        ({"action": "cut", "cut": ["0", "4", "13"]}, 400, "Start positions go from 0 to 12."),
        ({"action": "cut", "cut": ["0", "x", "3"]}, 400, "Start positions are numbers."),
        ({"action": "take", "take": "0", "eat": []}, 400, "The chef must cut the pizza"),
        ({"action": "dance"}, 400, "This form does not describe a move."),
    ],
)
def test_an_illegal_or_forged_move_form_is_refused_and_changes_nothing(fields, status, sentence):
    match, users = started_table(players=3)
    _, user = mover(match, users)
    before = unchanged(match)
    client = client_for(user)
    answer = client.post(table_url(match, "move"), {**fields, "version": match.version})
    assert answer.status_code == status
    html = answer.content.decode()
    assert sentence in html and 'id="page-error"' in html
    assert 'data-testid="cut-form"' in html  # the page again, so the chef can try again
    assert unchanged(match) == before
    # With htmx: 200 (htmx 2 swaps no 4xx), only the error area, nothing else swapped.
    answer = client.post(table_url(match, "move"), {**fields, "version": match.version}, **HTMX)
    assert answer.status_code == 200
    html = answer.content.decode()
    assert sentence in html and html.count('hx-swap-oob="true"') == 1
    assert unchanged(match) == before


def test_a_stale_move_is_refused_with_409_and_shows_the_table_as_it_is():
    match, users = started_table(players=3)
    _, user = mover(match, users)
    before = unchanged(match)
    fields = {"action": "cut", "cut": ["0", "4", "9"], "version": match.version - 1}
    answer = client_for(user).post(table_url(match, "move"), fields)
    assert answer.status_code == 409
    assert "The table has changed since version" in answer.content.decode()
    answer = client_for(user).post(table_url(match, "move"), fields, **HTMX)
    assert answer.status_code == 200
    html = answer.content.decode()
    assert "The table has changed since version" in html
    assert f'data-version="{match.version}"' in html  # the fresh table comes with it
    assert unchanged(match) == before


@pytest.mark.parametrize("who", ["other player", "spectator", "anonymous"])
def test_a_move_by_someone_whose_turn_it_is_not_is_refused(who):
    match, users = started_table(players=3)
    chef, _ = mover(match, users)
    other = user_at(match, users, (chef + 1) % 3)
    user = {"other player": other, "spectator": make_user(), "anonymous": None}[who]
    before = unchanged(match)
    fields = {"action": "cut", "cut": ["0", "4", "9"], "version": match.version}
    answer = client_for(user).post(table_url(match, "move"), fields)
    expected = "It is not your turn." if who == "other player" else "You have no seat"
    assert answer.status_code == 403 and expected in answer.content.decode()
    assert unchanged(match) == before


def test_a_move_without_a_version_is_refused():
    match, users = started_table(players=2)
    _, user = mover(match, users)
    before = unchanged(match)
    answer = client_for(user).post(table_url(match, "move"), {"action": "cut", "cut": ["0", "4"]})
    assert answer.status_code == 400 and "which table version" in answer.content.decode()
    assert unchanged(match) == before


def test_moves_are_post_only():
    match, users = started_table(players=2)
    assert client_for(users[0]).get(table_url(match, "move")).status_code == 405


# --- the end, the record and the replay --------------------------------------------------------
def test_a_finished_table_shows_the_breakdown_and_links_to_the_record_and_replay():
    match, users = started_table(players=3)
    match = play_to_the_end(match, users, seed=4)
    html = Client().get(table_url(match)).content.decode()
    assert 'data-testid="breakdown"' in html
    for seat in match.seats.all():
        assert f'<td class="total">{seat.score}</td>' in html
    assert table_url(match, "record") in html and table_url(match, "replay") in html
    assert "The match is over." in html
    assert 'data-testid="cut-form"' not in html and 'data-testid="take-form"' not in html


def test_the_record_of_a_running_match_hides_the_pizzas_still_to_come():
    match, users = started_table(players=3)
    rng = random.Random(8)
    for _ in range(5):  # into the second round
        match = play_one_move(match, users, rng)
    assert match.state["round"] == 1
    for viewer in (*users, make_user(), None):
        answer = client_for(viewer).get(table_url(match, "record"))
        assert answer.status_code == 200
        assert "attachment" in answer["Content-Disposition"]
        record = json.loads(answer.content)
        assert record["pizzas"][:2] == match.state["pizzas"][:2]
        assert record["pizzas"][2:] == [None, None, None]
        assert len(record["moves"]) == 5 and all("deal" not in m for m in record["moves"])


def test_the_record_of_a_finished_match_replays_to_its_result():
    from games.engines.records import replay

    match, users = started_table(players=3)
    match = play_to_the_end(match, users, seed=1)
    record = json.loads(Client().get(table_url(match, "record")).content)
    assert all(p is not None for p in record["pizzas"])
    engine, state = replay(record)
    assert engine.result(state).scores == [s.score for s in match.seats.all()]


def test_no_record_before_the_match_starts():
    match = services.create_table(make_user(), "part-du-chef", seats=3)
    assert Client().get(table_url(match, "record")).status_code == 404


def test_the_replay_steps_through_the_moves():
    match, users = started_table(players=2)
    match = play_to_the_end(match, users, seed=2)
    total = Move.objects.filter(match=match).exclude(seat=-1).count()
    client = Client()
    start = client.get(table_url(match, "replay")).content.decode()
    assert f"Move 0 of {total}" in start and "The match begins; no move yet." in start
    assert "?step=1" in start and 'data-testid="replay-prev"' not in start
    assert "Pizza 1 of 5" in start

    first = Move.objects.filter(match=match).exclude(seat=-1).first()
    one = client.get(table_url(match, "replay"), {"step": 1}).content.decode()
    assert f"Move 1 of {total}" in one and "cuts pizza 1 at positions" in one
    assert ", ".join(str(p) for p in first.payload["cut"]) in one
    assert "?step=0" in one and "?step=2" in one

    last = client.get(table_url(match, "replay"), {"step": total}).content.decode()
    assert 'data-testid="replay-next"' not in last and 'data-testid="breakdown"' in last
    for seat in match.seats.all():
        assert f'<td class="total">{seat.score}</td>' in last
    # Out of range steps are clamped, and htmx gets the same page (it selects #replay).
    assert (
        f"Move {total} of {total}"
        in client.get(table_url(match, "replay"), {"step": 999}).content.decode()
    )
    assert "Move 0 of" in client.get(table_url(match, "replay"), {"step": "x"}).content.decode()
    boosted = client.get(table_url(match, "replay"), {"step": 3}, **HTMX)
    assert 'id="replay"' in boosted.content.decode()


def test_the_replay_states_match_the_logged_moves():
    match, users = started_table(players=3)
    match = play_to_the_end(match, users, seed=3)
    html = Client().get(table_url(match, "replay"), {"step": 4}).content.decode()
    # After the first round (3 takes after the cut), pizza 2 is on the table.
    assert "Pizza 2 of 5" in html
    assert re.search(r'data-slice-id="(\d+)"', html).group(1) == "13"


def test_the_replay_of_a_running_match_is_not_available():
    match, users = started_table(players=2)
    assert Client().get(table_url(match, "replay")).status_code == 404
    assert client_for(users[0]).get(table_url(match, "replay")).status_code == 404


def test_the_api_help_page_renders():
    assert "POST /api/tables" in Client().get(reverse("games:api_help")).content.decode()


def test_the_move_form_is_rate_limited_too(client, monkeypatch):
    from games import ratelimit

    monkeypatch.setattr(ratelimit, "MOVES_PER_WINDOW", (1, 60))
    match, users = started_table(players=2)
    chef = get_engine(match.game).to_move(match.state)[0]
    client.force_login(users[chef])
    path = f"/tables/{match.pk}/move/"
    client.post(path, {"version": "0", "action": "cut"})
    response = client.post(path, {"version": "0", "action": "cut"})
    assert response.status_code == 429
    match.refresh_from_db()
    assert Move.objects.filter(match=match).count() == len(match.state["log"])
