"""What a move costs through the JSON API (issue 10: the request path of a move), and the API
tokens each process remembers, which must stop working the moment they are revoked."""

from __future__ import annotations

import json
import random

import pytest
from django.conf import settings as settings_module
from django.contrib.admin.sites import site as admin_site
from django.db import connection
from django.test import Client, RequestFactory
from django.test.utils import CaptureQueriesContext

from games import api, ratelimit
from games.engines import get_engine
from games.models import Match
from pdc_site import gate
from players import auth
from players.admin import ApiTokenAdmin
from players.models import ApiToken
from tests.redis_commands import redis_commands

from .factories import make_user, started_table

pytestmark = pytest.mark.django_db

#: A move that does not end the match: the token, the locked match with its seats and their
#: players (one query), one insert of its moves, one update of the match.
POST_QUERIES = 4
#: The same with the token remembered by the process.
POST_QUERIES_TOKEN_KNOWN = 3
#: The move that ends a friendly match: the token, the locked match, the seats' scores and
#: ranks (one statement for them all), one insert of its moves, one update of the match. Nothing
#: else is read: ratings and arenas leave friendly matches alone, and a match that has just
#: ended has no rematch nor analysis yet (eleven queries before they knew it).
POST_QUERIES_ENDING = 5
#: The same for a ranked match outside arenas, plus the ratings (the match read again, whether it
#: was rated already, its seats, the new players' ratings made, every rating locked, all of them
#: updated in one statement, the changes inserted), the one look for an arena table, and the
#: answer's Elo changes: 14 (18 when each rating was saved on its own and the arena looked three
#: times, 20 when the answer read the rematch and the analysis too).
POST_QUERIES_ENDING_RANKED = 14
#: The table: the token, the match with its seats and their players.
GET_QUERIES = 2
GET_QUERIES_TOKEN_KNOWN = 1


@pytest.fixture
def tokens_remembered(settings):
    settings.API_TOKEN_CACHE = True
    auth._known.clear()
    yield
    auth._known.clear()


def data_queries(captured: CaptureQueriesContext) -> int:
    """Queries other than transaction control (which SQLite shows and PostgreSQL does not)."""
    control = ("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE", "ROLLBACK")
    return sum(not q["sql"].upper().startswith(control) for q in captured.captured_queries)


def headers_for(users: list) -> list[dict[str, str]]:
    return [{"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(u, 'bot')[1]}"} for u in users]


def post_move(client: Client, match_id: int, version: int, move: dict, headers: dict):
    body = json.dumps({"version": version, "move": move})
    return client.post(
        f"/api/tables/{match_id}/moves", body, content_type="application/json", **headers
    )


def play_through_the_api() -> list[tuple[int, int]]:
    """Plays a 3-player match to its end through the API, each move after its mover's GET; the
    queries of every (GET, POST) of a move that did not end the match."""
    match, users = started_table(players=3)
    engine = get_engine(match.game)
    client, rng, headers = Client(), random.Random(3), headers_for(users)
    for each in headers:  # each token used once: its last_used_at written, maybe remembered
        assert client.get("/api/games", **each).status_code == 200
    counts = []
    while True:
        match.refresh_from_db()
        if not match.is_playing:
            return counts
        seat = engine.to_move(match.state)[0]
        with CaptureQueriesContext(connection) as get:
            table = client.get(f"/api/tables/{match.pk}", **headers[seat]).json()
        move = engine.random_move(match.state, seat, rng)
        with CaptureQueriesContext(connection) as post:
            answer = post_move(client, match.pk, table["version"], move, headers[seat])
        assert answer.status_code == 200, answer.json()
        if answer.json()["status"] == "playing":
            counts.append((data_queries(get), data_queries(post)))


def test_a_move_and_the_movers_look_at_the_table_take_a_few_queries(settings):
    settings.API_TOKEN_CACHE = False
    counts = play_through_the_api()
    assert counts
    assert max(get for get, _post in counts) == GET_QUERIES
    assert max(post for _get, post in counts) == POST_QUERIES


def test_with_its_token_remembered_a_move_takes_one_query_less(tokens_remembered):
    counts = play_through_the_api()
    assert max(get for get, _post in counts) == GET_QUERIES_TOKEN_KNOWN
    assert max(post for _get, post in counts) == POST_QUERIES_TOKEN_KNOWN


@pytest.mark.parametrize("mode", ["friendly", "ranked"])
def test_a_moves_answer_is_the_table_a_look_right_after_it_gives(mode):
    """The answer is built from the match as the move saved it, not read again: it must be
    exactly what the mover's next GET shows (ranked: with clocks and Elo)."""
    match, users = started_table(
        players=3, mode=mode, turn_seconds=3600 if mode == "ranked" else None
    )
    engine = get_engine(match.game)
    client, rng, headers = Client(), random.Random(5), headers_for(users)
    for _ in range(12):
        match.refresh_from_db()
        seat = engine.to_move(match.state)[0]
        move = engine.random_move(match.state, seat, rng)
        answer = post_move(client, match.pk, match.version, move, headers[seat]).json()
        look = client.get(f"/api/tables/{match.pk}", **headers[seat]).json()
        for table in (answer, look):
            for each in table["seats"]:
                if each["clock"]:  # counts down between the two
                    each["clock"]["seconds_left"] = None
        assert answer == look


@pytest.mark.parametrize(
    "mode, queries", [("friendly", POST_QUERIES_ENDING), ("ranked", POST_QUERIES_ENDING_RANKED)]
)
def test_the_move_that_ends_a_match_takes_a_few_queries(settings, mode, queries):
    settings.API_TOKEN_CACHE = False
    match, users = started_table(players=3, mode=mode)
    engine = get_engine(match.game)
    client, rng, headers = Client(), random.Random(7), headers_for(users)
    while True:
        seat = engine.to_move(match.state)[0]
        move = engine.random_move(match.state, seat, rng)
        with CaptureQueriesContext(connection) as post:
            answer = post_move(client, match.pk, match.version, move, headers[seat]).json()
        match = Match.objects.get(pk=match.pk)
        if not match.is_playing:
            break
    assert answer["status"] == "finished"
    assert (answer["rematch"], answer["analysis"]) == (None, {"ready": False})
    assert data_queries(post) == queries, [q["sql"][:90] for q in post.captured_queries]


def test_a_moves_answer_at_the_end_of_the_match_is_the_finished_table():
    match, users = started_table(players=3)
    engine = get_engine(match.game)
    client, rng, headers = Client(), random.Random(7), headers_for(users)
    answer = {}
    while match.is_playing:
        seat = engine.to_move(match.state)[0]
        move = engine.random_move(match.state, seat, rng)
        answer = post_move(client, match.pk, match.version, move, headers[seat]).json()
        match = Match.objects.get(pk=match.pk)
    look = client.get(f"/api/tables/{match.pk}", **headers[seat]).json()
    assert answer["status"] == "finished" and answer == look
    assert sorted(s["rank"] for s in answer["seats"]) == sorted(s.rank for s in match.seats.all())


# --- remembered tokens ---------------------------------------------------------------------------
def remembered_token() -> tuple[Client, dict[str, str], object]:
    user = make_user()
    token, raw = ApiToken.issue(user, "bot")
    headers = {"HTTP_AUTHORIZATION": f"Bearer {raw}"}
    client = Client()
    assert client.get("/api/tables", **headers).status_code == 200
    with CaptureQueriesContext(connection) as second:
        assert client.get("/api/tables", **headers).status_code == 200
    assert not any("players_apitoken" in q["sql"] for q in second.captured_queries)
    return client, headers, token


def test_a_remembered_token_is_not_looked_up_again(tokens_remembered):
    remembered_token()


def test_a_remembered_token_revoked_on_the_account_page_stops_working_at_once(tokens_remembered):
    client, headers, token = remembered_token()
    page = Client()
    page.force_login(token.user)
    page.post(f"/accounts/tokens/{token.pk}/revoke/")
    assert client.get("/api/tables", **headers).status_code == 401


def test_remembered_tokens_revoked_by_the_admin_stop_working_at_once(tokens_remembered):
    client, headers, token = remembered_token()
    request = RequestFactory().post("/admin/")
    request.user = make_user()
    request._messages = type("Messages", (), {"add": lambda *args, **kwargs: None})()
    ApiTokenAdmin(ApiToken, admin_site).revoke(request, ApiToken.objects.filter(pk=token.pk))
    assert client.get("/api/tables", **headers).status_code == 401


def test_a_remembered_token_of_a_deactivated_player_stops_working_at_once(tokens_remembered):
    client, headers, token = remembered_token()
    token.user.is_active = False
    token.user.save()
    assert client.get("/api/tables", **headers).status_code == 401


def test_a_revoke_in_another_process_reaches_this_one_through_the_shared_generation(
    tokens_remembered,
):
    """Another process revokes: this one learns it only from the generation in the shared
    cache (its own memory is left as it was)."""
    client, headers, token = remembered_token()
    remembered = dict(auth._known)
    ApiToken.objects.filter(pk=token.pk).update(revoked_at=token.created_at)
    auth.tokens_changed()  # what the other process's revoke does
    auth._known.update(remembered)
    assert client.get("/api/tables", **headers).status_code == 401


def test_without_the_shared_generation_every_request_looks_its_token_up(tokens_remembered):
    """The cache lost the generation (Redis restarted or away): nothing remembered is trusted."""
    from django.core.cache import cache

    client, headers, token = remembered_token()
    cache.delete(auth.GENERATION_KEY)
    ApiToken.objects.filter(pk=token.pk).update(revoked_at=token.created_at)
    assert client.get("/api/tables", **headers).status_code == 401


# --- the limits of a request in one round trip ----------------------------------------------------
def moves_counted(user) -> int:
    """The hits counted against ``user``'s moves' limit in its window."""
    key, _limit, window = ratelimit.move_limit(user.pk)
    return next(n for n in range(100) if not ratelimit.full(key, n + 1, window))


def calls_counted(user) -> int:
    return next(n for n in range(100) if not ratelimit.full(f"api:user:{user.pk}", n + 1, 60))


@pytest.fixture(params=["remembered", "looked up"])
def token_kind(request, settings):
    """Both ways a token's hits are counted: with the token check (a token the process
    remembers) and after it."""
    settings.API_TOKEN_CACHE = request.param == "remembered"
    auth._known.clear()
    yield request.param
    auth._known.clear()


def a_stale_move(client: Client, match: Match, headers: dict):
    """A move of the right shape on a version that is gone: counted, then refused (409)."""
    return post_move(client, match.pk, match.version + 5, {"take": 0, "eat": []}, headers)


def the_mover(match: Match, users: list) -> tuple[object, dict]:
    seat = get_engine(match.game).to_move(match.state)[0]
    return users[seat], headers_for(users)[seat]


def test_a_move_past_the_moves_limit_is_refused_and_given_back(token_kind, monkeypatch):
    monkeypatch.setattr(ratelimit, "MOVES_PER_WINDOW", (2, 10))
    match, users = started_table(players=3)
    client, (user, headers) = Client(), the_mover(match, users)
    codes = [a_stale_move(client, match, headers).status_code for _ in range(4)]
    assert codes == [409, 409, 429, 429]
    answer = a_stale_move(client, match, headers).json()
    assert answer == {"error": "Too many moves: slow down."}
    assert moves_counted(user) == 2
    assert calls_counted(user) == 5


def test_a_call_past_the_calls_limit_counts_no_move(token_kind, monkeypatch):
    monkeypatch.setattr(api, "CALLS_PER_WINDOW", (3, 60))
    match, users = started_table(players=3)
    client, (user, headers) = Client(), the_mover(match, users)
    assert client.get("/api/games", **headers).status_code == 200
    codes = [a_stale_move(client, match, headers).status_code for _ in range(3)]
    assert codes == [409, 409, 429]
    assert a_stale_move(client, match, headers).json() == {
        "error": "Too many requests: slow down and try again in a minute."
    }
    assert (calls_counted(user), moves_counted(user)) == (3, 2)


def test_a_body_that_is_no_move_counts_no_move(token_kind):
    match, users = started_table(players=3)
    client, (user, headers) = Client(), the_mover(match, users)
    bodies = [{"move": {"take": 0}}, {"version": 1, "move": {}, "extra": 1}, [1, 2]]
    for body in bodies:
        answer = client.post(
            f"/api/tables/{match.pk}/moves", body, content_type="application/json", **headers
        )
        assert answer.status_code == 400
    too_big = "x" * (gate.max_body_bytes() + 1)
    answer = client.post(
        f"/api/tables/{match.pk}/moves", too_big, content_type="application/json", **headers
    )
    assert answer.status_code == 400
    assert moves_counted(user) == 0


@pytest.mark.skipif(not settings_module.REDIS_URL, reason="needs Redis: set REDIS_URL")
def test_a_remembered_tokens_move_checks_its_token_and_limits_in_one_round_trip(
    tokens_remembered, monkeypatch
):
    match, users = started_table(players=3)
    engine = get_engine(match.game)
    seat = engine.to_move(match.state)[0]
    client, headers = Client(), headers_for(users)[seat]
    assert client.get("/api/games", **headers).status_code == 200  # now remembered
    sent = redis_commands(monkeypatch)
    move = engine.random_move(match.state, seat, random.Random(1))
    assert post_move(client, match.pk, match.version, move, headers).status_code == 200
    assert sent == ["EVALSHA"]
    sent.clear()
    assert client.get(f"/api/tables/{match.pk}", **headers).status_code == 200
    assert sent == ["EVALSHA"]
