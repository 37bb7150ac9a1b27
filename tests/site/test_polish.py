"""The newcomer's small fixes of issue 12: the API token header printed right, invitation toasts
that close and go once used, favicon, robots.txt, a meta description, the how-to-play pages."""

from __future__ import annotations

import re

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from games import services
from games.howto import num, portions_of
from games.models import Invitation
from players import friends, invitations
from players.rendering import render_invitations

from .factories import make_user
from .test_friends import player_socket

pytestmark = pytest.mark.django_db

GAMES = ("part-du-chef", "pizza-party", "cafe-fatal")
LANGUAGES = ("en", "fr", "de", "it")


def befriend(a, b) -> None:
    friends.request_friend(a, b)
    friends.accept(b, a)


def invited_pair():
    ann, bob = make_user(), make_user()
    befriend(ann, bob)
    match = services.create_table(ann, "part-du-chef", seats=3)
    invitation = services.invite_friend(ann, match.pk, bob)
    return ann, bob, match, invitation


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


# --- "Bearer <token>" --------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/play/api/", "/accounts/"])
def test_the_token_header_is_printed_with_its_placeholder(path):
    """`<token>` was read by the browser as a tag: the page said “Bearer ”."""
    html = logged_in(make_user()).get(path).content.decode()
    assert "<code>Authorization: Bearer &lt;token&gt;</code>" in html
    assert "<token>" not in html


# --- invitation toasts ---------------------------------------------------------------------------


def test_a_closed_invitation_is_no_longer_shown_but_still_opens_the_table():
    _ann, bob, match, invitation = invited_pair()
    assert 'data-testid="invitation"' in render_invitations(bob)
    invitations.dismiss(bob, invitation.pk)
    assert 'data-testid="invitation"' not in render_invitations(bob)
    assert services.is_invited(match, bob)


def test_following_an_invitation_uses_it_up_and_leads_to_the_table():
    _ann, bob, match, invitation = invited_pair()
    response = logged_in(bob).get(f"/accounts/invitations/{invitation.pk}/")
    assert response.status_code == 302 and response["Location"] == f"/tables/{match.pk}/"
    assert 'data-testid="invitation"' not in render_invitations(bob)


def test_nobody_may_close_another_players_invitation():
    ann, _bob, _match, invitation = invited_pair()
    response = logged_in(ann).post(f"/accounts/invitations/{invitation.pk}/dismiss/")
    assert response.status_code == 404
    assert Invitation.objects.get(pk=invitation.pk).dismissed_at is None


def test_closing_an_invitation_answers_htmx_with_nothing_to_swap():
    _ann, bob, _match, invitation = invited_pair()
    response = logged_in(bob).post(
        f"/accounts/invitations/{invitation.pk}/dismiss/", HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 204
    assert Invitation.objects.get(pk=invitation.pk).dismissed_at is not None


def test_inviting_again_after_a_close_shows_the_invitation_again():
    ann, bob, match, invitation = invited_pair()
    invitations.dismiss(bob, invitation.pk)
    services.invite_friend(ann, match.pk, bob)
    assert 'data-testid="invitation"' in render_invitations(bob)


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_closing_an_invitation_takes_it_off_every_open_page_of_the_player():
    _ann, bob, _match, invitation = await sync_to_async(invited_pair)()
    socket = await player_socket(bob)
    await sync_to_async(invitations.dismiss)(bob, invitation.pk)
    frame = await socket.receive_from(timeout=5)
    assert 'id="toasts"' in frame and 'data-testid="invitation"' not in frame
    await socket.disconnect()


# --- favicon, robots.txt, meta description ----------------------------------------------------------


def test_the_favicon_is_served_where_browsers_ask_for_it():
    response = Client().get("/favicon.ico")
    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"
    assert response.content.startswith(b"<svg")


def test_robots_txt_lets_crawlers_read_the_public_pages_only():
    response = Client().get("/robots.txt")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/plain")
    lines = response.content.decode().splitlines()
    assert lines[0] == "User-agent: *"
    assert {"Disallow: /api/", "Disallow: /admin/", "Disallow: /accounts/"} <= set(lines)
    assert "Disallow: /" not in lines


@pytest.mark.parametrize("path", ["/", "/play/", "/arenas/", "/rankings/", "/how-to-play/"])
def test_every_page_has_a_meta_description(path):
    html = Client().get(path).content.decode()
    match = re.search(r'<meta name="description" content="([^"]+)">', html)
    assert match and len(match.group(1)) > 50


# --- how to play -----------------------------------------------------------------------------------


def test_the_example_cut_makes_the_portions_the_rules_describe():
    # Positions sorted; each portion runs to the next start, the last wraps round to the first.
    assert portions_of((9, 0, 4)) == [[0, 1, 2, 3], [4, 5, 6, 7, 8], [9, 10, 11, 12]]
    assert portions_of((3, 12)) == [[3, 4, 5, 6, 7, 8, 9, 10, 11], [12, 0, 1, 2]]


def test_svg_numbers_are_written_with_a_dot_whatever_the_language():
    assert num(33.6) == "33.6" and num(-0.001) == "0" and num(130) == "130"


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("game", GAMES)
def test_each_game_has_a_rules_page_in_each_language_with_diagrams_of_plain_numbers(game, language):
    client = Client()
    client.cookies["django_language"] = language
    response = client.get(f"/how-to-play/{game}/")
    assert response.status_code == 200
    html = response.content.decode()
    assert f'<html lang="{language}">' in html
    svg = html[html.index("<svg viewBox") : html.index("</svg>", html.index("<svg viewBox"))]
    number = r"-?\d+(?:\.\d+)?"
    single = re.findall(r'\s(?:x|y|x1|y1|x2|y2|cx|cy|r|width|height)="([^"]*)"', svg)
    points = re.findall(r'\spoints="([^"]*)"', svg)
    paths = re.findall(r'\sd="([^"]*)"', svg)
    assert single and (points or paths or "<rect" in svg)
    assert all(re.fullmatch(number, value) for value in single), single
    for value in points:  # "x,y x,y …": a localized comma would make a pair of three or four
        assert all(re.fullmatch(f"{number},{number}", pair) for pair in value.split())
    for value in paths:  # "Mx,y Lx,y Ar,r 0 0,1 x,y Z"
        for token in value.split():
            assert re.fullmatch(f"[MLA]?{number}(,{number})?|Z", token), token
    viewbox = re.search(r'viewBox="([^"]*)"', svg).group(1).split()
    assert len(viewbox) == 4 and all(re.fullmatch(number, n) for n in viewbox)


def test_the_rules_pages_are_linked_from_home_lobby_and_table():
    match = services.create_table(make_user(), "cafe-fatal", seats=2)
    assert 'href="/how-to-play/cafe-fatal/"' in Client().get("/").content.decode()
    assert 'href="/how-to-play/"' in Client().get("/play/").content.decode()
    table = Client().get(f"/tables/{match.pk}/").content.decode()
    assert 'href="/how-to-play/cafe-fatal/"' in table


def test_an_unknown_game_has_no_rules_page():
    assert Client().get("/how-to-play/chess/").status_code == 404
