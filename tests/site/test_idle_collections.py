"""Python's collections run when the event loop is idle (``pdc_site.collector.IdleCollector``):
never while an HTTP request is in flight nor while the loop is behind, the oldest generation due
first, and the automatic collection kept as the backstop of a process that is never idle."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator

import pytest

from pdc_site import collector
from pdc_site.collector import IdleCollector
from pdc_site.request_threads import RequestThreads

from .test_collector import GC_SETTINGS, what_a_server_process_reports

#: A count no test reaches.
NEVER = 10**9


@pytest.fixture
def no_automatic_collection() -> Iterator[None]:
    """The collector's counts move only as the test makes them."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def allocate(count: int) -> list[list[int]]:
    """``count`` new containers: the young generation's count grows by as many."""
    return [[i] for i in range(count)]


def test_the_oldest_generation_due_is_collected(no_automatic_collection: None):
    gc.collect()
    kept = allocate(100)
    young = IdleCollector(lambda: False, (50, NEVER, NEVER))
    assert young.collect_if_due() == 0
    assert gc.get_count()[0] < 50
    # That young collection counts towards the middle generation's schedule.
    middle = IdleCollector(lambda: False, (1, 1, NEVER))
    assert middle.collect_if_due() == 1
    full = IdleCollector(lambda: False, (1, 1, 1))
    assert full.collect_if_due() == 2
    assert full.runs == [0, 0, 1]
    assert IdleCollector(lambda: False, (NEVER, NEVER, NEVER)).collect_if_due() is None
    del kept


@pytest.fixture
def nothing_frozen_after() -> Iterator[None]:
    """What a test froze is given back to the collector's generations once it ended."""
    yield
    gc.unfreeze()


class Node:
    """A container that a cycle can be made of (and that a weak reference can watch)."""

    def __init__(self) -> None:
        self.other: Node | None = None


def tracked_in_the_generations(thing: object) -> bool:
    """Whether a young, middle or full collection would walk ``thing`` (frozen ones it would
    not)."""
    return any(thing is other for other in gc.get_objects())


def test_what_survives_an_idle_collection_is_frozen(
    no_automatic_collection: None, nothing_frozen_after: None
):
    kept = allocate(100)
    survivor = Node()
    freezing = IdleCollector(lambda: False, (1, NEVER, NEVER), freezing=True)
    assert freezing.collect_if_due() == 0
    assert not tracked_in_the_generations(kept)
    assert not tracked_in_the_generations(survivor)
    # Frozen, it is still freed by its reference count.
    watched = weakref.ref(survivor)
    del survivor
    assert watched() is None
    del kept


def test_without_freezing_the_survivors_stay_in_sight(
    no_automatic_collection: None, nothing_frozen_after: None
):
    kept = allocate(100)
    assert IdleCollector(lambda: False, (1, NEVER, NEVER)).collect_if_due() == 0
    assert tracked_in_the_generations(kept)
    del kept


def test_frozen_cyclic_garbage_is_given_back_at_the_next_full_collection(
    no_automatic_collection: None, nothing_frozen_after: None
):
    gc.collect()
    first, second = Node(), Node()
    first.other, second.other = second, first
    watched = weakref.ref(first)
    freezing = IdleCollector(lambda: False, (1, 1, 1), freezing=True)
    assert freezing.collect_if_due() == 0  # the cycle, alive, is frozen
    del first, second
    # The freeze zeroed the collector's counts: the middle collection is due all the same.
    assert freezing.collect_if_due() == 1
    assert watched() is not None  # garbage now, but frozen: no middle collection walks it
    assert freezing.collect_if_due() == 2
    assert watched() is None
    assert freezing.runs == [1, 1, 1]
    assert gc.get_freeze_count() > 0  # what is still alive is frozen again


def looks(collector_: IdleCollector, *, late: float) -> list[int]:
    """The collector's runs after one look that ran ``late`` seconds after it was due."""

    async def one_look() -> list[int]:
        loop = asyncio.get_running_loop()
        collector_.loop = loop
        collector_.due = loop.time() - late
        collector_.look()
        return list(collector_.runs)

    return asyncio.run(one_look())


def test_a_collection_due_waits_while_a_request_is_in_flight(no_automatic_collection: None):
    kept = allocate(100)
    busy = IdleCollector(lambda: True, (1, NEVER, NEVER))
    assert looks(busy, late=0.0) == [0, 0, 0]
    idle = IdleCollector(lambda: False, (1, NEVER, NEVER))
    assert looks(idle, late=0.0) == [1, 0, 0]
    del kept


def test_a_collection_due_waits_while_the_loop_is_behind(no_automatic_collection: None):
    kept = allocate(100)
    behind = IdleCollector(lambda: False, (1, NEVER, NEVER))
    assert looks(behind, late=collector.IDLE_LATE_SECONDS * 10) == [0, 0, 0]
    assert looks(behind, late=0.0) == [1, 0, 0]
    assert behind.looks == {"idle": 1, "busy": 0, "behind": 1}
    del kept


@pytest.mark.asyncio
async def test_a_request_in_flight_keeps_the_collection_until_it_ended(
    monkeypatch: pytest.MonkeyPatch, no_automatic_collection: None
):
    # A look at every turn of the loop, and never "behind" on a loaded test machine: this test
    # is about the requests.
    monkeypatch.setattr(collector, "IDLE_TICK_SECONDS", 0.0)
    monkeypatch.setattr(collector, "IDLE_LATE_SECONDS", 60.0)
    release = asyncio.Event()
    inside = asyncio.Event()

    async def app(scope, receive, send) -> None:
        inside.set()
        await release.wait()

    threads = RequestThreads(app)
    monkeypatch.setattr(collector, "idle_collector", None)
    assert collector.when_idle(threads) is threads  # no idle collector made: nothing to start
    idle = IdleCollector(threads.busy, (1, NEVER, NEVER))
    monkeypatch.setattr(collector, "idle_collector", idle)
    served = asyncio.ensure_future(collector.when_idle(threads)({"type": "http"}, None, None))
    try:
        await inside.wait()
        kept = allocate(100)
        for _ in range(20):
            await asyncio.sleep(0)
        assert idle.runs == [0, 0, 0]
        release.set()
        await served
        for _ in range(20):
            await asyncio.sleep(0)
        assert idle.runs[0] >= 1
        del kept
    finally:
        release.set()
        idle.stop()


#: A model of a process at 300 tables between two moves: a move replaces what the process keeps
#: of its table (the last read, each socket's next ``receive``) and adds a tenth of that for good,
#: about what a probe of the site's daphne found (young generations of 20,000-55,000 objects at
#: young counts of about 5,000).
REPLACED_A_MOVE = 100
ADDED_A_MOVE = 10


def test_an_idle_young_collection_walks_little_where_moves_replace_what_is_kept(
    no_automatic_collection: None, nothing_frozen_after: None
):
    def state(objects: int) -> list[Node]:
        return [Node() for _ in range(objects)]

    gc.collect()
    # More tables than moves between two collections: every state replaced was frozen.
    tables = [state(REPLACED_A_MOVE) for _ in range(300)]
    added: list[list[Node]] = []
    gc.freeze()
    idle = IdleCollector(lambda: False, collector.DEFAULT_IDLE_THRESHOLD, freezing=True)
    walked = []
    for move in range(2_000):
        # The old state dies frozen (the young count goes down) as its replacement is born young.
        tables[move % len(tables)] = state(REPLACED_A_MOVE)
        added.append(state(ADDED_A_MOVE))
        if idle.generation_due() is not None:
            walked.append(len(gc.get_objects(0)))
            idle.collect_if_due()
    # The count grows by at least the 10 nodes added a move (the replaced ones cancel out), so a
    # young collection comes within 500 / 10 = 50 moves, each of which left 100 + 10 young nodes
    # and their two lists. At a young count of 5,000 it would walk ten times as many.
    assert max(walked) <= 50 * (REPLACED_A_MOVE + ADDED_A_MOVE + 2)
    assert len(walked) >= 2_000 // 50


def test_the_automatic_collection_becomes_the_backstop():
    # Middle collections every 5,000 * 20 = 100,000 allocations either way, full ones every 100.
    assert collector.backstop((10_000, 10, 100), (5_000, 20, 100)) == (10_000, 10, 100)
    assert collector.backstop((700, 10, 10), (5_000, 20, 100)) == (10_000, 10, 100)
    assert collector.backstop((10_000, 10, 100), (500, 200, 100)) == (10_000, 10, 100)
    assert collector.backstop((700, 10, 10), (500, 200, 100)) == (1_000, 100, 100)


def collector_of_a_server_process(**env: str) -> dict:
    """The collector's settings in a fresh process that loaded the site's ASGI application."""
    return what_a_server_process_reports(
        "{'threshold': gc.get_threshold(),"
        " 'idle': c.idle_collector.schedule if c.idle_collector else None,"
        " 'freezing': c.idle_collector.freezing if c.idle_collector else None}",
        unset=GC_SETTINGS,
        env={"GC_FREEZE": "0", **env},
    )


def test_a_server_process_collects_when_idle_with_the_automatic_collection_as_backstop():
    settings = collector_of_a_server_process()
    assert settings["idle"] == list(collector.DEFAULT_IDLE_THRESHOLD)
    assert settings["freezing"] is True
    expected = collector.backstop(collector.DEFAULT_THRESHOLD, collector.DEFAULT_IDLE_THRESHOLD)
    assert settings["threshold"] == list(expected)


def test_gc_when_idle_0_leaves_every_collection_to_python():
    settings = collector_of_a_server_process(GC_WHEN_IDLE="0")
    assert settings == {
        "threshold": list(collector.DEFAULT_THRESHOLD),
        "idle": None,
        "freezing": None,
    }


def test_gc_idle_freeze_0_keeps_the_survivors_in_sight():
    settings = collector_of_a_server_process(GC_IDLE_FREEZE="0")
    assert settings["freezing"] is False
    assert settings["idle"] == list(collector.DEFAULT_IDLE_THRESHOLD)
