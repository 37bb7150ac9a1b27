"""The gate (pdc_site/gate.py): malformed input is refused with 400 and a sentence before any view,
service or query reads it; well-formed input passes untouched."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from games import services
from games.models import Match
from pdc_site import gate
from players.models import ApiToken

from .factories import make_user, started_table

pytestmark = pytest.mark.django_db


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


# --- load_json: one reader for every JSON the site takes -----------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        nested(gate.MAX_JSON_DEPTH + 1),
        nested(5000),
        '{"a": ' * 3000 + "1" + "}" * 3000,
        "9" * 5000,
        str(gate.MAX_JSON_INTEGER + 1),
        str(-gate.MAX_JSON_INTEGER - 1),
        "1e999",
        "-1e999",
        "NaN",
        "[Infinity]",
        '"a\\u0000b"',
        '{"\\u0000": 1}',
        '["\\ud800"]',
        '{"move": {"cut": ["\\udfff"]}}',
        "{'single': 'quotes'}",
        "",
    ],
)
def test_json_the_gate_refuses(text):
    with pytest.raises(gate.BadInput):
        gate.load_json(text)


@pytest.mark.parametrize(
    "text, value",
    [
        (nested(gate.MAX_JSON_DEPTH), json.loads(nested(gate.MAX_JSON_DEPTH))),
        (str(gate.MAX_JSON_INTEGER), gate.MAX_JSON_INTEGER),
        (str(-gate.MAX_JSON_INTEGER), -gate.MAX_JSON_INTEGER),
        ("1e300", 1e300),
        ('"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["', "[" * 36),
        ('["\\\\", [[]]]', ["\\", [[]]]),
        ('"\\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["', '"' + "[" * 33),
        ('{"name": "Café ☕ 🍕"}', {"name": "Café ☕ 🍕"}),
    ],
)
def test_json_the_gate_lets_through(text, value):
    assert gate.load_json(text) == value


def test_json_must_be_utf8():
    with pytest.raises(gate.BadInput):
        gate.load_json(b'{"name": "caf\xe9"}')
    assert gate.load_json('{"name": "café"}'.encode()) == {"name": "café"}


def test_json_longer_than_the_limit_is_refused_before_it_is_read():
    with pytest.raises(gate.BadInput):
        gate.load_json(b" " * (gate.max_body_bytes() + 1))


# --- requests -------------------------------------------------------------------------------------
def bearer(user) -> dict[str, str]:
    _, raw = ApiToken.issue(user, "test")
    return {"HTTP_AUTHORIZATION": f"Bearer {raw}"}


def test_a_nul_in_an_address_answers_400_not_a_database_error():
    user = make_user()
    client = Client()
    for path in ["/players/a%00b/", "/api/players/a%00b", "/rankings/a%00/"]:
        response = client.get(path)
        assert response.status_code == 400, path
    assert client.get(f"/players/{user.username}/").status_code == 200


def test_a_nul_in_the_query_answers_400():
    response = Client().get("/api/tables?game=part-du-chef%00")
    assert response.status_code == 400
    assert response.json()["error"]
    assert Client().get("/play/?x=%00").status_code == 400
    assert Client().get("/api/tables?game=part-du-chef").status_code == 200


def test_a_nul_in_a_form_field_answers_400_and_changes_nothing():
    user = make_user()
    client = Client()
    client.force_login(user)
    response = client.post(
        "/arenas/new/",
        {
            "game": "part-du-chef",
            "name": "Pizza\x00",
            "minutes": "30",
            "seats": "3",
            "turn_seconds": "30",
        },
    )
    assert response.status_code == 400
    response = client.post("/accounts/friends/add/", {"username": "x\x00"})
    assert response.status_code == 400
    match = services.create_table(user, "part-du-chef", seats=2)
    response = client.post(f"/accounts/tables/{match.pk}/invite/", {"friend": "\x00"})
    assert response.status_code == 400
    assert not match.invitations.exists()


def test_a_nul_in_a_cookie_answers_400_before_the_session_is_read():
    response = Client().get("/play/", HTTP_COOKIE='sessionid="\\000abcdefgh"')
    assert response.status_code == 400


def test_a_malformed_json_body_answers_400_json_on_every_api_endpoint():
    user = make_user()
    headers = bearer(user)
    for body in [
        nested(2000),
        '{"game": "part-du-chef", "seats": ' + "9" * 5000 + "}",
        '{"game": "\\u0000"}',
        '{"turn_seconds": 1e999}',
    ]:
        response = Client().post("/api/tables", body, content_type="application/json", **headers)
        assert response.status_code == 400
        assert response.json()["error"]
    assert not Match.objects.exists()


def test_a_body_that_is_neither_a_form_nor_json_answers_400_even_where_none_is_read():
    response = Client().generic("GET", "/play/", nested(100), content_type="application/json")
    assert response.status_code == 400
    response = Client().post("/i18n/setlang/", b"\xff\xfe", content_type="text/plain")
    assert response.status_code == 400


def test_a_body_larger_than_the_limit_answers_400():
    user = make_user()
    body = json.dumps({"game": "part-du-chef", "name": "x" * (gate.max_body_bytes())})
    response = Client().post(
        "/api/tournaments", body, content_type="application/json", **bearer(user)
    )
    assert response.status_code == 400
    assert response.json()["error"] == "The request is too large."


def test_options_that_are_not_an_object_answer_a_clear_400():
    user = make_user()
    for options in [[["marianne", True]], "marianne", 5, True]:
        response = Client().post(
            "/api/tables",
            json.dumps({"game": "part-du-chef", "seats": 3, "options": options}),
            content_type="application/json",
            **bearer(user),
        )
        assert response.status_code == 400
        assert response.json()["error"] == "Table options must be an object."
    assert not Match.objects.exists()


def test_a_json_body_posted_as_a_form_is_still_read_by_the_api():
    # curl -d sends JSON as application/x-www-form-urlencoded: the API reads the body anyway.
    user = make_user()
    response = Client().post(
        "/api/tables",
        json.dumps({"game": "part-du-chef", "seats": 2}),
        content_type="application/x-www-form-urlencoded",
        **bearer(user),
    )
    assert response.status_code == 201


def test_refusals_speak_the_callers_language():
    english = Client().get("/play/?x=%00", HTTP_ACCEPT_LANGUAGE="en")
    french = Client().get("/play/?x=%00", HTTP_ACCEPT_LANGUAGE="fr")
    assert english.status_code == french.status_code == 400
    assert "NUL" in french.content.decode()
    assert french.content != english.content


# --- sockets --------------------------------------------------------------------------------------
async def open_socket(
    path: str, headers: list | None = None, raw_query: bytes | None = None
) -> tuple[bool, int | None]:
    from pdc_site.asgi import application

    base = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
    socket = WebsocketCommunicator(application, path, headers=base + (headers or []))
    if raw_query is not None:
        socket.scope["query_string"] = raw_query
    connected, code = await socket.connect()
    if connected:
        await socket.disconnect()
    return connected, code


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_socket_whose_query_or_cookie_holds_a_nul_is_refused_at_the_handshake():
    match, _ = await sync_to_async(started_table)(players=2)
    path = f"/ws/tables/{match.pk}/"
    assert (await open_socket(path))[0]
    assert not (await open_socket(path + "?invite=%00"))[0]
    assert not (await open_socket(path, raw_query=b"invite=\xff"))[0]
    assert not (await open_socket(path, [(b"cookie", b'sessionid="\\000abcdefgh"')]))[0]


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_malformed_frame_gets_an_error_and_the_socket_stays_open():
    from tests.sockets import connected

    match, _ = await sync_to_async(started_table)(players=2)
    socket, _first = await connected(f"/ws/tables/{match.pk}/")
    for frame in [
        nested(2000),
        '{"type": "sync", "n": ' + "9" * 3000 + "}",
        '{"type": "\\u0000"}',
        "[1e999]",
    ]:
        await socket.send_to(text_data=frame)
        assert "must be JSON" in await socket.receive_from(timeout=5)
    await socket.send_to(text_data=json.dumps({"type": "sync"}))
    assert f'data-version="{match.version}"' in await socket.receive_from(timeout=5)
    await socket.disconnect()


def test_a_query_or_form_with_too_many_fields_answers_400_json_under_the_api():
    many = "&".join(f"f{n}=1" for n in range(2000))
    response = Client().get(f"/api/games?{many}")
    assert response.status_code == 400
    assert response.json()["error"] == "This request cannot be read."
    form = Client().post("/accounts/login/", many, content_type="application/x-www-form-urlencoded")
    assert form.status_code == 400
