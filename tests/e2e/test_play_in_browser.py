"""Three people play a whole ranked La Part du Chef match in their browsers while a logged-out
visitor watches; every page follows the game live over its socket, without a reload."""

from __future__ import annotations

import re
import uuid

import pytest

pytestmark = pytest.mark.e2e

PASSWORD = "pizza-pass-123"
WAIT = 15_000  # ms, for live updates
ROUNDS = 5
PLAYERS = 3


def sign_up(context, live_site: str, username: str):
    from playwright.sync_api import expect

    page = context.new_page()
    page.goto(f"{live_site}/accounts/signup/")
    page.fill("#id_username", username)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.get_by_role("button", name="Create my account").click()
    expect(page).to_have_url(re.compile(r"/play/$"))
    return page


def mark_loaded(page) -> None:
    """A flag that only survives if the page is never reloaded or left."""
    page.evaluate("window.__sameDocument = true")


def status_of(page):
    return page.locator("#table-status")


def test_three_players_play_a_ranked_match_while_a_spectator_watches(live_site, browser):
    from playwright.sync_api import expect

    suffix = uuid.uuid4().hex[:6]
    contexts = [browser.new_context() for _ in range(PLAYERS + 1)]
    try:
        host, guest_a, guest_b = (
            sign_up(contexts[i], live_site, f"{name}-{suffix}")
            for i, name in enumerate(("ann", "bob", "cat"))
        )
        # The guests wait in the lobby; its socket is open before the table exists.
        for guest in (guest_a, guest_b):
            expect(guest.locator("#lobby-open-tables")).to_be_visible()
            mark_loaded(guest)

        host.select_option("#id_seats", "3")
        host.select_option("#id_mode", "ranked")
        host.select_option("#id_turn_seconds", "120")
        host.get_by_role("button", name="Open the table").click()
        expect(host).to_have_url(re.compile(r"/tables/\d+/$"))
        table_url = host.url
        table_id = re.search(r"/tables/(\d+)/", table_url).group(1)
        expect(status_of(host)).to_have_attribute("data-status", "open")
        mark_loaded(host)

        # The new table appears in the guests' lobbies live; they join from there.
        for guest in (guest_a, guest_b):
            join = guest.get_by_test_id(f"join-{table_id}")
            expect(join).to_be_visible(timeout=WAIT)
            assert guest.evaluate("window.__sameDocument === true")
            join.click()
            expect(guest).to_have_url(table_url)

        spectator = contexts[PLAYERS].new_page()
        spectator.goto(table_url)
        players = [host, guest_a, guest_b]
        everyone = [*players, spectator]
        for page in everyone:
            expect(status_of(page)).to_have_attribute("data-status", "playing", timeout=WAIT)
        expect(spectator.get_by_text("You are a spectator.")).to_be_visible()
        for page in everyone:
            mark_loaded(page)

        by_seat = {}
        for page in players:
            by_seat[int(status_of(page).get_attribute("data-you"))] = page
        assert sorted(by_seat) == [0, 1, 2]
        expect(host.locator("#table-timer time.countdown")).to_be_visible()

        for _ in range(ROUNDS * (PLAYERS + 1)):
            status = status_of(spectator)
            version = int(status.get_attribute("data-version"))
            seat = int(status.get_attribute("data-to-move"))
            phase = status.get_attribute("data-phase")
            page = by_seat[seat]
            expect(status_of(page)).to_have_attribute("data-version", str(version), timeout=WAIT)
            if phase == "cut":
                form = page.get_by_test_id("cut-form")
                boxes = form.locator("input[name=cut]")
                for position in (0, 4, 8):
                    boxes.nth(position).check()
                form.get_by_role("button", name="Cut the pizza").click()
            else:
                # Keep it simple: the first free portion, nothing eaten, nothing taken.
                form = page.get_by_test_id("take-form").first
                form.locator("button[type=submit]").click()
            for other in everyone:
                expect(status_of(other)).to_have_attribute(
                    "data-version", str(version + 1), timeout=WAIT
                )
            expect(page.locator("#page-error p")).to_have_count(0)

        results = []
        for page in everyone:
            expect(status_of(page)).to_have_attribute("data-status", "finished", timeout=WAIT)
            breakdown = page.locator("#table-result").get_by_test_id("breakdown")
            expect(breakdown).to_be_visible()
            assert page.evaluate("window.__sameDocument === true"), "the page was reloaded"
            results.append(breakdown.inner_text())
        assert all(text == results[0] for text in results)
        for name in ("ann", "bob", "cat"):
            assert f"{name}-{suffix}" in results[0]
        ranks = spectator.locator("#table-result td.rank").all_inner_texts()
        assert len(ranks) == PLAYERS and "1" in ranks
    finally:
        for context in contexts:
            context.close()
