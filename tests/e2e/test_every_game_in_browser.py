"""Pizza Party and Café Fatal played in the browser by clicking the board, while a second browser
watches live; the replay of a match stepped through with the arrow keys."""

from __future__ import annotations

import re
import uuid

import pytest

from .ui import (
    WAIT,
    add_bots,
    mark_loaded,
    open_table,
    play_pizza_party,
    seats_of,
    sign_up,
    status_of,
    wait_for_version,
)

pytestmark = pytest.mark.e2e


def test_three_people_play_pizza_party_on_the_board_while_a_spectator_watches(live_site, browser):
    from playwright.sync_api import expect

    suffix = uuid.uuid4().hex[:6]
    contexts = [browser.new_context() for _ in range(4)]
    try:
        players = [
            sign_up(contexts[i], live_site, f"{name}-{suffix}")
            for i, name in enumerate(("ann", "bob", "cat"))
        ]
        host = players[0]
        table_url = open_table(host, "pizza-party", 3)
        table_id = re.search(r"/tables/(\d+)/", table_url).group(1)
        # The guests find the new table in their lobby and join from there.
        for guest in players[1:]:
            guest.goto(f"{live_site}/play/")
            guest.get_by_test_id(f"join-{table_id}").click()
            expect(guest).to_have_url(table_url)
        spectator = contexts[3].new_page()
        spectator.goto(table_url)
        everyone = [*players, spectator]
        for page in everyone:
            expect(status_of(page)).to_have_attribute("data-status", "playing", timeout=WAIT)
            mark_loaded(page)
        by_seat = seats_of(players)
        assert sorted(by_seat) == [0, 1, 2]

        # Only the player adding a topping has cells to click; each is a real button.
        status = status_of(spectator)
        placer = int(status.get_attribute("data-to-move"))
        for seat, page in by_seat.items():
            expected = 1 if seat == placer else 0
            assert (page.locator("#table-targets .cell-target").count() > 0) == bool(expected)
        expect(spectator.locator("svg.hexes .hex")).to_have_count(37)

        clicks = play_pizza_party(spectator, by_seat, everyone, pick=1)
        assert clicks > 6
        for page in everyone:
            expect(status_of(page)).to_have_attribute("data-status", "finished", timeout=WAIT)
            expect(page.locator("#table-result").get_by_test_id("breakdown")).to_be_visible()
            expect(page.get_by_test_id("last-cut")).to_be_visible()
            assert page.evaluate("window.__sameDocument === true"), "the page was reloaded"
        texts = [p.locator("#table-result").inner_text() for p in everyone]
        assert all(text == texts[0] for text in texts)

        # The replay steps through the same match without reloading, with the arrow keys.
        spectator.get_by_test_id("replay-link").click()
        expect(spectator.get_by_test_id("replay-step")).to_contain_text("Move 0 of")
        mark_loaded(spectator)
        spectator.keyboard.press("ArrowRight")
        expect(spectator.get_by_test_id("replay-step")).to_contain_text("Move 1 of")
        spectator.keyboard.press("ArrowRight")
        expect(spectator.get_by_test_id("replay-step")).to_contain_text("Move 2 of")
        spectator.keyboard.press("ArrowLeft")
        expect(spectator.get_by_test_id("replay-step")).to_contain_text("Move 1 of")
        expect(spectator.locator(".replay-current")).to_contain_text("adds a topping on")
        spectator.keyboard.press("End")
        expect(spectator.locator("#replay").get_by_test_id("breakdown")).to_be_visible()
        assert spectator.evaluate("window.__sameDocument === true"), "the replay reloaded"
        assert re.search(r"step=\d+", spectator.url)
    finally:
        for context in contexts:
            context.close()


def test_a_pizza_party_duel_against_a_bot(live_site, browser):
    from playwright.sync_api import expect

    suffix = uuid.uuid4().hex[:6]
    contexts = [browser.new_context() for _ in range(2)]
    try:
        host = sign_up(contexts[0], live_site, f"duo-{suffix}")
        table_url = open_table(host, "pizza-party", 2)
        add_bots(host, 1)
        spectator = contexts[1].new_page()
        spectator.goto(table_url)
        for page in (host, spectator):
            expect(status_of(page)).to_have_attribute("data-status", "playing", timeout=WAIT)
            mark_loaded(page)
        expect(spectator.locator("#table-players")).to_contain_text("Neutral colour")
        by_seat = seats_of([host])
        play_pizza_party(spectator, by_seat, [host, spectator], pick=1)
        for page in (host, spectator):
            expect(status_of(page)).to_have_attribute("data-status", "finished", timeout=WAIT)
            assert page.evaluate("window.__sameDocument === true")
        log = spectator.locator("#table-log").inner_text()
        assert "The neutral colour adds a topping on" in log
        assert "The neutral colour's die shows" in log
        assert "Bot (level 1) adds a topping on" in log and "Bot (level 1) picks cut" in log
    finally:
        for context in contexts:
            context.close()


def test_a_person_plays_cafe_fatal_against_two_bots_on_the_board_while_a_spectator_watches(
    live_site, browser
):
    from playwright.sync_api import expect

    suffix = uuid.uuid4().hex[:6]
    contexts = [browser.new_context() for _ in range(2)]
    try:
        host = sign_up(contexts[0], live_site, f"cafe-{suffix}")
        table_url = open_table(host, "cafe-fatal", 3)
        add_bots(host, 2)
        spectator = contexts[1].new_page()
        spectator.goto(table_url)
        for page in (host, spectator):
            expect(status_of(page)).to_have_attribute("data-status", "playing", timeout=WAIT)
            mark_loaded(page)
        expect(spectator.locator("svg.cafe .cloth")).to_have_count(9)
        you = int(status_of(host).get_attribute("data-you"))
        shares = 0
        placements = 0
        while status_of(host).get_attribute("data-status") == "playing":
            status = status_of(host)
            version = int(status.get_attribute("data-version"))
            expect(status).to_have_attribute("data-to-move", str(you), timeout=WAIT)
            value = host.locator("#move-form input[name=value]:checked").get_attribute("value")
            target = host.locator(f'#table-targets .target[data-values~="{value}"]').first
            target.click()
            wait_for_version([host, spectator], version + 1)
            expect(host.locator("#page-error p")).to_have_count(0)
            placements += 1
            shares += spectator.get_by_test_id("last-share").count()
        assert placements >= 6 and shares > 0
        for page in (host, spectator):
            expect(status_of(page)).to_have_attribute("data-status", "finished", timeout=WAIT)
            expect(page.locator("#table-result").get_by_test_id("breakdown")).to_be_visible()
            assert page.evaluate("window.__sameDocument === true")
        log = spectator.locator("#table-log").inner_text()
        assert "Food is served" in log and "takes" in log
    finally:
        for context in contexts:
            context.close()
