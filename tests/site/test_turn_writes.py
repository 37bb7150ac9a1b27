"""Daphne's writes, sent on the loop's next turn without watching the socket for writability
(``pdc_site/turn_writes.py``): the writes of one turn to a connection leave in one ``send``, the
reactor is asked to watch the socket only when the kernel did not take everything, a closing
connection still closes once its data left, and a server process installs it by default."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys

import pytest
from twisted.internet import main, tcp
from twisted.internet.protocol import Protocol

from pdc_site import turn_writes


class Reactor:
    """What a connection and the writes ask of Twisted's asyncio reactor, recorded."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._asyncioEventloop = loop
        self._writers: dict[object, int] = {}
        self.watched: list[object] = []
        self.disconnected: list[tuple[object, object]] = []

    def addWriter(self, writer: object) -> None:
        self.watched.append(writer)
        self._writers[writer] = 1

    def removeWriter(self, writer: object) -> None:
        self._writers.pop(writer, None)

    def removeReader(self, reader: object) -> None:
        pass

    def _disconnectSelectable(self, selectable: object, why: object, read: bool) -> None:
        self.disconnected.append((selectable, why))


@pytest.fixture
def pair():
    left, right = socket.socketpair()
    left.setblocking(False)
    right.setblocking(False)
    yield left, right
    left.close()
    right.close()


def connection_on(left: socket.socket, reactor: Reactor) -> tcp.Connection:
    connection = tcp.Connection(left, Protocol(), reactor)
    connection.connected = 1
    return connection


def written(work, soon: bool = True) -> Reactor:
    """``work(connection)`` on a connection of a recorded reactor, then two turns of the loop."""

    async def run() -> Reactor:
        reactor = Reactor(asyncio.get_running_loop())
        if soon:
            turn_writes.install(reactor)
        await asyncio.sleep(0)  # the turns from here on end with the flush, as daphne's all do
        try:
            await work(reactor)
            for _ in range(2):
                await asyncio.sleep(0)
        finally:
            turn_writes.uninstall()
        return reactor

    return asyncio.run(run())


def test_the_writes_of_a_turn_leave_in_one_send_without_watching_the_socket(pair):
    left, right = pair

    async def work(reactor: Reactor) -> None:
        connection = connection_on(left, reactor)
        connection.write(b"a frame, ")
        connection.write(b"and the next")
        reactor.connection = connection

    reactor = written(work)
    assert right.recv(100) == b"a frame, and the next"
    assert reactor.watched == []
    assert reactor.disconnected == []


def test_twisteds_own_writes_watch_the_socket_for_every_write(pair):
    left, _right = pair

    async def work(reactor: Reactor) -> None:
        connection_on(left, reactor).write(b"a frame")

    assert len(written(work, soon=False).watched) == 1


def test_what_the_kernel_did_not_take_is_left_to_the_reactor(pair):
    left, _right = pair
    left.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    big = b"x" * 4_000_000

    async def work(reactor: Reactor) -> None:
        reactor.connection = connection_on(left, reactor)
        reactor.connection.write(big)

    reactor = written(work)
    assert reactor.watched == [reactor.connection]
    assert turn_writes.has_data(reactor.connection)
    assert reactor.disconnected == []


def test_a_closing_connection_closes_once_its_data_left(pair):
    left, right = pair

    async def work(reactor: Reactor) -> None:
        reactor.connection = connection_on(left, reactor)
        reactor.connection.write(b"the last frame")
        reactor.connection.loseConnection()

    reactor = written(work)
    assert right.recv(100) == b"the last frame"
    assert reactor.disconnected == [(reactor.connection, main.CONNECTION_DONE)]
    assert reactor.watched == []


def test_a_connection_that_stops_writing_before_the_turn_is_not_sent(pair):
    left, right = pair

    async def work(reactor: Reactor) -> None:
        connection = connection_on(left, reactor)
        connection.write(b"never sent")
        connection.stopWriting()

    reactor = written(work)
    with pytest.raises(BlockingIOError):
        right.recv(100)
    assert reactor.watched == []


def test_a_connection_the_reactor_watches_already_stays_with_it(pair):
    left, _right = pair

    async def work(reactor: Reactor) -> None:
        connection = connection_on(left, reactor)
        reactor._writers[connection] = 1  # a slow reader, watched since an earlier turn
        connection.write(b"more")
        reactor.connection = connection

    reactor = written(work)
    assert reactor.watched == [reactor.connection]


def test_a_server_process_sends_its_writes_soon_only_when_asked():
    check = (
        "import daphne.server, pdc_site.asgi; from pdc_site import turn_writes; "
        "print(turn_writes._writes is not None)"
    )
    outputs = []
    for value in ("1", "0", None):
        env = {k: v for k, v in os.environ.items() if k != "SOCKET_WRITES_SOON"}
        if value is not None:
            env["SOCKET_WRITES_SOON"] = value
        done = subprocess.run(
            [sys.executable, "-c", check], env=env, capture_output=True, text=True, check=True
        )
        outputs.append(done.stdout.split()[-1])
    assert outputs == ["True", "False", "False"]


def test_a_frame_leaves_before_the_loops_next_select(pair):
    """Sent at the end of the turn that wrote it: no ``select`` (which lets the GIL go) between."""
    left, right = pair
    seen_at_select: list[bool] = []

    async def work(reactor: Reactor) -> None:
        selector = reactor._asyncioEventloop._selector
        select = selector.select

        def select_seeing(timeout: float | None = None) -> list:
            try:
                seen_at_select.append(bool(right.recv(100, socket.MSG_PEEK)))
            except BlockingIOError:
                seen_at_select.append(False)
            return select(timeout)

        connection_on(left, reactor).write(b"a frame")
        selector.select = select_seeing

    written(work)
    assert seen_at_select[0] is True


def test_the_watchs_ledger_keeps_the_writes_flush_on_the_loops_turn():
    from pdc_site.loop_watch import LoopLedger

    async def run() -> tuple[bool, bool]:
        loop = asyncio.get_running_loop()
        writes = turn_writes.install(Reactor(loop))
        ledger = LoopLedger(loop)
        ledger.install()
        ledger.uninstall()
        kept = loop._run_once == writes.turn
        turn_writes.uninstall()
        return kept, "_run_once" not in vars(loop)

    assert asyncio.run(run()) == (True, True)


def test_the_watch_counts_the_writes_flushed_and_left_to_the_reactor(pair):
    from pdc_site.loop_watch import writes_figures

    left, _right = pair
    left.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)

    async def work(reactor: Reactor) -> None:
        connection_on(left, reactor).write(b"x" * 4_000_000)
        for _ in range(2):
            await asyncio.sleep(0)
        reactor.figures = writes_figures()

    assert written(work).figures == {"flushed": 1, "watched": 1}
    assert writes_figures() is None
