"""The JSON API as spec/api.md describes it."""

from __future__ import annotations

import json
import random

import pytest
from django.core.management import call_command
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import api, services
from games.engines import get_engine
from games.models import Match, Move
from players.models import ApiToken

from .factories import make_user, started_table

pytestmark = pytest.mark.django_db


def bearer(user) -> dict[str, str]:
    _, raw = ApiToken.issue(user, "test")
    return {"HTTP_AUTHORIZATION": f"Bearer {raw}"}


def post(client: Client, path: str, data=None, **headers):
    body = json.dumps(data) if data is not None else ""
    return client.post(path, body, content_type="application/json", **headers)


def test_games_lists_every_engine_with_its_players_and_options():
    answer = Client().get("/api/games").json()
    slugs = {g["slug"]: g for g in answer["games"]}
    assert slugs["part-du-chef"]["min_players"] == 2
    assert slugs["part-du-chef"]["max_players"] == 5
    assert slugs["part-du-chef"]["options"][0]["name"] == "marianne"


def test_opening_a_table_answers_201_with_the_creator_in_seat_0():
    user = make_user("ann")
    response = post(
        Client(),
        "/api/tables",
        {"game": "part-du-chef", "mode": "ranked", "seats": 3, "options": {"marianne": True}},
        **bearer(user),
    )
    assert response.status_code == 201
    table = response.json()
    assert table["status"] == "open" and table["you"] == 0 and table["mode"] == "ranked"
    assert table["seats"][0]["player"] == "ann" and table["seats"][1]["player"] is None
    assert table["options"] == {"marianne": True}


def test_the_match_starts_when_the_last_seat_is_taken_and_moves_are_played_with_versions():
    ann, bob = make_user(), make_user()
    client = Client()
    table = post(client, "/api/tables", {"game": "part-du-chef", "seats": 2}, **bearer(ann)).json()
    joined = post(client, f"/api/tables/{table['id']}/join", **bearer(bob)).json()
    assert joined["status"] == "playing"
    # The seats were drawn when the match started: bob's is the one ``you`` names.
    assert joined["seats"][joined["you"]]["player"] == bob.username
    by_seat = {joined["you"]: bob, 1 - joined["you"]: ann}
    chef = joined["to_move"][0]
    chef_headers = bearer(by_seat[chef])
    response = post(
        client,
        f"/api/tables/{table['id']}/moves",
        {"version": joined["version"], "move": {"cut": [0, 6]}},
        **chef_headers,
    )
    assert response.status_code == 200
    assert response.json()["version"] == joined["version"] + 1
    stale = post(
        client,
        f"/api/tables/{table['id']}/moves",
        {"version": joined["version"], "move": {"take": 0}},
        **bearer(by_seat[1 - chef]),
    )
    assert stale.status_code == 409
    assert "error" in stale.json()


def test_the_legal_moves_are_listed_when_the_list_is_small():
    match, users = started_table(players=2)
    engine = get_engine(match.game)
    chef = engine.to_move(match.state)[0]
    services.play(match.pk, users[chef], {"cut": [0, 12]}, match.version)
    other = users[1 - chef]
    table = Client().get(f"/api/tables/{match.pk}", **bearer(other)).json()
    # Portion 1 is a single slice, portion 0 has twelve: too many eat choices to list.
    assert "legal" not in table
    cut_table = Client().get(f"/api/tables/{match.pk}", **bearer(users[chef])).json()
    assert "legal" not in cut_table  # not the chef's turn any more


@pytest.mark.parametrize(
    "headers, status",
    [
        ({}, 401),
        ({"HTTP_AUTHORIZATION": "Bearer nope"}, 401),
        ({"HTTP_AUTHORIZATION": "Basic abc"}, 401),
    ],
)
def test_unauthenticated_or_badly_authenticated_writes_get_401(headers, status):
    response = post(Client(), "/api/tables", {"game": "part-du-chef"}, **headers)
    assert response.status_code == status
    assert response.json()["error"]


def test_a_revoked_token_no_longer_works():
    user = make_user()
    token, raw = ApiToken.issue(user, "bot")
    token.revoked_at = token.created_at
    token.save()
    response = post(
        Client(), "/api/tables", {"game": "part-du-chef"}, HTTP_AUTHORIZATION=f"Bearer {raw}"
    )
    assert response.status_code == 401


def test_a_browser_session_must_send_the_csrf_token_on_writes():
    user = make_user()
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    response = post(client, "/api/tables", {"game": "part-du-chef"})
    assert response.status_code == 403
    assert not Match.objects.exists()
    client.get("/api/games")  # any page sets no cookie; fetch one from a form page instead
    from django.middleware.csrf import _get_new_csrf_string, _mask_cipher_secret

    secret = _get_new_csrf_string()
    client.cookies["csrftoken"] = secret
    response = post(
        client,
        "/api/tables",
        {"game": "part-du-chef"},
        HTTP_X_CSRFTOKEN=_mask_cipher_secret(secret),
    )
    assert response.status_code == 201


@pytest.mark.parametrize(
    "body, status",
    [
        ("not json", 400),
        ("[1, 2]", 400),
        ('{"game": "chess"}', 400),
        ('{"game": "part-du-chef", "seats": 7}', 400),
        ('{"game": "part-du-chef", "colour": "red"}', 400),
        ('{"game": 5}', 400),
    ],
)
def test_bad_table_requests_get_400_with_a_sentence(body, status):
    user = make_user()
    response = Client().post("/api/tables", body, content_type="application/json", **bearer(user))
    assert response.status_code == status
    assert response.json()["error"]
    assert not Match.objects.exists()


def test_a_private_table_is_hidden_without_its_invitation():
    owner, stranger = make_user(), make_user()
    match = services.create_table(owner, "part-du-chef", seats=2, private=True)
    client = Client()
    assert client.get(f"/api/tables/{match.pk}", **bearer(stranger)).status_code == 404
    assert client.get(f"/api/tables/{match.pk + 1000}", **bearer(stranger)).status_code == 404
    joined = post(client, f"/api/tables/{match.pk}/join", **bearer(stranger))
    assert joined.status_code == 404
    seen = client.get(f"/api/tables/{match.pk}?invite={match.invite_code}", **bearer(stranger))
    assert seen.status_code == 200
    assert "invite" not in seen.json()
    joined = post(
        client, f"/api/tables/{match.pk}/join", {"invite": match.invite_code}, **bearer(stranger)
    )
    assert joined.status_code == 200
    assert joined.json()["invite"] == match.invite_code


def test_a_full_or_started_table_answers_409():
    match, _ = started_table(players=2)
    response = post(Client(), f"/api/tables/{match.pk}/join", **bearer(make_user()))
    assert response.status_code == 409


def test_leaving_is_only_for_tables_that_have_not_started():
    owner, guest = make_user(), make_user()
    match = services.create_table(owner, "part-du-chef", seats=3)
    services.join_table(guest, match.pk)
    response = post(Client(), f"/api/tables/{match.pk}/leave", **bearer(guest))
    assert response.status_code == 200
    assert [s["player"] for s in response.json()["seats"]] == [owner.username, None, None]
    started, users = started_table(players=2)
    assert post(Client(), f"/api/tables/{started.pk}/leave", **bearer(users[0])).status_code == 409


def test_moves_from_someone_not_seated_or_out_of_turn_get_403():
    match, users = started_table(players=2)
    engine = get_engine(match.game)
    chef = engine.to_move(match.state)[0]
    path = f"/api/tables/{match.pk}/moves"
    body = {"version": match.version, "move": {"cut": [0, 6]}}
    assert post(Client(), path, body, **bearer(make_user())).status_code == 403
    assert post(Client(), path, body, **bearer(users[1 - chef])).status_code == 403


def test_an_illegal_move_gets_400_with_the_engines_sentence():
    match, users = started_table(players=2)
    chef = get_engine(match.game).to_move(match.state)[0]
    response = post(
        Client(),
        f"/api/tables/{match.pk}/moves",
        {"version": match.version, "move": {"cut": [0, 0]}},
        **bearer(users[chef]),
    )
    assert response.status_code == 400
    assert response.json() == {"error": "Each start position may be named only once."}


def test_no_upcoming_pizza_in_any_api_answer():
    match, users = started_table(players=3)
    hidden = match.state["pizzas"][1:]
    client = Client()
    for user in [*users, make_user()]:
        table = client.get(f"/api/tables/{match.pk}", **bearer(user)).json()
        assert len(table["view"]["pizzas"]) == 1
        record = client.get(f"/api/tables/{match.pk}/record", **bearer(user)).json()
        assert record["pizzas"][1:] == [None] * 4
        for text in (json.dumps(table), json.dumps(record)):
            for pizza in hidden:
                assert json.dumps(pizza) not in text
    assert "seed" not in json.dumps(table)


def test_the_record_of_a_finished_match_replays_to_its_result(tmp_path):
    from .factories import play_to_the_end

    match, users = started_table(players=3)
    match = play_to_the_end(match, users)
    record = Client().get(f"/api/tables/{match.pk}/record", **bearer(users[0])).json()
    assert len(record["pizzas"]) == 5 and None not in record["pizzas"]
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    from io import StringIO

    out = StringIO()
    call_command("replay", str(path), stdout=out)
    assert json.loads(out.getvalue())["scores"] == [s.score for s in match.seats.all()]


def test_players_endpoint_shows_recent_matches():
    match, users = started_table(players=2)
    from .factories import play_to_the_end

    play_to_the_end(match, users)
    answer = Client().get(f"/api/players/{users[0].username}").json()
    assert answer["username"] == users[0].username
    assert answer["recent"][0]["id"] == match.pk
    assert Client().get("/api/players/nobody-here").status_code == 404


def test_the_api_rate_limits_moves_with_429(monkeypatch):
    monkeypatch.setattr(api.ratelimit, "MOVES_PER_WINDOW", (2, 60))
    match, users = started_table(players=2)
    chef = get_engine(match.game).to_move(match.state)[0]
    path = f"/api/tables/{match.pk}/moves"
    headers = bearer(users[chef])
    codes = [
        post(Client(), path, {"version": 0, "move": {"cut": [0, 0]}}, **headers).status_code
        for _ in range(3)
    ]
    assert codes[-1] == 429


def test_wrong_methods_get_405_json():
    response = Client().delete("/api/games")
    assert response.status_code == 405
    assert response.json()["error"]


def test_the_moves_endpoint_needs_exactly_version_and_move():
    match, users = started_table(players=2)
    response = post(
        Client(), f"/api/tables/{match.pk}/moves", {"move": {"cut": [0, 6]}}, **bearer(users[0])
    )
    assert response.status_code == 400


# --- fuzzing the moves endpoint --------------------------------------------------------------------
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 20) | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(["cut", "take", "eat", "steal", "marianne", "x"]), children
        )
    ),
    max_leaves=12,
)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    body=st.one_of(
        st.fixed_dictionaries({"version": json_values, "move": json_values}),
        json_values,
        st.binary(max_size=40).map(lambda b: b.decode("latin-1")),
    ),
    who=st.sampled_from(["chef", "other", "stranger"]),
)
def test_fuzzed_moves_never_get_a_5xx_and_a_4xx_changes_nothing(body, who, fuzz_table):
    match, users, stranger = fuzz_table
    match.refresh_from_db()
    chef = get_engine(match.game).to_move(match.state)[0]
    user = {"chef": users[chef], "other": users[(chef + 1) % 3], "stranger": stranger}[who]
    before = (match.version, json.dumps(match.state), Move.objects.filter(match=match).count())
    text = body if isinstance(body, str) else json.dumps(body)
    response = Client().post(
        f"/api/tables/{match.pk}/moves", text, content_type="application/json", **user.headers
    )
    assert response.status_code < 500
    if response.status_code >= 400:
        assert response.json()["error"]
        match.refresh_from_db()
        after = (match.version, json.dumps(match.state), Move.objects.filter(match=match).count())
        assert after == before


@pytest.fixture
def fuzz_table(monkeypatch):
    # Hundreds of examples in one test: rate limits would soon answer every one of them.
    monkeypatch.setattr(api.ratelimit, "MOVES_PER_WINDOW", (10**6, 10))
    monkeypatch.setattr(api, "CALLS_PER_WINDOW", (10**6, 60))
    match, users = started_table(players=3)
    stranger = make_user()
    for user in [*users, stranger]:
        user.headers = bearer(user)
    return match, users, stranger


# --- long polling ------------------------------------------------------------------------------
@pytest.mark.django_db(transaction=True)
def test_since_answers_at_once_when_the_table_is_newer():
    match, _ = started_table(players=2)
    table = Client().get(f"/api/tables/{match.pk}?since={match.version - 1}").json()
    assert table["version"] == match.version


@pytest.mark.django_db(transaction=True)
def test_since_gives_up_with_the_same_version_after_the_wait(monkeypatch):
    monkeypatch.setattr(api, "LONG_POLL_SECONDS", 1.0)
    match, _ = started_table(players=2)
    table = Client().get(f"/api/tables/{match.pk}?since={match.version}").json()
    assert table["version"] == match.version


def test_since_must_be_a_number():
    match, _ = started_table(players=2)
    assert Client().get(f"/api/tables/{match.pk}?since=soon").status_code == 400


def test_pizza_party_and_cafe_fatal_are_playable_through_the_api():
    rng = random.Random(4)
    for game, seats in (("pizza-party", 3), ("cafe-fatal", 2)):
        match, users = started_table(game=game, players=seats)
        engine = get_engine(game)
        client = Client()
        headers = {u.pk: bearer(u) for u in users}
        while match.is_playing:
            seat = engine.to_move(match.state)[0]
            user = next(u for u in users if match.seats.get(index=seat).user_id == u.pk)
            move = engine.random_move(match.state, seat, rng)
            response = post(
                client,
                f"/api/tables/{match.pk}/moves",
                {"version": match.version, "move": move},
                **headers[user.pk],
            )
            assert response.status_code == 200, response.json()
            match.refresh_from_db()
        assert match.status == Match.Status.FINISHED


def test_players_endpoint_shows_ratings_per_game_after_a_ranked_match():
    from .factories import play_to_the_end

    match, users = started_table(players=2, mode="ranked")
    play_to_the_end(match, users)
    answer = Client().get(f"/api/players/{users[0].username}").json()
    rating = answer["ratings"]["part-du-chef"]
    assert rating["games"] == 1
    assert isinstance(rating["elo"], int)
    assert answer["online"] is False
