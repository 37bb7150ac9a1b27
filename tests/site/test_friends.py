"""Friends: requests, acceptance, removal, presence from heartbeats, and live invitations."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from games import services
from games.models import Match
from players import friends, presence
from players.models import Friendship
from tests.sockets import communicator, connected

from .factories import make_user

pytestmark = pytest.mark.django_db


def befriend(a, b) -> None:
    friends.request_friend(a, b)
    friends.accept(b, a)


def test_a_request_then_acceptance_makes_friends_both_ways():
    ann, bob = make_user(), make_user()
    assert friends.request_friend(ann, bob) == "requested"
    assert friends.friendship_status(ann, bob) == "requested"
    assert friends.friendship_status(bob, ann) == "incoming"
    friends.accept(bob, ann)
    assert friends.friendship_status(ann, bob) == friends.friendship_status(bob, ann) == "friends"
    assert friends.friend_ids(ann) == {bob.pk} and friends.friend_ids(bob) == {ann.pk}


def test_asking_someone_who_already_asked_you_accepts():
    ann, bob = make_user(), make_user()
    friends.request_friend(ann, bob)
    assert friends.request_friend(bob, ann) == "friends"
    assert Friendship.objects.count() == 1


def test_declining_and_removing():
    ann, bob = make_user(), make_user()
    friends.request_friend(ann, bob)
    friends.decline(bob, ann)
    assert friends.friendship_status(ann, bob) == "none"
    befriend(ann, bob)
    friends.remove(bob, ann)
    assert friends.friend_ids(ann) == set()


def test_no_friendship_with_oneself_and_no_accepting_what_was_not_asked():
    ann, bob = make_user(), make_user()
    with pytest.raises(friends.FriendError):
        friends.request_friend(ann, ann)
    with pytest.raises(friends.FriendError):
        friends.accept(ann, bob)
    assert friends.friendship_status(ann, ann) == "self"


def test_the_friends_page_and_its_forms():
    ann, bob = make_user("ann"), make_user("bob")
    client = Client()
    client.force_login(ann)
    client.post("/accounts/friends/add/", {"username": "bob"})
    assert friends.friendship_status(ann, bob) == "requested"
    other = Client()
    other.force_login(bob)
    page = other.get("/accounts/friends/")
    assert b'data-testid="incoming-request"' in page.content
    other.post("/accounts/friends/ann/accept/")
    assert friends.friendship_status(ann, bob) == "friends"
    assert b'data-testid="friend"' in client.get("/accounts/friends/").content
    response = client.post("/accounts/friends/add/", {"username": "nobody"}, follow=True)
    assert b"There is no player called nobody" in response.content


def test_friend_forms_need_a_login_and_a_post():
    make_user("bob")
    assert Client().post("/accounts/friends/bob/request/").status_code == 302
    client = Client()
    client.force_login(make_user())
    assert client.get("/accounts/friends/bob/request/").status_code == 405


def test_presence_comes_from_heartbeats():
    ann = make_user()
    assert not presence.is_online(ann.pk)
    presence.heartbeat(ann.pk)
    assert presence.is_online(ann.pk)
    assert presence.online_ids([ann.pk, ann.pk + 1]) == {ann.pk}


def test_only_friends_may_be_invited_and_an_invitation_opens_a_private_table():
    ann, bob, eve = make_user(), make_user(), make_user()
    befriend(ann, bob)
    match = services.create_table(ann, "part-du-chef", seats=2, private=True)
    with pytest.raises(services.NotAllowed):
        services.invite_friend(ann, match.pk, eve)
    with pytest.raises(services.NotFound):  # bob may not even see the private table yet
        services.invite_friend(bob, match.pk, ann)
    services.invite_friend(ann, match.pk, bob)
    assert match in services.lobby_tables(bob)
    assert match not in services.lobby_tables(eve)
    services.join_table(bob, match.pk)
    assert Match.objects.get(pk=match.pk).status == Match.Status.PLAYING


# --- the player's own socket ----------------------------------------------------------------------


async def player_socket(user) -> WebsocketCommunicator:
    """A connected player socket, past the frames it sends on connect (pending invitations and
    the friend-request badge)."""
    socket, _ = await player_socket_and_first_frame(user)
    assert 'id="friend-requests"' in await socket.receive_from(timeout=5)
    return socket


async def player_socket_and_first_frame(user) -> tuple[WebsocketCommunicator, str]:
    return await connected("/ws/me/", user)


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_heartbeats_on_the_player_socket_keep_the_player_online():
    ann = await sync_to_async(make_user)()
    socket = await player_socket(ann)
    assert await sync_to_async(presence.is_online)(ann.pk)
    await sync_to_async(presence.cache.delete)(f"presence:{ann.pk}")
    await socket.send_json_to({"type": "ping", "HEADERS": {"HX-Request": "true"}})
    await socket.receive_nothing(timeout=0.3)
    assert await sync_to_async(presence.is_online)(ann.pk)
    await socket.disconnect()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_anonymous_visitors_get_no_player_socket():
    socket = communicator("/ws/me/")
    ok, _ = await socket.connect()
    assert not ok


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_an_invitation_reaches_the_friend_live_on_whatever_page():
    ann = await sync_to_async(make_user)("host")
    bob = await sync_to_async(make_user)()
    await sync_to_async(befriend)(ann, bob)
    socket = await player_socket(bob)
    match = await sync_to_async(services.create_table)(ann, "part-du-chef", seats=3)
    invitation = await sync_to_async(services.invite_friend)(ann, match.pk, bob)
    frame = await socket.receive_from(timeout=5)
    assert 'data-testid="invitation"' in frame
    # The link leads to the table through the invitation, which it marks as used.
    assert "host" in frame and f"/accounts/invitations/{invitation.pk}/" in frame
    await socket.disconnect()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_an_invitation_sent_before_the_socket_connects_is_shown_when_it_does():
    ann = await sync_to_async(make_user)("early")
    bob = await sync_to_async(make_user)()
    await sync_to_async(befriend)(ann, bob)
    match = await sync_to_async(services.create_table)(ann, "part-du-chef", seats=2)
    await sync_to_async(services.invite_friend)(ann, match.pk, bob)
    socket, first = await player_socket_and_first_frame(bob)
    assert first.count('data-testid="invitation"') == 1 and "early" in first
    await socket.disconnect()
    await sync_to_async(services.join_table)(bob, match.pk)
    socket, first = await player_socket_and_first_frame(bob)
    assert 'data-testid="invitation"' not in first  # seated: nothing left to accept
    await socket.disconnect()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_friend_request_sent_while_the_socket_was_connecting_shows_on_connect():
    ann, bob = await sync_to_async(make_user)(), await sync_to_async(make_user)()
    await sync_to_async(friends.request_friend)(ann, bob)
    socket, _ = await player_socket_and_first_frame(bob)
    badge = await socket.receive_from(timeout=5)
    assert 'id="friend-requests"' in badge and 'class="badge"' in badge
    await socket.disconnect()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_friend_request_updates_the_badge_live():
    ann, bob = await sync_to_async(make_user)(), await sync_to_async(make_user)()
    socket = await player_socket(bob)
    await sync_to_async(friends.request_friend)(ann, bob)
    frame = await socket.receive_from(timeout=5)
    assert 'id="friend-requests"' in frame and "badge" in frame
    await socket.disconnect()


def test_a_seated_player_invites_a_friend_from_the_table_page():
    ann, bob = make_user("ann"), make_user("bob")
    befriend(ann, bob)
    match = services.create_table(ann, "part-du-chef", seats=3, private=True)
    client = Client()
    client.force_login(ann)
    page = client.get(f"/tables/{match.pk}/")
    assert b'data-testid="invite-friend"' in page.content and b">bob<" in page.content
    client.post(f"/accounts/tables/{match.pk}/invite/", {"friend": "bob"})
    assert services.is_invited(match, bob)
    page = client.get(f"/tables/{match.pk}/")
    assert b"Invited:" in page.content
    guest = Client()
    guest.force_login(bob)
    assert guest.get(f"/tables/{match.pk}/").status_code == 200
    assert f"/tables/{match.pk}/".encode() in guest.get("/play/").content
