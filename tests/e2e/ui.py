"""What a person does in the browser, shared by the browser tests."""

from __future__ import annotations

import re

PASSWORD = "pizza-pass-123"
WAIT = 15_000  # ms, for live updates


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


def play_la_part_du_chef(observer, by_seat: dict, watchers: list, cut: tuple[int, ...]) -> int:
    """Play a La Part du Chef match to its end through the forms: the chef cuts at ``cut``, the
    others take the first free portion, eat nothing and steal nothing. After each move every
    watcher's page must show the new version, without a reload and without an error. Returns
    the number of moves played."""
    from playwright.sync_api import expect

    moves = 0
    while status_of(observer).get_attribute("data-status") == "playing":
        status = status_of(observer)
        version = int(status.get_attribute("data-version"))
        page = by_seat[int(status.get_attribute("data-to-move"))]
        expect(status_of(page)).to_have_attribute("data-version", str(version), timeout=WAIT)
        if status.get_attribute("data-phase") == "cut":
            form = page.get_by_test_id("cut-form")
            boxes = form.locator("input[name=cut]")
            for position in cut:
                boxes.nth(position).check()
            form.get_by_role("button", name="Cut the pizza").click()
        else:
            page.get_by_test_id("take-form").first.locator("button[type=submit]").click()
        for other in watchers:
            expect(status_of(other)).to_have_attribute(
                "data-version", str(version + 1), timeout=WAIT
            )
        expect(page.locator("#page-error p")).to_have_count(0)
        moves += 1
    return moves
