"""Keeping processes on one core for the length of a run, then giving them their cores back.

``bench/live.py --services-core`` keeps PostgreSQL, Redis, the worker and the load generator on
the last core, the one the last daphne is pinned to, as an operator would pin those services
beside a daphne (systemd's ``CPUAffinity=``). On two cores shared by everything, a daphne whose
core is also PostgreSQL's and Redis's is switched out against its will at every query, and
every process, daphne and services alike, then spends more CPU on the same work (colder
caches): kept apart, the first daphne has a core to itself in both configurations.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

PROC = Path("/proc")


def threads_of(pid: int) -> list[int]:
    """The thread ids of ``pid`` (none when it has exited)."""
    try:
        return [int(entry.name) for entry in (PROC / str(pid) / "task").iterdir()]
    except OSError:
        return []


def with_descendants(pids: Iterable[int], parents: dict[int, int]) -> list[int]:
    """``pids`` and every process below them (a worker's pool of thinking processes), by
    ``parents``: each living process's parent (``bench.live.process_parents``)."""
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    found: list[int] = []
    waiting = list(pids)
    while waiting:
        pid = waiting.pop()
        if pid not in found:
            found.append(pid)
            waiting.extend(children.get(pid, []))
    return found


def pin(pids: Iterable[int], core: int, before: dict[int, set[int]]) -> None:
    """Every thread of ``pids`` kept on ``core``; ``before`` gets the cores each was allowed, by
    thread id, as it goes (so a failure part-way still knows what to give back). A process or
    thread that exits meanwhile is skipped; threads and processes started later by a pinned one
    start on its core (the kernel copies the affinity at ``clone``)."""
    for pid in pids:
        for thread in threads_of(pid):
            with contextlib.suppress(ProcessLookupError):
                allowed = os.sched_getaffinity(thread)
                os.sched_setaffinity(thread, {core})
                before[thread] = allowed


def give_back(before: dict[int, set[int]]) -> None:
    """Each thread ``pin`` kept back on the cores it was allowed before (gone ones skipped)."""
    for thread, allowed in before.items():
        with contextlib.suppress(ProcessLookupError):
            os.sched_setaffinity(thread, allowed)


@contextlib.contextmanager
def kept_on(core: int, processes: Callable[[], list[int]]) -> Iterator[dict[int, set[int]]]:
    """``pin`` the ``processes()`` for the length of the block, ``give_back`` however it ends. A
    thread that cannot be pinned (another user's, without the right) fails at once, the others
    given back. The threads ``processes()`` has at the end that were not pinned at the start
    (a backend the postmaster forked meanwhile, on its core) get the cores this process had."""
    ours = os.sched_getaffinity(0)
    before: dict[int, set[int]] = {}
    try:
        pin(processes(), core, before)
        yield before
    finally:
        give_back(before)
        born = {t: ours for pid in processes() for t in threads_of(pid) if t not in before}
        give_back(born)
