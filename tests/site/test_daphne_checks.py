"""Daphne's connection checks in slices (``pdc_site/daphne_checks.py``): every connection is
checked as daphne checks it and as often, but no callback of the event loop walks more than a
slice of them."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
import time
from unittest import mock

import pytest
from daphne import server as daphne_server

from pdc_site import daphne_checks
from pdc_site.daphne_checks import SLICE, SlicedServer, Sweep

CLOSE_TIMEOUT = 10


class Protocol:
    """A connection as the checks see it."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.shown: list[str] = []
        self.timeouts_checked = 0

    def handle_exception(self, failure: BaseException) -> None:
        self.shown.append(repr(failure))

    def check_timeouts(self) -> None:
        self.timeouts_checked += 1

    def __repr__(self) -> str:
        return f"<Protocol {self.name}>"


def connections(loop: asyncio.AbstractEventLoop) -> dict[Protocol, dict]:
    """One connection of every case daphne's application checker tells apart."""
    now = time.time()

    def future(result=None, failure=None, cancelled=False, running=False):
        made = loop.create_future()
        if cancelled:
            made.cancel()
        elif failure is not None:
            made.set_exception(failure)
        elif not running:
            made.set_result(result)
        return made

    cases = {
        "running": {"application_instance": future(running=True)},
        "finished": {"application_instance": future()},
        "failed, client there": {"application_instance": future(failure=ValueError("boom"))},
        "failed, client gone": {
            "application_instance": future(failure=ValueError("gone")),
            "disconnected": now - 1,
        },
        "running, client just gone": {
            "application_instance": future(running=True),
            "disconnected": now - 1,
        },
        "running, client long gone": {
            "application_instance": future(running=True),
            "disconnected": now - CLOSE_TIMEOUT - 5,
        },
        "finished, client gone": {"application_instance": future(), "disconnected": now - 1},
        "cancelled": {"application_instance": future(cancelled=True)},
        "no application, client gone": {"disconnected": now - 1},
        "no application, client there": {},
    }
    return {Protocol(name): details for name, details in cases.items()}


def outcome(conns: dict[Protocol, dict]) -> dict[str, tuple]:
    """What is left of each connection: whether it is still held, its application (and whether
    it was cancelled), and what its client was shown."""
    return {
        protocol.name: (
            protocol in conns,
            "application_instance" in conns.get(protocol, {}),
            protocol.shown,
        )
        for protocol in conns
    }


def server(cls=SlicedServer):
    return cls(application=None, endpoints=["tcp:port=0"], application_close_timeout=CLOSE_TIMEOUT)


def test_each_connection_is_checked_exactly_as_daphnes_own_checker_does(caplog):
    loop = asyncio.new_event_loop()
    try:
        theirs, ours = server(daphne_server.Server), server()
        theirs.connections = connections(loop)
        ours.connections = connections(loop)
        before_theirs, before_ours = dict(theirs.connections), dict(ours.connections)
        with mock.patch.object(daphne_server.reactor, "callLater"), caplog.at_level(logging.ERROR):
            theirs.application_checker()
            their_log = sorted(r.getMessage() for r in caplog.records)
            caplog.clear()
            for protocol in list(ours.connections):
                ours.check_application(protocol)
            our_log = sorted(r.getMessage() for r in caplog.records)
        mine = {p.name: (p in ours.connections, p.shown) for p in before_ours}
        daphnes = {p.name: (p in theirs.connections, p.shown) for p in before_theirs}
        assert mine == daphnes
        kept = {p.name: sorted(d) for p, d in ours.connections.items()}
        assert kept == {p.name: sorted(d) for p, d in theirs.connections.items()}
        assert our_log == their_log
        assert len(our_log) == 2  # the two failures
        # What the cases mean, spelled out: the long-gone client's application was cancelled and
        # forgotten with its connection; a failure is shown to a client still there only.
        assert mine["running, client long gone"] == (False, [])
        assert mine["failed, client there"] == (True, ["ValueError('boom')"])
        assert mine["failed, client gone"] == (False, [])
        assert kept["running, client just gone"] == ["application_instance", "disconnected"]
        assert kept["finished"] == []
    finally:
        loop.close()


def test_a_connection_forgotten_since_the_sweep_began_is_not_checked():
    ours = server()
    ours.connections = {}
    protocol = Protocol("gone")
    ours.check_application(protocol)
    ours.check_timeouts_of(protocol)
    assert protocol.timeouts_checked == 0


def test_a_sweep_checks_every_item_once_a_period_a_slice_at_a_time():
    items = list(range(150))
    checked: list[int] = []
    sweep = Sweep(lambda: items, checked.append, period=1.0, size=64)
    delays = [sweep.step() for _ in range(3)]
    assert sorted(checked) == items
    assert delays == [pytest.approx(1 / 3)] * 3
    items.append(150)  # a connection that came meanwhile: in the next sweep
    checked.clear()
    delays = [sweep.step() for _ in range(3)]
    assert sorted(checked) == items
    assert delays == [pytest.approx(1 / 3)] * 3


def test_a_sweep_of_nothing_looks_again_after_a_period():
    sweep = Sweep(lambda: [], lambda item: None, period=2.0)
    assert sweep.step() == 2.0


@pytest.mark.parametrize(
    ("checker", "period"),
    [("application_checker", daphne_checks.APPLICATION_PERIOD), ("timeout_checker", 2.0)],
)
def test_no_callback_checks_more_than_a_slice_of_the_connections(monkeypatch, checker, period):
    ours = server()
    ours.connections = {Protocol(str(n)): {} for n in range(3 * SLICE + 10)}
    ours.to_look_at = set(ours.connections)  # all of them marked for the application check
    checked: list[Protocol] = []
    monkeypatch.setattr(ours, "look_at", checked.append)
    monkeypatch.setattr(ours, "check_timeouts_of", checked.append)
    later = mock.Mock()
    monkeypatch.setattr(daphne_checks.reactor, "callLater", later)
    per_call = []
    for _ in range(4):  # one sweep: four slices of the 202 connections
        before = len(checked)
        getattr(ours, checker)()
        per_call.append(len(checked) - before)
    assert max(per_call) <= SLICE
    assert sorted(checked, key=lambda p: int(p.name)) == list(ours.connections)
    delays = [call.args[0] for call in later.call_args_list]
    assert sum(delays) == pytest.approx(period)  # each connection as often as daphne has it
    assert all(call.args[1] == getattr(ours, checker) for call in later.call_args_list)


def test_the_timeout_check_is_daphnes_own_for_each_connection(monkeypatch):
    ours = server()
    ours.connections = {Protocol(str(n)): {} for n in range(5)}
    monkeypatch.setattr(daphne_checks.reactor, "callLater", mock.Mock())
    ours.timeout_checker()
    assert [p.timeouts_checked for p in ours.connections] == [1] * 5


def test_the_sites_command_line_starts_the_sliced_server():
    code = (
        "import pdc_site.serve\n"
        "from daphne.cli import CommandLineInterface\n"
        "print(CommandLineInterface.server_class.__name__)"
    )
    shown = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert shown.stdout.strip() == "SlicedServer"


# --- the application check, only where it has something to do ------------------------------------
class Held:
    """Applications that run until the test lets each of them end."""

    def __init__(self) -> None:
        self.ends: dict[str, asyncio.Future] = {}

    async def __call__(self, scope, receive, send) -> None:
        self.ends[scope["name"]] = asyncio.get_running_loop().create_future()
        await self.ends[scope["name"]]

    def end(self, name: str, failure: BaseException | None = None) -> None:
        if failure is None:
            self.ends[name].set_result(None)
        else:
            self.ends[name].set_exception(failure)


@pytest.fixture
def held_server(monkeypatch):
    """A ``SlicedServer`` of ``Held`` applications on an event loop of its own, as ``run``
    starts it (no connection yet; the checks' next slices never scheduled)."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    held = Held()
    ours = SlicedServer(
        application=held, endpoints=["tcp:port=0"], application_close_timeout=CLOSE_TIMEOUT
    )
    ours.connections = {}
    monkeypatch.setattr(daphne_checks.reactor, "callLater", mock.Mock())
    try:
        yield loop, held, ours
    finally:
        for end in held.ends.values():
            if not end.done():
                end.cancel()
        loop.run_until_complete(asyncio.sleep(0))
        asyncio.set_event_loop(None)
        loop.close()


def test_the_application_check_looks_only_at_connections_whose_client_left_or_application_ended(
    monkeypatch, caplog, held_server
):
    loop, held, ours = held_server
    looked: list[str] = []
    check = ours.check_application
    monkeypatch.setattr(ours, "check_application", lambda p: looked.append(p.name) or check(p))
    sockets = {name: Protocol(name) for name in ("open", "leaves", "ends", "fails")}
    for name, protocol in sockets.items():
        ours.protocol_connected(protocol)
        ours.create_application(protocol, {"type": "websocket", "name": name})
    loop.run_until_complete(asyncio.sleep(0))

    def sweep() -> list[str]:
        looked.clear()
        ours.application_checker()
        loop.run_until_complete(asyncio.sleep(0))
        return sorted(looked)

    assert sweep() == []  # four applications running, four clients there
    ours.protocol_disconnected(sockets["leaves"])
    held.end("ends")
    with caplog.at_level(logging.ERROR):
        held.end("fails", ValueError("boom"))
        loop.run_until_complete(asyncio.sleep(0))
        assert sweep() == ["ends", "fails", "leaves"]
    # The ended applications were reaped, a failure shown to its client; the connection whose
    # client left is looked at again until its application ends, then forgotten.
    assert sockets["fails"].shown == ["ValueError('boom')"]
    assert "application_instance" not in ours.connections[sockets["ends"]]
    assert sweep() == ["leaves"]
    held.end("leaves")
    loop.run_until_complete(asyncio.sleep(0))
    assert sweep() == ["leaves"]
    assert sockets["leaves"] not in ours.connections
    assert sweep() == []
    # A client whose application was reaped leaves: looked at once more, and forgotten.
    ours.protocol_disconnected(sockets["ends"])
    assert sweep() == ["ends"]
    assert set(ours.connections) == {sockets["open"], sockets["fails"]}
    assert ours.to_look_at == set()


def test_a_client_gone_longer_than_its_application_may_take_to_close_has_it_cancelled(
    held_server,
):
    loop, _held, ours = held_server
    protocol = Protocol("slow")
    ours.protocol_connected(protocol)
    ours.create_application(protocol, {"type": "websocket", "name": "slow"})
    loop.run_until_complete(asyncio.sleep(0))
    ours.protocol_disconnected(protocol)
    ours.connections[protocol]["disconnected"] -= CLOSE_TIMEOUT + 1
    ours.application_checker()
    loop.run_until_complete(asyncio.sleep(0))
    assert ours.connections[protocol]["application_instance"].cancelled()
    ours.application_checker()
    assert protocol not in ours.connections
    assert ours.to_look_at == set()
