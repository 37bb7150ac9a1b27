"""One player befriends another, invites them to a ranked table; they play it out in their
browsers and both see the ladder move."""

from __future__ import annotations

import re
import uuid

import pytest

from .ui import WAIT, mark_loaded, play_la_part_du_chef, sign_up, started, status_of

pytestmark = pytest.mark.e2e


def ladder_row(page, live_site: str, username: str):
    page.goto(f"{live_site}/rankings/part-du-chef/?q={username}")
    return page.locator(f'tr[data-player="{username}"]')


def test_friends_invite_each_other_and_see_the_ladder_move_after_a_ranked_match(live_site, browser):
    from playwright.sync_api import expect

    suffix = uuid.uuid4().hex[:6]
    ann_name, bob_name = f"anna-{suffix}", f"bruno-{suffix}"
    contexts = [browser.new_context() for _ in range(2)]
    try:
        ann = sign_up(contexts[0], live_site, ann_name)
        bob = sign_up(contexts[1], live_site, bob_name)
        for page, name in ((ann, ann_name), (bob, bob_name)):
            expect(ladder_row(page, live_site, name)).to_have_count(0)

        # Ann asks from Bob's profile; Bob's header shows the request live, and he accepts.
        bob.goto(f"{live_site}/rankings/")
        mark_loaded(bob)
        ann.goto(f"{live_site}/players/{bob_name}/")
        ann.get_by_test_id("friend-button").click()
        expect(bob.locator("#friend-requests .badge")).to_have_text("1", timeout=WAIT)
        bob.locator("#friend-requests").click()
        bob.get_by_role("button", name="Accept").click()
        expect(bob.get_by_test_id("friend")).to_contain_text(ann_name)

        # Ann opens a private ranked table and invites Bob, who is reading the rankings.
        ann.goto(f"{live_site}/play/")
        ann.select_option("#id_seats", "2")
        ann.select_option("#id_mode", "ranked")
        ann.select_option("#id_turn_seconds", "120")
        ann.check("#id_private")
        ann.get_by_role("button", name="Open the table").click()
        expect(ann).to_have_url(re.compile(r"/tables/\d+/\?invite="))
        table_path = re.search(r"/tables/\d+/", ann.url).group(0)
        bob.goto(f"{live_site}/rankings/")
        mark_loaded(bob)
        ann.select_option("#invite-friend", bob_name)
        ann.get_by_test_id("invite-friend").click()
        invitation = bob.get_by_test_id("invitation")
        expect(invitation).to_contain_text(ann_name, timeout=WAIT)
        assert bob.evaluate("window.__sameDocument === true")
        invitation.get_by_role("link").click()
        # The invitation alone lets Bob in: his link carries no invitation code.
        expect(bob).to_have_url(f"{live_site}{table_path}")
        bob.get_by_test_id("join").click()

        players = started([ann, bob])
        assert play_la_part_du_chef(ann, players, [ann, bob], cut=(0, 6)) == 5 * 3

        # The match was rated: both now stand on the ladder with one rated match.
        for page in (ann, bob):
            expect(status_of(page)).to_have_attribute("data-status", "finished", timeout=WAIT)
        for page, name in ((ann, ann_name), (bob, bob_name)):
            row = ladder_row(page, live_site, name)
            expect(row).to_have_count(1)
            expect(row.locator("td.num").nth(2)).to_have_text("1")
        elos = [
            int(ladder_row(ann, live_site, n).get_by_test_id("elo").inner_text().rstrip("?"))
            for n in (ann_name, bob_name)
        ]
        assert sum(elos) == 3000  # equal K from 1500: what one wins the other loses
    finally:
        for context in contexts:
            context.close()
