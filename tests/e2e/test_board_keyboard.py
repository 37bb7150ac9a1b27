"""The pizza's controls are labels of real inputs: La Part du Chef is played by keyboard alone,
with the focus shown on the board, and in a browser without JavaScript (plain form posts)."""

from __future__ import annotations

import re
import uuid

import pytest

from .ui import WAIT, add_bots, open_table, sign_up, status_of

pytestmark = pytest.mark.e2e


def start_against_a_bot(browser, live_site: str, javascript: bool = True):
    from playwright.sync_api import expect

    # Signing up and adding the bot need JavaScript; the table is then opened in a new context
    # that shares the login but may have JavaScript off.
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = sign_up(context, live_site, f"kb-{uuid.uuid4().hex[:6]}")
    open_table(page, "part-du-chef", 2)
    add_bots(page, 1)
    expect(status_of(page)).to_have_attribute("data-status", "playing", timeout=WAIT)
    if javascript:
        return context, page
    quiet = browser.new_context(
        viewport={"width": 1280, "height": 800},
        java_script_enabled=False,
        storage_state=context.storage_state(),
    )
    url = page.url
    context.close()
    page = quiet.new_page()
    page.goto(url)
    return quiet, page


def outline_of(page, selector: str) -> str:
    return page.evaluate(f"getComputedStyle(document.querySelector('{selector}')).outlineStyle")


def test_la_part_du_chef_by_keyboard_alone(live_site, browser):
    from playwright.sync_api import expect

    context, page = start_against_a_bot(browser, live_site)
    try:
        for _ in range(4):
            page.wait_for_function(
                "() => document.getElementById('table-status').classList.contains('your-turn')"
                " && !document.querySelector('.table-page.playing-back')",
                timeout=WAIT,
            )
            version = int(status_of(page).get_attribute("data-version"))
            if status_of(page).get_attribute("data-phase") == "cut":
                page.locator('#table-targets input[name=cut][value="0"]').focus()
                page.keyboard.press("Space")
                for _step in range(6):
                    page.keyboard.press("Tab")
                page.keyboard.press("Space")
                expect(page.locator('#table-targets input[name=cut][value="6"]')).to_be_checked()
                assert outline_of(page, '#table-targets .cut-mark[data-position="6"]') == "solid"
                expect(page.get_by_test_id("cut-preview")).to_contain_text("Portion 1:")
                page.get_by_role("button", name="Cut the pizza").focus()
            else:
                page.locator("#table-targets input[name=take]").first.focus()
                page.keyboard.press("Space")
                portion = page.locator("#table-targets input[name=take]:checked").get_attribute(
                    "value"
                )
                bites = page.locator(f'#table-targets .bite-mark[data-portion="{portion}"] input')
                if bites.count():
                    page.keyboard.press("Tab")
                    page.keyboard.press("Space")
                    expect(page.get_by_test_id("take-preview")).to_contain_text("You eat:")
                page.get_by_role("button", name="Take the portion").focus()
            page.keyboard.press("Enter")
            page.wait_for_function(
                "v => Number(document.getElementById('table-status').dataset.version) > v",
                arg=version,
                timeout=WAIT,
            )
            expect(page.locator("#page-error p")).to_have_count(0)
    finally:
        context.close()


def test_la_part_du_chef_without_javascript(live_site, browser):
    from playwright.sync_api import expect

    context, page = start_against_a_bot(browser, live_site, javascript=False)
    try:
        moves = 0
        while moves < 4 and "your-turn" in (status_of(page).get_attribute("class") or ""):
            version = int(status_of(page).get_attribute("data-version"))
            if status_of(page).get_attribute("data-phase") == "cut":
                for position in (2, 9):
                    page.get_by_test_id(f"cut-{position}").click()
                page.get_by_role("button", name="Cut the pizza").click()
            else:
                page.locator("#table-targets .portion-mark").first.click()
                page.get_by_role("button", name="Take the portion").click()
            expect(page).to_have_url(re.compile(r"/tables/\d+/"))
            expect(page.locator("#page-error p")).to_have_count(0)
            assert int(status_of(page).get_attribute("data-version")) > version
            moves += 1
        assert moves == 4
    finally:
        context.close()
