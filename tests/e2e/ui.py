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


def record_socket_frames(page, socket: str) -> None:
    """From the page's next load on, ``window.__frames`` lists each frame of the socket on the
    element that the CSS selector ``socket`` matches (a page has two sockets: its own and the
    player's, ``#player-socket``), true where the page dropped it."""
    page.add_init_script(
        "window.__frames = [];"
        "window.addEventListener('htmx:wsBeforeMessage', (event) => {"
        f"  if (event.target.matches({socket!r}))"
        "    window.__frames.push(event.defaultPrevented);"
        "});"
    )


def first_frames_after_reload(page, socket: str, count: int) -> list[bool]:
    """The page loaded again: the first ``count`` frames of its socket ``socket`` (a CSS
    selector), each true where the page dropped it (``record_socket_frames``). Later frames
    (a ring from another table of the same server) are not among them."""
    record_socket_frames(page, socket)
    page.reload()
    page.wait_for_function(f"window.__frames.length >= {count}", timeout=WAIT)
    return page.evaluate(f"window.__frames.slice(0, {count})")


def status_of(page):
    return page.locator("#table-status")


def play_la_part_du_chef(
    observer, by_seat: dict, watchers: list, cut: tuple[int, ...], stop_at_chillies: bool = False
) -> int:
    """Play a La Part du Chef match to its end through the forms: the chef cuts at ``cut``, the
    others take the first free portion, eat nothing and steal nothing; at the end every chilli
    holder keeps the suggested assignment (or, with ``stop_at_chillies``, the function returns
    when that step opens). After each move every watcher's page must show the new version,
    without a reload and without an error. Returns the number of cuts and takes played."""
    from playwright.sync_api import expect

    moves = 0
    while status_of(observer).get_attribute("data-status") == "playing":
        status = status_of(observer)
        version = int(status.get_attribute("data-version"))
        phase = status.get_attribute("data-phase")
        if phase == "chillies" and stop_at_chillies:
            return moves
        page = by_seat[int(status.get_attribute("data-to-move").split(",")[0])]
        expect(status_of(page)).to_have_attribute("data-version", str(version), timeout=WAIT)
        if phase == "chillies":
            assign_chillies(page)
        elif phase == "cut":
            cut_on_the_board(page, cut)
            moves += 1
        else:
            take_on_the_board(page, eat=moves % 2 == 1)
            moves += 1
        for other in watchers:
            expect(status_of(other)).to_have_attribute(
                "data-version", str(version + 1), timeout=WAIT
            )
        expect(page.locator("#page-error p")).to_have_count(0)
    return moves


def cut_on_the_board(page, cut: tuple[int, ...], before_cutting=None) -> None:
    """The chef clicks the cut marks on the rim; the portions are previewed before the cut."""
    from playwright.sync_api import expect

    for position in cut:
        page.get_by_test_id(f"cut-{position}").click()
    preview = page.get_by_test_id("cut-preview")
    expect(preview).to_contain_text("Portion 0:")
    expect(page.locator("#table-board .pizza .slice.preview-0").first).to_be_attached()
    if before_cutting:
        before_cutting()
    page.get_by_test_id("cut-form").get_by_role("button", name="Cut the pizza").click()


def take_on_the_board(page, eat: bool = False, before_taking=None) -> None:
    """Click the first free portion's number on the pizza (and, with ``eat``, the first slice
    of it that may be eaten), then take it."""
    from playwright.sync_api import expect

    mark = page.locator("#table-targets .portion-mark").first
    mark.click()
    portion = mark.get_attribute("data-portion")
    expect(page.get_by_test_id("take-preview")).to_contain_text(f"Portion {portion}:")
    bites = page.locator(f'#table-targets .bite-mark[data-portion="{portion}"]')
    if eat and bites.count():
        bites.first.click()
        expect(page.get_by_test_id("take-preview")).to_contain_text("You eat:")
    if before_taking:
        before_taking()
    page.get_by_test_id("take-form").get_by_role("button", name="Take the portion").click()


def assign_chillies(page, first_kind: str | None = None) -> None:
    """Assign the chillies: the suggestion the page pre-selects, with the first chilli changed
    to ``first_kind`` when given."""
    form = page.get_by_test_id("chilli-form")
    if first_kind:
        form.locator(f'input[name="chilli_1"][value="{first_kind}"]').check()
    form.get_by_role("button", name="Assign my chillies").click()


def open_table(page, game: str, seats: int) -> str:
    """Open a friendly table of ``game`` from the lobby's form; the table's URL."""
    from playwright.sync_api import expect

    form = page.get_by_test_id("create-form")
    form.get_by_label("Game").select_option(game)
    form.get_by_label("Seats").select_option(str(seats))
    form.get_by_role("button", name="Open the table").click()
    expect(page).to_have_url(re.compile(r"/tables/\d+/$"))
    return page.url


def add_bots(page, count: int, level: int = 1) -> None:
    from playwright.sync_api import expect

    for _ in range(count):
        taken = page.locator("#table-seats li .empty").count()
        page.select_option("#bot-level", str(level))
        page.get_by_test_id("add-bot").click()
        expect(page.locator("#table-seats li .empty")).to_have_count(taken - 1, timeout=WAIT)


def started(pages: list) -> dict:
    """Wait until the match is being played on every page; each page by its player's seat."""
    from playwright.sync_api import expect

    for page in pages:
        expect(status_of(page)).to_have_attribute("data-status", "playing", timeout=WAIT)
    return seats_of(pages)


def seats_of(pages: list) -> dict:
    """Each page by the seat its player was given (the site seats players in random order)."""
    return {int(status_of(page).get_attribute("data-you")): page for page in pages}


def wait_for_version(pages: list, version: int) -> None:
    from playwright.sync_api import expect

    for page in pages:
        expect(status_of(page)).to_have_attribute("data-version", str(version), timeout=WAIT)


def newer_version(page, than: int) -> int:
    """Wait until ``page`` shows a version newer than ``than``; that version."""
    page.wait_for_function(
        "v => Number(document.getElementById('table-status').dataset.version) > v",
        arg=than,
        timeout=WAIT,
    )
    return int(status_of(page).get_attribute("data-version"))


def play_pizza_party(observer, by_seat: dict, watchers: list, pick: int = 1) -> int:
    """Play Pizza Party to its end by clicking the board: whoever adds clicks the first cell
    offered, every picker presses ``pick``. Bots and chance play for the seats not in
    ``by_seat``. After each click every watcher follows without an error. Returns the number of
    clicks."""
    from playwright.sync_api import expect

    clicks = 0
    while status_of(observer).get_attribute("data-status") == "playing":
        status = status_of(observer)
        version = int(status.get_attribute("data-version"))
        movers = [int(s) for s in status.get_attribute("data-to-move").split(",") if s]
        seat = next(s for s in movers if s in by_seat)
        page = by_seat[seat]
        wait_for_version([page], version)
        if status.get_attribute("data-phase") == "add":
            page.locator("#table-targets .cell-target").first.click()
        else:
            expect(page.get_by_test_id("pick-form")).to_be_visible()
            page.get_by_test_id(f"pick-{pick}").click()
        wait_for_version(watchers, version + 1)
        expect(page.locator("#page-error p")).to_have_count(0)
        clicks += 1
    return clicks
