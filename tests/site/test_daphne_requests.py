"""Daphne's requests skip the work daphne throws away (``pdc_site/daphne_requests.py``): Twisted
no longer parses a POST's form into ``request.args`` that daphne never reads, nor formats a log
line for Twisted's log while daphne discards it."""

import io
import os
import subprocess
import sys
import types
from unittest import mock

import pytest
from twisted.internet.address import IPv4Address
from twisted.internet.testing import StringTransport
from twisted.python import log
from twisted.web import http

from pdc_site import daphne_requests

FORM = b"name=basil&move=cut"


def _factory(verbosity: int = 1) -> daphne_requests.SiteHTTPFactory:
    return daphne_requests.SiteHTTPFactory(mock.Mock(verbosity=verbosity))


def _posted_form(factory: http.HTTPFactory) -> http.Request:
    """A form POST through the request class the factory gives a new connection, up to the
    point where daphne would hand it to the application (``process``)."""
    processed: list[http.Request] = []
    protocol = factory.buildProtocol(IPv4Address("TCP", "127.0.0.1", 40000))

    class Recorded(protocol.requestFactory):
        def process(self) -> None:
            processed.append(self)

    protocol.requestFactory = Recorded
    protocol.makeConnection(StringTransport())
    protocol.dataReceived(
        b"POST /tables/1/move HTTP/1.1\r\nHost: localhost\r\n"
        b"Content-Type: application/x-www-form-urlencoded\r\n"
        b"Content-Length: %d\r\n\r\n%s" % (len(FORM), FORM)
    )
    return processed[0]


@pytest.mark.skipif(not daphne_requests.CAN_SKIP_FORMS, reason="this Twisted always parses forms")
def test_daphne_leaves_a_form_posts_body_unparsed():
    with mock.patch.object(http, "_parseContentType", wraps=http._parseContentType) as parse:
        request = _posted_form(_factory())
    assert parse.call_count == 0
    assert request.args == {}
    # The body is still whole, from its start, for daphne to hand over.
    assert request.content.read() == FORM
    assert request.method == b"POST"


def _logged(factory: http.HTTPFactory, log_file: object) -> None:
    factory._logFile = log_file
    request = mock.Mock(
        method=b"POST", uri=b"/api/tables/1/moves", clientproto=b"HTTP/1.1", code=200
    )
    request.getClientAddress.return_value = IPv4Address("TCP", "127.0.0.1", 40000)
    request.getHeader.return_value = None
    request.sentLength = 2
    factory._logDateTime = "04/Dec/2026:20:00:00 +0000"
    factory.log(request)


def test_no_line_is_formatted_for_twisteds_log_while_daphne_discards_it():
    with mock.patch.object(log.logfile, "write") as write:
        _logged(_factory(verbosity=1), log.logfile)
    assert write.call_count == 0


def test_twisteds_log_still_gets_its_lines_when_daphne_shows_it():
    with mock.patch.object(log.logfile, "write") as write:
        _logged(_factory(verbosity=2), log.logfile)
    assert write.call_count == 1
    assert '"POST /api/tables/1/moves HTTP/1.1" 200' in write.call_args.args[0]


def test_a_log_file_given_to_the_factory_still_gets_every_line():
    written = io.StringIO()
    _logged(_factory(verbosity=1), written)
    assert '"POST /api/tables/1/moves HTTP/1.1" 200' in written.getvalue()


def test_install_gives_daphnes_server_the_sites_factory(monkeypatch):
    server_module = types.SimpleNamespace(HTTPFactory=http.HTTPFactory)
    monkeypatch.setitem(sys.modules, "daphne.server", server_module)
    daphne_requests.install()
    assert server_module.HTTPFactory is daphne_requests.SiteHTTPFactory


def test_the_sites_asgi_application_installs_it():
    # In a process of its own, as daphne starts: its server first, then the application.
    shown = subprocess.run(
        [
            sys.executable,
            "-c",
            "import daphne.server, pdc_site.asgi; print(daphne.server.HTTPFactory.__name__)",
        ],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "pdc_site.settings"},
    )
    assert shown.stdout.split()[-1] == "SiteHTTPFactory"
