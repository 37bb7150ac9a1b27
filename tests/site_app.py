"""The site's HTTP application in a test: its handler and request threads as in pdc_site.asgi."""

from __future__ import annotations

from pdc_site.request_threads import RequestThreads


def closed_after(app: RequestThreads) -> None:
    """End ``app``'s idle threads with their database connections (a connection left open in a
    lent thread would hold the test database for the next test)."""
    from django.db import connection

    for thread in app.idle:
        thread.submit(lambda: connection.close()).result()
        thread.shutdown()
