"""Daphne's HTTP requests, without the work daphne throws away.

Two things Twisted does for every request that daphne never uses (in a profile of a saturated
daphne, `py-spy record --gil`, 2.0% and 1.4% of its CPU):

- ``Request`` parses the body of every ``POST`` that has a ``Content-Type`` into
  ``request.args`` (its content type through ``email.message``, then the form's fields). Daphne
  never reads ``args``: it hands the application the body as it came, and Django parses it.
  Twisted lets a request skip that (``parsePOSTFormSubmission``).
- ``HTTPFactory`` formats a combined-log line of every request for Twisted's log, which daphne
  sends nowhere unless it runs with ``-v 2`` or more; daphne's own access log (``-v 1``, the
  default) is written apart from it and stays.

Daphne builds its factory and its requests itself, so ``install`` gives daphne's server a
factory that does neither.
"""

import inspect
import sys

from daphne import http_protocol
from twisted.python import log
from twisted.web import http

#: Whether this Twisted lets a request skip the form's parse (Twisted 22.8 and later).
CAN_SKIP_FORMS = "parsePOSTFormSubmission" in inspect.signature(http.Request.__init__).parameters
#: Daphne sends Twisted's log nowhere at this verbosity and below (``daphne.server.Server.run``).
TWISTED_LOG_DISCARDED_UP_TO = 1


class FormlessWebRequest(http_protocol.WebRequest):
    """Daphne's request, which leaves a ``POST``'s body to the application alone."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        if CAN_SKIP_FORMS:
            kwargs["parsePOSTFormSubmission"] = False
        super().__init__(*args, **kwargs)


class SiteHTTPFactory(http_protocol.HTTPFactory):
    """Daphne's factory, with the request above and no line for a log nobody reads."""

    def buildProtocol(self, addr: object) -> http.HTTPChannel:
        protocol = super().buildProtocol(addr)
        protocol.requestFactory = FormlessWebRequest
        return protocol

    def log(self, request: http.Request) -> None:
        # Only the line meant for Twisted's log is skipped, and only while daphne discards it;
        # a log file given to the factory still gets every line.
        to_twisted_log = self._logFile is log.logfile
        if to_twisted_log and self.server.verbosity <= TWISTED_LOG_DISCARDED_UP_TO:
            return
        super().log(request)


def install() -> None:
    """Make daphne's server build ``SiteHTTPFactory`` (it names the class from its own module
    when it starts). Nothing when daphne does not serve this process."""
    server_module = sys.modules.get("daphne.server")
    if server_module is not None:
        server_module.HTTPFactory = SiteHTTPFactory
