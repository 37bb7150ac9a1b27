"""Issue 12 in the browser: a clock per player, ratings and Elo changes, "your turn" in the tab
title, resign and "play again", and the table chat."""

from __future__ import annotations

import re
import uuid

import pytest

from .ui import WAIT, add_bots, sign_up, started, status_of

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


#: Plays the first legal move of the page's player through the JSON API (the browser's session
#: and CSRF header), as a quick stand-in for clicking the board; the answer's status.
PLAY_FIRST_LEGAL_MOVE = """async (id) => {
  const headers = {...JSON.parse(document.body.getAttribute('hx-headers')),
                   'Content-Type': 'application/json'};
  const table = await (await fetch(`/api/tables/${id}`)).json();
  if (!table.to_move.includes(table.you)) return -1;
  let move = table.legal && table.legal[0];
  // The API lists no more than 50 moves: a Cafe Fatal round's first placement with six different
  // values rolled has 54, and any table takes any value then.
  if (!move && table.view && table.view.rolled) {
    move = {place: {value: table.view.rolled[0], table: 0}};
  }
  if (!move) return -2;
  const answer = await fetch(`/api/tables/${id}/moves`, {method: 'POST', headers,
    body: JSON.stringify({version: table.version, move})});
  return answer.status;
}"""

COUNT_TURN_SOUNDS = """() => { window.__turnSounds = 0;
  document.addEventListener('pdc:turn-sound', () => { window.__turnSounds += 1; }); }"""


def two_players_at(browser, live_site: str, game: str, mode: str = "friendly"):
    """Two signed-up players seated at a new table of ``game``: (contexts, pages by seat, id)."""
    from playwright.sync_api import expect

    suffix = uuid.uuid4().hex[:6]
    contexts = [browser.new_context(viewport={"width": 1280, "height": 800}) for _ in range(2)]
    host = sign_up(contexts[0], live_site, f"ann-{suffix}")
    guest = sign_up(contexts[1], live_site, f"bob-{suffix}")
    form = host.get_by_test_id("create-form")
    form.get_by_label("Game").select_option(game)
    form.get_by_label("Seats").select_option("2")
    host.select_option("#id_mode", mode)
    if mode == "ranked":
        host.select_option("#id_turn_seconds", "900")
    form.get_by_role("button", name="Open the table").click()
    expect(host).to_have_url(re.compile(r"/tables/\d+/$"))
    table_id = int(re.search(r"/tables/(\d+)/", host.url).group(1))
    guest.goto(host.url)
    guest.get_by_test_id("join").click()
    by_seat = started([host, guest])
    return contexts, by_seat, table_id


def to_move(page) -> int:
    return int(status_of(page).get_attribute("data-to-move").split(",")[0])


def test_the_tab_title_says_your_turn_and_the_optional_sound_is_remembered(live_site, browser):
    from playwright.sync_api import expect

    contexts, by_seat, table_id = two_players_at(browser, live_site, "cafe-fatal")
    try:
        mover = by_seat[to_move(by_seat[0])]
        waiter = by_seat[1 - to_move(by_seat[0])]
        expect(mover).to_have_title(re.compile(r"^● Your turn · "))
        expect(waiter).not_to_have_title(re.compile("Your turn"))

        # The sound is off until the player switches it on; the choice outlives a reload.
        toggle = waiter.get_by_test_id("turn-sound")
        expect(toggle).to_have_attribute("aria-pressed", "false")
        toggle.click()
        expect(toggle).to_have_attribute("aria-pressed", "true")
        waiter.reload()
        expect(waiter.get_by_test_id("turn-sound")).to_have_attribute("aria-pressed", "true")
        waiter.evaluate(COUNT_TURN_SOUNDS)
        mover.evaluate(COUNT_TURN_SOUNDS)

        # Moves until the turn passes to the waiter (a Café Fatal turn may take several moves).
        while to_move(mover) == int(status_of(mover).get_attribute("data-you")):
            version = int(status_of(mover).get_attribute("data-version"))
            assert mover.evaluate(PLAY_FIRST_LEGAL_MOVE, table_id) == 200
            mover.wait_for_function(
                "v => Number(document.getElementById('table-status').dataset.version) > v",
                arg=version,
                timeout=WAIT,
            )
        expect(waiter).to_have_title(re.compile(r"^● Your turn · "), timeout=WAIT)
        expect(mover).not_to_have_title(re.compile("Your turn"), timeout=WAIT)
        assert waiter.evaluate("window.__turnSounds") == 1
        # The mover never switched the sound on: no chime for them, whatever happens.
        assert mover.evaluate("window.__turnSounds") == 0
    finally:
        for context in contexts:
            context.close()


def play_until_over(page, table_id: int) -> None:
    """The page's player plays first legal moves through the API until the match is over (the
    bot plays at once for a seat that resigned)."""
    from playwright.sync_api import expect

    for _ in range(200):
        status = status_of(page)
        if status.get_attribute("data-status") != "playing":
            return
        version = int(status.get_attribute("data-version"))
        played = page.evaluate(PLAY_FIRST_LEGAL_MOVE, table_id)
        assert played in (200, -1), played  # -1: not this player's turn yet
        page.wait_for_function(
            "v => Number(document.getElementById('table-status').dataset.version) > v",
            arg=version,
            timeout=WAIT,
        )
    expect(status_of(page)).to_have_attribute("data-status", "finished")


def test_resign_with_a_confirmation_then_elo_changes_and_play_again(live_site, browser):
    """A ranked match of two newcomers: ratings beside the names; one resigns (after confirming),
    the other plays on to the end; the result shows +30 and -30 (K = 60, expected 1/2); the
    quitter asks to play again and the other joins the rematch from the finished table, live."""
    from playwright.sync_api import expect

    contexts, by_seat, table_id = two_players_at(browser, live_site, "pizza-party", "ranked")
    try:
        quitter, stayer = by_seat[0], by_seat[1]
        for page in (quitter, stayer):
            expect(page.locator("#table-seats [data-testid=elo]")).to_have_text(["1500", "1500"])

        # Resigning takes two steps: the button only opens the confirmation.
        quitter.get_by_text("Resign…").click()
        confirm = quitter.get_by_test_id("resign-confirm")
        expect(confirm).to_be_visible()
        expect(quitter.get_by_text("You will rank last")).to_be_visible()
        quitter.screenshot(path="/tmp/clocks/resign-confirm.png")
        confirm.click()
        expect(quitter.locator("#table-seats li.you .badge", has_text="abandoned")).to_be_visible(
            timeout=WAIT
        )
        expect(quitter.get_by_test_id("resign")).to_have_count(0)

        play_until_over(stayer, table_id)
        for page in (quitter, stayer):
            expect(status_of(page)).to_have_attribute("data-status", "finished", timeout=WAIT)
            changes = page.locator("#table-result [data-testid=elo-change]")
            expect(changes).to_have_text(["+30 (1500 → 1530)", "-30 (1500 → 1470)"])
        stayer.screenshot(path="/tmp/clocks/result-elo.png", full_page=True)
        # No turn to wait for any more: the sound switch goes (the page was loaded mid-match).
        expect(stayer.get_by_test_id("turn-sound")).to_be_hidden()
        # The chat stays open after the end and is kept with the match: the replay shows it.
        stayer.get_by_test_id("chat-text").fill("gg")
        stayer.get_by_test_id("chat-text").press("Enter")
        expect(quitter.locator("#chat-lines .chat-text")).to_have_text(["gg"], timeout=WAIT)
        replay = contexts[0].new_page()
        replay.goto(quitter.url + "replay/")
        expect(replay.locator("#chat-lines .chat-text")).to_have_text(["gg"])
        expect(replay.locator("#chat-form")).to_have_count(0)
        replay.close()

        quitter.get_by_test_id("play-again").click()
        expect(quitter).to_have_url(re.compile(rf"/tables/(?!{table_id}/)\d+/$"))
        expect(status_of(quitter)).to_have_attribute("data-status", "open")
        stayer.set_viewport_size({"width": 390, "height": 844})
        join = stayer.get_by_test_id("play-again")
        expect(join).to_have_text("Join the rematch", timeout=WAIT)
        stayer.screenshot(path="/tmp/clocks/rematch-phone.png")
        join.click()
        expect(stayer).to_have_url(quitter.url)
        for page in (quitter, stayer):
            expect(status_of(page)).to_have_attribute("data-status", "playing", timeout=WAIT)
    finally:
        for context in contexts:
            context.close()


def test_players_and_a_spectator_chat_live_markup_is_refused_and_a_mute_is_per_viewer(
    live_site, browser
):
    from playwright.sync_api import expect

    contexts, by_seat, _table_id = two_players_at(browser, live_site, "cafe-fatal")
    watcher_context = browser.new_context(viewport={"width": 390, "height": 844})
    contexts.append(watcher_context)
    try:
        writer, reader = by_seat[0], by_seat[1]
        writer_name = writer.get_by_test_id("account-link").text_content().strip()
        watcher = sign_up(watcher_context, live_site, f"eve-{uuid.uuid4().hex[:6]}")
        watcher.goto(writer.url)
        expect(status_of(watcher)).to_have_attribute("data-status", "playing")
        expect(watcher.get_by_test_id("chat-text")).to_be_visible()

        box = writer.get_by_test_id("chat-text")
        box.fill("Bonjour à tous & bonne chance <3")
        box.press("Enter")
        expect(box).to_have_value("")
        for page in (writer, reader, watcher):
            expect(page.get_by_test_id("chat-lines").locator("li")).to_have_count(1, timeout=WAIT)
            expect(page.locator("#chat-lines .chat-text")).to_have_text(
                "Bonjour à tous & bonne chance <3"
            )

        # Markup is refused with a reason; the text stays to be fixed and nobody receives it.
        box.fill("<b>LOUD</b>")
        writer.get_by_test_id("chat-send").click()
        expect(writer.locator("#chat-error")).to_contain_text("plain text")
        expect(box).to_have_value("<b>LOUD</b>")
        expect(reader.locator("#chat-lines li")).to_have_count(1)

        # The reader mutes the writer: only the reader stops reading them.
        reader.get_by_role("button", name=f"Mute {writer_name}").click()
        expect(reader.locator("#chat-lines li")).to_have_count(0, timeout=WAIT)
        expect(reader.get_by_test_id("chat-muted")).to_contain_text(writer_name)
        box.fill("second line")
        box.press("Enter")
        expect(watcher.locator("#chat-lines li")).to_have_count(2, timeout=WAIT)
        expect(writer.locator("#chat-lines li")).to_have_count(2, timeout=WAIT)
        expect(reader.locator("#chat-lines li")).to_have_count(0)
        watcher.screenshot(path="/tmp/clocks/chat-phone.png", full_page=True)
        # At phone size the chat's own content never runs past its box (long words wrap).
        box.fill("W" * 120)
        box.press("Enter")
        expect(watcher.locator("#chat-lines li")).to_have_count(3, timeout=WAIT)
        assert watcher.evaluate(
            "() => { const c = document.getElementById('table-chat');"
            " return c.scrollWidth <= c.clientWidth; }"
        )
        reader.get_by_test_id("unmute").click()
        expect(reader.locator("#chat-lines li")).to_have_count(3, timeout=WAIT)
        reader.screenshot(path="/tmp/clocks/chat-desktop.png")
    finally:
        for context in contexts:
            context.close()


def test_a_clock_counts_to_the_servers_deadline_even_from_a_stale_fragment(live_site, browser):
    """A running clock that arrives long after it was rendered (its seconds left are stale) still
    reads the time left until its deadline, set against the server's clock, not this computer's."""
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = sign_up(context, live_site, f"skew-{uuid.uuid4().hex[:6]}")
        open_timed_table(page, "cafe-fatal", 2, 900)
        add_bots(page, 1)
        expect(status_of(page)).to_have_attribute("data-status", "playing", timeout=WAIT)
        # A fragment whose deadline is 90 s after the server's now, but which says 500 s left.
        page.evaluate(
            """() => {
              const serverNow = Number(document.querySelector('.table-page').dataset.serverNow);
              const deadline = new Date(serverNow + 90_000 + 500).toISOString();
              const li = document.querySelector('#table-seats li');
              li.insertAdjacentHTML('beforeend', `<time class="seat-clock countdown running"
                data-testid="stale-clock" datetime="${deadline}" data-seconds-left="500">8:20</time>`);
              document.dispatchEvent(new CustomEvent('htmx:wsAfterMessage'));
            }"""
        )
        expect(page.get_by_test_id("stale-clock")).to_have_text(re.compile(r"^1:[23]\d$"))
    finally:
        context.close()
