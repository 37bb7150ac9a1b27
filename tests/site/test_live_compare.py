"""``bench/live.py --compare-processes``: one daphne and two measured in turns within one run, each
round's ratio beside what the cores allowed it, and their median."""

from __future__ import annotations

import pytest

from bench.live import (
    PROXY,
    STAGGER_MOVES,
    UNALIKE,
    Phase,
    Slice,
    Tally,
    carried_at_most,
    comparison_lines,
    comparison_order,
    d_and_x,
    parse_args,
    slice_of,
    stagger,
    stagger_moves,
    verdict,
)


def test_the_slices_take_turns_so_that_neither_side_always_runs_first():
    assert comparison_order(3) == [1, 2, 2, 1, 1, 2]


def test_two_cores_at_ten_ms_a_move_carry_two_hundred_moves_a_second():
    assert carried_at_most(2, 0.008, 0.002) == pytest.approx(200.0)


def test_each_round_gives_its_ratio_and_what_the_cores_allowed_then_the_median():
    # Round 1: 100 → 160 moves/s (1.60); at 8 + 2 ms a move two cores allow 200, 2.00× of 100.
    # Round 2: 110 → 154 (1.40); round 3: 120 → 180 (1.50). The median is round 3's 1.50.
    # All together: (1,000 + 1,100 + 1,200) moves in 30 s against (1,600 + 1,540 + 1,800) in
    # 30 s: 110.0 and 164.7 moves/s, 1.50.
    pairs = [
        (Slice(1000, 10.0, 0.008, 0.003, 1.3), Slice(1600, 10.0, 0.008, 0.002, 2.0)),
        (Slice(1100, 10.0, 0.008, 0.003, 1.3), Slice(1540, 10.0, 0.009, 0.002, 2.0)),
        (Slice(1200, 10.0, 0.008, 0.003, 1.3), Slice(1800, 10.0, 0.009, 0.002, 2.0)),
    ]
    lines = comparison_lines(pairs, cores=2)
    first = lines[1].split()
    assert first[0] == "1" and first[-2:] == ["1.60", "2.00"]
    assert "100.0 (8.00, 3.00 ms; 130%)" in lines[1]
    assert "160.0 (8.00, 2.00 ms; 200%)" in lines[1]
    assert lines[2].split()[-2:] == ["1.40", "1.65"]  # 2 / 11 ms = 181.8 moves/s, over 110
    assert (
        lines[-3] == "two processes / one, median of 3 rounds: 1.50 (each round: 1.60, 1.40, 1.50)"
    )
    assert lines[-2] == "all rounds together: 110.0 moves/s on one process, 164.7 on two: 1.50"
    assert lines[-1] == "matches ended: none on one process, none on two"


def test_each_side_says_how_often_its_matches_ended():
    # One process: 1,000 + 1,200 moves and 40 + 40 ends, one per 27.5 moves; two processes:
    # 1,600 + 1,540 moves and 40 + 60 ends, one per 31.4 moves.
    pairs = [
        (Slice(1000, 10.0, 0.008, 0.003, 1.3, 40), Slice(1600, 10.0, 0.008, 0.002, 2.0, 40)),
        (Slice(1200, 10.0, 0.008, 0.003, 1.3, 40), Slice(1540, 10.0, 0.009, 0.002, 2.0, 60)),
    ]
    lines = comparison_lines(pairs, cores=2)
    assert lines[-1] == (
        "matches ended: one per 27.5 moves on one process, one per 31.4 moves on two"
    )


def test_sides_that_ended_their_matches_at_rates_far_apart_are_called_biased():
    # One process: 1,100 moves, 50 ends (1 per 22.0); two: 1,800 moves, 50 ends (1 per 36.0):
    # rates 0.0455 and 0.0278, 39% apart. Then two: 1,800 moves, 76 ends (1 per 23.7): 7% apart.
    one = [Slice(1100, 10.0, 0.008, 0.003, 1.3, 50)]
    far = comparison_lines([(one[0], Slice(1800, 10.0, 0.008, 0.002, 2.0, 50))], cores=2)
    assert far[-1].endswith("one per 36.0 moves on two" + UNALIKE)
    near = comparison_lines([(one[0], Slice(1800, 10.0, 0.008, 0.002, 2.0, 76))], cores=2)
    assert near[-1].endswith("one per 23.7 moves on two")


def test_a_slice_the_machine_slowed_weighs_on_the_pooled_ratio_by_its_moves_only():
    # One process: 1,000 moves in 10 s, then 500 in 10 s (a slow slice); two: 1,600 and 1,600.
    # Rounds 1.60 and 3.20; all together 75.0 against 160.0 moves/s, 2.13.
    pairs = [
        (Slice(1000, 10.0, 0.008, 0.003, 1.3), Slice(1600, 10.0, 0.008, 0.002, 2.0)),
        (Slice(500, 10.0, 0.016, 0.003, 1.3), Slice(1600, 10.0, 0.008, 0.002, 2.0)),
    ]
    lines = comparison_lines(pairs, cores=2)
    assert "(each round: 1.60, 3.20)" in lines[-3]
    assert lines[-2].endswith("75.0 moves/s on one process, 160.0 on two: 2.13")


@pytest.mark.parametrize(
    "extra",
    [
        ["--processes", "1"],
        ["--processes", "2", "--mode", "latency"],
        ["--processes", "2", "--proxy"],
        ["--processes", "2", "--level3-tables", "1"],
        ["--processes", "2", "--idle", "100"],
    ],
)
def test_the_comparison_needs_two_daphnes_at_saturation_and_nothing_beside(extra):
    argv = ["--compare-processes", "3", "--mode", "saturation", *extra]
    with pytest.raises(SystemExit):
        parse_args(argv)


def test_the_comparison_measures_no_floor():
    args = parse_args(["--compare-processes", "2", "--mode", "saturation", "--processes", "2"])
    assert args.no_floor and args.compare_processes == 2


class SiteLog:
    def log_text(self) -> str:
        return "HTTP POST /api/tables/1/moves 200\n"


def slice_phase(name: str, missing: int = 0, errors: dict | None = None) -> Phase:
    tally = Tally(moves=100, missing=missing)
    tally.errors.update(errors or {})
    return Phase(name, tally, 10.0, {}, [])


def test_a_run_whose_slices_carried_every_move_and_push_exits_zero(capsys):
    phases = [slice_phase("site, 1 process"), slice_phase("site, 2 processes")]
    assert verdict(phases, SiteLog()) == 0
    assert "FAILED" not in capsys.readouterr().out


def test_one_slice_with_a_missing_push_or_an_error_fails_the_whole_run(capsys):
    phases = [slice_phase("site, 1 process"), slice_phase("site, 2 processes", missing=1)]
    assert verdict(phases, SiteLog()) == 1
    out = capsys.readouterr().out
    assert "site, 2 processes: errors 0, missing pushes 1" in out and "FAILED" in out
    phases = [slice_phase("site, 1 process", errors={500: 2}), slice_phase("site, 2 processes")]
    assert verdict(phases, SiteLog()) == 1
    assert "site, 1 process: errors 2×500, missing pushes 0" in capsys.readouterr().out


def test_the_comparison_refuses_the_committed_floor_it_would_not_measure(monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/any")
    argv = ["--compare-processes", "2", "--mode", "saturation", "--processes", "2"]
    parse_args(argv)
    with pytest.raises(SystemExit):
        parse_args([*argv, "--commit-floor"])


class Parts:
    def __init__(self, parts: dict[str, float]) -> None:
        self.parts = parts


def test_d_is_the_daphnes_and_x_the_rest_of_the_run_per_move_not_what_lies_outside_it():
    # 100 moves. D: daphnes 0.5 + 0.3 s → 8 ms. X: the site's backends 0.1, Redis 0.03, the load
    # generator 0.05, nginx 0.02 s → 2 ms. Other programs, an idle floor: neither.
    phase = slice_phase("site")
    phase.meter = Parts(
        {
            "daphne 1": 0.5,
            "daphne 2": 0.3,
            "postgres: the site's backends": 0.1,
            "redis": 0.03,
            "load generator": 0.05,
            PROXY: 0.02,
            "other programs": 4.0,
            "floor 1 (idle)": 1.0,
        }
    )
    d, x = d_and_x(phase)
    assert (d, x) == (pytest.approx(0.008), pytest.approx(0.002))
    phase.tally.moves = 0
    assert d_and_x(phase) == (0.0, 0.0)


def test_a_slice_keeps_its_phase_s_moves_time_cpu_and_matches_ended():
    # 100 moves in 10 s; daphnes 0.8 s and the site's backends 0.2 s → D 8 ms, X 2 ms; the
    # machine busy 15 s of its 10 s × cores → 150%; 4 matches ended and opened again.
    phase = slice_phase("site, 2 processes")
    phase.tally.reopened = 4
    phase.meter = Parts({"daphne 1": 0.8, "postgres: the site's backends": 0.2})
    phase.meter.machine = {"busy": 15.0}
    assert slice_of(phase) == Slice(100, 10.0, pytest.approx(0.008), pytest.approx(0.002), 1.5, 4)


def test_a_saturation_phase_finds_its_tables_at_every_point_of_their_matches():
    # Each table first plays between 0 and 21 moves (a match lasts 22-24), the same for the same
    # seed and table, and 2,200 tables take every count in that range.
    counts = [stagger_moves(1, index) for index in range(2200)]
    assert counts == [stagger_moves(1, index) for index in range(2200)]
    assert set(counts) == set(range(STAGGER_MOVES)) and STAGGER_MOVES == 22
    assert counts != [stagger_moves(2, index) for index in range(2200)]


class StaggeredTable:
    """A table whose match ends at its ``ends_at``-th move; the move ``fails_at`` answers 500."""

    def __init__(self, ends_at: int = 99, fails_at: int = -1) -> None:
        self.ends_at, self.fails_at = ends_at, fails_at
        self.played = 0
        self.reopened = 0

    async def play(self, http, rng, tally: Tally) -> bool:
        self.played += 1
        if self.played == self.fails_at:
            tally.errors[500] += 1
        return self.played != self.ends_at


def test_staggering_plays_each_table_s_moves_opens_ended_matches_again_and_reports_errors():
    import asyncio

    tables = [StaggeredTable() for _ in range(6)]
    tables[1].ends_at = 2
    tables[2].fails_at = 1

    async def reopen(table, index):
        table.reopened += 1

    wanted = [stagger_moves(5, index) for index in range(6)]
    assert wanted[1] >= 2 and wanted[2] >= 1  # the seed's counts reach the end and the error
    problems = asyncio.run(stagger(tables, None, 5, reopen))
    assert [table.played for table in tables] == wanted
    assert [table.reopened for table in tables] == [0, 1, 0, 0, 0, 0]
    assert problems == ["staggering the tables: 1 × 500"]
