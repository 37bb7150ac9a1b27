"""Fewer polls of the network between turns that have work ready (``pdc_site/loop_polls.py``,
``LOOP_POLL_EVERY_MS``): a poll (``select`` with callbacks ready) is skipped while the last one is
recent, a ``select`` that may wait never is, and a server process installs it only when asked."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys

from pdc_site.loop_polls import SparsePolls


def selects_while(work, every: float) -> tuple[list[float | None], SparsePolls]:
    """The timeouts of the ``select`` calls that reached the selector while ``work`` ran."""
    reached: list[float | None] = []

    async def run() -> SparsePolls:
        loop = asyncio.get_running_loop()
        select = loop._selector.select

        def recorded(timeout: float | None = None) -> list:
            reached.append(timeout)
            return select(timeout)

        loop._selector.select = recorded
        polls = SparsePolls(loop, every)
        polls.install()
        await asyncio.sleep(0)
        reached.clear()
        try:
            await work()
        finally:
            polls.uninstall()
        return polls

    polls = asyncio.run(run())
    return reached, polls


async def ten_turns() -> None:
    for _ in range(10):
        await asyncio.sleep(0)


def test_polls_between_ready_turns_are_skipped_while_the_last_is_recent():
    reached, polls = selects_while(ten_turns, every=60.0)
    assert reached == []
    assert polls.skipped >= 10


def test_without_a_window_every_turn_polls():
    reached, polls = selects_while(ten_turns, every=0.0)
    assert len(reached) >= 10
    assert polls.skipped == 0


def test_a_select_that_may_wait_is_never_skipped():
    async def wait_for_the_network() -> None:
        left, right = socket.socketpair()
        loop = asyncio.get_running_loop()
        try:
            readable = loop.create_future()
            loop.add_reader(left.fileno(), readable.set_result, None)
            loop.call_later(0.01, right.send, b"x")
            await readable
            loop.remove_reader(left.fileno())
        finally:
            left.close()
            right.close()

    reached, _polls = selects_while(wait_for_the_network, every=60.0)
    assert any(timeout is None or timeout > 0 for timeout in reached)


def test_a_server_process_polls_sparsely_only_when_asked():
    check = (
        "import daphne.server, pdc_site.asgi; from pdc_site import loop_polls, loop_watch; "
        "print(loop_polls.installed is not None and loop_watch.polls_skipped() == 0)"
    )
    outputs = []
    for value in ("0", "2"):
        env = {**os.environ, "LOOP_POLL_EVERY_MS": value}
        done = subprocess.run(
            [sys.executable, "-c", check], env=env, capture_output=True, text=True, check=True
        )
        outputs.append(done.stdout.split()[-1])
    assert outputs == ["False", "True"]
