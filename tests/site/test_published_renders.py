"""A table version rendered once by the process that made the change and sent with the doorbell
(issue 10, ``games/published.py``): each watching viewer gets exactly what a read of their own
gives them, a seat's own parts go to that seat's sockets only, and a socket the message carries
nothing for (a signed-in spectator, a doorbell without parts) reads and renders as before."""

from __future__ import annotations

import gc
import weakref

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import AnonymousUser

from games import limits, notify, published, rendering, rows, services
from games.engines import get_engine
from games.models import Match
from tests.presenters.helpers import user_of_seat
from tests.sockets import connected

from .factories import make_user, started_table
from .published_views import (  # noqa: F401 (no_reads_left: a fixture)
    alone,
    carried,
    no_reads_left,
    published_while_watching,
)
from .test_secret_steps import SECRETS


@pytest.mark.django_db
@pytest.mark.parametrize("secret", list(SECRETS))
def test_every_watching_viewer_gets_from_the_published_render_what_a_read_of_their_own_gives(
    secret,
):
    """A secret step (one seat has chosen in secret): each seat and visitors, in two languages
    and with or without the invitation code, get from the one published render exactly their
    own render; the chooser's differs from the others' (so the comparison can fail)."""
    case = SECRETS[secret]()
    match = Match.objects.get(pk=case.match.pk)
    viewers = [
        (user, invite, language)
        for user in [*case.users, AnonymousUser()]
        for invite in (None, match.invite_code)
        for language in ("en", "fr")
    ]
    fields = [
        published.viewer_field(user.pk if user.is_authenticated else None, invite, language)
        for user, invite, language in viewers
    ]
    message = published_while_watching(match, fields)
    for user, invite, language in viewers:
        got = carried(message, user, invite, language)
        assert got == alone(match.pk, user, invite, language), (user, invite, language)
    chooser = user_of_seat(match, case.users, case.chooser)
    assert 'data-testid="your-' in carried(message, chooser, None, "en")["moves"]
    visitor = carried(message, AnonymousUser(), None, "en")
    assert 'data-testid="your-' not in "".join(visitor.values())
    # Nobody watches in German: nothing rendered for it, nothing carried.
    assert carried(message, chooser, None, "de") is None


@pytest.mark.django_db
def test_only_the_seats_and_visitors_who_watch_are_rendered_for():
    match, users = started_table(players=3)
    stranger = make_user()
    for user_pk in (users[0].pk, stranger.pk):
        published.start_watching(match.pk, published.viewer_field(user_pk, None, "en"))
    assert published.render_for_watchers(match)["own"].keys() == {
        published.viewer_field(users[0].pk, None, "en")
    }
    # The last socket of a viewer gone, nobody is rendered for.
    published.stop_watching(match.pk, published.viewer_field(users[0].pk, None, "en"))
    published.stop_watching(match.pk, published.viewer_field(stranger.pk, None, "en"))
    assert published.render_for_watchers(match) is None


# --- sockets ----------------------------------------------------------------------------------------
def doorbells(monkeypatch) -> list[dict]:
    """The table doorbells sent from now on (still sent)."""
    sent: list[dict] = []
    real = notify.send

    def recorded(group: str, message: dict) -> None:
        if message.get("type") == "table.changed":
            sent.append(message)
        real(group, message)

    monkeypatch.setattr(notify, "send", recorded)
    return sent


def counted_reads(monkeypatch) -> list[int]:
    reads: list[int] = []
    real = rendering.load_table

    def counted(match_id, previous=None):
        reads.append(match_id)
        return real(match_id, previous)

    monkeypatch.setattr(rendering, "load_table", counted)
    return reads


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_the_seats_get_a_move_from_the_doorbell_and_a_signed_in_spectator_reads_it(
    monkeypatch,
):
    match, users = await sync_to_async(started_table)(players=3)
    stranger = await sync_to_async(make_user)()
    sockets = [
        (await connected(f"/ws/tables/{match.pk}/", user))[0] for user in [*users, None, stranger]
    ]
    sent, reads = doorbells(monkeypatch), counted_reads(monkeypatch)
    chef = get_engine(match.game).to_move(match.state)[0]
    await sync_to_async(services.play)(match.pk, users[chef], {"cut": [0, 4, 8]}, match.version)
    frames = [await s.receive_from(timeout=5) for s in sockets]
    for frame in frames:
        assert f'data-version="{match.version + 1}"' in frame
    # Rendered for the three seats and the visitor, each seat under its own user only.
    (message,) = sent
    assert message["parts"]["own"].keys() == {
        published.viewer_field(pk, None, "en") for pk in [*(u.pk for u in users), None]
    }
    assert len(set(frames[:3])) == 3
    # The spectator, not rendered for, read the table (once, in this process).
    assert reads == [match.pk]
    for socket in sockets:
        await socket.disconnect()
    held = limits.held_many(
        published.VIEWER_KIND,
        [f"{match.pk}|{published.viewer_field(u.pk, None, 'en')}" for u in users],
    )
    assert held == {}


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_doorbell_without_parts_is_still_answered_by_a_read(monkeypatch):
    monkeypatch.setattr(published, "render_for_watchers", lambda match: 1 / 0)
    match, users = await sync_to_async(started_table)(players=3)
    sockets = [(await connected(f"/ws/tables/{match.pk}/", user))[0] for user in users]
    sent, reads = doorbells(monkeypatch), counted_reads(monkeypatch)
    chef = get_engine(match.game).to_move(match.state)[0]
    await sync_to_async(services.play)(match.pk, users[chef], {"cut": [0, 4, 8]}, match.version)
    for socket in sockets:
        frame = await socket.receive_from(timeout=5)
        assert f'data-version="{match.version + 1}"' in frame
    assert "parts" not in sent[0]
    assert reads == [match.pk]  # one read for the three sockets
    for socket in sockets:
        await socket.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_published_push_and_a_read_give_a_seat_the_same_table(monkeypatch):
    """After a published push, a ``sync`` (a read of the socket's own) shows the same version
    with the same parts: the page cannot tell which way a version came."""
    match, users = await sync_to_async(started_table)(players=3)
    socket, _first = await connected(f"/ws/tables/{match.pk}/", users[1])
    sent = doorbells(monkeypatch)
    chef = get_engine(match.game).to_move(match.state)[0]
    await sync_to_async(services.play)(match.pk, users[chef], {"cut": [0, 4, 8]}, match.version)
    pushed = await socket.receive_from(timeout=5)
    assert "parts" in sent[0]
    await socket.send_json_to({"type": "sync"})
    whole = await socket.receive_from(timeout=5)
    without_timer = [
        line for line in pushed.split("\n") if "table-timer" not in line and line.strip()
    ]
    for line in without_timer:
        assert line in whole
    await socket.disconnect()


@pytest.mark.django_db
def test_a_replaced_read_is_freed_by_reference_counts():
    """A kept read's match and seats refer to each other: replaced, the read lets go of that
    cycle, so it does not wait for a collection (nor would it be frozen as garbage)."""
    match, _users = started_table(players=3)
    first = rows.match_with_seats(match.pk)
    published._keep_read(published._read(first, rendering.seats_of(first)))
    watched = weakref.ref(first)
    del first
    enabled = gc.isenabled()
    gc.disable()
    try:
        second = rows.match_with_seats(match.pk)
        published._keep_read(published._read(second, rendering.seats_of(second)))
        assert watched() is None
        # The read kept now still has its seats without a query.
        assert list(published._reads[match.pk].match.seats.all()) == rendering.seats_of(second)
    finally:
        if enabled:
            gc.enable()


@pytest.mark.django_db
def test_a_table_s_viewers_are_made_once_for_its_players_invitation_code_and_languages(
    settings,
):
    """Who may watch a table is the same at every version while its players stay: made once
    (their cache keys with them, ``limits.HeldCounts``), in whatever order the seats come."""
    match, users = started_table(players=3)
    seats = rendering.seats_of(match)
    first = published.viewers_of(match, seats)
    assert len(first.candidates) == 2 * 4 * len(settings.LANGUAGES)
    moved = services.play(
        match.pk,
        users[get_engine(match.game).to_move(match.state)[0]],
        {"cut": [0, 4, 8]},
        match.version,
    )
    assert published.viewers_of(moved, list(reversed(rendering.seats_of(moved)))) is first
    newcomer = make_user()
    seats[1].user, seats[1].user_id = newcomer, newcomer.pk
    other = published.viewers_of(match, seats)
    assert other is not first
    assert published.viewer_field(newcomer.pk, None, "en") in other.candidates
    assert published.viewer_field(users[1].pk, None, "en") not in other.candidates
    settings.LANGUAGES = [("en", "English")]
    assert len(published.viewers_of(match, seats).candidates) == 2 * 4
