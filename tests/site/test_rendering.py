"""What the rendering functions show (the socket fragments and the pages share them), and above all
what they never show: a pizza whose round has not come."""

from __future__ import annotations

import copy
import random
import re

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import Client
from django.urls import reverse

from games import rendering, services
from games.engines import get_engine
from games.engines.part_du_chef import PIZZAS, SLICES_PER_PIZZA
from games.models import Match, Move
from tests.presenters.helpers import LIVE_PARTS

from .factories import make_user, play_one_move, started_table

pytestmark = pytest.mark.django_db

ENGINE = get_engine("part-du-chef")


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


# --- helpers -----------------------------------------------------------------------------------
def viewers(users: list) -> list:
    """Every seat's player and a spectator who is not logged in."""
    return [*users, AnonymousUser()]


def reshuffle_hidden_pizzas(match: Match) -> None:
    """Change every pizza still to come (rotate each, so its burnt slice moves) in the snapshot and
    in the logged deal, as if the deal had been different where nobody has looked yet."""
    state = copy.deepcopy(match.state)
    revealed = ENGINE.revealed_rounds(state)
    for k in range(revealed, PIZZAS):
        pizza = state["pizzas"][k]
        state["pizzas"][k] = pizza[1:] + pizza[:1]
        assert state["pizzas"][k] != pizza
    Match.objects.filter(pk=match.pk).update(state=state)
    deal = Move.objects.get(match=match, seat=-1)
    payload = copy.deepcopy(deal.payload)
    payload["deal"]["pizzas"] = state["pizzas"]
    Move.objects.filter(pk=deal.pk).update(payload=payload)
    match.refresh_from_db()


def without_csrf(html: str) -> str:
    html = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", html)
    html = re.sub(r'"X-CSRFToken": "[^"]*"', "", html)
    # The server's time as the page leaves it (the clocks' reference) changes with every request.
    return re.sub(r'data-server-now="\d*"', "", html)


def shown_slice_ids(html: str) -> set[int]:
    return {int(i) for i in re.findall(r'data-slice-id="(\d+)"', html)} | {
        int(i) for i in re.findall(r"#(\d+)\b", html)
    }


def game_at_several_points(players: int = 3, seed: int = 0, **kwargs):
    """A match, then the same match after more and more moves (several rounds in)."""
    match, users = started_table(players=players, **kwargs)
    rng = random.Random(seed)
    checkpoints = {0, 1, 2, players + 1, 2 * (players + 1) + 1, 3 * (players + 1) + 2}
    played = 0
    while match.is_playing and played <= max(checkpoints):
        if played in checkpoints:
            yield match, users
        match = play_one_move(match, users, rng)
        played += 1


# --- never a pizza still to come ---------------------------------------------------------------
@pytest.mark.parametrize("marianne", [False, True])
def test_no_fragment_depends_on_the_pizzas_still_to_come(marianne):
    for match, users in game_at_several_points(options={"marianne": marianne}):
        before = {
            i: rendering.render_table_fragments(match, viewer)
            for i, viewer in enumerate(viewers(users))
        }
        reshuffle_hidden_pizzas(match)
        for i, viewer in enumerate(viewers(users)):
            assert rendering.render_table_fragments(match, viewer) == before[i]


def test_no_page_depends_on_the_pizzas_still_to_come():
    for match, users in game_at_several_points(players=4, seed=3):
        clients = [Client() for _ in range(len(users) + 1)]
        for client, user in zip(clients, users, strict=False):
            client.force_login(user)
        url = reverse("games:table", args=[match.pk])
        record_url = reverse("games:record", args=[match.pk])
        before = [
            (without_csrf(c.get(url).content.decode()), c.get(record_url).json()) for c in clients
        ]
        reshuffle_hidden_pizzas(match)
        after = [
            (without_csrf(c.get(url).content.decode()), c.get(record_url).json()) for c in clients
        ]
        assert after == before


def test_only_slices_of_revealed_pizzas_are_named():
    for match, users in game_at_several_points(players=3, seed=7):
        limit = SLICES_PER_PIZZA * ENGINE.revealed_rounds(match.state)
        for viewer in viewers(users):
            html = rendering.render_table_fragments(match, viewer)
            shown = shown_slice_ids(html)
            assert shown and max(shown) < limit


def test_the_lobby_never_shows_game_data():
    match, users = started_table(players=2)
    html = rendering.render_lobby_fragments(users[0])
    assert f'data-table="{match.pk}"' in html
    assert "data-slice-id" not in html and "<svg" not in html


# --- the fragments -----------------------------------------------------------------------------
def test_the_table_fragments_are_every_live_part_swapped_out_of_band():
    match, users = started_table(players=3)
    html = rendering.render_table_fragments(match, users[0])
    for part in LIVE_PARTS:
        assert re.search(rf'<\w+ id="{part}"[^>]*hx-swap-oob="true"', html), part
    assert html.count('hx-swap-oob="true"') == len(LIVE_PARTS)
    assert f'data-version="{match.version}"' in html
    # The ws extension swaps each top-level element: nothing may sit outside them.
    assert re.sub(r"\s", "", html).startswith('<divid="table-status"')


def test_fragments_for_an_open_table_have_the_same_parts():
    match = services.create_table(make_user(), "part-du-chef", seats=3)
    html = rendering.render_table_fragments(match, AnonymousUser())
    for part in LIVE_PARTS:
        assert f'id="{part}"' in html
    assert "Waiting for players: 1 of 3 seats taken." in html


def test_the_invitation_travels_in_the_links_of_a_private_table():
    match, _ = started_table(players=2, private=True)
    html = rendering.render_table_fragments(match, AnonymousUser(), match.invite_code)
    assert f"invite={match.invite_code}" in html
    wrong = rendering.render_table_fragments(match, AnonymousUser(), "not-the-code")
    assert "invite=" not in wrong


def test_the_socket_error_fragment():
    html = rendering.render_socket_error("Messages must be JSON.")
    assert 'id="socket-error"' in html and 'hx-swap-oob="true"' in html
    assert "Messages must be JSON." in html
    assert "&lt;b&gt;" in rendering.render_socket_error("<b>")


def test_the_lobby_fragments_list_public_open_tables_and_my_tables():
    ann, bob = make_user("ann"), make_user("bob")
    public = services.create_table(ann, "part-du-chef", seats=3)
    hidden = services.create_table(ann, "part-du-chef", seats=3, private=True)
    running, users = started_table(players=2)
    html = rendering.render_lobby_fragments(bob)
    for part in ("lobby-open-tables", "lobby-my-tables"):
        assert re.search(rf'id="{part}"[^>]*hx-swap-oob="true"', html)
    assert f'data-table="{public.pk}"' in html and f'data-testid="join-{public.pk}"' in html
    assert f'data-table="{hidden.pk}"' not in html
    assert f'data-table="{running.pk}"' not in html
    mine = rendering.render_lobby_fragments(ann)
    assert mine.count(f'data-table="{hidden.pk}"') == 1  # in "my tables" only
    assert f'data-testid="join-{public.pk}"' not in mine
    player = rendering.render_lobby_fragments(users[ENGINE.to_move(running.state)[0]])
    assert "your turn" in player
    anonymous = rendering.render_lobby_fragments(AnonymousUser())
    assert "Log in to join" in anonymous and "My tables" not in anonymous


def lobby_digests(html: str) -> set[str]:
    return set(re.findall(r'id="lobby-(?:open|my)-tables" data-digest="([0-9a-f]+)"', html))


def test_the_lobby_lists_carry_one_digest_that_changes_only_with_what_they_show():
    from django.utils import translation

    ann, bob, cat = make_user("ann"), make_user("bob"), make_user("cat")
    public = services.create_table(ann, "part-du-chef", seats=3)
    running, users = started_table(players=2)
    before = lobby_digests(rendering.render_lobby_fragments(bob))
    assert len(before) == 1  # both lists, one digest
    assert lobby_digests(rendering.render_lobby_fragments(bob)) == before
    # A move at a table that is in nobody's lists here changes nothing bob sees.
    play_one_move(running, users, random.Random(1))
    assert lobby_digests(rendering.render_lobby_fragments(bob)) == before
    # Each viewer sees their own lists: ann is seated at the table bob may join.
    assert lobby_digests(rendering.render_lobby_fragments(ann)) != before
    with translation.override("fr"):
        assert lobby_digests(rendering.render_lobby_fragments(bob)) != before
    services.join_table(cat, public.pk)
    assert lobby_digests(rendering.render_lobby_fragments(bob)) != before  # 2/3 seats now


# --- the timer ---------------------------------------------------------------------------------
def test_a_timer_is_shown_while_a_ranked_match_runs():
    match, users = started_table(players=2, mode="ranked", turn_seconds=120)
    html = rendering.render_table_fragments(match, users[0])
    assert 'class="countdown"' in html and 'datetime="' in html
    seconds = int(re.search(r'data-seconds-left="(\d+)"', html).group(1))
    assert 110 <= seconds <= 120
