"""A whole match of each game played by clicking its board, at desktop size and on a phone
(390 × 844): one person against bots, so every automatic move is played back on the board.

With ``BOARD_SCREENSHOTS=<folder>`` set, each table is also photographed mid-match (the README's
pictures in docs/screenshots/ come from there)."""

from __future__ import annotations

import contextlib
import os
import re
import uuid
from functools import partial
from pathlib import Path

import pytest

from .ui import (
    WAIT,
    add_bots,
    cut_on_the_board,
    mark_loaded,
    newer_version,
    open_table,
    sign_up,
    status_of,
    take_on_the_board,
)

pytestmark = pytest.mark.e2e

SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


def snapshot(page, name: str) -> None:
    folder = os.environ.get("BOARD_SCREENSHOTS")
    if folder:
        page.evaluate(
            "window.scrollTo(0, document.querySelector('.table-status').getBoundingClientRect().top"
            " + window.scrollY - 8)"
        )
        page.screenshot(path=str(Path(folder) / f"{name}.png"))


def board_fits(page) -> None:
    """The board never makes the page scroll sideways."""
    left, right, width = page.evaluate(
        "() => { const r = document.querySelector('#table-board svg').getBoundingClientRect();"
        " return [r.left + window.scrollX, r.right + window.scrollX,"
        " document.documentElement.clientWidth]; }"
    )
    assert left >= 0 and right <= width + 1, (left, right, width)


def lies_on(page, target: str, drawn: str) -> None:
    """The button ``target`` laid over the board sits on the drawing's ``drawn`` element (their
    centres within 3 px), whatever the board shows under the drawing."""
    a = page.locator(target).first.bounding_box()
    b = page.locator(drawn).first.bounding_box()
    centre = [a["x"] + a["width"] / 2, a["y"] + a["height"] / 2]
    expected = [b["x"] + b["width"] / 2, b["y"] + b["height"] / 2]
    assert abs(centre[0] - expected[0]) <= 3 and abs(centre[1] - expected[1]) <= 3, (
        centre,
        expected,
    )


def watch_playback(page) -> None:
    """Collect the captions of the boards played back over the board, as they are shown."""
    page.evaluate(
        "window.__captions = [];"
        "new MutationObserver(() => {"
        " const c = document.querySelector('.board-stack .playback:not([hidden]) .playback-caption');"
        " if (c && window.__captions[window.__captions.length - 1] !== c.textContent)"
        "  window.__captions.push(c.textContent);"
        "}).observe(document.querySelector('.board-stack'), {subtree: true, childList: true,"
        " attributes: true});"
    )


#: A step of the playback stays on the board 0.9 s (``PAUSE`` in board.js).
PLAYBACK_STEP_MS = 900


def open_against_bots(browser, live_site: str, size: str, game: str, bots: int):
    context = browser.new_context(viewport=SIZES[size])
    page = sign_up(context, live_site, f"{size[:2]}-{uuid.uuid4().hex[:6]}")
    open_table(page, game, bots + 1)
    add_bots(page, bots)
    from playwright.sync_api import expect

    expect(status_of(page)).to_have_attribute("data-status", "playing", timeout=WAIT)
    mark_loaded(page)
    # Every script error on the page is kept, and the tests check there was none.
    page.evaluate("window.__errors = []; addEventListener('error', e => __errors.push(e.message))")
    return context, page


def no_script_errors(page) -> None:
    assert page.evaluate("window.__errors") == []


def wait_for_my_turn(page, skip_playback: bool) -> bool:
    """Wait until the page shows the player to move or the match over and no playback is
    running; whether the match is still being played. With ``skip_playback``, the bots' moves
    played back over the board are skipped with a click on them, as an impatient player does."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    while True:
        page.wait_for_function(
            "() => { const s = document.getElementById('table-status');"
            " return document.querySelector('.table-page.playing-back')"
            " || s.dataset.status !== 'playing' || s.classList.contains('your-turn'); }",
            timeout=WAIT * 4,
        )
        if page.locator(".table-page.playing-back").count() == 0:
            return status_of(page).get_attribute("data-status") == "playing"
        if not skip_playback:
            page.wait_for_function(
                "() => !document.querySelector('.table-page.playing-back')", timeout=WAIT * 4
            )
            continue
        # If the playback ends before the click, the loop looks again.
        with contextlib.suppress(PlaywrightTimeout):
            page.locator(".board-stack .playback").click(timeout=PLAYBACK_STEP_MS)


def play_to_the_end(page, play_one_move, skip_playback: bool = True) -> None:
    """Play every turn of ``page``'s seat with ``play_one_move(moves_so_far)``, checking that the
    board fits the screen and each move is accepted, then that the match ended in this document
    with its result and no script error."""
    from playwright.sync_api import expect

    moves = 0
    while wait_for_my_turn(page, skip_playback):
        version = int(status_of(page).get_attribute("data-version"))
        board_fits(page)
        play_one_move(moves)
        newer_version(page, version)
        expect(page.locator("#page-error p")).to_have_count(0)
        moves += 1
    assert moves >= 5
    expect(page.locator("#table-result").get_by_test_id("breakdown")).to_be_visible()
    assert page.evaluate("window.__sameDocument === true")
    no_script_errors(page)


@pytest.mark.parametrize("size", list(SIZES))
def test_la_part_du_chef_against_two_bots_by_clicking_the_pizza(live_site, browser, size):
    context, page = open_against_bots(browser, live_site, size, "part-du-chef", 2)
    shot = f"part-du-chef-{size}"
    taken_shot = []

    def one_move(moves: int) -> None:
        phase = status_of(page).get_attribute("data-phase")
        if phase == "cut":
            cut_on_the_board(
                page,
                (0, 4, 8),
                before_cutting=lambda: snapshot(page, f"part-du-chef-cut-{size}"),
            )
        elif phase == "take":
            if moves >= 2 and not taken_shot:
                take_on_the_board(page, eat=True, before_taking=partial(snapshot, page, shot))
                taken_shot.append(True)
            else:
                take_on_the_board(page, eat=True)
        else:
            page.get_by_test_id("chilli-form").get_by_role(
                "button", name="Assign my chillies"
            ).click()

    try:
        watch_playback(page)
        # Watched to its end: the captions below are read from it.
        play_to_the_end(page, one_move, skip_playback=False)
        # The bots' moves were shown one after another over the board, each with its sentence.
        captions = page.evaluate("window.__captions")
        assert any(re.search(r"Bot \(level 1\), seat \d (cuts|takes)", c) for c in captions)
    finally:
        context.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_a_pizza_party_duel_by_clicking_the_hexes(live_site, browser, size):
    context, page = open_against_bots(browser, live_site, size, "pizza-party", 1)

    def one_move(moves: int) -> None:
        if status_of(page).get_attribute("data-phase") == "add":
            if moves == 6:
                snapshot(page, f"pizza-party-{size}")
            cell = page.locator("#table-targets .cell-target").first.get_attribute("data-cell")
            lies_on(
                page,
                f'#table-targets [data-cell="{cell}"]',
                f'#table-board [data-cell="{cell}"] .hex',
            )
            page.locator("#table-targets .cell-target").first.click()
        else:
            page.get_by_test_id("pick-on-board-3").click()

    try:
        play_to_the_end(page, one_move)
    finally:
        context.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_cafe_fatal_against_two_bots_by_clicking_the_tables(live_site, browser, size):
    context, page = open_against_bots(browser, live_site, size, "cafe-fatal", 2)

    def one_move(moves: int) -> None:
        if moves == 4:
            snapshot(page, f"cafe-fatal-{size}")
        value = page.locator("#move-form input[name=value]:checked").get_attribute("value")
        target = page.locator(f'#table-targets .target[data-values~="{value}"]').first
        table = target.get_attribute("data-table")
        lies_on(
            page,
            f'#table-targets [data-table="{table}"]',
            f'#table-board [data-table="{table}"] .cloth',
        )
        target.click()

    try:
        play_to_the_end(page, one_move)
    finally:
        context.close()
