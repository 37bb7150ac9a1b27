"""Daphne's writes to its sockets, sent once per connection at the end of the event loop's turn
that made them, without asking the loop to watch for writability first (``SOCKET_WRITES_SOON=1``;
off by default until a quiet machine tells its p99 apart: README, stop 23).

Twisted buffers what a protocol writes (a frame, an answer) and asks the reactor to watch the
socket for writability; under asyncio that is ``epoll_ctl`` on the loop's selector; the next turn
finds the socket writable (it nearly always is), sends, and, the buffer empty, stops watching:
``epoll_ctl`` again. Three system calls a frame, each of which lets the GIL go; while a request's
thread computes (a move's view, the render for its watchers) the loop gets the GIL back only
after that thread has held it for the switch interval (5 ms), so each write could hold every
socket of the process up by that much (``bench/live.py --watch``: the loop's thread sampled in
``epoll.modify`` under ``startWriting`` and ``stopWriting`` while it was late).

Here a connection that starts writing is flushed at the end of the loop's turn, after its
callbacks and before its next ``select``, as the reactor's ``doWrite`` would: one ``send``, and
the reactor is asked to watch the socket only when the kernel did not take everything (a slow
reader), as before. Writes of one turn to one connection still go out together, and a frame no
longer waits for the next turn (each turn begins with a ``select``, which lets the GIL go too).
Not for TLS connections, which write through their TLS layer.
"""

from __future__ import annotations

import asyncio
import logging
import sys

from twisted.internet import tcp
from twisted.internet.posixbase import _NO_FILEDESC

logger = logging.getLogger(__name__)


class SoonWrites:
    """The connections of one reactor that started writing in this turn of its loop."""

    def __init__(self, reactor: object, loop: asyncio.AbstractEventLoop) -> None:
        self.reactor = reactor
        self.loop = loop
        self.pending: dict[tcp.Connection, None] = {}
        #: Flushes done, and how many of them left data the reactor then watched for.
        self.flushed = 0
        self.watched = 0

    def install(self) -> None:
        """Flush at the end of every turn of the loop (after its callbacks, before its next
        ``select``)."""
        self.original_turn = self.loop._run_once
        self.loop._run_once = self.turn

    def uninstall(self) -> None:
        if vars(self.loop).get("_run_once") == self.turn:
            del self.loop._run_once

    def turn(self) -> None:
        try:
            self.original_turn()
        finally:
            if self.pending:
                self.flush()

    def start(self, connection: tcp.Connection) -> None:
        self.pending[connection] = None

    def cancel(self, connection: tcp.Connection) -> None:
        self.pending.pop(connection, None)

    def flush(self) -> None:
        """Send what each pending connection has, as the reactor's ``doWrite`` would; watch for
        writability only what is left."""
        pending, self.pending = self.pending, {}
        for connection in pending:
            self.flushed += 1
            self.send(connection)

    def send(self, connection: tcp.Connection) -> None:
        reactor = self.reactor
        if connection.fileno() == -1:
            reactor._disconnectSelectable(connection, _NO_FILEDESC, False)
            return
        try:
            why = connection.doWrite()
        except Exception as error:
            why = error
            logger.exception("a connection's write failed")
        if why:
            reactor._disconnectSelectable(connection, why, False)
        elif has_data(connection):
            self.watched += 1
            original_start_writing(connection)


def has_data(connection: tcp.Connection) -> bool:
    return connection.offset < len(connection.dataBuffer) or bool(connection._tempDataLen)


original_start_writing = tcp.Connection.startWriting
original_stop_writing = tcp.Connection.stopWriting
#: The reactor's writes, once installed (one reactor per process).
_writes: SoonWrites | None = None


def start_writing(connection: tcp.Connection) -> None:
    writes = _writes
    if (
        writes is None
        or connection.reactor is not writes.reactor
        or connection.TLS
        or connection in writes.reactor._writers  # a slow reader: the reactor watches it
    ):
        original_start_writing(connection)
        return
    writes.start(connection)


def stop_writing(connection: tcp.Connection) -> None:
    if _writes is not None:
        _writes.cancel(connection)
    original_stop_writing(connection)


def install(reactor: object) -> SoonWrites | None:
    """Flush the connections of ``reactor`` (Twisted's asyncio reactor) on its loop's next turn
    instead of watching them for writability; None for any other reactor."""
    global _writes
    loop = getattr(reactor, "_asyncioEventloop", None)
    if loop is None:
        return None
    _writes = SoonWrites(reactor, loop)
    _writes.install()
    tcp.Connection.startWriting = start_writing
    tcp.Connection.stopWriting = stop_writing
    return _writes


def install_under_daphne() -> SoonWrites | None:
    """``install`` on the reactor daphne runs this process with; nothing when daphne does not
    serve it (the reactor is then never imported here: that would install Twisted's default)."""
    if "daphne.server" not in sys.modules:
        return None
    reactor = sys.modules.get("twisted.internet.reactor")
    return install(reactor) if reactor is not None else None


def uninstall() -> None:
    global _writes
    if _writes is not None:
        _writes.uninstall()
    _writes = None
    tcp.Connection.startWriting = original_start_writing
    tcp.Connection.stopWriting = original_stop_writing
