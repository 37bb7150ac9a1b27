"""Every endpoint, fuzzed on PostgreSQL (which refuses what SQLite lets through, such as NUL).

The endpoints are read from the URLconf and the socket routes, so a new one is fuzzed without an
edit here. Three properties:

- malformed input (NUL or broken text in the address, the query, a form, a cookie; JSON too deep,
  numbers too large or not finite, bodies too large or not UTF-8) is refused with 400 by the gate
  and changes nothing;
- well-formed but odd input (any JSON, any form, any query, any id, any caller) never answers a
  5xx, and a refusal (4xx) changes nothing;
- a socket, whatever it is sent, never crashes and changes nothing.

Each example runs in a savepoint that is rolled back, with a cache of its own, so that every
example starts from the same database and the same (empty) rate limits.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.db import connection, transaction
from django.test import Client, override_settings
from django.urls import URLResolver, get_resolver
from django.urls.resolvers import RoutePattern
from hypothesis import HealthCheck, given
from hypothesis import settings as run
from hypothesis import strategies as st

from arena import jobs
from arena import services as arena_services
from games import api, services
from games.engines import all_engines
from pdc_site import gate
from pdc_site.routing import websocket_urlpatterns
from players import friends
from players.models import ApiToken
from tests.services_required import require_postgres

from .factories import make_user, play_to_the_end, started_table

pytestmark = pytest.mark.postgres

PARAMETER = re.compile(r"<(?:(?P<converter>[^>:]+):)?(?P<name>[^>]+)>")
METHODS = ["GET", "POST", "HEAD", "PUT", "DELETE"]
#: Names the site's forms, queries and JSON bodies read (and a stranger).
FIELD_NAMES = [
    *("game", "mode", "seats", "options", "private", "turn_seconds", "invite", "version"),
    *("move", "name", "starts_at", "minutes", "level", "action", "cut", "take", "eat"),
    *("steal_M", "give_1", "get_1", "friend", "username", "password", "password1"),
    *("next", "language", "page", "since", "step", "table", "marianne", "type", "x"),
]
#: Rows that change on every authenticated call, whatever its outcome (bookkeeping, not data).
BOOKKEEPING = {"last_used_at", "last_login"}
SNAPSHOT_APPS = {"games", "ratings", "arena", "players", "auth"}


# --- the endpoints ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Endpoint:
    route: str
    #: The JSON fields the endpoint declares (``games.api.endpoint(fields=…)``), if it does.
    json_fields: frozenset[str] | None = None

    def __str__(self) -> str:
        return self.route or "(home)"

    @property
    def parameters(self) -> list[tuple[str, str]]:
        return [(m["name"], m["converter"] or "str") for m in PARAMETER.finditer(self.route)]


def _route(pattern: Any) -> str:
    assert isinstance(pattern, RoutePattern), f"{pattern!r}: teach the fuzz to fill this pattern"
    return str(pattern)


def _endpoints(patterns: list, prefix: str = "") -> Iterator[Endpoint]:
    for entry in patterns:
        if isinstance(entry, URLResolver):
            if entry.namespace == "admin":
                continue  # Django's own pages, for staff only: tests/site/test_admin.py
            yield from _endpoints(entry.url_patterns, prefix + _route(entry.pattern))
        else:
            fields = getattr(entry.callback, "json_fields", None)
            yield Endpoint(prefix + _route(entry.pattern), fields)


HTTP_ENDPOINTS = list(_endpoints(get_resolver().url_patterns))
SOCKET_ENDPOINTS = list(_endpoints(websocket_urlpatterns))


def test_the_fuzz_finds_every_kind_of_endpoint():
    routes = {e.route for e in HTTP_ENDPOINTS}
    assert {"api/tables/<int:match_id>/moves", "players/<str:username>/", "arenas/new/"} <= routes
    assert "ws/tables/<int:match_id>/" in {e.route for e in SOCKET_ENDPOINTS}
    declared = {e.route: e.json_fields for e in HTTP_ENDPOINTS}
    assert declared["api/tables/<int:match_id>/moves"] == {"version", "move"}


# --- the world the fuzz plays in -------------------------------------------------------------------
@dataclass
class World:
    fuzzer: Any
    token: str
    ids: list[int]
    names: list[str]
    slugs: list[str]
    invites: list[str]


def build_world() -> World:
    """A player (the fuzzer) with a seat at a running table, a token, friends and a pending
    friend request; tables open, running, private and finished; arenas public and private."""
    fuzzer = make_user("fuzzer")
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    running = services.create_table(ann, "part-du-chef", seats=2)
    services.join_table(fuzzer, running.pk)
    open_table = services.create_table(ann, "part-du-chef", seats=3)
    private = services.create_table(bob, "part-du-chef", seats=3, private=True)
    finished, players = started_table(players=2)
    play_to_the_end(finished, players)
    friends.request_friend(fuzzer, bob)
    friends.accept(bob, fuzzer)
    friends.request_friend(cid, fuzzer)
    token, raw = ApiToken.issue(fuzzer, "fuzz")
    public_arena = arena_services.create_tournament(ann, "part-du-chef", seats=2)
    for user in (ann, bob):
        arena_services.join(user, public_arena.pk)
    private_arena = arena_services.create_tournament(cid, "part-du-chef", private=True)
    jobs.start_due_arenas()
    jobs.seat_tournament(public_arena.pk)
    ids = [running.pk, open_table.pk, private.pk, finished.pk, token.pk]
    ids += [public_arena.pk, private_arena.pk, 0, 1, running.version]
    slugs = [e.slug for e in all_engines()]
    names = [u.username for u in (fuzzer, ann, bob, cid)] + slugs
    invites = [private.invite_code, private_arena.invite_code, running.invite_code]
    return World(fuzzer, raw, ids, names, slugs, invites)


def snapshot() -> dict[str, str]:
    """A digest of every row of the site's own tables (sessions aside, bookkeeping columns left
    out), read in one query: what must not change when a request is refused."""
    from django.apps import apps

    quote_name = connection.ops.quote_name
    selects, labels = [], []
    for model in apps.get_models():
        if model._meta.app_label not in SNAPSHOT_APPS:
            continue
        columns = [
            quote_name(f.column) for f in model._meta.concrete_fields if f.name not in BOOKKEEPING
        ]
        rows = f"row({', '.join(columns)})::text"
        order = quote_name(model._meta.pk.column)
        selects.append(
            f"SELECT %s, md5(coalesce(string_agg({rows}, '|' ORDER BY {order}), ''))"
            f" FROM {quote_name(model._meta.db_table)}"
        )
        labels.append(model._meta.label)
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(selects), labels)
        return dict(cursor.fetchall())


@pytest.fixture
def world(monkeypatch) -> World:
    require_postgres()
    # A long poll on a table that does not change would wait its full 25 s.
    monkeypatch.setattr(api, "LONG_POLL_SECONDS", 0.0, raising=False)
    return build_world()


# --- what the fuzz sends ---------------------------------------------------------------------------
storable_text = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00"))
odd_text = st.one_of(
    storable_text,
    st.integers(-(10**40), 10**40).map(str),
    st.sampled_from(["", "-1", "0", "1e999", "NaN", "../", "%", "%00", "'", '"', "{}", "[]"]),
)
json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-gate.MAX_JSON_INTEGER, gate.MAX_JSON_INTEGER),
    st.floats(allow_nan=False, allow_infinity=False),
    odd_text,
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(FIELD_NAMES) | storable_text, inner, max_size=4)
    ),
    max_leaves=12,
)


def plausible_values(world: World) -> dict[str, st.SearchStrategy]:
    """For the fields the site reads, values it would accept, so that a call gets past the first
    check and an odd value beside them reaches the code behind."""
    return {
        "game": st.sampled_from(world.slugs),
        "mode": st.sampled_from(["friendly", "ranked"]),
        "seats": st.integers(2, 5),
        "options": st.just({}) | st.fixed_dictionaries({"marianne": st.booleans()}),
        "private": st.booleans(),
        "turn_seconds": st.sampled_from([15, 30, 60, 600]),
        "invite": st.sampled_from(world.invites),
        "version": st.sampled_from(world.ids),
        "move": st.sampled_from([{"cut": [0, 6]}, {"take": 0, "eat": []}, {"pick": 0}]),
        "minutes": st.integers(5, 60),
        "level": st.integers(1, 2),
        "friend": st.sampled_from(world.names),
        "username": st.sampled_from(world.names),
        "page": st.integers(1, 3),
        "since": st.sampled_from(world.ids),
        "action": st.sampled_from(["cut", "take", "marianne"]),
    }


def json_bodies(endpoint: Endpoint, world: World) -> st.SearchStrategy[bytes]:
    """A JSON object over the fields the endpoint declares (over every field name the site reads,
    if it declares none), each plausible or odd; now and then a stray field or no object at all."""
    plausible = plausible_values(world)
    names = sorted(endpoint.json_fields) if endpoint.json_fields is not None else FIELD_NAMES
    objects = st.fixed_dictionaries(
        {}, optional={n: plausible.get(n, json_values) | json_values for n in names}
    )
    stray = st.dictionaries(st.sampled_from(FIELD_NAMES), json_values, min_size=1, max_size=3)
    return st.one_of(objects, objects, objects, stray, json_values).map(
        lambda data: json.dumps(data).encode()
    )


def form_bodies(world: World) -> st.SearchStrategy[bytes]:
    plausible = plausible_values(world)
    as_text = {n: v.map(lambda x: "on" if x is True else str(x)) for n, v in plausible.items()}
    values = {n: as_text.get(n, odd_text) | odd_text for n in FIELD_NAMES}
    return st.fixed_dictionaries({}, optional=values).map(lambda d: urlencode(d).encode())


@dataclass
class Call:
    method: str
    path: str
    query: list[tuple[str, str]]
    body: bytes
    content_type: str
    caller: str
    cookie: str | None = None

    def send(self, world: World) -> Any:
        client = Client()
        headers: dict[str, str] = {}
        if self.caller == "session":
            client.force_login(world.fuzzer)
        elif self.caller == "token":
            headers["HTTP_AUTHORIZATION"] = f"Bearer {world.token}"
        if self.cookie is not None:
            headers["HTTP_COOKIE"] = self.cookie
        url = self.path + ("?" + urlencode(self.query) if self.query else "")
        return client.generic(
            self.method, url, self.body, content_type=self.content_type, **headers
        )


def parameter_values(converter: str, world: World) -> st.SearchStrategy[str]:
    if converter == "int":
        return (st.sampled_from(world.ids) | st.integers(0, 10**40)).map(str)
    names = st.sampled_from(world.names) | odd_text.filter(lambda t: t and "/" not in t)
    return names.map(lambda text: quote(text, safe=""))


@st.composite
def paths(draw: Any, endpoint: Endpoint, world: World, nul: bool = False) -> str:
    """The endpoint's address with its parameters filled in (with a NUL in each text parameter
    when ``nul``)."""

    def fill(found: re.Match) -> str:
        converter = found["converter"] or "str"
        if nul and converter != "int":
            return quote(draw(nul_text).replace("/", ""), safe="")
        return draw(parameter_values(converter, world))

    return "/" + PARAMETER.sub(fill, endpoint.route)


nul_text = st.tuples(odd_text, odd_text).map(lambda pair: pair[0] + "\x00" + pair[1])
queries = st.lists(st.tuples(st.sampled_from(FIELD_NAMES), odd_text), max_size=3)


def bodies(endpoint: Endpoint, world: World) -> st.SearchStrategy[tuple[bytes, str]]:
    return st.one_of(
        st.just((b"", "application/octet-stream")),
        form_bodies(world).map(lambda b: (b, "application/x-www-form-urlencoded")),
        json_bodies(endpoint, world).map(lambda b: (b, "application/json")),
    )


@st.composite
def odd_calls(draw: Any, endpoint: Endpoint, world: World) -> Call:
    body, content_type = draw(bodies(endpoint, world))
    return Call(
        method=draw(st.sampled_from(["POST", "GET"]) | st.sampled_from(METHODS)),
        path=draw(paths(endpoint, world)),
        query=draw(queries),
        body=body,
        content_type=content_type,
        caller=draw(st.sampled_from(["anonymous", "session", "token"])),
    )


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


malformed_json = st.one_of(
    st.integers(gate.MAX_JSON_DEPTH + 1, 3000).map(_nested),
    st.integers(gate.MAX_JSON_INTEGER + 1, 10**30).map(str),
    st.integers(17, 5000).map(lambda digits: "-" + "7" * digits),
    st.sampled_from(["1e999", "-1e999", "NaN", "Infinity", '"\\u0000"', '"\\ud800"', "{", "'x'"]),
).map(lambda bad: bad.encode())


@st.composite
def malformed_calls(draw: Any, endpoint: Endpoint, world: World) -> Call:
    """An odd call with one malformed part, wherever the gate must find it."""
    call = draw(odd_calls(endpoint, world))
    places = ["query", "cookie", "json", "raw", "large"]
    if call.method == "POST":
        places.append("form")
    if any(converter != "int" for _name, converter in endpoint.parameters):
        places.append("path")
    place = draw(st.sampled_from(places))
    if place == "query":
        call.query = [*call.query, (draw(st.sampled_from(FIELD_NAMES)), draw(nul_text))]
    elif place == "cookie":
        call.cookie = 'sessionid="\\000' + draw(st.text("abcdef0123456789", max_size=30)) + '"'
    elif place == "form":
        pairs = draw(st.lists(st.tuples(st.sampled_from(FIELD_NAMES), odd_text), max_size=3))
        pairs.append((draw(st.sampled_from(FIELD_NAMES)), draw(nul_text)))
        call.body = urlencode(pairs).encode()
        call.content_type = "application/x-www-form-urlencoded"
    elif place == "json":
        inner = draw(malformed_json).decode()
        wrapper = draw(st.sampled_from(["%s", '{"move": {"cut": [0, %s]}}', '{"options": %s}']))
        call.body, call.content_type = (wrapper % inner).encode(), "application/json"
    elif place == "raw":
        call.body, call.content_type = b'{"name": "caf\xe9"}', "application/json"
    elif place == "large":
        call.body = json.dumps({"name": "x" * gate.max_body_bytes()}).encode()
        call.content_type = "application/json"
    else:
        call.path = draw(paths(endpoint, world, nul=True))
    return call


# --- the properties --------------------------------------------------------------------------------
def one_example(world: World, call: Call) -> tuple[Any, bool]:
    """Send ``call`` in a savepoint rolled back afterwards, with a fresh cache: the answer, and
    whether the database changed."""
    caches = {
        name: {**config, "KEY_PREFIX": f"fuzz-{uuid.uuid4().hex}"}
        for name, config in django_settings.CACHES.items()
    }
    with override_settings(CACHES=caches), transaction.atomic():
        before = snapshot()
        response = call.send(world)
        changed = snapshot() != before
        transaction.set_rollback(True)
    return response, changed


FUZZ = run(
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=True,
)


@pytest.mark.django_db
@pytest.mark.parametrize("endpoint", HTTP_ENDPOINTS, ids=str)
def test_malformed_input_is_refused_with_400_and_changes_nothing(endpoint, world):
    @run(FUZZ, max_examples=12)
    @given(call=malformed_calls(endpoint, world))
    def check(call: Call) -> None:
        response, changed = one_example(world, call)
        assert response.status_code == 400, (call, response.content[:300])
        assert not changed, call

    check()


def never_5xx_and_a_refusal_changes_nothing(world: World, call: Call) -> None:
    response, changed = one_example(world, call)
    assert response.status_code < 500, (call, response.content[:300])
    if response.status_code >= 400:
        assert not changed, (call, response.status_code)


@pytest.mark.django_db
@pytest.mark.parametrize("endpoint", HTTP_ENDPOINTS, ids=str)
def test_odd_input_never_answers_5xx_and_a_refusal_changes_nothing(endpoint, world):
    @run(FUZZ, max_examples=25)
    @given(call=odd_calls(endpoint, world))
    def check(call: Call) -> None:
        never_5xx_and_a_refusal_changes_nothing(world, call)

    check()


@st.composite
def one_odd_field(draw: Any, endpoint: Endpoint, world: World) -> Call:
    """A POST from a player, over the endpoint's declared fields: plausible values, save one."""
    plausible = plausible_values(world)
    names = sorted(endpoint.json_fields)
    body = {n: draw(plausible.get(n, json_values)) for n in names if draw(st.booleans())}
    body[draw(st.sampled_from(names))] = draw(json_values)
    return Call(
        method="POST",
        path=draw(paths(endpoint, world)),
        query=[],
        body=json.dumps(body).encode(),
        content_type="application/json",
        caller=draw(st.sampled_from(["session", "token"])),
    )


@pytest.mark.django_db
@pytest.mark.parametrize("endpoint", [e for e in HTTP_ENDPOINTS if e.json_fields], ids=str)
def test_one_odd_value_among_declared_fields_never_answers_5xx(endpoint, world):
    @run(FUZZ, max_examples=60)
    @given(call=one_odd_field(endpoint, world))
    def check(call: Call) -> None:
        never_5xx_and_a_refusal_changes_nothing(world, call)

    check()


# --- sockets ---------------------------------------------------------------------------------------
frames = st.one_of(
    # Deep enough to overflow a recursive parser, small enough to pass the frame size limit.
    st.sampled_from([_nested(1200), _nested(2040)]),
    malformed_json.map(lambda b: b.decode("utf-8", "replace")),
    json_values.map(json.dumps),
    st.dictionaries(st.just("type"), st.sampled_from(["sync", "ping", "move"]) | odd_text).map(
        json.dumps
    ),
    storable_text,
)


async def talk(path: str, query: str, cookie: str, sent: list[str | bytes]) -> None:
    """Open a socket as a browser of the site would, send the frames, read every answer; an
    exception inside the application is raised here."""
    from pdc_site.asgi import application

    headers = [
        (b"origin", b"http://localhost"),
        (b"host", b"localhost"),
        (b"cookie", cookie.encode()),
    ]
    socket = WebsocketCommunicator(application, f"{path}?{query}", headers=headers)
    try:
        connected, _code = await socket.connect(timeout=5)
        if not connected:
            return
        for frame in sent:
            kind = "bytes" if isinstance(frame, bytes) else "text"
            await socket.send_input({"type": "websocket.receive", kind: frame})
        while not await socket.receive_nothing(timeout=0.3):
            if (await socket.receive_output(timeout=1))["type"] == "websocket.close":
                break
    finally:
        # As a server does after any close, refused ones included: the application must end
        # here, inside this event loop, not be cancelled half-way when the loop is torn down.
        await socket.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("endpoint", SOCKET_ENDPOINTS, ids=str)
def test_sockets_never_crash_on_what_they_are_sent_and_change_nothing(endpoint, world):
    session = Client()
    session.force_login(world.fuzzer)
    name = django_settings.SESSION_COOKIE_NAME
    signed_in = f"{name}={session.cookies[name].value}"

    @run(FUZZ, max_examples=10)
    @given(
        path=paths(endpoint, world),
        query=queries.map(urlencode),
        cookie=st.sampled_from([signed_in, "", 'sessionid="\\000abcdefgh"']),
        sent=st.lists(frames | st.binary(max_size=50), max_size=5),
    )
    def check(path: str, query: str, cookie: str, sent: list) -> None:
        before = snapshot()
        async_to_sync(talk)(path, query, cookie, sent)
        assert snapshot() == before

    check()
