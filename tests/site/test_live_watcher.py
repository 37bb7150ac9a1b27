"""How ``bench/live.py`` times a move's push on one seat's socket: by the frame that first showed
the move's version, even when that frame was read before the move's answer was."""

from __future__ import annotations

import asyncio

from bench.live import SHOWN_KEPT, Watcher


def test_a_push_read_before_its_answer_is_timed_by_its_frame():
    async def scenario() -> float:
        watcher = Watcher()
        watcher.on_text(b'<div id="table-status" class="status" data-version="3">')
        assert watcher.last == 3
        watcher.saw(4, when=10.0)  # the push, read before the mover's answer
        watcher.saw(5, when=12.0)
        return await watcher.seen(4)

    assert asyncio.run(scenario()) == 10.0


def test_a_push_awaited_first_is_timed_when_it_comes():
    async def scenario() -> float:
        watcher = Watcher()
        watcher.saw(3, when=1.0)
        waiting = watcher.seen(4)
        watcher.saw(4, when=7.5)
        return await waiting

    assert asyncio.run(scenario()) == 7.5


def test_versions_that_go_back_are_counted_and_do_not_move_the_times():
    watcher = Watcher()
    watcher.saw(6, when=1.0)
    watcher.saw(5, when=2.0)
    assert watcher.violations == 1
    assert watcher.shown_at(6) == 1.0


def test_only_the_latest_versions_keep_their_times():
    watcher = Watcher()
    for version in range(SHOWN_KEPT + 5):
        watcher.saw(version, when=float(version))
    assert len(watcher.shown) == SHOWN_KEPT
    assert watcher.shown_at(SHOWN_KEPT + 4) == SHOWN_KEPT + 4
