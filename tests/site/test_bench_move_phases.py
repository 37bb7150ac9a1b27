"""``bench/bench_move_phases.py``: each phase's clock counts the calls and the CPU spent in them,
raising or not, nested phases each their own, and every phase is put back after the run."""

from __future__ import annotations

import importlib
import types

import pytest

from bench.bench_move_phases import PHASES, PhaseClocks, owner_of


class TickingClock:
    """A CPU clock that moves on by one second at every reading."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def a_module() -> types.ModuleType:
    module = types.ModuleType("scratch")

    def inner(x: int) -> int:
        if x < 0:
            raise ValueError(x)
        return x + 1

    def outer(x: int) -> int:
        return module.inner(x) * 2

    module.inner, module.outer = inner, outer
    return module


def test_a_phase_counts_its_calls_and_time_raising_or_not_and_is_put_back():
    module = a_module()
    original = module.inner
    clocks = PhaseClocks(TickingClock())
    with clocks.around(module, "inner", "inner"):
        assert module.inner(1) == 2
        with pytest.raises(ValueError):
            module.inner(-1)
    assert module.inner is original
    # Each call reads the clock twice, one second apart.
    assert clocks.calls["inner"] == 2 and clocks.spent["inner"] == 2.0


def test_nested_phases_each_count_their_own_time():
    module = a_module()
    clocks = PhaseClocks(TickingClock())
    with clocks.around(module, "outer", "outer"), clocks.around(module, "inner", "inner"):
        assert module.outer(2) == 6
    # outer's clock was read around inner's two readings: 3 seconds, inner's 1.
    assert clocks.spent == {"outer": 3.0, "inner": 1.0}


def test_the_lines_list_the_phases_in_the_order_given_then_the_rest():
    clocks = PhaseClocks(TickingClock())
    clocks.add("b", 0.002)
    clocks.add("z", 0.004)
    clocks.add("a", 0.006)
    clocks.add("a", 0.002)
    lines = clocks.lines(moves=2, order=["z", "a"])
    assert [line.split()[0] for line in lines] == ["z", "a", "b"]
    # a: 8 ms over 2 calls and 2 moves.
    assert "4.000 ms a call" in lines[1] and "x     2" in lines[1] and "4.000 ms a move" in lines[1]


def test_every_phase_names_a_function_of_the_site():
    for module, path, _label in PHASES:
        owner, name = owner_of(module, path)
        assert callable(vars(owner)[name]), (module, path)
        assert owner is importlib.import_module(module) or isinstance(owner, type)
