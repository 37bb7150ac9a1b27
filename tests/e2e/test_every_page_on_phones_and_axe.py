"""Every page of the site, logged out and in, at desktop size and on a phone (390 × 844): none
scrolls sideways on the phone, axe-core finds no critical or serious problem on any of them
(each game's table mid-match included), and a move at a table logs no error in the console."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.live_server import LiveSite

from .ui import WAIT, add_bots, open_table, sign_up, status_of

pytestmark = pytest.mark.e2e

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
SIZES = {"desktop": DESKTOP, "phone": PHONE}
#: axe-core from the npm registry, installed once into a cache directory of its own.
AXE_VERSION = "4"
AXE_CACHE = Path(os.environ.get("AXE_CACHE_DIR", Path.home() / ".cache" / "pdc-axe-core"))
SERIOUS = ("critical", "serious")

PUBLIC_PAGES = [
    "/",
    "/play/",
    "/arenas/",
    "/rankings/",
    "/rankings/part-du-chef/",
    "/play/api/",
    "/how-to-play/",
    "/how-to-play/part-du-chef/",
    "/how-to-play/pizza-party/",
    "/how-to-play/cafe-fatal/",
    "/bots/part-du-chef/3/",
    "/bots/pizza-party/1/",
    "/accounts/login/",
    "/accounts/signup/",
]


def axe_script() -> Path:
    """axe.min.js: $AXE_CORE_JS, or the npm package installed into a cache directory (needs
    npm and the npm registry the first time). Missing, it fails in CI and skips elsewhere."""
    given = os.environ.get("AXE_CORE_JS")
    if given and Path(given).is_file():
        return Path(given)
    script = AXE_CACHE / "node_modules" / "axe-core" / "axe.min.js"
    if not script.is_file() and shutil.which("npm"):
        AXE_CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                "npm",
                "install",
                "--no-audit",
                "--no-fund",
                "--prefix",
                str(AXE_CACHE),
                f"axe-core@{AXE_VERSION}",
            ],
            check=False,
            capture_output=True,
            timeout=300,
        )
    if script.is_file():
        return script
    reason = f"axe-core is not installed (npm install --prefix {AXE_CACHE} axe-core@{AXE_VERSION})"
    if os.environ.get("CI"):
        pytest.fail(f"CI must be able to install axe-core: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def axe_source() -> str:
    return axe_script().read_text()


@pytest.fixture(scope="module")
def live_site(tmp_path_factory):
    """A site of this module's own, with a demo database (rated players, finished matches), so
    that profiles, ladders, finished tables and replays show their full tables."""
    site = LiveSite(tmp_path_factory.mktemp("demo-site"))
    try:
        site.manage("seed_demo", "--players", "40", "--matches", "60", "--seed", "12")
        url = site.start_web()
        site.start_worker()
        yield url
    finally:
        site.close()


def rated_player_and_finished_table(page, live_site: str) -> tuple[str, str]:
    """The demo player with the most rated matches, and a finished table from their profile."""
    players = page.request.get(f"{live_site}/api/rankings/part-du-chef").json()["players"]
    name = max(players, key=lambda p: p["games"])["player"]
    profile = page.request.get(f"{live_site}/players/{name}/").text()
    table = re.search(r'href="(/tables/\d+/)replay/"', profile).group(1)
    return name, table


@pytest.fixture(scope="module")
def site(live_site, browser):
    """A player with a table of each game in play against bots, an arena, and the pages to
    visit, logged out and in. The player's session is kept for the logged-in visits."""
    suffix = uuid.uuid4().hex[:6]
    name = f"pia-{suffix}"
    context = browser.new_context(viewport=DESKTOP)
    try:
        page = sign_up(context, live_site, name)
        tables = {}
        for game, seats in (("part-du-chef", 3), ("pizza-party", 2), ("cafe-fatal", 2)):
            page.goto(f"{live_site}/play/")
            url = open_table(page, game, seats)
            add_bots(page, seats - 1)
            from playwright.sync_api import expect

            expect(status_of(page)).to_have_attribute("data-status", "playing", timeout=WAIT)
            tables[game] = url.removeprefix(live_site)
        page.goto(f"{live_site}/arenas/")
        form = page.get_by_test_id("create-arena-form")
        form.get_by_label("Name").fill(f"Arena {suffix}")
        page.get_by_role("button", name="Create the arena").click()
        page.wait_for_url(re.compile(r"/arenas/\d+/$"))
        arena = page.url.removeprefix(live_site)
        # A token, so the account page shows its table of tokens.
        page.goto(f"{live_site}/accounts/")
        page.get_by_label("Token name").fill("my bot")
        page.get_by_role("button", name="Create a token").click()
        page.get_by_test_id("new-token").wait_for()
        rated, finished = rated_player_and_finished_table(page, live_site)
        state = context.storage_state()
    finally:
        context.close()
    seeded = [
        f"/players/{rated}/",
        finished,
        f"{finished}replay/",
        "/rankings/pizza-party/",
        "/rankings/cafe-fatal/",
    ]
    logged_in = [
        *PUBLIC_PAGES[:-2],
        *tables.values(),
        arena,
        f"/players/{name}/",
        "/accounts/",
        "/accounts/friends/",
        "/accounts/password/",
        *seeded,
    ]
    logged_out = [*PUBLIC_PAGES, *tables.values(), arena, f"/players/{name}/", *seeded]
    return {"state": state, "in": logged_in, "out": logged_out, "tables": tables}


def visit(browser, live_site: str, site: dict, who: str, size: dict, language: str = "en"):
    """Each page of ``who`` ("in" or "out") at ``size`` in ``language``: yields (path, page)
    once it is loaded."""
    context = browser.new_context(
        viewport=size, storage_state=site["state"] if who == "in" else None
    )
    context.add_cookies([{"name": "django_language", "value": language, "url": live_site}])
    page = context.new_page()
    try:
        for path in site[who]:
            page.goto(f"{live_site}{path}")
            page.wait_for_load_state("load")
            yield path, page
    finally:
        context.close()


@pytest.mark.parametrize(("who", "language"), [("out", "en"), ("in", "en"), ("in", "de")])
def test_no_page_scrolls_sideways_on_a_phone(live_site, browser, site, who, language):
    """German too: its long words are the first to push a page wider than the phone."""
    wide = {}
    for path, page in visit(browser, live_site, site, who, PHONE, language):
        width, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        if width > inner:
            wide[path] = width
    assert not wide, f"pages wider than the 390 px phone: {wide}"


@pytest.mark.parametrize("size", ["desktop", "phone"])
@pytest.mark.parametrize("who", ["out", "in"])
def test_axe_finds_no_critical_or_serious_problem_on_any_page(
    live_site, browser, site, axe_source, who, size
):
    problems = []
    for path, page in visit(browser, live_site, site, who, SIZES[size]):
        page.add_script_tag(content=axe_source)
        found = page.evaluate(
            """async () => {
                const result = await axe.run(document, {resultTypes: ["violations"]});
                return result.violations.map(v => ({
                    id: v.id, impact: v.impact,
                    nodes: v.nodes.slice(0, 3).map(n => n.target.join(" ")),
                }));
            }"""
        )
        problems += [
            f"{path}: {v['id']} ({v['impact']}) at {v['nodes']}"
            for v in found
            if v["impact"] in SERIOUS
        ]
    assert not problems, "\n".join(problems)


def test_a_move_at_a_table_logs_no_error_in_the_console(live_site, browser):
    """Each move used to log eight htmx:oobErrorNoTarget errors: fragments pushed for parts the
    page does not have."""
    from playwright.sync_api import expect

    suffix = uuid.uuid4().hex[:6]
    contexts = [browser.new_context(viewport=size) for size in (DESKTOP, PHONE)]
    errors: list[str] = []
    try:
        host = sign_up(contexts[0], live_site, f"oob-{suffix}")
        table_url = open_table(host, "pizza-party", 2)
        add_bots(host, 1)
        spectator = contexts[1].new_page()
        for page in (host, spectator):
            page.on(
                "console",
                lambda message: errors.append(message.text) if message.type == "error" else None,
            )
            page.on("pageerror", lambda error: errors.append(str(error)))
        host.reload()
        spectator.goto(table_url)
        for page in (host, spectator):
            expect(status_of(page)).to_have_attribute("data-status", "playing", timeout=WAIT)
        status = status_of(host)
        for _ in range(4):  # the host's own moves, with the bot's and chance's in between
            host.wait_for_function(
                """() => {
                    const s = document.getElementById('table-status');
                    return s.dataset.toMove.split(',').includes(s.dataset.you);
                }""",
                timeout=WAIT,
            )
            version = int(status.get_attribute("data-version"))
            if status.get_attribute("data-phase") == "add":
                host.locator("#table-targets .cell-target").first.click()
            else:
                host.get_by_test_id("pick-1").click()
            host.wait_for_function(
                "v => Number(document.getElementById('table-status').dataset.version) > v",
                arg=version,
                timeout=WAIT,
            )
        expect(status_of(spectator)).to_have_attribute(
            "data-version", status.get_attribute("data-version"), timeout=WAIT
        )
    finally:
        for context in contexts:
            context.close()
    assert not errors, errors


def test_the_header_folds_into_a_menu_on_a_phone_and_keeps_the_player_on_screen(live_site, browser):
    from playwright.sync_api import expect

    context = browser.new_context(viewport=PHONE)
    try:
        page = sign_up(context, live_site, f"menu-{uuid.uuid4().hex[:6]}")
        nav = page.locator("#site-nav")
        toggle = page.get_by_test_id("nav-toggle")
        expect(nav).to_be_hidden()
        expect(toggle).to_have_attribute("aria-expanded", "false")
        toggle.click()
        expect(toggle).to_have_attribute("aria-expanded", "true")
        for item in (
            page.get_by_test_id("account-link"),
            page.get_by_role("button", name="Log out"),
        ):
            expect(item).to_be_visible()
            box = item.bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        toggle.click()
        expect(nav).to_be_hidden()
    finally:
        context.close()


def test_choosing_ranked_picks_a_turn_timer_so_the_table_opens(live_site, browser):
    from playwright.sync_api import expect

    context = browser.new_context(viewport=DESKTOP)
    try:
        page = sign_up(context, live_site, f"rank-{uuid.uuid4().hex[:6]}")
        form = page.get_by_test_id("create-form")
        timer = form.get_by_label("Turn timer")
        expect(timer).to_have_value("")
        form.get_by_label("Mode").select_option("ranked")
        expect(timer).not_to_have_value("")
        form.get_by_role("button", name="Open the table").click()
        expect(page).to_have_url(re.compile(r"/tables/\d+/$"))
        expect(page.locator(".table-facts")).to_contain_text("Ranked")
        # Back to friendly: "No timer" may be chosen again.
        page.goto(f"{live_site}/play/")
        form = page.get_by_test_id("create-form")
        form.get_by_label("Mode").select_option("ranked")
        form.get_by_label("Mode").select_option("friendly")
        form.get_by_label("Turn timer").select_option("")
        expect(form.get_by_label("Turn timer")).to_have_value("")
    finally:
        context.close()


def test_an_invitation_toast_closes_and_stays_closed(live_site, browser):
    from playwright.sync_api import expect

    suffix = uuid.uuid4().hex[:6]
    ann_name, bob_name = f"tana-{suffix}", f"tbob-{suffix}"
    contexts = [browser.new_context(viewport=size) for size in (DESKTOP, PHONE)]
    try:
        ann = sign_up(contexts[0], live_site, ann_name)
        bob = sign_up(contexts[1], live_site, bob_name)
        ann.goto(f"{live_site}/players/{bob_name}/")
        ann.get_by_test_id("friend-button").click()
        bob.goto(f"{live_site}/accounts/friends/")
        bob.get_by_role("button", name="Accept").click()

        def invite() -> str:
            ann.goto(f"{live_site}/play/")
            url = open_table(ann, "cafe-fatal", 3)
            ann.select_option("#invite-friend", bob_name)
            ann.get_by_test_id("invite-friend").click()
            return re.search(r"/tables/(\d+)/", url).group(1)

        bob.goto(f"{live_site}/rankings/")
        invite()
        toast = bob.get_by_test_id("invitation")
        expect(toast).to_have_count(1, timeout=WAIT)
        toast.get_by_test_id("dismiss-invitation").click()
        expect(toast).to_have_count(0, timeout=WAIT)

        # A second invitation shows alone: the first stays closed, on every page.
        bob.goto(f"{live_site}/play/")
        second = invite()
        expect(toast).to_have_count(1, timeout=WAIT)
        expect(toast).to_contain_text(ann_name)
        assert bob.locator("#toasts a[href*='/invitations/']").count() == 1
        # Followed, it is used up: the table opens, and the next invitation shows alone.
        toast.get_by_role("link").click()
        expect(bob).to_have_url(f"{live_site}/tables/{second}/")
        bob.goto(f"{live_site}/arenas/")
        ann.goto(f"{live_site}/play/")
        invite()
        expect(toast).to_have_count(1, timeout=WAIT)
    finally:
        for context in contexts:
            context.close()
