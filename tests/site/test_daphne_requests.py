"""Daphne's requests leave a POST's body to the application: Twisted no longer parses a form
into ``request.args`` that daphne never reads (``pdc_site/daphne_requests.py``)."""

from unittest import mock

import pytest
from daphne import http_protocol
from twisted.internet.address import IPv4Address
from twisted.internet.testing import StringTransport
from twisted.web import http

from pdc_site import daphne_requests

FORM = b"name=basil&move=cut"


@pytest.fixture
def daphne_request_class():
    """Daphne's module as the site's ASGI entry point leaves it, put back afterwards."""
    before = http_protocol.WebRequest
    daphne_requests.skip_form_parsing()
    yield
    http_protocol.WebRequest = before


def _posted_form(processed: list) -> http.Request:
    """A form POST through the request class daphne's factory gives a new connection, up to
    the point where daphne would hand it to the application (``process``)."""
    factory = http_protocol.HTTPFactory(server=mock.Mock())
    protocol = factory.buildProtocol(IPv4Address("TCP", "127.0.0.1", 40000))
    request_class = protocol.requestFactory

    class Recorded(request_class):
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


@pytest.mark.skipif(not daphne_requests.CAN_SKIP, reason="this Twisted always parses forms")
def test_daphne_leaves_a_form_posts_body_unparsed(daphne_request_class):
    processed: list = []
    with mock.patch.object(http, "_parseContentType", wraps=http._parseContentType) as parse:
        request = _posted_form(processed)
    assert parse.call_count == 0
    assert request.args == {}
    # The body is still whole, from its start, for daphne to hand over.
    assert request.content.read() == FORM
    assert request.method == b"POST"


def test_the_site_asgi_application_installs_it():
    import pdc_site.asgi  # noqa: F401

    if daphne_requests.CAN_SKIP:
        assert http_protocol.WebRequest is daphne_requests.FormlessWebRequest
