"""Python's garbage collector, set for a long-lived server process.

A daphne process serves every socket of its tables on one event loop, and a full collection
stops that loop for as long as it walks every container the process holds: at 300 tables (900
sockets, their tables' reads and renders) ``bench/live.py --watch`` timed full collections of
0.1–1.1 s, fifteen in a minute, and they were the push's p99 (each matched a stall of the loop).
Two settings make them rare and short:

- **Freeze what start-up made.** The modules, the URLs, the compiled templates and the
  translations live as long as the process: once collected, they are moved out of the
  collector's sight (``gc.freeze``), so no later collection walks them again.
- **A larger first generation.** A move's request renders on its own thread while the loop
  runs: with the default threshold (700 allocations) a young collection came every few hundred
  objects, promoted the request's half-built objects that were still in use to older
  generations, where they died later and counted towards the next full collection. Collecting
  the first generation every ``GC_THRESHOLD[0]`` allocations lets most of them die young (freed
  by their reference counts, never seen by a collection at all).

``GC_THRESHOLD`` (three integers, ``"700,10,10"`` being Python's default) and ``GC_FREEZE``
(``0`` to keep every object in sight) set them; the benchmark measured them both ways.
"""

from __future__ import annotations

import gc
import os

#: Python's default is (700, 10, 10).
DEFAULT_THRESHOLD = (10_000, 10, 100)


def threshold() -> tuple[int, ...]:
    raw = os.environ.get("GC_THRESHOLD", "")
    if not raw.strip():
        return DEFAULT_THRESHOLD
    return tuple(int(part) for part in raw.split(","))


def warm_up() -> None:
    """Build now what the first requests would build anyway and keep for good: the URL
    resolver (it imports every view), every template compiled by the cached loader, and every
    language's catalog."""
    from pathlib import Path

    from django.conf import settings
    from django.template.loader import get_template
    from django.urls import get_resolver
    from django.utils import translation

    get_resolver().url_patterns  # noqa: B018 — imports every view
    for backend in settings.TEMPLATES:
        for directory in map(Path, backend.get("DIRS", [])):
            for path in sorted(directory.rglob("*.html")):
                get_template(str(path.relative_to(directory)))
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            translation.gettext("Home")


def settle() -> None:
    """Set the collector for a server process; called once its start-up is done."""
    gc.set_threshold(*threshold())
    if os.environ.get("GC_FREEZE", "1") != "0":
        warm_up()
        # Collected first, so that nothing frozen is garbage (frozen objects are never freed
        # by a collection, only by their reference counts).
        gc.collect()
        gc.freeze()
