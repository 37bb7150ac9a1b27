"""Workers killed (SIGKILL) and restarted while an arena runs, on the real site in processes of
its own: no table, arena or point is duplicated or lost."""

from __future__ import annotations

import json
import os
import random
import signal
import time

from tests.live_server import LiveSite

PLAYERS, SEATS = 9, 3
#: Workers killed before the arena is told to end, and how long it then runs on (kills go on).
KILLS, LAST_SECONDS = 4, 3
#: The arena's end if the kills never come (the test then fails on the players' time-out).
LONGEST = 240
TWO_ROUNDS = PLAYERS // SEATS * 2


def driver(site: LiveSite, command: str, *args: object) -> dict:
    # The answer is the last line (the shell may say something first).
    output = site.manage("shell", "-c", _driver_code(command, *args))
    return json.loads(output.strip().splitlines()[-1])


def _driver_code(command: str, *args: object) -> str:
    arguments = ", ".join(repr(a) for a in (command, *args))
    return f"from tests.arena.live_driver import main; main({arguments})"


def booted(site: LiveSite, worker, players) -> bool:
    """Wait until ``worker`` says it started; False if the players finished first."""
    line = f"worker started (pid {worker.pid})"
    while line not in site.log_text():
        if players.poll() is not None:
            return False
        time.sleep(0.1)
    return True


def test_workers_killed_and_restarted_mid_arena_duplicate_and_lose_nothing(site):
    # The arena runs until the test has killed KILLS workers, then a few seconds more: the number
    # of kills does not depend on how fast the machine boots a worker.
    arena = driver(site, "setup", PLAYERS, SEATS, LONGEST)["id"]
    workers = [site.start_worker(), site.start_worker()]
    players = site.start("manage.py", "shell", "-c", _driver_code("play", arena, LONGEST + 45))
    rng = random.Random(3)
    kills = 0
    while players.poll() is None:
        victim = kills % len(workers)
        # Killed only once it has booted (on a loaded machine that can take longer than any fixed
        # delay), then a moment into its work: mid-job, where a kill can lose or double things.
        if not booted(site, workers[victim], players):
            break
        time.sleep(rng.uniform(0.5, 2.0))
        os.kill(workers[victim].pid, signal.SIGKILL)
        workers[victim].wait()
        workers[victim] = site.start_worker()
        kills += 1
        if kills == KILLS:
            driver(site, "end_in", arena, LAST_SECONDS, TWO_ROUNDS, LONGEST / 2)
    assert players.returncode == 0, site.log_text()[-3000:]

    report = driver(site, "report", arena)
    assert kills >= KILLS
    assert report["status"] == "finished", (report, site.log_text()[-3000:])
    assert report["problems"] == []
    assert report["tables"] >= TWO_ROUNDS
    assert report["unscored"] == 0
    assert report["results"] == report["finished_seats"]
    assert report["late_tables"] == 0
    assert report["overlaps"] == 0
    assert [place for place, _ in report["trophies"]] == [1, 2, 3]
    assert [name for _, name in report["trophies"]] == report["podium"]
    assert report["arenas_named_alike"] == 1
