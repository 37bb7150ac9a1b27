"""Three people play a whole ranked La Part du Chef match in their browsers while a logged-out
visitor watches; every page follows the game live over its socket, without a reload."""

from __future__ import annotations

import re
import uuid

import pytest

from .ui import WAIT, assign_chillies, mark_loaded, play_la_part_du_chef, sign_up, status_of

pytestmark = pytest.mark.e2e

ROUNDS = 5
PLAYERS = 3


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

        moves = play_la_part_du_chef(
            spectator, by_seat, everyone, cut=(0, 4, 8), stop_at_chillies=True
        )
        assert moves == ROUNDS * (PLAYERS + 1)

        # The chilli step: each holder finds the suggestion pre-selected; the first changes it,
        # the others see only that they have chosen until the last choice is in.
        expect(status_of(spectator)).to_have_attribute("data-phase", "chillies")
        holders = [int(s) for s in status_of(spectator).get_attribute("data-to-move").split(",")]
        for seat, page in by_seat.items():
            assert (page.get_by_test_id("chilli-form").count() == 1) == (seat in holders)
        first = by_seat[holders[0]]
        suggested = first.locator('#chilli-form input[name="chilli_1"]:checked')
        changed = "M" if suggested.get_attribute("value") != "M" else "T"
        version = int(status_of(spectator).get_attribute("data-version"))
        assign_chillies(first, changed)
        version += 1
        for page in everyone:
            expect(status_of(page)).to_have_attribute("data-version", str(version), timeout=WAIT)
        first_name = status_of(first).get_attribute("data-you")
        step = spectator.get_by_test_id("chilli-step")
        mine = first.get_by_test_id("your-chillies")
        if len(holders) > 1:
            expect(step.locator(f'li[data-seat="{first_name}"]')).to_contain_text("has chosen")
            expect(mine).to_be_visible()
        for seat in holders[1:]:
            assign_chillies(by_seat[seat])
            version += 1
            for page in everyone:
                expect(status_of(page)).to_have_attribute(
                    "data-version", str(version), timeout=WAIT
                )
        kind_names = {"M": "Margherita", "T": "Truffe"}
        expect(step.locator(f'li[data-seat="{first_name}"]')).to_contain_text(kind_names[changed])

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
