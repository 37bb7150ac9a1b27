"""Daphne's HTTP requests, without the work daphne throws away.

Twisted's ``Request`` parses the body of every ``POST`` that has a ``Content-Type`` into
``request.args`` (its content type through ``email.message``, then the form's fields), and daphne
never reads ``args``: it hands the application the body as it came, and Django parses it again.
In a profile of a saturated daphne that parse was 2% of its CPU (one per move's ``POST``).
Twisted lets a request skip it (``parsePOSTFormSubmission``); daphne builds its requests itself,
so the site gives daphne's factory a request class that asks for that.
"""

import inspect

from daphne import http_protocol
from twisted.web import http

#: Whether this Twisted lets a request skip the form's parse (Twisted 22.8 and later).
CAN_SKIP = "parsePOSTFormSubmission" in inspect.signature(http.Request.__init__).parameters


class FormlessWebRequest(http_protocol.WebRequest):
    """Daphne's request, which leaves a ``POST``'s body to the application alone."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs["parsePOSTFormSubmission"] = False
        super().__init__(*args, **kwargs)


def skip_form_parsing() -> None:
    """Make daphne's HTTP factory build ``FormlessWebRequest``s (it names its request class
    from its module when it builds each connection's protocol). Nothing on a Twisted without
    the switch."""
    if CAN_SKIP:
        http_protocol.WebRequest = FormlessWebRequest
