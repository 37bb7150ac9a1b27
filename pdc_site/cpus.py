"""The cores a daphne process of the site runs on: ``SERVE_CPUS`` (``0``, ``1,3``, ``0-1``), read by
``python -m pdc_site.serve`` before daphne starts any thread, so that every thread of the process
(the event loop's, the requests') keeps to them. The worker reads its thinking pool's cores,
``BOT_POOL_CPUS``, with the same ``cores_named``.

Why: on these two-core machines two floating daphnes kept the cores busy only 171–177% of their
200% with moves queued in both; pinned one to a core, the same run kept them 199% busy and carried
a fifth more moves, and one process pinned did a tenth more with its core (README, "One core per
daphne"). The likely reason, not measured: a daphne hands the GIL between its event loop's thread
and its request threads many times a move, and a floating thread is often woken on the other
core. PostgreSQL, Redis and the worker are left to float.
"""

from __future__ import annotations

import os

ENV = "SERVE_CPUS"


def parse(text: str) -> set[int]:
    """The cores a list names: numbers and ranges, comma-separated (``0``, ``1,3``, ``0-2,5``)."""
    cores: set[int] = set()
    for part in text.split(","):
        first, dash, last = part.strip().partition("-")
        if not first.isdigit() or (dash and not last.isdigit()):
            raise ValueError(f"not a core or a range of cores: {part!r}")
        low = int(first)
        high = int(last) if dash else low
        if high < low:
            raise ValueError(f"a range that runs backwards: {part!r}")
        cores.update(range(low, high + 1))
    return cores


def cores_named(name: str, text: str) -> set[int] | None:
    """The cores ``text``, the value of the setting ``name``, lists; None when it lists none. A
    list that cannot be read, or that names a core this process may not use, stops the process
    (``SystemExit``, saying which setting and why) before it serves or thinks."""
    text = text.strip()
    if not text:
        return None
    try:
        cores = parse(text)
    except ValueError as error:
        raise SystemExit(f"{name} must list cores as 0, 1,3 or 0-1 ({error})") from None
    allowed = os.sched_getaffinity(0)
    if not cores <= allowed:
        refused = sorted(cores - allowed)
        shown = ", ".join(map(str, refused[:8])) + (", …" if len(refused) > 8 else "")
        raise SystemExit(
            f"{name} names cores this process may not use: {shown} "
            f"(it may use {', '.join(map(str, sorted(allowed)))})"
        )
    return cores


def pin_from_environment() -> set[int] | None:
    """Keep this process, and every thread it starts from now on, to the cores ``SERVE_CPUS``
    names; None when it names none (``cores_named`` stops the server on a bad list)."""
    cores = cores_named(ENV, os.environ.get(ENV, ""))
    if cores is not None:
        os.sched_setaffinity(0, cores)
    return cores
