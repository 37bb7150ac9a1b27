"""Daphne's two checks of every connection, a slice at a time.

Daphne looks at every connection it holds once a second (is its application done, or too slow
to close?) and every two seconds (timeouts and pings), each time all of them in one callback of
the event loop. At 900 sockets these callbacks held the loop for up to 10 ms, and at 300 tables
they were most of the loop's stalls of 5 ms or more while moves were played (``bench/live.py
--watch``: 37 of 55): a move whose frames were due then waited for the whole walk.

``SlicedServer`` does the same checks on the same connections, as often, in slices of at most
``SLICE`` connections spread evenly over each period, so that no callback walks more than a
slice however many sockets the process holds.

The application check does something only for a connection whose client left or whose
application ended: for every other one (an open socket, a request being answered) it reads two
keys and moves on, and at 900 sockets those were 900 calls a second, two thirds of the checks.
So it looks only at the connections marked when their client leaves or their application ends,
until they are forgotten; the timeout check (pings, handshakes) still walks them all.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable, Iterable
from typing import Any

from daphne.server import Server
from twisted.internet import reactor

logger = logging.getLogger("daphne.server")

#: Connections one callback checks at most.
SLICE = 64
#: Seconds between two checks of a connection, as daphne has them.
APPLICATION_PERIOD = 1.0
TIMEOUT_PERIOD = 2.0


class Sweep:
    """Checks every item once per ``period``, ``size`` items at a time: each ``step`` checks the
    next slice of the items as they were when the sweep began, and says in how many seconds the
    next step is due (the period over the number of slices, so a sweep lasts about a period)."""

    def __init__(
        self,
        items: Callable[[], Iterable[Any]],
        check: Callable[[Any], None],
        period: float,
        size: int = SLICE,
    ) -> None:
        self.items = items
        self.check = check
        self.period = period
        self.size = size
        self.left: list[Any] = []
        self.slices = 1

    def step(self) -> float:
        if not self.left:
            self.left = list(self.items())
            self.left.reverse()
            self.slices = max(1, math.ceil(len(self.left) / self.size))
        for _ in range(min(self.size, len(self.left))):
            self.check(self.left.pop())
        return self.period / self.slices


class SlicedServer(Server):
    """Daphne's server, its connection checks in slices (``Sweep``), the application check only
    of the connections that need it (``to_look_at``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: The connections whose client left or whose application ended, until forgotten.
        self.to_look_at: set[Any] = set()

    def protocol_disconnected(self, protocol: Any) -> None:
        super().protocol_disconnected(protocol)
        self.to_look_at.add(protocol)

    def create_application(self, protocol: Any, scope: dict) -> Any:
        queue = super().create_application(protocol, scope)
        instance = self.connections.get(protocol, {}).get("application_instance")
        if instance is not None:
            instance.add_done_callback(lambda _instance: self.to_look_at.add(protocol))
        return queue

    def application_checker(self) -> None:
        self._check_next_slice(
            "_application_sweep",
            lambda: self.to_look_at,
            self.look_at,
            APPLICATION_PERIOD,
            self.application_checker,
        )

    def timeout_checker(self) -> None:
        self._check_next_slice(
            "_timeout_sweep",
            lambda: self.connections,
            self.check_timeouts_of,
            TIMEOUT_PERIOD,
            self.timeout_checker,
        )

    def _check_next_slice(
        self,
        name: str,
        items: Callable[[], Iterable[Any]],
        check: Callable[[Any], None],
        period: float,
        again: Callable[[], None],
    ) -> None:
        """The next slice of the sweep ``name`` (made at the first call) checked, and ``again``
        called when the slice after it is due."""
        sweep = self.__dict__.get(name)
        if sweep is None:
            sweep = Sweep(items, check, period)
            setattr(self, name, sweep)
        reactor.callLater(sweep.step(), again)

    def look_at(self, protocol: Any) -> None:
        """``check_application`` of a marked connection; it stays marked only while its client
        is gone and it is still held (its application running, within its time to close)."""
        self.check_application(protocol)
        details = self.connections.get(protocol)
        if details is None or not details.get("disconnected"):
            # Forgotten, or its application reaped with its client still there: marked again
            # when the client leaves.
            self.to_look_at.discard(protocol)

    def check_timeouts_of(self, protocol: Any) -> None:
        """Daphne's timeout and ping check of one connection, if it is still held."""
        if protocol in self.connections:
            protocol.check_timeouts()

    def check_application(self, protocol: Any) -> None:
        """What daphne's ``application_checker`` does for one connection: an application still
        running long after its client left is cancelled; a finished one is forgotten, its
        failure logged (and shown to a client still there); a connection whose client left and
        whose application is over is forgotten."""
        details = self.connections.get(protocol)
        if details is None:
            return
        disconnected = details.get("disconnected")
        instance = details.get("application_instance")
        late = disconnected and time.time() - disconnected > self.application_close_timeout
        if late and instance is not None and not instance.done():
            logger.warning(
                "Application instance %r for connection %s took too long to shut down "
                "and was killed.",
                instance,
                repr(protocol),
            )
            instance.cancel()
        if instance is not None and instance.done():
            self._report_failure(protocol, instance, disconnected)
            del details["application_instance"]
            instance = None
        if instance is None and disconnected:
            del self.connections[protocol]

    def _report_failure(self, protocol: Any, instance: asyncio.Future, disconnected: Any) -> None:
        if instance.cancelled():
            return
        failure = instance.exception()
        if failure is None:
            return
        if isinstance(failure, KeyboardInterrupt):
            # How a test asks the server to stop, as daphne has it.
            self.stop()
            return
        logger.error("Exception inside application: %s", failure, exc_info=failure)
        if not disconnected:
            protocol.handle_exception(failure)


def install() -> None:
    """Make daphne's command line start ``SlicedServer`` (``python -m pdc_site.serve``)."""
    from daphne.cli import CommandLineInterface

    CommandLineInterface.server_class = SlicedServer
