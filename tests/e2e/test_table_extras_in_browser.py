"""Issue 12 in the browser: a clock per player, ratings and Elo changes, "your turn" in the tab
title, resign and "play again", and the table chat."""

from __future__ import annotations

import re
import uuid

import pytest

from .ui import WAIT, add_bots, sign_up, status_of

pytestmark = pytest.mark.e2e


def open_timed_table(page, game: str, seats: int, turn_seconds: int) -> str:
    from playwright.sync_api import expect

    form = page.get_by_test_id("create-form")
    form.get_by_label("Game").select_option(game)
    form.get_by_label("Seats").select_option(str(seats))
    page.select_option("#id_turn_seconds", str(turn_seconds))
    form.get_by_role("button", name="Open the table").click()
    expect(page).to_have_url(re.compile(r"/tables/\d+/$"))
    return page.url


def test_the_seat_to_move_has_a_clock_that_counts_down_without_pushes(live_site, browser):
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = sign_up(context, live_site, f"clock-{uuid.uuid4().hex[:6]}")
        open_timed_table(page, "cafe-fatal", 2, 900)
        add_bots(page, 1)
        expect(status_of(page)).to_have_attribute("data-status", "playing", timeout=WAIT)
        version = status_of(page).get_attribute("data-version")
        running = page.locator("#table-seats time.seat-clock.running")
        expect(running).to_have_count(1)
        first = running.text_content()
        assert re.fullmatch(r"1[45]:\d\d", first), first
        # The page counts down by itself; the table's version stays where it was.
        expect(running).not_to_have_text(first, timeout=WAIT)
        assert status_of(page).get_attribute("data-version") == version
        expect(page.locator("#table-seats .seat-clock.at-rest")).to_have_text("15:00")
        page.screenshot(path="/tmp/clocks/clock-desktop.png")
    finally:
        context.close()
