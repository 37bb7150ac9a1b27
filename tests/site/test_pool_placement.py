"""Issue 13: the thinking pool's processes keep to the cores ``BOT_POOL_CPUS`` names and run at
the priority ``BOT_POOL_NICE`` gives (a ``nice``, or Linux's idle class), so that an operator can
put the searches where they do not slow the live tables; a setting the worker cannot follow
stops it, saying why."""

from __future__ import annotations

import os
import subprocess

import pytest
from django.core.management import call_command

from games import thinking, worker

from .test_collector import what_a_server_process_reports
from .test_thinking_pool import THOUGHT_WAIT, table_of_thinking_bots

pytestmark = pytest.mark.django_db

ALLOWED = sorted(os.sched_getaffinity(0))


@pytest.fixture
def pool_with(settings):
    """The worker's pool of one process with ``nice`` and ``cpus``, after it thought once (a
    process applies its settings as it starts, before its first thought)."""

    def start(nice: int | str, cpus: str) -> int:
        thinking.close_worker_pool()
        settings.BOT_POOL_SIZE = 1
        settings.BOT_POOL_NICE = nice
        settings.BOT_POOL_CPUS = cpus
        table_of_thinking_bots()
        pool = thinking.worker_pool()
        worker.play_thinking_turns()
        assert pool.finished(wait=THOUGHT_WAIT)
        (pid,) = pool.processes()
        return pid

    yield start
    thinking.close_worker_pool()


def test_the_pool_keeps_to_bot_pool_cpus_in_the_idle_class(pool_with):
    last = ALLOWED[-1]
    pid = pool_with("idle", str(last))
    assert os.sched_getaffinity(pid) == {last}
    assert os.sched_getscheduler(pid) == os.SCHED_IDLE


def test_by_default_the_pool_runs_niced_on_every_core(pool_with):
    pid = pool_with(7, "")
    assert os.sched_getaffinity(pid) == set(ALLOWED)
    assert os.sched_getscheduler(pid) == os.SCHED_OTHER
    assert os.getpriority(os.PRIO_PROCESS, pid) == os.getpriority(os.PRIO_PROCESS, 0) + 7


@pytest.mark.parametrize("cpus", ["99", "0-x"])
def test_a_list_of_cores_the_pool_cannot_keep_to_stops_the_worker(settings, cpus):
    settings.BOT_POOL_CPUS = cpus
    with pytest.raises(SystemExit, match="BOT_POOL_CPUS"):
        call_command("worker", "--once")


def nice_read_in_a_process(value: str) -> int | str:
    """``BOT_POOL_NICE`` as a fresh process of the site reads it from ``value``."""
    return what_a_server_process_reports(
        "settings.BOT_POOL_NICE",
        unset=("BOT_POOL_NICE",),
        env={"BOT_POOL_NICE": value},
        imports="from django.conf import settings",
    )


@pytest.mark.parametrize(("value", "read"), [("idle", "idle"), (" 5 ", 5), ("19", 19)])
def test_bot_pool_nice_is_a_nice_or_idle(value, read):
    assert nice_read_in_a_process(value) == read


@pytest.mark.parametrize("value", ["loud", "-1", "20"])
def test_any_other_bot_pool_nice_is_refused(value):
    with pytest.raises(subprocess.CalledProcessError) as refused:
        nice_read_in_a_process(value)
    assert "BOT_POOL_NICE must be 0 to 19 or idle" in refused.value.stderr
