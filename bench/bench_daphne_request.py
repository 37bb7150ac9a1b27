"""What daphne's own HTTP path costs per request, in process: daphne's HTTP factory as daphne
ships it against the site's (``pdc_site/daphne_requests.SiteHTTPFactory``: no form parse by
Twisted, no line for Twisted's discarded log), taking turns in the same process.

    .venv/bin/python bench/bench_daphne_request.py --requests 20000 --rounds 7

Each request goes through one kept-alive connection of a protocol the factory built, over an
in-memory transport: Twisted parses it, daphne builds its scope and hands the body to a stub
application queue, then the answer (200, a small JSON body) is written and the request finished,
as daphne does once the application answers. The application itself is not run, so the figures
are daphne's and Twisted's part of a request only. CPU microseconds per request (process time),
medians of the rounds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from daphne import http_protocol  # noqa: E402
from twisted.internet.address import IPv4Address  # noqa: E402
from twisted.internet.testing import StringTransport  # noqa: E402

from pdc_site import daphne_requests  # noqa: E402

BODY = b'{"version": 12, "move": {"kind": "cut", "slices": [3, 4]}}'
FORM = b"version=12&kind=cut&slices=3%2C4"
REQUESTS = {
    "a move's POST (JSON)": (
        b"POST /api/tables/1/moves HTTP/1.1\r\nHost: 127.0.0.1:8000\r\n"
        b"Authorization: Bearer abcdefabcdefabcdefabcdef\r\nContent-Type: application/json\r\n"
        b"Accept: */*\r\nContent-Length: %d\r\n\r\n%s" % (len(BODY), BODY)
    ),
    "a form's POST (browser)": (
        b"POST /tables/1/move HTTP/1.1\r\nHost: 127.0.0.1:8000\r\n"
        b"Content-Type: application/x-www-form-urlencoded\r\nCookie: sessionid=abc\r\n"
        b"Content-Length: %d\r\n\r\n%s" % (len(FORM), FORM)
    ),
    "a GET": (
        b"GET /api/tables/1 HTTP/1.1\r\nHost: 127.0.0.1:8000\r\n"
        b"Authorization: Bearer abcdefabcdefabcdefabcdef\r\nAccept: */*\r\n\r\n"
    ),
}


class Queue:
    def put_nowait(self, message: dict) -> None:
        pass


class StubServer:
    """What daphne's requests ask of daphne's server, answering at once."""

    proxy_forwarded_address_header = None
    root_path = ""
    request_buffer_size = 8192
    server_name = "daphne"
    http_timeout = None
    verbosity = 1

    def __init__(self) -> None:
        self.request: http_protocol.WebRequest | None = None

    def create_application(self, protocol: object, scope: dict) -> Queue:
        self.request = protocol
        return Queue()

    def protocol_connected(self, protocol: object) -> None:
        pass

    def protocol_disconnected(self, protocol: object) -> None:
        pass

    def log_action(self, *args: object) -> None:
        pass


def cpu_per_request(factory_class: type, raw: bytes, count: int) -> float:
    """CPU microseconds per request of ``count`` requests on one kept-alive connection."""
    server = StubServer()
    factory = factory_class(server)
    factory.startFactory()
    protocol = factory.buildProtocol(IPv4Address("TCP", "127.0.0.1", 40000))
    transport = StringTransport()
    protocol.makeConnection(transport)
    started = time.process_time()
    for _ in range(count):
        protocol.dataReceived(raw)
        request = server.request
        request.handle_reply(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        request.handle_reply({"type": "http.response.body", "body": b'{"ok": true}'})
        transport.clear()
    spent = time.process_time() - started
    factory.stopFactory()
    return 1e6 * spent / count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    factories = {
        "daphne's factory": http_protocol.HTTPFactory,
        "the site's": daphne_requests.SiteHTTPFactory,
    }
    print(
        f"== daphne's HTTP path per request, in process, {args.requests} requests x {args.rounds} rounds"
    )
    for name, raw in REQUESTS.items():
        times: dict[str, list[float]] = {label: [] for label in factories}
        for _ in range(args.rounds):
            for label, factory_class in factories.items():
                times[label].append(cpu_per_request(factory_class, raw, args.requests))
        medians = {label: statistics.median(values) for label, values in times.items()}
        base, site = medians.values()
        print(
            f"{name:26s} daphne's {base:6.1f} us, the site's {site:6.1f} us: "
            f"{site / base:.2f}x, {base - site:5.1f} us less per request"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
