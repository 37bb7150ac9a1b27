"""Issue 12: a table's chat for players and spectators. Short lines, rate-limited, escaped, kept
with the match; a viewer mutes another for themselves only; bad input (too long, too fast,
markup, empty, a forged seat or author) gets a clear refusal and stores nothing."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from games import chat, ratelimit, services
from games.models import ChatMessage, ChatMute
from players.models import ApiToken
from tests.sockets import connected

from .factories import make_user, play_to_the_end, started_table

pytestmark = pytest.mark.django_db


def bearer(user) -> dict[str, str]:
    _, raw = ApiToken.issue(user, "test")
    return {"HTTP_AUTHORIZATION": f"Bearer {raw}"}


def api_post(path: str, user, data) -> object:
    return Client().post(path, json.dumps(data), content_type="application/json", **bearer(user))


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


# --- the service ---------------------------------------------------------------------------------
def test_a_player_and_a_spectator_write_and_the_server_sets_author_and_seat():
    match, users = started_table("cafe-fatal", players=2)
    spectator = make_user()
    mine = chat.post(users[1], match.pk, "  good luck!  ")
    theirs = chat.post(spectator, match.pk, "nice table")
    assert (mine.author, mine.seat, mine.text) == (users[1], 1, "good luck!")
    assert (theirs.author, theirs.seat) == (spectator, None)
    assert [line.text for line in chat.lines_for(match, None)] == ["good luck!", "nice table"]


@pytest.mark.parametrize(
    ("text", "refusal"),
    [
        ("", "The message is empty"),
        ("   ", "The message is empty"),
        ("x" * 201, "at most 200 characters; this one has 201"),
        ("<b>loud</b>", "plain text"),
        ("see <a href=x>here", "plain text"),
        ("<!-- hidden -->", "plain text"),
        ("<script>alert(1)</script>", "plain text"),
        ("two\nlines", "one line of text"),
        ("bell\x07", "one line of text"),
        (42, "as text"),
        (None, "as text"),
        (["hi"], "as text"),
    ],
)
def test_bad_lines_are_refused_with_a_reason_and_nothing_is_stored(text, refusal):
    match, users = started_table("cafe-fatal", players=2)
    with pytest.raises(services.BadRequest, match=refusal):
        chat.post(users[0], match.pk, text)
    assert not ChatMessage.objects.exists()


def test_a_line_of_exactly_200_characters_and_a_lone_less_than_are_fine():
    match, users = started_table("cafe-fatal", players=2)
    chat.post(users[0], match.pk, "y" * 200)
    chat.post(users[0], match.pk, "I <3 pizza & 1 < 2")
    assert ChatMessage.objects.count() == 2


def test_writing_too_fast_is_refused_and_the_refusal_does_not_count(monkeypatch):
    now = [1_000_000.0]
    monkeypatch.setattr(ratelimit, "clock", lambda: now[0])
    match, users = started_table("cafe-fatal", players=2)
    limit, window = chat.LINES_PER_WINDOW
    for n in range(limit):
        chat.post(users[0], match.pk, f"line {n}")
    with pytest.raises(services.TooMany, match="too fast"):
        chat.post(users[0], match.pk, "one more")
    assert ChatMessage.objects.count() == limit
    # Another person is not slowed down by it.
    chat.post(users[1], match.pk, "my turn to talk")
    now[0] += window * 2
    chat.post(users[0], match.pk, "later")
    assert ChatMessage.objects.count() == limit + 2


def test_a_bad_line_does_not_use_up_the_rate(monkeypatch):
    monkeypatch.setattr(ratelimit, "clock", lambda: 2_000_000.0)
    match, users = started_table("cafe-fatal", players=2)
    for _ in range(10):
        with pytest.raises(services.BadRequest):
            chat.post(users[0], match.pk, "")
    chat.post(users[0], match.pk, "still allowed")


def test_visitors_cannot_write_and_a_private_table_is_hidden_from_strangers():
    from django.contrib.auth.models import AnonymousUser

    match, _users = started_table("cafe-fatal", players=2, private=True)
    with pytest.raises(services.NotAllowed):
        chat.post(AnonymousUser(), match.pk, "hi")
    with pytest.raises(services.NotFound):
        chat.post(make_user(), match.pk, "hi")
    chat.post(make_user(), match.pk, "hi", invite_code=match.invite_code)
    assert ChatMessage.objects.count() == 1


def test_a_mute_hides_a_persons_lines_from_the_muter_only_until_unmuted():
    match, users = started_table("cafe-fatal", players=3)
    loud, muter, other = users
    chat.post(loud, match.pk, "LOUD")
    chat.post(other, match.pk, "calm")
    assert chat.set_muted(muter, match.pk, loud.username, True) == [loud.username]
    assert [line.text for line in chat.lines_for(match, muter)] == ["calm"]
    assert [line.text for line in chat.lines_for(match, other)] == ["LOUD", "calm"]
    assert chat.set_muted(muter, match.pk, loud.username, False) == []
    assert [line.text for line in chat.lines_for(match, muter)] == ["LOUD", "calm"]


@pytest.mark.parametrize(
    ("name", "muted", "refusal"),
    [
        ("nobody-called-this", True, "There is no player called"),
        (None, True, "Send"),
        ("SELF", True, "cannot mute yourself"),
        ("OTHER", "yes", "Send"),
    ],
)
def test_bad_mutes_are_refused_and_change_nothing(name, muted, refusal):
    match, users = started_table("cafe-fatal", players=2)
    name = {"SELF": users[0].username, "OTHER": users[1].username}.get(name, name)
    with pytest.raises(services.BadRequest, match=refusal):
        chat.set_muted(users[0], match.pk, name, muted)
    assert not ChatMute.objects.exists()


def test_the_chat_is_kept_with_the_match_and_shown_at_the_end_and_in_the_replay():
    match, users = started_table("cafe-fatal", players=2)
    chat.post(users[0], match.pk, "gg in advance")
    match = play_to_the_end(match, users)
    chat.post(users[1], match.pk, "gg")
    client = logged_in(users[0])
    assert "gg in advance" in client.get(f"/tables/{match.pk}/").content.decode()
    replay = client.get(f"/tables/{match.pk}/replay/").content.decode()
    assert "gg in advance" in replay and ">gg<" in replay
    assert 'id="chat-form"' not in replay


# --- the API -------------------------------------------------------------------------------------
def test_the_api_posts_a_line_with_201_and_lists_the_lines():
    match, users = started_table("cafe-fatal", players=2)
    answer = api_post(f"/api/tables/{match.pk}/chat", users[0], {"text": "hello"})
    assert answer.status_code == 201
    line = answer.json()["line"]
    assert (line["player"], line["seat"], line["text"]) == (users[0].username, 0, "hello")
    listed = Client().get(f"/api/tables/{match.pk}/chat").json()
    assert [(x["id"], x["text"]) for x in listed["lines"]] == [(line["id"], "hello")]
    assert listed["muted"] == []


@pytest.mark.parametrize(
    ("body", "status", "refusal"),
    [
        ({"text": "hi", "seat": 1}, 400, "Unknown field 'seat'"),
        ({"text": "hi", "player": "someone"}, 400, "Unknown field 'player'"),
        ({"text": "x" * 201}, 400, "at most 200 characters"),
        ({"text": "<i>hi</i>"}, 400, "plain text"),
        ({"text": ""}, 400, "empty"),
        ({}, 400, "as text"),
    ],
)
def test_the_api_refuses_bad_lines_and_forged_seats_and_stores_nothing(body, status, refusal):
    match, users = started_table("cafe-fatal", players=2)
    answer = api_post(f"/api/tables/{match.pk}/chat", users[0], body)
    assert answer.status_code == status
    assert refusal in answer.json()["error"]
    assert not ChatMessage.objects.exists()


def test_the_api_answers_429_when_writing_too_fast(monkeypatch):
    monkeypatch.setattr(ratelimit, "clock", lambda: 3_000_000.0)
    match, users = started_table("cafe-fatal", players=2)
    statuses = [
        api_post(f"/api/tables/{match.pk}/chat", users[0], {"text": f"{n}"}).status_code
        for n in range(chat.LINES_PER_WINDOW[0] + 1)
    ]
    assert statuses == [201] * chat.LINES_PER_WINDOW[0] + [429]


def test_the_api_wants_a_login_to_write_and_hides_a_private_tables_chat():
    match, _users = started_table("cafe-fatal", players=2, private=True)
    anonymous = Client().post(
        f"/api/tables/{match.pk}/chat", json.dumps({"text": "hi"}), content_type="application/json"
    )
    assert anonymous.status_code == 401
    assert Client().get(f"/api/tables/{match.pk}/chat").status_code == 404
    stranger = api_post(f"/api/tables/{match.pk}/chat", make_user(), {"text": "hi"})
    assert stranger.status_code == 404
    assert not ChatMessage.objects.exists()


def test_the_api_mutes_for_the_caller_only():
    match, users = started_table("cafe-fatal", players=2)
    chat.post(users[1], match.pk, "spam")
    answer = api_post(
        f"/api/tables/{match.pk}/chat/mute", users[0], {"player": users[1].username, "muted": True}
    )
    assert answer.status_code == 200 and answer.json() == {"muted": [users[1].username]}
    mine = Client().get(f"/api/tables/{match.pk}/chat", **bearer(users[0])).json()
    assert mine["lines"] == [] and mine["muted"] == [users[1].username]
    theirs = Client().get(f"/api/tables/{match.pk}/chat", **bearer(users[1])).json()
    assert [x["text"] for x in theirs["lines"]] == ["spam"]


# --- the page ------------------------------------------------------------------------------------
def test_lines_are_escaped_on_the_page():
    match, users = started_table("cafe-fatal", players=2)
    chat.post(users[0], match.pk, "say \"hi\" & <3 'now'")
    html = logged_in(users[1]).get(f"/tables/{match.pk}/").content.decode()
    assert "say &quot;hi&quot; &amp; &lt;3 &#x27;now&#x27;" in html


def test_the_page_form_posts_a_line_and_refuses_a_forged_seat():
    match, users = started_table("cafe-fatal", players=2)
    client = logged_in(users[0])
    sent = client.post(f"/tables/{match.pk}/chat/", {"text": "hi"}, HTTP_HX_REQUEST="true")
    assert sent.status_code == 200 and sent["HX-Trigger"] == "chat-sent"
    assert ">hi<" in sent.content.decode()
    forged = client.post(
        f"/tables/{match.pk}/chat/", {"text": "as you", "seat": "1"}, HTTP_HX_REQUEST="true"
    )
    assert "Unknown field &#x27;seat&#x27;" in forged.content.decode()
    assert "HX-Trigger" not in forged
    too_long = client.post(f"/tables/{match.pk}/chat/", {"text": "z" * 300}, HTTP_HX_REQUEST="true")
    assert "at most 200 characters" in too_long.content.decode()
    assert list(ChatMessage.objects.values_list("text", flat=True)) == ["hi"]


def test_a_visitor_is_asked_to_log_in_to_chat():
    match, _users = started_table("cafe-fatal", players=2)
    html = Client().get(f"/tables/{match.pk}/").content.decode()
    assert "Log in to chat." in html and 'id="chat-form"' not in html


# --- the socket ----------------------------------------------------------------------------------
@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_line_reaches_every_socket_of_the_table_but_not_one_that_muted_its_author():
    match, users = await sync_to_async(started_table)("cafe-fatal", players=2)
    spectator = await sync_to_async(make_user)()
    await sync_to_async(chat.set_muted)(spectator, match.pk, users[0].username, True)
    sockets = []
    for user in (users[1], spectator):
        socket, _table = await connected(f"/ws/tables/{match.pk}/", user)
        sockets.append(socket)
    await sync_to_async(chat.post)(users[0], match.pk, "hello <3 all")
    player_frame = await sockets[0].receive_from(timeout=5)
    muter_frame = await sockets[1].receive_from(timeout=5)
    assert 'id="chat-lines"' in player_frame and 'hx-swap-oob="true"' in player_frame
    assert "hello &lt;3 all" in player_frame
    # The chat has a fragment of its own: the table's parts are not sent again.
    assert 'id="table-status"' not in player_frame
    assert 'id="chat-lines"' in muter_frame and "hello" not in muter_frame
    for socket in sockets:
        await socket.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_socket_that_connects_gets_the_lines_written_before():
    match, users = await sync_to_async(started_table)("cafe-fatal", players=2)
    await sync_to_async(chat.post)(users[0], match.pk, "early bird")
    socket, _table = await connected(f"/ws/tables/{match.pk}/", users[1])
    frame = await socket.receive_from(timeout=5)
    assert 'id="chat-lines"' in frame and "early bird" in frame
    await socket.disconnect()
