"""Where a move's ``POST`` spends its CPU, phase by phase, in process: the moves of
``bench/bench_move_post.py`` (PostgreSQL; ``REDIS_URL`` puts the tokens and rate limits in Redis as
on the site) with a clock of the calling thread's CPU (``time.thread_time``, the kernel's time for
that thread included) around each phase: the whole request in its thread, the token and rate
limits, ``services.play``, its locked read and its write with the ``COMMIT`` (or, at a table whose
last move the process saved, the match made anew from that save and its write if unchanged), the
answer's JSON, and the event loop's own share of each call. Phases nest (the locked read is
inside ``services.play``), so they do not add up.

A sampling profiler attributes the wait for a reply, or for the GIL after it, to the line that
runs next (``py-spy record --gil`` gave ``copy.copy`` of the token's user 2.7% of a request's
samples, where it costs 6.6 µs): these clocks count only the thread's own CPU.

    DATABASE_URL=postgres://… REDIS_URL=redis://… .venv/bin/python bench/bench_move_phases.py
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import importlib
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: (module, attribute — a function or ``Class.method``, the phase's name), outermost first.
PHASES = (
    ("django.core.handlers.base", "BaseHandler.get_response", "the request, in its thread"),
    ("players.auth", "_token_user", "token and rate limits (one Redis trip)"),
    ("games.services", "play", "services.play"),
    ("games.rows", "match_with_seats", "  the locked read"),
    ("games.rows", "save_and_commit", "  the writes and COMMIT (one trip)"),
    ("games.rows", "kept_match", "  the last save of the table, made anew (no read)"),
    ("games.rows", "save_if_unchanged", "  the writes if unchanged (one statement)"),
    ("games.api", "table_json", "the answer's JSON"),
    ("games.published", "render_for_watchers", "the watchers' render (after the answer)"),
)


class PhaseClocks:
    """The CPU of the calling thread in each phase timed, and how often each ran."""

    def __init__(self, clock: Callable[[], float] = time.thread_time) -> None:
        self.clock = clock
        self.spent: Counter[str] = Counter()
        self.calls: Counter[str] = Counter()

    def add(self, label: str, seconds: float) -> None:
        self.spent[label] += seconds
        self.calls[label] += 1

    def timed(self, function: Callable, label: str) -> Callable:
        """``function`` with its thread's CPU added to ``label`` at each call, raising or not."""

        @functools.wraps(function)
        def timed(*args: Any, **kwargs: Any) -> Any:
            started = self.clock()
            try:
                return function(*args, **kwargs)
            finally:
                self.add(label, self.clock() - started)

        return timed

    @contextmanager
    def around(self, owner: Any, attribute: str, label: str) -> Iterator[None]:
        """``owner.attribute`` timed inside the block, and put back after it."""
        original = vars(owner)[attribute]
        setattr(owner, attribute, self.timed(original, label))
        try:
            yield
        finally:
            setattr(owner, attribute, original)

    def lines(self, moves: int, order: Sequence[str] = ()) -> list[str]:
        """One line per phase timed: ms per call, calls, ms per move; the phases of ``order``
        first, in its order, then the others by name."""
        rank = {label: position for position, label in enumerate(order)}
        labels = sorted(self.spent, key=lambda label: (rank.get(label, len(rank)), label))
        width = max((len(label) for label in labels), default=0)
        return [
            f"{label:<{width}}  {1000 * self.spent[label] / self.calls[label]:7.3f} ms a call  "
            f"x {self.calls[label]:5}  {1000 * self.spent[label] / moves:7.3f} ms a move"
            for label in labels
        ]


def owner_of(module: str, path: str) -> tuple[Any, str]:
    """The object that holds ``path``'s last name (a module or a class) and that name."""
    owner: Any = importlib.import_module(module)
    *classes, name = path.split(".")
    for attribute in classes:
        owner = getattr(owner, attribute)
    return owner, name


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        print("set DATABASE_URL to a PostgreSQL server")
        return 1
    from bench import bench_move_post
    from tests.live_server import migrated_scratch_postgres

    with migrated_scratch_postgres(url, (url.rsplit("/", 1)[-1] or "pdc") + "_phases"):
        clocks = PhaseClocks()
        with ExitStack() as stack:
            for module, path, label in PHASES:
                stack.enter_context(clocks.around(*owner_of(module, path), label))
            stack.enter_context(loop_share(clocks, bench_move_post.Caller))
            figures = asyncio.run(bench_move_post.play(args.moves, args.seed))
    print(
        f"{figures['moves']} moves, the process's CPU: {figures['per_move']:.3f} ms a move, "
        f"{figures['post']:.3f} ms a POST; load {os.getloadavg()[0]:.2f}"
    )
    order = [label for _module, _path, label in PHASES]
    print("\n".join(clocks.lines(figures["moves"], order)))
    return 0


@contextmanager
def loop_share(clocks: PhaseClocks, caller: type) -> Iterator[None]:
    """The event loop's own CPU in each call of ``bench_move_post``'s ``Caller``, by kind of
    call (the loop's thread runs the whole call but for what it hands to the request's thread)."""
    original = caller.call

    async def call(self: Any, kind: str, *args: Any, **kwargs: Any) -> Any:
        started = clocks.clock()
        try:
            return await original(self, kind, *args, **kwargs)
        finally:
            clocks.add(f"the event loop's share of a {kind}", clocks.clock() - started)

    caller.call = call
    try:
        yield
    finally:
        caller.call = original


if __name__ == "__main__":
    sys.exit(main())
