"""Three players meet in an arena: one creates it, the others join from the arenas list, the
worker seats them and their arena pages take them to the table by themselves; they play the match
out and find the standings with the points the spec gives for the final ranks."""

from __future__ import annotations

import re
import uuid

import pytest

from .ui import WAIT, first_frames_after_reload, play_la_part_du_chef, sign_up, started, status_of

pytestmark = pytest.mark.e2e

ROUNDS = 5
PLAYERS = 3


def arena_points(ranks: dict[str, int], name: str) -> int:
    """spec/arena.md: 2 for each opponent finished ahead of, 1 for each sharing the rank."""
    mine = ranks[name]
    others = [rank for other, rank in ranks.items() if other != name]
    return 2 * sum(1 for rank in others if rank > mine) + sum(1 for rank in others if rank == mine)


def test_three_players_are_seated_by_the_arena_play_and_see_their_points(live_site, browser):
    from playwright.sync_api import expect

    suffix = uuid.uuid4().hex[:6]
    names = [f"{name}-{suffix}" for name in ("ann", "bob", "cat")]
    contexts = [browser.new_context() for _ in range(PLAYERS)]
    try:
        host, guest_a, guest_b = (
            sign_up(context, live_site, name) for context, name in zip(contexts, names, strict=True)
        )

        # Ann creates a one-off arena starting now, with tables of three.
        host.goto(f"{live_site}/arenas/")
        form = host.get_by_test_id("create-arena-form")
        form.get_by_label("Game").select_option("part-du-chef")
        form.get_by_label("Name").fill(f"Arena {suffix}")
        form.get_by_label("Seats per table").select_option("3")
        host.get_by_role("button", name="Create the arena").click()
        expect(host).to_have_url(re.compile(r"/arenas/\d+/$"))
        arena_url = host.url
        arena_id = re.search(r"/arenas/(\d+)/", arena_url).group(1)
        expect(host.locator("#arena-status")).to_have_attribute(
            "data-status", "running", timeout=WAIT
        )
        # Loaded again, the page drops its socket's first frame: it shows what the page shows,
        # and swapping it in again would replace the Join button under the click below.
        assert first_frames_after_reload(host, ".arena-page", 1) == [True]
        host.get_by_test_id("arena-join").click()
        expect(host.locator("#arena-you")).to_have_attribute("data-joined", "true")

        # The others find it in the list and join from there.
        for joined, guest in enumerate((guest_a, guest_b), start=2):
            guest.goto(f"{live_site}/arenas/")
            guest.get_by_test_id(f"join-arena-{arena_id}").click()
            expect(guest).to_have_url(arena_url)
            if joined == 2:  # a frame that shows something new still swaps in
                expect(host.locator("#arena-status")).to_have_attribute(
                    "data-players", "2", timeout=WAIT
                )

        # The worker seats the three together; every arena page takes its player to the table.
        players = [host, guest_a, guest_b]
        for page in players:
            expect(page).to_have_url(re.compile(r"/tables/\d+/$"), timeout=WAIT)
        table_url = host.url
        assert all(page.url == table_url for page in players)
        by_seat = started(players)
        assert sorted(by_seat) == [0, 1, 2]
        moves = play_la_part_du_chef(host, by_seat, players, cut=(0, 4, 8))
        assert moves == ROUNDS * (PLAYERS + 1)

        ranks: dict[str, int] = {}
        for page in players:
            expect(status_of(page)).to_have_attribute("data-status", "finished", timeout=WAIT)
        for row in host.locator("#table-result tbody tr").all():
            name = row.locator("th").inner_text().strip()
            ranks[name] = int(row.locator("td.rank").inner_text())
        assert sorted(ranks) == sorted(names)

        # Back at the arena, each sees the points the spec gives for those ranks.
        for page in players:
            page.goto(arena_url)
            standings = page.get_by_test_id("standings")
            for name in names:
                row = standings.locator(f'tr[data-player="{name}"]')
                expect(row.locator("td.points")).to_have_text(str(arena_points(ranks, name)))
                expect(row.locator("td.matches")).to_have_text("1")
            table_id = re.search(r"/tables/(\d+)/", table_url).group(1)
            expect(page.locator(f'#arena-tables li[data-table="{table_id}"]')).to_have_attribute(
                "data-status", "finished"
            )
        # Each pair of players shares 2 points, whatever the ranks.
        assert sum(arena_points(ranks, name) for name in names) == 2 * 3
    finally:
        for context in contexts:
            context.close()
