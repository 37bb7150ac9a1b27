"""The pizza's controls are labels of real inputs: La Part du Chef is played by keyboard alone,
with the focus shown on the board, and in a browser without JavaScript (plain form posts)."""

from __future__ import annotations

import re
import uuid

import pytest

from .ui import (
    WAIT,
    add_bots,
    cut_on_the_board,
    open_table,
    sign_up,
    started,
    status_of,
    take_on_the_board,
)

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


def test_la_marianne_is_played_by_ticking_slices_in_the_form_and_in_the_kept_lists(
    live_site, browser
):
    """Two people, La Marianne in play: the second pizza's chef holds it and keeps slices of
    the first pizza, so the swap is offered; two slices are given, two got (one ticked in the
    form, one by clicking it in the kept slices' list), a fifth tick is refused."""
    from playwright.sync_api import expect

    suffix = uuid.uuid4().hex[:6]
    contexts = [browser.new_context() for _ in range(2)]
    try:
        ann = sign_up(contexts[0], live_site, f"mar-{suffix}")
        bob = sign_up(contexts[1], live_site, f"ian-{suffix}")
        form = ann.get_by_test_id("create-form")
        form.get_by_label("Game").select_option("part-du-chef")
        form.get_by_label("Seats").select_option("2")
        form.locator('input[name="part_du_chef__marianne"]').check()
        form.get_by_role("button", name="Open the table").click()
        expect(ann).to_have_url(re.compile(r"/tables/\d+/$"))
        bob.goto(ann.url)
        bob.get_by_test_id("join").click()
        pages = [ann, bob]
        by_seat = started(pages)
        # The first pizza: the chef cuts, the other takes a portion, eating nothing.
        while "Pizza 1 of" in status_of(ann).inner_text():
            status = status_of(ann)
            version = int(status.get_attribute("data-version"))
            page = by_seat[int(status.get_attribute("data-to-move").split(",")[0])]
            expect(status_of(page)).to_have_attribute("data-version", str(version), timeout=WAIT)
            if status.get_attribute("data-phase") == "cut":
                cut_on_the_board(page, (0, 6))
            else:
                take_on_the_board(page)
            expect(status_of(ann)).to_have_attribute("data-version", str(version + 1))
        chef = by_seat[int(status_of(ann).get_attribute("data-to-move"))]
        expect(status_of(chef)).to_have_attribute("data-phase", "cut", timeout=WAIT)
        swap = chef.get_by_test_id("marianne-form")
        expect(swap).to_be_visible()
        gives = swap.locator('input[name="give"]')
        gets = swap.locator('input[name="get"]')
        assert gives.count() >= 2 and gets.count() >= 3
        for k in range(2):
            swap.get_by_test_id(f"give-{gives.nth(k).get_attribute('value')}").click()
        if gives.count() > 2:
            expect(gives.nth(2)).to_be_disabled()
        first = gets.nth(0).get_attribute("id").removeprefix("marianne-")
        swap.get_by_test_id(f"get-{first}").click()
        # The second slice to get is ticked by clicking it where the other player's slices
        # are listed.
        second = gets.nth(1).get_attribute("id").removeprefix("marianne-")
        chef.locator(f'#table-players .kept-slice[data-slice-id="{second}"]').click()
        expect(gets.nth(1)).to_be_checked()
        expect(chef.locator(f'#table-players .kept-slice[data-slice-id="{second}"]')).to_have_class(
            re.compile("picked")
        )
        expect(gets.nth(2)).to_be_disabled()
        version = int(status_of(chef).get_attribute("data-version"))
        swap.get_by_role("button", name="Play La Marianne").click()
        for page in pages:
            expect(status_of(page)).to_have_attribute(
                "data-version", str(version + 1), timeout=WAIT
            )
        expect(chef.locator("#page-error p")).to_have_count(0)
        expect(chef.locator("#table-log")).to_contain_text("plays La Marianne")
        expect(chef.get_by_test_id("marianne-form")).to_have_count(0)
    finally:
        for context in contexts:
            context.close()
