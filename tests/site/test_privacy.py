"""Private tables: one a visitor may not watch answers exactly like a table that does not exist,
through the API, the pages and the sockets; the tables of a private arena are private too, open
to the arena's entrants and creator."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import async_to_sync
from django.test import Client

from arena import jobs
from arena import services as arena_services
from games import services
from games.consumers import CLOSE_NOT_FOUND
from games.models import Match
from players.models import ApiToken
from tests.sockets import communicator

from .factories import make_user

pytestmark = pytest.mark.django_db


def bearer(user) -> dict[str, str]:
    _, raw = ApiToken.issue(user, "test")
    return {"HTTP_AUTHORIZATION": f"Bearer {raw}"}


def missing_id() -> int:
    return (Match.objects.order_by("-pk").values_list("pk", flat=True).first() or 0) + 1000


def api_post(path: str, user, data=None):
    body = json.dumps(data) if data is not None else ""
    return Client().post(path, body, content_type="application/json", **bearer(user))


def assert_alike(hidden, missing) -> None:
    assert hidden.status_code == missing.status_code == 404
    assert hidden.content == missing.content


def socket_close_code(path: str, user=None) -> int | None:
    async def connect() -> int | None:
        socket = communicator(path, user)
        ok, code = await socket.connect()
        if ok:
            await socket.disconnect()
            return None
        return code

    return async_to_sync(connect)()


# --- a private table looks like a missing one ----------------------------------------------------
@pytest.mark.parametrize("action", ["join", "leave", "moves"])
def test_the_api_answers_an_outsider_on_a_private_table_exactly_like_a_missing_one(action):
    owner, outsider = make_user(), make_user()
    private = services.create_table(owner, "part-du-chef", seats=2, private=True)
    body = {"version": private.version, "move": {"cut": [0, 6]}} if action == "moves" else None
    hidden = api_post(f"/api/tables/{private.pk}/{action}", outsider, body)
    missing = api_post(f"/api/tables/{missing_id()}/{action}", outsider, body)
    assert_alike(hidden, missing)
    assert hidden.json() == {"error": "There is no such table."}
    assert private.seats.count() == 1


def test_the_api_reads_of_a_private_table_answer_like_a_missing_one():
    owner, outsider = make_user(), make_user()
    private = services.create_table(owner, "part-du-chef", seats=2, private=True)
    for suffix in ["", "/record"]:
        hidden = Client().get(f"/api/tables/{private.pk}{suffix}", **bearer(outsider))
        missing = Client().get(f"/api/tables/{missing_id()}{suffix}", **bearer(outsider))
        assert_alike(hidden, missing)


@pytest.mark.parametrize("action", ["join", "leave", "move", "bot"])
def test_the_pages_answer_an_outsider_on_a_private_table_exactly_like_a_missing_one(action):
    owner, outsider = make_user(), make_user()
    private = services.create_table(owner, "part-du-chef", seats=2, private=True)
    client = Client()
    client.force_login(outsider)
    form = {"version": str(private.version), "action": "cut", "cut": ["0", "6"], "level": "1"}
    hidden = client.post(f"/tables/{private.pk}/{action}/", form)
    missing = client.post(f"/tables/{missing_id()}/{action}/", form)
    assert_alike(hidden, missing)
    assert private.seats.count() == 1


def test_the_table_pages_of_a_private_table_answer_like_a_missing_one():
    owner, outsider = make_user(), make_user()
    private = services.create_table(owner, "part-du-chef", seats=2, private=True)
    client = Client()
    client.force_login(outsider)
    for suffix in ["", "record.json", "replay/"]:
        hidden = client.get(f"/tables/{private.pk}/{suffix}")
        missing = client.get(f"/tables/{missing_id()}/{suffix}")
        assert_alike(hidden, missing)


def test_inviting_from_a_private_table_one_cannot_see_answers_like_a_missing_one():
    owner, outsider = make_user(), make_user()
    private = services.create_table(owner, "part-du-chef", seats=2, private=True)
    for match_id in (private.pk, missing_id()):
        with pytest.raises(services.NotFound):
            services.invite_friend(outsider, match_id, owner)


@pytest.mark.django_db(transaction=True)
def test_the_socket_of_a_private_table_closes_for_an_outsider_as_for_a_missing_table():
    owner, outsider = make_user(), make_user()
    private = services.create_table(owner, "part-du-chef", seats=2, private=True)
    assert socket_close_code(f"/ws/tables/{private.pk}/", outsider) == CLOSE_NOT_FOUND
    assert socket_close_code(f"/ws/tables/{missing_id()}/", outsider) == CLOSE_NOT_FOUND
    assert socket_close_code(f"/ws/tables/{private.pk}/", owner) is None


# --- a private arena's tables ---------------------------------------------------------------------
@pytest.fixture
def private_arena_table():
    """A running private arena with four entrants, three of them seated at its first table."""
    creator = make_user("host")
    tournament = arena_services.create_tournament(creator, "part-du-chef", seats=3, private=True)
    entrants = [make_user() for _ in range(3)]
    for user in entrants:
        arena_services.join(user, tournament.pk, tournament.invite_code)
    assert jobs.start_due_arenas() == 1
    assert jobs.seat_tournament(tournament.pk) == 1
    late = make_user("late")  # joins after the seating: an entrant without a seat at the table
    arena_services.join(late, tournament.pk, tournament.invite_code)
    match = Match.objects.get(arena__tournament=tournament)
    return tournament, match, {"creator": creator, "seated": entrants[0], "entrant": late}


def test_a_private_arena_opens_private_tables(private_arena_table):
    _tournament, match, _people = private_arena_table
    assert match.private and match.is_playing


@pytest.mark.parametrize("who", ["outsider", "anonymous"])
def test_outsiders_get_404_for_a_private_arenas_table_through_the_api_and_the_page(
    private_arena_table, who
):
    tournament, match, _people = private_arena_table
    client, headers = Client(), {}
    if who == "outsider":
        headers = bearer(make_user())
        client.force_login(make_user())
    assert_alike(
        Client().get(f"/api/tables/{match.pk}", **headers),
        Client().get(f"/api/tables/{missing_id()}", **headers),
    )
    assert_alike(client.get(f"/tables/{match.pk}/"), client.get(f"/tables/{missing_id()}/"))
    assert client.get(f"/arenas/{tournament.pk}/").status_code == 404


@pytest.mark.django_db(transaction=True)
def test_outsiders_sockets_on_a_private_arenas_table_close_with_4404(private_arena_table):
    _tournament, match, _people = private_arena_table
    for user in (make_user(), None):
        assert socket_close_code(f"/ws/tables/{match.pk}/", user) == CLOSE_NOT_FOUND


@pytest.mark.parametrize("who", ["creator", "seated", "entrant"])
def test_the_arenas_creator_and_entrants_may_watch_its_tables(private_arena_table, who):
    _tournament, match, people = private_arena_table
    client = Client()
    client.force_login(people[who])
    assert client.get(f"/tables/{match.pk}/").status_code == 200
    assert Client().get(f"/api/tables/{match.pk}", **bearer(people[who])).status_code == 200


@pytest.mark.django_db(transaction=True)
def test_the_arenas_entrants_sockets_on_its_tables_are_admitted(private_arena_table):
    _tournament, match, people = private_arena_table
    for user in people.values():
        assert socket_close_code(f"/ws/tables/{match.pk}/", user) is None


def test_someone_with_only_the_arenas_link_sees_its_tables_listed_without_links(
    private_arena_table,
):
    tournament, match, people = private_arena_table
    visitor = Client()
    visitor.force_login(make_user())
    page = visitor.get(f"/arenas/{tournament.pk}/?invite={tournament.invite_code}")
    assert page.status_code == 200
    html = page.content.decode()
    assert f'data-table="{match.pk}"' in html and f'href="/tables/{match.pk}/"' not in html
    assert visitor.get(f"/tables/{match.pk}/").status_code == 404
    entrant = Client()
    entrant.force_login(people["entrant"])
    assert (
        f'href="/tables/{match.pk}/"' in entrant.get(f"/arenas/{tournament.pk}/").content.decode()
    )
