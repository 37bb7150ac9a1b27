"""The event loop of the site's processes: uvloop's, unless ``EVENT_LOOP=asyncio``.

Daphne runs Twisted on an asyncio loop that it makes as ``daphne.server`` is imported, so the kind
of loop is chosen before that import: ``python -m pdc_site.serve`` (daphne's own command line) and
``manage.py`` (``runserver``, the worker) call ``install`` first. uvloop's loop runs the same
callbacks, futures and transports as asyncio's, in C: a saturated daphne spent about 5% less CPU
per move on it (README, "Live at scale").
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping

UVLOOP = "uvloop"
ASYNCIO = "asyncio"


def chosen(environ: Mapping[str, str] = os.environ) -> str:
    """The loop ``EVENT_LOOP`` names (in ``environ``, this process's environment unless given).
    The benchmark's loop watch (``PDC_LOOP_WATCH``) times the turns of asyncio's own loop
    (``pdc_site.loop_watch``), so it always gets asyncio's."""
    name = environ.get("EVENT_LOOP", UVLOOP)
    if name not in (UVLOOP, ASYNCIO):
        raise SystemExit(f"EVENT_LOOP must be {UVLOOP!r} or {ASYNCIO!r}, not {name!r}")
    if environ.get("PDC_LOOP_WATCH"):
        return ASYNCIO
    return name


def install() -> str:
    """Make every event loop made from now on in this process of the chosen kind; its name."""
    name = chosen()
    if name == UVLOOP:
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    return name
