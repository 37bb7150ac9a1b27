"""What the sockets of a process share (issue 10): one read of a table per version, the parts
every viewer sees alike rendered once per version, language and invitation code, and only the
parts that changed pushed. Sharing must never hand one seat what another may see: every viewer
gets from a shared read exactly what a render of their own gives them, in whatever order the
viewers are served."""

from __future__ import annotations

import itertools
import re

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import AnonymousUser
from django.utils import translation

from games import consumers, notify, rendering, services
from games.engines import get_engine
from tests.presenters.helpers import LIVE_PARTS, user_of_seat
from tests.sockets import connected

from .factories import started_table
from .test_secret_steps import SECRETS

pytestmark = pytest.mark.django_db


def parts_alone(match, user, invite=None) -> dict[str, str]:
    """What ``user`` gets from a read of their own (nothing shared with anyone)."""
    return rendering.table_parts(rendering.load_table(match.pk), user, invite)


def without_timer(parts: dict[str, str]) -> dict[str, str]:
    # The timer counts the seconds left at the moment of the render.
    return {part: html for part, html in parts.items() if part != "timer"}


# --- one read, every viewer -------------------------------------------------------------------------
@pytest.mark.parametrize("secret", list(SECRETS))
def test_every_viewer_of_a_shared_read_gets_what_a_read_of_their_own_gives_them(secret):
    """A secret step: one seat has chosen in secret. Served from one shared read in every order,
    each seat and a spectator get exactly their own render; the chooser's own render differs
    from the others' (so the comparison can fail)."""
    case = SECRETS[secret]()
    viewers = [*case.users, AnonymousUser()]
    alone = [without_timer(parts_alone(case.match, viewer)) for viewer in viewers]
    for order in itertools.permutations(range(len(viewers))):
        shared = rendering.load_table(case.match.pk)
        for index in order:
            got = without_timer(rendering.table_parts(shared, viewers[index]))
            assert got == alone[index], (order, index)
    # The chooser reads their own choice; a spectator does not (so the comparison can fail).
    chooser = viewers.index(user_of_seat(case.match, case.users, case.chooser))
    assert 'data-testid="your-' in alone[chooser]["moves"]
    assert 'data-testid="your-' not in "".join(alone[-1].values())


@pytest.mark.parametrize("secret", list(SECRETS))
def test_the_shared_parts_are_the_spectators_whoever_is_served_first(secret):
    """The chooser is served first: what the read keeps for everyone is what a spectator sees,
    with nothing of the chooser's secret."""
    case = SECRETS[secret]()
    chooser = user_of_seat(case.match, case.users, case.chooser)
    shared = rendering.load_table(case.match.pk)
    rendering.table_parts(shared, chooser)
    spectator = parts_alone(case.match, AnonymousUser())
    language = translation.get_language()
    kept = shared.memo[("shared", language, None)]
    assert kept == {part: spectator[part] for part in rendering.SHARED_PARTS}


def test_the_shared_parts_are_kept_per_language_and_invitation_code():
    match, users = started_table(players=3, private=True)
    shared = rendering.load_table(match.pk)
    with translation.override("fr"):
        french = rendering.table_parts(shared, users[0], match.invite_code)
    with translation.override("en"):
        english = rendering.table_parts(shared, users[0], match.invite_code)
        uninvited = rendering.table_parts(shared, users[0])
    assert french["board"] != english["board"]
    with translation.override("fr"):
        alone = rendering.table_parts(rendering.load_table(match.pk), users[0], match.invite_code)
    assert without_timer(french) == without_timer(alone)
    assert match.invite_code in english["result"] or english["result"] == uninvited["result"]
    keys = {key for key in shared.memo if key[0] == "shared"}
    assert keys == {
        ("shared", "fr", match.invite_code),
        ("shared", "en", match.invite_code),
        ("shared", "en", None),
    }


def test_the_renders_of_a_read_make_one_query_per_language_whatever_the_viewers(
    django_assert_num_queries,
):
    """Templates make no query; the context builder asks the other apps for the table's links
    (an arena's "back to the arena") once per version and language, not once per viewer."""
    match, users = started_table(players=3)
    shared = rendering.load_table(match.pk)
    with django_assert_num_queries(1):
        for viewer in [*users, AnonymousUser()]:
            rendering.table_parts(shared, viewer)
    with django_assert_num_queries(0):
        rendering.table_parts(shared, users[0])


def test_a_read_takes_four_queries(django_assert_num_queries):
    match, _ = started_table(players=3)
    with django_assert_num_queries(4):
        rendering.load_table(match.pk)


# --- sockets ----------------------------------------------------------------------------------------
def part_ids(frame: str) -> set[str]:
    return set(re.findall(r'<(?:div|section) id="([a-z-]+)"[^>]*hx-swap-oob', frame))


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_the_sockets_of_a_table_share_one_read_per_version(monkeypatch, settings):
    # The sockets' own reads, when no process publishes its render with the doorbell (with it,
    # they make none: tests/site/test_published_renders.py).
    settings.PUBLISH_RENDERS = False
    reads = []
    real = rendering.load_table

    def counted(match_id, previous=None):
        reads.append(match_id)
        return real(match_id, previous)

    monkeypatch.setattr(rendering, "load_table", counted)
    match, users = await sync_to_async(started_table)(players=3)
    sockets = [(await connected(f"/ws/tables/{match.pk}/", user))[0] for user in users]
    # Each socket's first frame: a read made after it joined, or the last read when a check
    # made after it joined finds the table unchanged (tests/site/test_connect_reuse.py).
    assert len(reads) == 1
    chef = get_engine(match.game).to_move(match.state)[0]
    await sync_to_async(services.play)(match.pk, users[chef], {"cut": [0, 4, 8]}, match.version)
    for socket in sockets:
        frame = await socket.receive_from(timeout=5)
        assert f'data-version="{match.version + 1}"' in frame
    assert len(reads) == 2
    for socket in sockets:
        await socket.disconnect()
    assert consumers.table_hub().watches == {}


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_socket_pushes_only_the_parts_that_changed_and_everything_after_a_sync():
    match, users = await sync_to_async(started_table)(players=3)
    socket, first = await connected(f"/ws/tables/{match.pk}/", users[1])
    everything = set(LIVE_PARTS)
    assert part_ids(first) == everything
    chef = get_engine(match.game).to_move(match.state)[0]
    await sync_to_async(services.play)(match.pk, users[chef], {"cut": [0, 4, 8]}, match.version)
    after_move = await socket.receive_from(timeout=5)
    # The result (empty until the end) did not change; the status always comes.
    assert "table-result" not in part_ids(after_move)
    assert {"table-status", "page-error", "table-board"} <= part_ids(after_move)
    await socket.send_json_to({"type": "sync"})
    assert part_ids(await socket.receive_from(timeout=5)) == everything
    await socket.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_after_a_gap_in_versions_a_socket_pushes_every_part(monkeypatch):
    """The page may hold parts of a version the socket never pushed (an htmx answer): after a
    lost doorbell, the next push is the whole table."""
    match, users = await sync_to_async(started_table)(players=3)
    socket, _ = await connected(f"/ws/tables/{match.pk}/", users[1])
    engine = get_engine(match.game)
    monkeypatch.setattr(notify, "ring", lambda *args, **kwargs: None)
    chef = engine.to_move(match.state)[0]
    match = await sync_to_async(services.play)(
        match.pk, users[chef], {"cut": [0, 4, 8]}, match.version
    )
    monkeypatch.undo()
    taker = engine.to_move(match.state)[0]
    free = next(p for p in engine.view(match.state, taker)["portions"] if p["taken_by"] is None)
    await sync_to_async(services.play)(
        match.pk, users[taker], {"take": free["index"], "eat": []}, match.version
    )
    frame = await socket.receive_from(timeout=5)
    assert f'data-version="{match.version + 1}"' in frame
    assert "table-result" in part_ids(frame)
    await socket.disconnect()


# --- the lobby --------------------------------------------------------------------------------------
@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_burst_of_lobby_rings_makes_one_push_then_waits_for_the_throttle(monkeypatch):
    monkeypatch.setattr(consumers, "LOBBY_THROTTLE_SECONDS", 3600.0)
    socket, _ = await connected("/ws/lobby/")
    for _ in range(30):
        await sync_to_async(notify.send)(notify.LOBBY_GROUP, {"type": "lobby.changed"})
    await socket.receive_from(timeout=5)
    # Every later ring joined one push planned for the end of the throttle.
    assert await socket.receive_nothing(timeout=0.5)
    hub = consumers.lobby_hub()
    assert hub.pending is not None and not hub.pending.done()
    await socket.disconnect()
    assert hub.sockets == set() and hub.pending is None


# --- one trip to the rendering thread for every viewer ---------------------------------------------
def test_a_viewer_whose_render_fails_does_not_stop_the_others_of_the_round(monkeypatch):
    match, users = started_table(players=3)
    real = rendering.table_parts

    def failing_for_the_first(snapshot, user, invite=None):
        if user == users[0]:
            raise RuntimeError("a broken render")
        return real(snapshot, user, invite)

    monkeypatch.setattr(rendering, "table_parts", failing_for_the_first)
    viewers = {(user.pk, None, "en"): (user, None, "en") for user in users}
    snapshot, rendered = consumers.load_and_render(
        match.pk, [(key, viewer, -1) for key, viewer in viewers.items()]
    )
    assert snapshot.version == match.version
    with pytest.raises(RuntimeError):
        consumers.own_parts(rendered, (users[0].pk, None, "en"))
    for user in users[1:]:
        with translation.override("en"):
            alone = parts_alone(match, user)
        assert without_timer(consumers.own_parts(rendered, (user.pk, None, "en"))) == (
            without_timer(alone)
        )
