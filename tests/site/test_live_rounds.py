"""``bench/live.py --rounds``: the floor and the site measured in turns within one run, each
round's p99 ratio, their median, and the ratio of all the rounds' moves together."""

from __future__ import annotations

import pytest

from bench.live import Phase, Tally, is_floor, parse_args, pooled, round_lines, rounds_order


def tally(usual: float, slowest: float, moves: int = 101) -> Tally:
    """``moves`` moves: all at ``usual`` seconds but the two slowest, at ``slowest``. Of 101,
    the p99 (the nearest rank, index 99 of 0-100) is one of the two."""
    latencies = [usual] * (moves - 2) + [slowest] * 2
    return Tally(latencies=latencies, moves=moves)


def test_the_floor_and_the_site_take_turns_so_that_neither_always_runs_first():
    assert rounds_order(3) == ["floor", "site", "site", "floor", "floor", "site"]


def test_each_round_gives_its_ratio_then_the_median_and_all_rounds_together():
    # Floor p99 10, 20, 10 ms; site p99 20, 30, 25 ms: ratios 2.00, 1.50, 2.50, median 2.00.
    rounds = [
        (tally(0.001, 0.010), tally(0.005, 0.020)),
        (tally(0.001, 0.020), tally(0.005, 0.030)),
        (tally(0.001, 0.010), tally(0.005, 0.025)),
    ]
    lines = round_lines(rounds)
    assert " ".join(lines[1].split()) == "1 1.0 ms / 10.0 ms 5.0 ms / 20.0 ms 2.00"
    assert lines[2].split()[-1] == "1.50" and lines[3].split()[-1] == "2.50"
    assert lines[-2] == "site / floor p99, median of 3 rounds: 2.00 (each round: 2.00, 1.50, 2.50)"
    # Together, 303 moves a side: p99 is index round(0.99 * 302) = 299 of the sorted ones. The
    # floor's: 297 at 1 ms, four at 10, two at 20 (indices 297-300 at 10 ms): 10 ms. The site's:
    # 297 at 5 ms, two each at 20, 25 and 30 (299-300 at 25 ms): 25 ms.
    assert lines[-1] == "all rounds together: floor p99 10.0 ms, site p99 25.0 ms: 2.50"


def test_the_pooled_phase_holds_every_rounds_moves_errors_and_time():
    first, second = tally(0.001, 0.010), tally(0.002, 0.030, moves=51)
    first.errors.update({500: 1})
    second.missing = 2
    phases = [
        Phase("site, round 1", first, 60.0, {"daphne 1": 5.0}, ["a problem"]),
        Phase("site, round 2", second, 61.0, {"daphne 1": 6.0, "redis": 1.0}, []),
    ]
    both = pooled("site", phases)
    assert both.name == "site" and both.tally.moves == 152
    assert sorted(both.tally.latencies) == sorted(first.latencies + second.latencies)
    assert both.tally.errors == {500: 1} and both.tally.missing == 2
    assert both.seconds == 121.0 and both.cpu == {"daphne 1": 11.0, "redis": 1.0}
    # Each round's problems stay with the round (the run's verdict counts them once).
    assert both.problems == []


def test_a_rounds_floor_is_a_floor():
    assert is_floor("floor") and is_floor("floor+commit") and is_floor("floor, round 2")
    assert not is_floor("site") and not is_floor("site, round 1")


@pytest.mark.parametrize(
    "extra",
    [
        ["--mode", "saturation"],
        ["--no-floor"],
        ["--level3-tables", "1"],
        ["--idle", "100"],
    ],
)
def test_the_rounds_need_the_latency_mode_and_the_floor_and_nothing_beside(extra):
    with pytest.raises(SystemExit):
        parse_args(["--rounds", "3", *extra])


def test_the_rounds_refuse_the_committed_floor_and_a_count_below_one(monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/any")
    parse_args(["--rounds", "3"])
    with pytest.raises(SystemExit):
        parse_args(["--rounds", "3", "--commit-floor"])
    with pytest.raises(SystemExit):
        parse_args(["--rounds", "0"])
    assert parse_args([]).rounds == 1
