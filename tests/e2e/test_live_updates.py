"""What the table page does with its socket's frames: a frame of the version the page already
shows must not swap the table in again while a player fills in a form (issue 11, item 15: the
socket's first frame, sent when it connects, wiped a cut half-chosen, the cut was refused for
naming too few positions, and every page stayed at the old version)."""

from __future__ import annotations

import re
import uuid

import pytest

from .ui import WAIT, first_frames_after_reload, sign_up, started, status_of

pytestmark = pytest.mark.e2e


def test_a_frame_of_the_version_shown_never_resets_a_cut_being_chosen(live_site, browser):
    from playwright.sync_api import expect

    suffix = uuid.uuid4().hex[:6]
    contexts = [browser.new_context() for _ in range(2)]
    try:
        ann = sign_up(contexts[0], live_site, f"ann-{suffix}")
        bob = sign_up(contexts[1], live_site, f"bob-{suffix}")
        ann.select_option("#id_seats", "2")
        ann.get_by_role("button", name="Open the table").click()
        expect(ann).to_have_url(re.compile(r"/tables/\d+/$"))
        bob.goto(ann.url)
        bob.get_by_test_id("join").click()
        pages = [ann, bob]
        by_seat = started(pages)
        chef = by_seat[int(status_of(ann).get_attribute("data-to-move"))]
        watcher = next(page for page in pages if page is not chef)

        # The chef's page is loaded again; its socket's first frame is held back until the chef
        # has begun to choose the cut.
        held: list = []
        sockets: list = []

        def hold_server_frames(socket) -> None:
            server = socket.connect_to_server()
            sockets.append(socket)
            server.on_message(lambda message: held.append(message))

        chef.route_web_socket(re.compile(r"/ws/tables/\d+/"), hold_server_frames)
        chef.reload()
        version = int(status_of(chef).get_attribute("data-version"))
        for _ in range(500):
            if held:
                break
            chef.wait_for_timeout(20)
        assert held, "the socket sent nothing on connect"
        assert f'data-version="{version}"' in held[0]
        chef.evaluate(
            "window.__frames = 0;"
            "document.addEventListener('htmx:wsBeforeMessage', () => window.__frames++)"
        )
        boxes = chef.locator("#table-targets input[name=cut]")
        chef.get_by_test_id("cut-0").click()
        for frame in held:
            sockets[0].send(frame)
        chef.wait_for_function("window.__frames >= 1")
        expect(boxes.nth(0)).to_be_checked()

        chef.get_by_test_id("cut-6").click()
        chef.get_by_test_id("cut-form").get_by_role("button", name="Cut the pizza").click()
        expect(chef.locator("#page-error p")).to_have_count(0)
        for page in pages:
            expect(status_of(page)).to_have_attribute("data-version", str(version + 1))
        # Later frames (newer versions) still reach the page over its socket.
        expect(status_of(watcher)).to_have_attribute("data-phase", "take", timeout=WAIT)
    finally:
        for context in contexts:
            context.close()


def test_a_lobby_frame_of_the_lists_shown_never_replaces_them(live_site, browser):
    """The lobby's socket sends its lists when it connects, right after the page showed the same
    ones: swapping them in again replaced the Join buttons under a click, which then landed on
    neither (CI, stop 43: a guest's Join was lost). Only a frame that shows something new swaps."""
    from playwright.sync_api import expect

    suffix = uuid.uuid4().hex[:6]
    contexts = [browser.new_context() for _ in range(2)]
    try:
        ann = sign_up(contexts[0], live_site, f"ann-{suffix}")
        bob = sign_up(contexts[1], live_site, f"bob-{suffix}")
        assert first_frames_after_reload(ann, ".lobby", 1) == [True]
        # A frame of the same lists is dropped only when every part in it carries its digest.
        dropped = """(extra) => {
            const lists = ['lobby-my-tables', 'lobby-open-tables']
                .map((id) => document.getElementById(id).outerHTML).join('\\n');
            const event = new CustomEvent('htmx:wsBeforeMessage',
                {bubbles: true, cancelable: true, detail: {message: lists + extra}});
            document.querySelector('.lobby').dispatchEvent(event);
            return event.defaultPrevented;
        }"""
        assert ann.evaluate(dropped, "") is True
        assert ann.evaluate(dropped, '<div id="page-error"></div>') is False
        ann.evaluate("document.getElementById('lobby-open-tables').__kept = true")

        bob.get_by_role("button", name="Open the table").click()
        expect(bob).to_have_url(re.compile(r"/tables/\d+/$"))
        table_id = re.search(r"/tables/(\d+)/", bob.url).group(1)
        expect(ann.get_by_test_id(f"join-{table_id}")).to_be_visible(timeout=WAIT)
        assert ann.evaluate("window.__frames.includes(false)")
        assert ann.evaluate("document.getElementById('lobby-open-tables').__kept") is None
    finally:
        for context in contexts:
            context.close()


def test_the_headers_friends_link_is_swapped_only_when_its_count_changes(live_site, browser):
    """The player's socket sends the header's Friends link when it connects, as the page just
    showed it: the same link swapped in again would lose a click on it. A friend request still
    shows live."""
    from playwright.sync_api import expect

    suffix = uuid.uuid4().hex[:6]
    contexts = [browser.new_context() for _ in range(2)]
    try:
        ann = sign_up(contexts[0], live_site, f"ann-{suffix}")
        bob = sign_up(contexts[1], live_site, f"bob-{suffix}")
        # Its first frames: the invitations' area (none), then the link, dropped.
        assert first_frames_after_reload(ann, "#player-socket", 2) == [False, True]

        bob.goto(f"{live_site}/players/ann-{suffix}/")
        bob.get_by_test_id("friend-button").click()
        expect(ann.locator("#friend-requests .badge")).to_have_text("1", timeout=WAIT)
        assert ann.evaluate("window.__frames")[-1] is False
        assert ann.locator("#friend-requests").get_attribute("data-digest") == "1"
    finally:
        for context in contexts:
            context.close()
