"""How ``bench/live.py`` shares out the machine's CPU between two snapshots of every process: each
second of the busy time lands in exactly one row (this run's components, what is outside it, or the
unattributed rest), and a process that exited adds only what it spent during the phase."""

from __future__ import annotations

import os

import pytest

from bench.live import ProcessTimes, account, machine_times, parse_stat, phase_components


def times(comm: str, ppid: int, own: float, reaped: float = 0.0) -> ProcessTimes:
    return ProcessTimes(comm, ppid, own, reaped)


def test_a_stat_line_gives_the_start_the_parent_and_the_times():
    # The name may hold spaces and parentheses; fields are counted from the last ")".
    text = "4242 (python (x) y) S 7 4242 4242 0 -1 0 0 0 0 0 250 50 30 20 20 0 3 0 123456 0 0"
    started, found = parse_stat(text)
    ticks = os.sysconf("SC_CLK_TCK")
    assert started == 123456
    assert found == ProcessTimes("python (x) y", 7, 300 / ticks, 50 / ticks)


def test_the_machines_busy_time_leaves_out_idle_and_stolen():
    ticks = os.sysconf("SC_CLK_TCK")
    found = machine_times("cpu  100 5 40 900 7 3 2 11 0 0\ncpu0 1 2 3\n")
    assert found == pytest.approx(
        {"busy": 150 / ticks, "interrupts": 5 / ticks, "steal": 11 / ticks}
    )


def test_every_second_lands_in_one_row():
    postmaster, daphne, worker, generator = 100, 200, 300, 400
    before = {
        (postmaster, 1): times("postgres", 1, 1.0, reaped=5.0),
        (101, 2): times("postgres", postmaster, 2.0),  # the site's backend
        (102, 2): times("postgres", postmaster, 3.0),  # another database's
        (103, 2): times("postgres", postmaster, 4.0),  # the checkpointer
        (104, 2): times("postgres", postmaster, 0.5),  # the monitor's backend
        (105, 2): times("postgres", postmaster, 0.7),  # closes during the phase
        (daphne, 3): times("python", generator, 10.0),
        (worker, 3): times("python", generator, 1.0),
        (generator, 0): times("python", 50, 6.0),
        (generator, -401): times("python", 50, 0.2),  # the monitor's thread
        (60, 4): times("kworker/0:1", 2, 0.1),
        (70, 4): times("bash", 1, 0.0, reaped=1.0),
        (71, 5): times("pytest", 70, 8.0),  # someone else's, ends during the phase
    }
    after = {
        (postmaster, 1): times("postgres", 1, 1.1, reaped=5.0 + 0.7 + 0.3),
        (101, 2): times("postgres", postmaster, 3.5),
        (102, 2): times("postgres", postmaster, 3.4),
        (103, 2): times("postgres", postmaster, 4.2),
        (104, 2): times("postgres", postmaster, 0.6),
        (daphne, 3): times("python", generator, 17.0),
        (worker, 3): times("python", generator, 1.2, reaped=0.25),
        (301, 6): times("python", worker, 0.05),  # its pool, started during the phase
        (generator, 0): times("python", 50, 7.0),
        (generator, -401): times("python", 50, 0.25),
        (60, 4): times("kworker/0:1", 2, 0.3),
        (70, 4): times("bash", 1, 0.0, reaped=1.0 + 8.0 + 2.5),
    }
    backends = {
        101: ("pdc_site_live", "client backend"),
        102: ("other", "client backend"),
        103: (None, "checkpointer"),
        104: ("pdc_site_live", "client backend"),
    }
    roots = {
        "daphne 1": [daphne],
        "worker": [worker],
        "postgres": [postmaster],
        "redis": [],
        "load generator": [generator],
    }
    parts, others = account(
        before, after, roots, backends, "pdc_site_live", (generator, 401, 104), busy=16.0
    )
    assert parts["daphne 1"] == pytest.approx(7.0)
    assert parts["worker"] == pytest.approx(0.2 + 0.25 + 0.05)
    assert parts["postgres: the site's backends"] == pytest.approx(1.5)
    assert parts["postgres: other databases"] == pytest.approx(0.4)
    assert parts["postgres: background"] == pytest.approx(0.1 + 0.2)
    # Reaped during the phase: the closed backend's whole life (0.7 + 0.3), less what it had
    # spent before (0.7).
    assert parts["postgres: closed backends (any database)"] == pytest.approx(0.3)
    assert parts["the bench's monitor"] == pytest.approx(0.1 + 0.05)
    assert parts["load generator"] == pytest.approx(1.0 - 0.05)
    assert parts["kernel threads"] == pytest.approx(0.2)
    assert parts["other programs"] == pytest.approx(2.5)  # pytest's last 2.5 s, not its life
    assert others == {"bash": pytest.approx(2.5)}
    assert sum(parts.values()) == pytest.approx(16.0)
    assert parts["unattributed"] == pytest.approx(16.0 - 13.8)


def test_the_other_phases_servers_are_named_idle_not_counted_as_the_load_generator():
    # Every server the load generator started is its child: a server left unnamed in a phase's
    # meter would land in the load generator's row (the floor's daphne during the site's phase).
    site, floor = phase_components([201, 202], 300, [501, 502])
    assert site["floor 1 (idle)"] == [501] and site["floor 2 (idle)"] == [502]
    assert floor["site's daphne 1 (idle)"] == [201] and floor["site's daphne 2 (idle)"] == [202]
    assert floor["site's worker (idle)"] == [300]
    for components in (site, floor):
        assert components["load generator"] == [os.getpid()]
        named = {pid for pids in components.values() for pid in pids}
        assert {201, 202, 300, 501, 502} <= named


def test_each_phases_proxy_is_part_of_its_run_and_idle_in_the_other():
    site, floor = phase_components([201, 202], 300, [501, 502], (601, 701))
    assert site["proxy (nginx)"] == [601] and floor["proxy (nginx)"] == [701]
    assert site["floor's proxy (nginx) (idle)"] == [701]
    assert floor["site's proxy (nginx) (idle)"] == [601]
    without, _ = phase_components([201], 300, [], (None, None))
    assert not any("nginx" in name for name in without)
