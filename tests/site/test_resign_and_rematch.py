"""Issue 12: the resign button of the table page (the service and ``POST /api/tables/{id}/resign``
are tested in test_seats_bots_resign.py) and "play again": ``services.rematch``,
``POST /api/tables/{id}/rematch`` and the page's buttons."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse

from games import rendering, services
from games.models import Invitation, Match, Seat
from players.models import ApiToken

from .factories import make_user, play_to_the_end, players_by_seat, started_table

pytestmark = pytest.mark.django_db


def bearer(user) -> dict[str, str]:
    _, raw = ApiToken.issue(user, "test")
    return {"HTTP_AUTHORIZATION": f"Bearer {raw}"}


def api_post(path: str, user, data=None):
    body = json.dumps(data) if data is not None else ""
    return Client().post(path, body, content_type="application/json", **bearer(user))


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def finished(game: str = "cafe-fatal", players: int = 2, **kwargs) -> tuple[Match, list]:
    match, users = started_table(game, players=players, **kwargs)
    return play_to_the_end(match, users), users


# --- resign from the page ------------------------------------------------------------------------
def test_the_page_offers_a_seated_player_to_resign_after_a_confirmation():
    match, users = started_table("cafe-fatal", players=2, mode="ranked")
    html = logged_in(users[0]).get(f"/tables/{match.pk}/").content.decode()
    assert 'data-testid="resign"' in html and 'data-testid="resign-confirm"' in html
    assert "You will rank last" in html
    spectator = logged_in(make_user()).get(f"/tables/{match.pk}/").content.decode()
    assert 'data-testid="resign"' not in spectator


def test_resigning_from_the_page_abandons_the_seat_and_the_button_goes():
    match, users = started_table("cafe-fatal", players=2)
    client = logged_in(users[1])
    answer = client.post(f"/tables/{match.pk}/resign/")
    assert answer.status_code == 302
    assert Seat.objects.get(match=match, user=users[1]).abandoned
    html = client.get(f"/tables/{match.pk}/").content.decode()
    assert 'data-testid="resign"' not in html


def test_resigning_twice_from_the_page_is_refused_with_a_sentence_and_changes_nothing():
    match, users = started_table("cafe-fatal", players=3)
    client = logged_in(users[0])
    client.post(f"/tables/{match.pk}/resign/")
    version = Match.objects.get(pk=match.pk).version
    answer = client.post(f"/tables/{match.pk}/resign/", HTTP_HX_REQUEST="true")
    assert "You have already given up this match." in answer.content.decode()
    assert Match.objects.get(pk=match.pk).version == version


# --- play again ----------------------------------------------------------------------------------
def test_play_again_opens_a_table_with_the_same_options_and_invites_the_other_players():
    match, users = finished("cafe-fatal", players=3, mode="ranked", turn_seconds=300)
    asker, *others = users
    again, created = services.rematch(asker, match.pk)
    assert created
    assert (again.game, again.mode, again.seats_count, again.turn_seconds) == (
        "cafe-fatal",
        "ranked",
        3,
        300,
    )
    assert (again.options, again.private, again.status) == (match.options, False, "open")
    assert again.rematch_of_id == match.pk and again.created_by_id == asker.pk
    assert [s.user_id for s in again.seats.all()] == [asker.pk]
    invited = set(Invitation.objects.filter(match=again).values_list("to_user_id", flat=True))
    assert invited == {u.pk for u in others}


def test_whoever_asks_next_joins_the_same_rematch_and_it_starts_when_all_are_back():
    match, users = finished("cafe-fatal", players=2)
    first, second = users
    again, created = services.rematch(first, match.pk)
    same, created_again = services.rematch(second, match.pk)
    assert created and not created_again and same.pk == again.pk
    assert Match.objects.filter(rematch_of=match).count() == 1
    again.refresh_from_db()
    assert again.status == Match.Status.PLAYING
    # Asking once more, seated already, is no error: it leads to the same table.
    assert services.rematch(first, match.pk) == (again, False)


def test_a_friendly_tables_bots_sit_down_again_and_the_rematch_starts_at_once():
    owner = make_user()
    match = services.create_table(owner, "cafe-fatal", seats=3, options={})
    services.add_bot(owner, match.pk, level=1)
    match = services.add_bot(owner, match.pk, level=2)
    match = play_to_the_end(match, players_by_seat(match))
    again, _ = services.rematch(owner, match.pk)
    assert again.status == Match.Status.PLAYING
    assert sorted(s.bot_level or 0 for s in again.seats.all()) == [0, 1, 2]


def test_a_private_match_is_played_again_at_a_private_table_the_players_may_join():
    match, users = finished("cafe-fatal", players=2, private=True)
    again, _ = services.rematch(users[0], match.pk)
    assert again.private and again.invite_code != match.invite_code
    joined, _ = services.rematch(users[1], match.pk)
    assert joined.pk == again.pk and Match.objects.get(pk=again.pk).is_playing


@pytest.mark.parametrize(
    ("who", "when", "message"),
    [
        ("stranger", "over", "Only a player of this match can ask to play again."),
        ("player", "playing", "You can play again once the match is over."),
    ],
)
def test_play_again_is_refused_to_strangers_and_before_the_end(who, when, message):
    match, users = started_table("cafe-fatal", players=2)
    if when == "over":
        match = play_to_the_end(match, users)
    user = make_user() if who == "stranger" else users[0]
    with pytest.raises(services.ServiceError, match=message):
        services.rematch(user, match.pk)
    assert not Match.objects.filter(rematch_of=match).exists()


def test_a_rematch_that_started_without_a_player_is_refused_to_them():
    match, users = finished("cafe-fatal", players=2)
    again, _ = services.rematch(users[0], match.pk)
    services.add_bot(users[0], again.pk)  # the asker filled the seat with a bot instead
    with pytest.raises(services.Conflict, match="already started without you"):
        services.rematch(users[1], match.pk)


def test_the_api_opens_the_rematch_with_201_then_answers_200_and_names_it_on_the_old_table():
    match, users = finished("cafe-fatal", players=2)
    first = api_post(f"/api/tables/{match.pk}/rematch", users[0])
    assert first.status_code == 201
    again = first.json()
    assert again["status"] == "open" and again["you"] == 0
    second = api_post(f"/api/tables/{match.pk}/rematch", users[1])
    assert second.status_code == 200 and second.json()["id"] == again["id"]
    assert second.json()["status"] == "playing"
    old = Client().get(f"/api/tables/{match.pk}", **bearer(users[0])).json()
    assert old["rematch"] == again["id"]


@pytest.mark.parametrize(
    ("body", "status"), [({"seats": 3}, 400), ({"game": "cafe-fatal"}, 400), (None, 409)]
)
def test_the_api_refuses_a_bad_rematch_and_changes_nothing(body, status):
    match, users = started_table("cafe-fatal", players=2)
    answer = api_post(f"/api/tables/{match.pk}/rematch", users[0], body)
    assert answer.status_code == status and "error" in answer.json()
    assert not Match.objects.filter(rematch_of=match).exists()


def test_the_api_answers_404_for_a_private_table_a_stranger_may_not_see():
    match, _users = finished("cafe-fatal", players=2, private=True)
    answer = api_post(f"/api/tables/{match.pk}/rematch", make_user())
    assert answer.status_code == 404


def test_the_finished_page_offers_play_again_then_join_go_or_watch():
    match, users = finished("cafe-fatal", players=2)
    first, second = users
    spectator = make_user()

    def actions(user) -> dict:
        return rendering.table_context(Match.objects.get(pk=match.pk), user)["extras"]

    assert actions(first)["play_again"] == {"do": "ask"}
    assert actions(spectator)["play_again"] is None
    version = Match.objects.get(pk=match.pk).version
    answer = logged_in(first).post(f"/tables/{match.pk}/rematch/")
    again = Match.objects.get(rematch_of=match)
    assert answer.status_code == 302 and answer["Location"] == f"/tables/{again.pk}/"
    # The finished table changed (a new version): its players see the rematch live.
    assert Match.objects.get(pk=match.pk).version == version + 1
    assert actions(first)["play_again"]["do"] == "go"
    assert actions(second)["play_again"] == {"do": "join", "id": again.pk}
    assert actions(spectator)["play_again"]["do"] == "watch"
    html = logged_in(second).get(f"/tables/{match.pk}/").content.decode()
    assert "Join the rematch" in html


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_the_other_players_are_told_of_the_rematch_live_on_whatever_page():
    from asgiref.sync import sync_to_async

    from tests.sockets import connected

    match, users = await sync_to_async(finished)("cafe-fatal", players=2)
    asker, other = users
    socket, _invitations = await connected("/ws/me/", other)
    assert 'id="friend-requests"' in await socket.receive_from(timeout=5)
    again, _ = await sync_to_async(services.rematch)(asker, match.pk)
    frame = await socket.receive_from(timeout=5)
    assert 'data-testid="invitation"' in frame
    # The toast links to the invitation, which leads to the rematch (and is used up on the way).
    invitation = await sync_to_async(Invitation.objects.get)(match=again, to_user=other)
    assert (
        asker.username in frame
        and reverse("players:invitation_open", args=[invitation.pk]) in frame
    )
    await socket.disconnect()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_players_asking_to_play_again_at_once_all_land_at_one_table_on_postgresql():
    """The finished match's row is locked while its rematch is opened: three players who ask at
    the same moment get one table, opened by one of them and joined by the others."""
    import threading

    from django.db import connection

    from ..services_required import require_postgres

    require_postgres()
    match, users = finished("cafe-fatal", players=3)
    barrier = threading.Barrier(len(users))
    outcomes: list = []

    def ask(user) -> None:
        barrier.wait()
        try:
            again, created = services.rematch(user, match.pk)
            outcomes.append((again.pk, created))
        except Exception as failure:  # anything at all is a bug the test must show
            outcomes.append(repr(failure))
        finally:
            connection.close()

    threads = [threading.Thread(target=ask, args=(user,)) for user in users]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(isinstance(outcome, tuple) for outcome in outcomes), outcomes
    assert sorted(created for _pk, created in outcomes) == [False, False, True], outcomes
    assert len({pk for pk, _created in outcomes}) == 1
    again = Match.objects.get(rematch_of=match)
    assert again.status == Match.Status.PLAYING and again.seats.count() == 3


def test_a_rematch_opened_in_the_same_instant_is_a_conflict_with_a_sentence(monkeypatch):
    """Without row locks (SQLite) two players may both find no rematch yet: the second insert
    breaks the one-rematch rule and is refused with a sentence, not a crash."""
    match, users = finished("cafe-fatal", players=2)
    services.rematch(users[0], match.pk)
    monkeypatch.setattr(services, "rematch_of", lambda match: None)  # it looked a moment before
    with pytest.raises(services.Conflict, match="has just opened the rematch"):
        services.rematch(users[1], match.pk)
    assert Match.objects.filter(rematch_of=match).count() == 1


def test_the_viewers_of_one_read_of_a_finished_table_look_its_rematch_up_once():
    """The rematch is the same for every viewer of a read: one query finds it for them all,
    and each viewer is still offered what is theirs (go, join, watch)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    match, users = finished("cafe-fatal", players=2)
    first, second = users
    services.rematch(first, match.pk)
    again = Match.objects.get(rematch_of=match)
    snapshot = rendering.load_table(match.pk)
    viewers = [first, second, make_user(), None]
    with CaptureQueriesContext(connection) as captured:
        offers = [
            rendering.table_context(snapshot.match, user, snapshot=snapshot)["extras"]["play_again"]
            for user in viewers
        ]
    lookups = [q for q in captured.captured_queries if '"rematch_of_id" =' in q["sql"]]
    assert len(lookups) == 1
    assert [offer and offer["do"] for offer in offers] == ["go", "join", "watch", "watch"]
    assert offers[1] == {"do": "join", "id": again.pk}
