"""The live benchmark (issue 10): how long until every seat sees a move, against a floor.

It starts what it measures itself: daphne (one or more processes) and the worker, on PostgreSQL
and Redis when ``DATABASE_URL`` / ``REDIS_URL`` are set, on the embedded default otherwise; and, in
the same run, the floor (``bench/floor_asgi.py``: a bare Channels consumer that forwards a group
message to its sockets, served by daphne the same way). It creates players and 3-player La Part
du Chef tables, opens a socket for every seat, and offers moves through the JSON API.

- ``--mode latency``: one move per table every ``--period`` seconds. Latency is the time from
  sending a move's POST to the frame with the new version arriving on all three seat sockets.
- ``--mode saturation``: every table plays its next move as soon as all its seats saw the last
  one (a closed loop); the figure is moves per second.
- ``--idle N``: N more sockets that only watch, for the memory per socket.
- ``--commit-floor``: after the floor, the committed floor (PostgreSQL only): the same echo, whose
  ``POST`` first saves the move in one durable statement, what never losing an accepted move
  costs by itself; its ratios to the floor and the site's to it are printed too.
- ``--compare-processes ROUNDS`` (with ``--processes 2 --mode saturation``): saturation on the
  first daphne alone and on both, taking turns ``ROUNDS`` times in this run, ``--duration`` each;
  each round's ratio beside what the cores allowed it, the median ratio and the pooled one.
- ``--rounds ROUNDS`` (latency): the floor and the site taking turns ``ROUNDS`` times in this run,
  ``--duration`` each; each round's p99 ratio, their median, and the ratio of all the rounds'
  moves together. One round's floor p99 moved by half from run to run on the shared machine (a
  slow second holds 1.7 % of a minute's moves, enough to set its p99), so one ratio tells little.
- ``--level3-tables N``: the site phase runs twice, without and then with N more tables where
  three level-3 bots play (the worker's pool thinks for them; three sockets watch each), and it
  prints the measured tables' p50 and p99 in both (issue 13: a level-3 seat must not slow the
  other tables).

The load generator speaks HTTP and WebSocket through ``bench/wire.py``'s client, on asyncio
Protocols (``--client aiohttp``: through aiohttp, as it did until stop 23), the floor and the site
alike; it runs beside the site on the same cores, so its CPU per move is printed with the rest.

It checks correctness as it goes: versions only grow on every socket, every seat ends on the
table's final version, every accepted move is in the record once. It exits non-zero when one of
those checks fails (the CI smoke, ``--smoke``, relies on that), and prints the figures: p50, p95
and p99 of site and floor and their ratio, moves/s, errors, missing pushes, CPU seconds of every
component, database connections at peak, memory.

    .venv/bin/python bench/live.py --tables 300 --period 10 --duration 60
    .venv/bin/python bench/live.py --mode saturation --tables 30 --duration 30 --processes 2
    .venv/bin/python bench/live.py --mode saturation --tables 40 --duration 10 --processes 2 \
        --compare-processes 8
    .venv/bin/python bench/live.py --tables 300 --period 10 --duration 60 --rounds 3
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from dataclasses import fields as fields_of
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import placement  # noqa: E402
from bench.wire import Client, opened_client  # noqa: E402
from tests.live_server import LiveSite, free_port, wait_for_port  # noqa: E402

VERSION = re.compile(r'id="table-status"[^>]*data-version="(\d+)"')
#: The same mark in a frame's bytes (the wire client hands frames over undecoded).
VERSION_BYTES = re.compile(VERSION.pattern.encode())
GAME = "part-du-chef"
SEATS = 3
PUSH_TIMEOUT = 60.0
#: ``--look always``: the next mover GETs the table before each move, even when not needed.
LOOK_ALWAYS = False
#: ``--together``: a table's sockets on the process that takes its moves, not spread.
TOGETHER = False


# --- what the machine's processes spend ---------------------------------------------------------
TICK = os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def processes_named(name: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if (entry / "comm").read_text().strip() == name:
                    found.append(int(entry.name))
    return found


def root_processes(name: str) -> list[int]:
    """Processes called ``name`` whose parent is not (the postmaster, the redis server)."""
    pids = set(processes_named(name))
    roots = []
    for pid in pids:
        with contextlib.suppress(OSError):
            if _times(pid).ppid not in pids:
                roots.append(pid)
    return roots


@dataclass(frozen=True)
class ProcessTimes:
    """One process's CPU seconds so far, all its threads: its own, and its children's that exited
    and were waited for (a postmaster's backends that closed)."""

    comm: str
    ppid: int
    own: float
    reaped: float


def parse_stat(text: str) -> tuple[int, ProcessTimes]:
    """A ``/proc/<pid>/stat`` line: the process's start (in ticks since boot: with the pid, it
    names one process even when pids are reused) and its times."""
    comm = text[text.index("(") + 1 : text.rindex(")")]
    fields = text.rsplit(")", 1)[1].split()
    own = (int(fields[11]) + int(fields[12])) / TICK
    reaped = (int(fields[13]) + int(fields[14])) / TICK
    return int(fields[19]), ProcessTimes(comm, int(fields[1]), own, reaped)


def _times(pid: int) -> ProcessTimes:
    return parse_stat(Path(f"/proc/{pid}/stat").read_text())[1]


def cpu_seconds(pid: int) -> float:
    """CPU time of a process, all its threads (0 once it is gone)."""
    try:
        return _times(pid).own
    except OSError:
        return 0.0


def process_times(tasks_of: tuple[int, ...] = ()) -> dict[tuple[int, int], ProcessTimes]:
    """Every process on the machine, keyed by (pid, start); for a pid in ``tasks_of`` also each of
    its threads, keyed by (pid, -thread id) (the load generator's monitor thread)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                started, times = parse_stat((entry / "stat").read_text())
                found[(int(entry.name), started)] = times
    for pid in tasks_of:
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError, ValueError, IndexError):
                _started, times = parse_stat((task / "stat").read_text())
                found[(pid, -int(task.name))] = times
    return found


def process_parents() -> dict[int, int]:
    """Every living process's parent, by pid."""
    return {pid: times.ppid for (pid, _started), times in process_times().items()}


def machine_times(text: str | None = None) -> dict[str, float]:
    """The machine's CPU seconds so far from ``/proc/stat``'s ``cpu`` line, all cores: busy (user,
    nice, system, irq, softirq), of which in interrupts, and stolen by the hypervisor."""
    if text is None:
        text = Path("/proc/stat").read_text()
    line = text.split("\n", 1)[0].split()
    assert line[0] == "cpu"
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(v) / TICK for v in line[1:9])
    return {
        "busy": user + nice + system + irq + softirq,
        "interrupts": irq + softirq,
        "steal": steal,
    }


def postgres_backends(url: str | None) -> dict[int, tuple[str | None, str]]:
    """The PostgreSQL server's processes: pid → (database, backend type); {} without PostgreSQL."""
    if not url or not url.startswith("postgres"):
        return {}
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute("SELECT pid, datname, backend_type FROM pg_stat_activity").fetchall()
    return {pid: (database, kind) for pid, database, kind in rows}


#: Where the machine's CPU went, in the order printed; the first group is this run's.
RUN_PARTS = (
    "daphne",
    "worker",
    "postgres: the site's backends",
    "postgres: background",
    "redis",
    "load generator",
    "the bench's monitor",
)
#: The component of nginx in front of the daphnes (``--proxy``), its workers with it.
PROXY = "proxy (nginx)"
#: The mark of a server of the other phase (the floor's during the site's, and the other way):
#: idle, it is outside the phase's run.
IDLE = "(idle)"
OUTSIDE_PARTS = (
    "postgres: closed backends (any database)",
    "postgres: other databases",
    "kernel threads",
    "other programs",
    "unattributed",
)


def account(
    before: dict[tuple[int, int], ProcessTimes],
    after: dict[tuple[int, int], ProcessTimes],
    roots: dict[str, list[int]],
    backends: dict[int, tuple[str | None, str]],
    site_database: str | None,
    monitor: tuple[int, int, int] | None,
    busy: float,
) -> tuple[dict[str, float], Counter]:
    """The machine's busy CPU seconds between two snapshots, shared out: each component of
    ``roots`` with the processes under it (the worker's pool, the postmaster's backends), the
    PostgreSQL server split into this site's backends, its background processes, other databases'
    backends and backends that closed meanwhile (their time lands in the postmaster's reaped
    children, whoever they served), the bench's monitor (``monitor``: the load generator's sampler
    thread and its backend, as (pid, thread id, backend pid)), kernel threads, other programs (their names
    in the Counter) and the rest that no live process accounts for (processes that exited
    unwaited, interrupts while a core idled)."""
    parent_of = {pid: times.ppid for (pid, started), times in after.items() if started >= 0}
    owner: dict[int, str] = {}
    for name, pids in roots.items():
        for pid in pids:
            owner[pid] = name

    def owner_of(pid: int) -> str | None:
        seen = set()
        while pid not in owner and pid in parent_of and pid not in seen:
            seen.add(pid)
            pid = parent_of[pid]
        return owner.get(pid)

    parts: dict[str, float] = {name: 0.0 for name in roots if name != "postgres"}
    parts.update({name: 0.0 for name in RUN_PARTS[2:] + OUTSIDE_PARTS})
    others: Counter = Counter()
    generator, monitor_thread, monitor_backend = monitor or (None, None, None)
    # A process that exited meanwhile adds its whole life to the reaped time of its parent, and so
    # on up to the first ancestor still alive: what it had spent before the run is taken back off
    # that ancestor's.
    alive = {pid for pid, started in after if started >= 0}
    parent_before = {pid: times.ppid for (pid, started), times in before.items() if started >= 0}
    earlier_life: Counter = Counter()
    for key, times in before.items():
        if key[1] >= 0 and key not in after:
            ancestor = times.ppid
            while ancestor not in alive and ancestor in parent_before:
                ancestor = parent_before[ancestor]
            earlier_life[ancestor] += times.own + times.reaped
    for key, times in after.items():
        pid, started = key
        if started < 0:  # a thread, counted with its process; the monitor's is moved below
            continue
        earlier = before.get(key)
        spent = times.own - (earlier.own if earlier else 0.0)
        reaped = times.reaped - (earlier.reaped if earlier else 0.0)
        reaped = max(0.0, reaped - earlier_life[pid]) if earlier else reaped
        name = owner_of(pid)
        if name == "postgres":
            database, kind = backends.get(pid, (None, ""))
            if pid in roots["postgres"]:
                parts["postgres: background"] += spent
                parts["postgres: closed backends (any database)"] += reaped
            elif pid == monitor_backend:
                parts["the bench's monitor"] += spent
            elif database is not None and database == site_database:
                parts["postgres: the site's backends"] += spent
            elif database is not None and kind == "client backend":
                parts["postgres: other databases"] += spent
            else:  # the checkpointer, WAL writer, autovacuum, ...
                parts["postgres: background"] += spent
        elif name is not None:
            parts[name] += spent + (reaped if name == "worker" else 0.0)
        elif times.ppid == 2 or pid == 2:
            parts["kernel threads"] += spent
        else:
            parts["other programs"] += spent + reaped
            others[times.comm] += spent + reaped
    if generator is not None:
        key = (generator, -monitor_thread)
        if key in after:
            earlier = before.get(key)
            spent = after[key].own - (earlier.own if earlier else 0.0)
            parts["the bench's monitor"] += spent
            parts["load generator"] -= spent
    parts["unattributed"] = busy - sum(parts.values())
    return parts, others


class CpuMeter:
    """CPU seconds of each component between ``start`` and ``stop``, and of the whole machine
    (``account``). ``stop`` gives the components' own: PostgreSQL as this site's backends and the
    server's background processes, the worker with its pool of thinking processes; every other
    component is one process (the load generator without the servers it started)."""

    def __init__(
        self,
        components: dict[str, list[int]],
        database_url: str | None = None,
        monitor: ConnectionPeak | None = None,
    ) -> None:
        self.components = components
        self.url = database_url
        self.monitor = monitor

    def _snapshot(self) -> dict[tuple[int, int], ProcessTimes]:
        watched = self.monitor is not None and self.monitor.thread_id
        return process_times((os.getpid(),) if watched else ())

    def start(self) -> None:
        self.backends = postgres_backends(self.url)
        self.machine = machine_times()
        self.before = self._snapshot()
        self.started = time.monotonic()

    def stop(self) -> dict[str, float]:
        after = self._snapshot()
        machine = machine_times()
        self.seconds = time.monotonic() - self.started
        self.backends.update(postgres_backends(self.url))
        self.machine = {name: machine[name] - self.machine[name] for name in machine}
        monitor = None
        if self.monitor is not None and self.monitor.backend_pid:
            monitor = (os.getpid(), self.monitor.thread_id, self.monitor.backend_pid)
        database = self.url.rsplit("/", 1)[1] if self.url else None
        self.parts, self.others = account(
            self.before,
            after,
            self.components,
            self.backends,
            database,
            monitor,
            self.machine["busy"],
        )
        cpu = {name: self.parts[name] for name in self.components if name != "postgres"}
        if "postgres" in self.components:
            cpu["postgres"] = (
                self.parts["postgres: the site's backends"] + self.parts["postgres: background"]
            )
        return cpu


class ConnectionPeak:
    """The most connections the site's PostgreSQL database had open, sampled in a thread. Its
    thread and its backend are known (``thread_id``, ``backend_pid``), so that the CPU meter
    counts them apart as the bench's monitor."""

    def __init__(self, database_url: str | None) -> None:
        self.url = database_url
        self.peak = 0
        self.thread_id = 0
        self.backend_pid = 0
        self.ready = threading.Event()
        self.stopping = threading.Event()

    def __enter__(self) -> ConnectionPeak:
        if self.url and self.url.startswith("postgres"):
            self.thread = threading.Thread(target=self._sample, daemon=True)
            self.thread.start()
            self.ready.wait(30)
        return self

    def _sample(self) -> None:
        import psycopg

        name = self.url.rsplit("/", 1)[1]
        self.thread_id = threading.get_native_id()
        try:
            with psycopg.connect(self.url, autocommit=True) as conn:
                self.backend_pid = conn.info.backend_pid
                self.ready.set()
                while not self.stopping.wait(0.2):
                    (count,) = conn.execute(
                        "SELECT count(*) FROM pg_stat_activity WHERE datname = %s", (name,)
                    ).fetchone()
                    self.peak = max(self.peak, count - 1)  # not this sampler's own
        finally:
            self.ready.set()

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()


# --- players and tables -------------------------------------------------------------------------
@dataclass
class Player:
    name: str
    token: str
    session: str


def prepare_django(site: LiveSite) -> None:
    """This process reads and writes the site's database directly, to create players."""
    for key in ("DATABASE_URL", "SQLITE_PATH", "PDC_VAR_DIR", "REDIS_URL"):
        if key in site.env:
            os.environ[key] = site.env[key]
    os.environ["DJANGO_SETTINGS_MODULE"] = "pdc_site.settings"
    import django

    django.setup()


def create_players(count: int, prefix: str) -> list[Player]:
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )

    from players.models import ApiToken

    user_model = get_user_model()
    store_class = import_module(settings.SESSION_ENGINE).SessionStore
    backend = settings.AUTHENTICATION_BACKENDS[-1]
    users = user_model.objects.bulk_create(
        [user_model(username=f"{prefix}{i}", password="!") for i in range(count)]
    )
    if users and users[0].pk is None:  # a database that does not return ids
        users = list(user_model.objects.filter(username__startswith=prefix).order_by("pk"))
    players = []
    for user in users:
        _token, raw = ApiToken.issue(user, "bench")
        store = store_class()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = backend
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.create()
        players.append(Player(user.username, raw, store.session_key))
    return players


# --- sockets ------------------------------------------------------------------------------------
#: How many of a socket's latest versions keep the time they were first shown.
SHOWN_KEPT = 8


@dataclass
class Watcher:
    """One socket and the versions it has seen."""

    last: int = -1
    violations: int = 0
    frames: int = 0
    waiters: list[tuple[int, asyncio.Future]] = field(default_factory=list)
    socket: Any = None
    #: When each of the latest versions was first shown, oldest first: a push that came before
    #: its move's answer was read is timed by its frame, not by the moment it was awaited.
    shown: list[tuple[int, float]] = field(default_factory=list)

    @property
    def closed(self) -> bool:
        return self.socket is not None and self.socket.closed

    def on_text(self, data: bytes | str) -> None:
        """A text frame (bytes from the wire client, str from aiohttp): every version it shows."""
        now = time.perf_counter()
        self.frames += 1
        found = VERSION_BYTES.findall(data) if isinstance(data, bytes) else VERSION.findall(data)
        for version in found:
            self.saw(int(version), now)

    def saw(self, version: int, when: float) -> None:
        if version < self.last:
            self.violations += 1
        if version > self.last:
            self.shown.append((version, when))
            del self.shown[:-SHOWN_KEPT]
        self.last = max(self.last, version)
        still = []
        for wanted, future in self.waiters:
            if wanted <= self.last and not future.done():
                future.set_result(when)
            elif not future.done():
                still.append((wanted, future))
        self.waiters = still

    def seen(self, version: int) -> asyncio.Future:
        """A future of when this socket shows ``version`` (now, if it already does): the pushes
        of a move are awaited as futures, not one task per seat."""
        future = asyncio.get_running_loop().create_future()
        if self.last >= version:
            future.set_result(self.shown_at(version))
        else:
            self.waiters.append((version, future))
        return future

    async def wait_for(self, version: int) -> float:
        return await self.seen(version)

    def shown_at(self, version: int) -> float:
        """When a frame first showed ``version`` or a later one (now, if that is no longer
        kept)."""
        for shown, when in self.shown:
            if shown >= version:
                return when
        return time.perf_counter()


async def open_socket(http: Client, url: str, origin: str, session: str | None) -> Watcher:
    headers = {"Origin": origin}
    if session:
        headers["Cookie"] = f"sessionid={session}"
    watcher = Watcher()
    watcher.socket = await http.websocket(url, headers, watcher.on_text)
    return watcher


async def close_socket(watcher: Watcher) -> None:
    with contextlib.suppress(Exception):
        await watcher.socket.close()


# --- results ------------------------------------------------------------------------------------
@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    #: The move's POST sent → its answer received (the request's part of the latency).
    answers: list[float] = field(default_factory=list)
    #: The move's answer received → the last seat's frame received (the push after the answer;
    #: negative when every frame came before the answer).
    after_answer: list[float] = field(default_factory=list)
    errors: Counter = field(default_factory=Counter)
    missing: int = 0
    moves: int = 0
    #: Matches that ended and were opened again (``reopen``): each costs the site and the
    #: generator a check, a new table, its joins and looks, and three sockets.
    reopened: int = 0
    #: Per move: (table, version, POST sent, answered, last seat's frame) for ``--watch``'s traces.
    records: list[tuple[int, int, float, float, float]] = field(default_factory=list)

    def percentile(self, p: float) -> float | None:
        return quantile(self.latencies, p)


def quantile(values: list[float], p: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def ms(value: float | None) -> str:
    return (
        "—"
        if value is None
        else f"{value * 1000:,.0f} ms"
        if abs(value) >= 0.1
        else f"{value * 1000:.1f} ms"
    )


# --- the site -----------------------------------------------------------------------------------
class SiteTable:
    """A 3-player table of the site: its players by seat, its sockets, what the API said last."""

    def __init__(self, base: str, players: list[Player]) -> None:
        self.base = base
        self.players = players
        self.id: int | None = None
        self.by_seat: dict[int, Player] = {}
        self.watchers: list[Watcher] = []
        self.data: dict[str, Any] = {}
        self.accepted: Counter = Counter()

    async def call(
        self, http: Client, path: str, player: Player, body: Any = None
    ) -> tuple[int, dict]:
        headers = {"Authorization": f"Bearer {player.token}"}
        method = "POST" if body is not None else "GET"
        return await http.call(method, self.base + path, body, headers)

    async def open(self, http: Client, bases: list[str], index: int) -> None:
        """As the live client opens a table: created, joined by the two others, looked at by
        each player, and a socket for every seat (spread over ``bases`` from ``index``)."""
        await self.create(http)
        await self.join_others(http)
        await self.look(http)
        await self.open_sockets(http, bases, index)

    async def create(self, http: Client) -> None:
        body = {"game": GAME, "seats": SEATS, "mode": "friendly"}
        status, data = await self.call(http, "/api/tables", self.players[0], body)
        if status != 201:
            raise RuntimeError(f"could not open a table: {status} {data}")
        self.id = data["id"]

    async def join_others(self, http: Client) -> None:
        for player in self.players[1:]:
            status, data = await self.call(http, f"/api/tables/{self.id}/join", player, {})
            if status != 200:
                raise RuntimeError(f"could not join table {self.id}: {status} {data}")

    async def look(self, http: Client) -> None:
        """Each player looks at the table once: who sits where, and the table as it starts."""
        for player in self.players:
            _status, mine = await self.call(http, f"/api/tables/{self.id}", player)
            self.by_seat[mine["you"]] = player
        self.data = mine
        self.accepted = Counter()

    async def open_sockets(self, http: Client, bases: list[str], index: int) -> None:
        """A socket for every seat, each on its first frame."""
        self.watchers = []
        for seat in range(SEATS):
            # The sockets of one table are spread over the processes (with ``--together``, all
            # on the process that takes its moves).
            base = self.base if TOGETHER else bases[(index + seat) % len(bases)]
            url = base.replace("http://", "ws://") + f"/ws/tables/{self.id}/"
            watcher = await open_socket(http, url, base, self.by_seat[seat].session)
            self.watchers.append(watcher)
        await asyncio.wait_for(
            asyncio.gather(*(w.wait_for(self.data["version"]) for w in self.watchers)), 30
        )

    async def play(self, http: Client, rng: random.Random, tally: Tally) -> bool:
        """One move and its pushes; False when the table is over."""
        if self.data.get("status") != "playing" or not self.data.get("to_move"):
            return False
        seat = self.data["to_move"][0]
        mover = self.by_seat[seat]
        if self.data.get("you") != seat and (LOOK_ALWAYS or not chosen_in_public(self.data)):
            status, data = await self.call(http, f"/api/tables/{self.id}", mover)
            if status != 200:
                tally.errors[status] += 1
                return True
            self.data = data
        move = choose_move(self.data, rng)
        started = time.perf_counter()
        status, answer = await self.call(
            http,
            f"/api/tables/{self.id}/moves",
            mover,
            {"version": self.data["version"], "move": move},
        )
        answered = time.perf_counter()
        tally.answers.append(answered - started)
        if status != 200:
            tally.errors[status] += 1
            _status, self.data = await self.call(http, f"/api/tables/{self.id}", mover)
            return True
        self.accepted[seat] += 1
        tally.moves += 1
        self.data = answer
        await self.await_pushes(answer["version"], started, tally, answered)
        return True

    async def await_pushes(
        self, version: int, started: float, tally: Tally, answered: float
    ) -> None:
        waits = [w.seen(version) for w in self.watchers]
        done, pending = await asyncio.wait(waits, timeout=PUSH_TIMEOUT)
        for future in pending:
            future.cancel()
        tally.missing += len(pending)
        if not pending:
            last = max(f.result() for f in done)
            tally.latencies.append(last - started)
            tally.after_answer.append(last - answered)
            tally.records.append((self.id, version, started, answered, last))

    async def check_final(self, http: Client) -> list[str]:
        """Every seat on the final version; every accepted move in the record once."""
        problems = []
        final = await self.final_version(http)
        for seat, watcher in enumerate(self.watchers):
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(watcher.wait_for(final), 15)
            if watcher.last != final:
                problems.append(f"table {self.id} seat {seat} ended on {watcher.last}, not {final}")
            if watcher.violations:
                problems.append(f"table {self.id} seat {seat}: versions went back")
        return problems + await self.check_records(http)

    async def final_version(self, http: Client) -> int:
        _status, data = await self.call(http, f"/api/tables/{self.id}", self.players[0])
        return data["version"]

    async def check_records(self, http: Client) -> list[str]:
        """Every accepted move in its seat's record once. A seat's record holds all of its own
        moves (another seat's secret pick stays out of it until the step is revealed)."""
        problems = []
        for seat, player in self.by_seat.items():
            path = f"/api/tables/{self.id}/record"
            _status, record = await self.call(http, path, player)
            played = sum(1 for m in record.get("moves", []) if m.get("seat") == seat)
            if played != self.accepted[seat]:
                problems.append(
                    f"table {self.id} seat {seat}: {self.accepted[seat]} moves accepted, "
                    f"{played} in the record"
                )
        return problems


def chosen_in_public(data: dict[str, Any]) -> bool:
    """Whether the next mover's move can be chosen from the table the last mover was answered
    (the version and what every seat sees: cutting and taking need no more), as a player who
    read the table from their socket's push; else the next mover looks at it first (``GET``),
    as ``--look always`` does for every move."""
    return data.get("view", {}).get("phase") in ("cut", "take")


def choose_move(data: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A legal La Part du Chef move from the table the mover sees (cut and take by hand; any
    other step, such as the chillies, from the API's list of legal moves)."""
    view = data["view"]
    if view["phase"] == "cut":
        return {"cut": sorted(rng.sample(range(13), view["players"]))}
    if view["phase"] == "take":
        free = [p["index"] for p in view["portions"] if p["taken_by"] is None]
        return {"take": rng.choice(free), "eat": []}
    return rng.choice(data["legal"])


# --- tables of level-3 bots beside the measured ones -------------------------------------------
def open_level3_table(username: str) -> int:
    """A La Part du Chef table of three level-3 bots, due for the worker at once. No service
    seats three bots (a person opens a table and adds bots to it), so the host's seat is turned
    into the third bot: a benchmark's shortcut, in this process."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from games import services
    from games.models import Match, Seat

    host = get_user_model().objects.get(username=username)
    match = services.create_table(host, GAME, seats=SEATS)
    for _ in range(SEATS - 1):
        match = services.add_bot(host, match.pk, 3)
    Seat.objects.filter(match=match, user=host).update(user=None, bot_level=3)
    Match.objects.filter(pk=match.pk).update(deadline=timezone.now())
    return match.pk


def level3_progress(match_ids: list[int]) -> tuple[int, list[int]]:
    """The moves the bots played at these tables, and those of the tables still playing."""
    from games.engines import CHANCE
    from games.models import Match, Move

    moves = Move.objects.filter(match_id__in=match_ids).exclude(seat=CHANCE).count()
    playing = list(
        Match.objects.filter(pk__in=match_ids, status=Match.Status.PLAYING).values_list(
            "pk", flat=True
        )
    )
    return moves, playing


def thought_per_bot_move(without: Phase, beside: Phase, bot_moves: int) -> float | None:
    """The CPU a level-3 bot got for each of its moves beside the measured tables: what the worker
    (with its thinking pool) spent in the phase beside the bots, less what it spends on the
    measured tables alone (the phase without them, scaled to the same length), over the bots'
    moves: how much of its budget, CPU time stretched up to ``search.WALL_CAP`` times in wall
    time, the tables left to the bot. None when the bots made no move."""
    if bot_moves <= 0 or without.seconds <= 0:
        return None
    alone = without.cpu.get("worker", 0.0) * beside.seconds / without.seconds
    return max(0.0, beside.cpu.get("worker", 0.0) - alone) / bot_moves


class Level3Tables:
    """``--level3-tables N``: N tables of three level-3 bots, each watched by three sockets (of
    its host, now a spectator), kept at N while the phase runs (a finished one is replaced)."""

    def __init__(self, count: int, hosts: list[Player], bases: list[str]) -> None:
        self.count = count
        self.hosts = hosts
        self.bases = bases
        self.ids: list[int] = []
        self.watchers: list[Watcher] = []
        self.moves = 0

    async def open_one(self, http: Client, index: int) -> None:
        host = self.hosts[index % len(self.hosts)]
        match_id = await asyncio.to_thread(open_level3_table, host.name)
        self.ids.append(match_id)
        for seat in range(SEATS):
            base = self.bases[(index + seat) % len(self.bases)]
            url = base.replace("http://", "ws://") + f"/ws/tables/{match_id}/"
            self.watchers.append(await open_socket(http, url, base, host.session))

    async def start(self, http: Client) -> None:
        for index in range(self.count):
            await self.open_one(http, index)
        self.before, _playing = await asyncio.to_thread(level3_progress, self.ids)

    async def keep_playing(self, http: Client) -> None:
        opened = self.count
        while True:
            await asyncio.sleep(2)
            _moves, playing = await asyncio.to_thread(level3_progress, self.ids)
            for _ in range(self.count - len(playing)):
                await self.open_one(http, opened)
                opened += 1
            # Finished tables stay in ``ids``: their moves count.

    async def stop(self) -> None:
        after, _playing = await asyncio.to_thread(level3_progress, self.ids)
        self.moves = after - self.before
        for watcher in self.watchers:
            await close_socket(watcher)


# --- the floor ----------------------------------------------------------------------------------
#: What the committed floor saves for a move: about what a seat's move posts to the site.
FLOOR_MOVE = {"move": {"place": {"value": 3, "table": 4}}}


class FloorTable:
    """A floor table: ``send`` rings its group (the bare floor); ``commit`` saves the move
    durably first (``--commit-floor``)."""

    def __init__(self, base: str, number: int, way: str = "send") -> None:
        self.base = base
        self.id = number
        self.way = way
        self.version = 0
        self.watchers: list[Watcher] = []

    async def open(self, http: Client, bases: list[str], index: int) -> None:
        for seat in range(SEATS):
            base = bases[(index + seat) % len(bases)]
            url = base.replace("http://", "ws://") + f"/ws/floor/{self.id}/"
            self.watchers.append(await open_socket(http, url, base, None))

    async def play(self, http: Client, rng: random.Random, tally: Tally) -> bool:
        self.version += 1
        started = time.perf_counter()
        body = FLOOR_MOVE if self.way == "commit" else None
        url = f"{self.base}/{self.way}/{self.id}/{self.version}"
        status, _answer = await http.call("POST", url, body)
        if status != 200:
            tally.errors[status] += 1
            return True
        answered = time.perf_counter()
        tally.answers.append(answered - started)
        tally.moves += 1
        waits = [w.seen(self.version) for w in self.watchers]
        done, pending = await asyncio.wait(waits, timeout=PUSH_TIMEOUT)
        for future in pending:
            future.cancel()
        tally.missing += len(pending)
        if not pending:
            last = max(f.result() for f in done)
            tally.latencies.append(last - started)
            tally.after_answer.append(last - answered)
        return True

    async def check_final(self, http: Client) -> list[str]:
        return [
            f"floor {self.id} seat {seat}: versions went back"
            for seat, w in enumerate(self.watchers)
            if w.violations
        ]


# --- driving the load ---------------------------------------------------------------------------
#: A 3-player match of La Part du Chef, moves chosen at random, lasts 21-23 moves (300 matches
#: played through the engine: 22.1 on average).
STAGGER_MOVES = 22


def staggering(seed: int, index: int) -> random.Random:
    """The ``index``-th table's draws before a saturation phase: its count of moves
    (``stagger_moves``), then the moves themselves."""
    return random.Random(seed * 7_919 + index)


def stagger_moves(seed: int, index: int) -> int:
    """How many moves the ``index``-th table plays before a saturation phase is measured."""
    return staggering(seed, index).randrange(STAGGER_MOVES)


async def stagger(tables: list[SiteTable], http: Client, seed: int, reopen: Any) -> list[str]:
    """Saturation, before the meter starts: each table plays ``stagger_moves`` moves, so that
    the measured moves find the tables at every point of their matches, as a long run does.
    Started together, every table would end its match at the same moment, and a phase would end
    as many matches as its length and speed happen to fit: a 5 s slice of one process at 40
    tables ended one match per 22 moves, a slice of two processes one per 43, and the end of a
    match costs a daphne about a dozen moves' CPU. The problems of these moves (errors, missing
    pushes) are the phase's."""
    warming = Tally()

    async def play(index: int, table: SiteTable) -> None:
        rng = staggering(seed, index)
        for _ in range(rng.randrange(STAGGER_MOVES)):
            if not await table.play(http, rng, warming):
                await reopen(table, index)

    await asyncio.gather(*(play(i, t) for i, t in enumerate(tables)))
    problems = [f"staggering the tables: {n} × {status}" for status, n in warming.errors.items()]
    if warming.missing:
        problems.append(f"staggering the tables: {warming.missing} pushes missing")
    return problems


async def drive(
    tables: list[Any],
    http: Client,
    mode: str,
    period: float,
    duration: float,
    seed: int,
    reopen: Any = None,
) -> Tally:
    tally = Tally()
    loop = asyncio.get_running_loop()
    until = loop.time() + duration

    async def run(index: int, table: Any) -> None:
        rng = random.Random(seed * 100_003 + index)
        if mode == "latency":
            await asyncio.sleep(rng.uniform(0, period))
        while loop.time() < until:
            due = loop.time() + period
            if not await table.play(http, rng, tally):
                if reopen is None:
                    return
                await reopen(table, index)
                tally.reopened += 1
                continue
            if mode == "latency":
                await asyncio.sleep(max(0.0, due - loop.time()))

    await asyncio.gather(*(run(i, t) for i, t in enumerate(tables)))
    return tally


@dataclass
class Phase:
    name: str
    tally: Tally
    seconds: float
    cpu: dict[str, float]
    problems: list[str]
    #: The meter that measured the phase: the whole machine's CPU, shared out (``account``).
    meter: CpuMeter | None = None


async def measure_floor(
    args: argparse.Namespace, bases: list[str], meter: CpuMeter, way: str = "send"
) -> Phase:
    async with opened_client(args.client) as http:
        tables = [FloorTable(bases[i % len(bases)], i, way) for i in range(args.tables)]
        for index, table in enumerate(tables):
            await table.open(http, bases, index)
        meter.start()
        watch = generator_watch(args)
        tally = await drive(tables, http, args.mode, args.period, args.duration, args.seed)
        cpu = meter.stop()
        if watch is not None:
            GENERATOR_STALLS[FLOOR_PHASES[way]] = watch.stop()
        problems = [p for t in tables for p in await t.check_final(http)]
        for table in tables:
            for watcher in table.watchers:
                await close_socket(watcher)
    return Phase(FLOOR_PHASES[way], tally, meter.seconds, cpu, problems, meter)


#: The floor's phases by the way their POST goes.
FLOOR_PHASES = {"send": "floor", "commit": "floor+commit"}


def is_floor(phase_name: str) -> bool:
    """Whether a phase measured a floor (``floor``, ``floor+commit``, ``floor, round 2``)."""
    return phase_name.split(",")[0] in FLOOR_PHASES.values()


async def measure_site(
    args: argparse.Namespace,
    bases: list[str],
    players: list[Player],
    meter: CpuMeter,
    level3: int = 0,
) -> Phase:
    spare = iter(range(args.tables, 10**9))
    async with opened_client(args.client) as http:
        tables = [
            SiteTable(bases[i % len(bases)], players[SEATS * i : SEATS * i + SEATS])
            for i in range(args.tables)
        ]
        opened = asyncio.Semaphore(8)

        async def open_one(index: int, table: SiteTable) -> None:
            async with opened:
                await table.open(http, bases, index)

        await asyncio.gather(*(open_one(i, t) for i, t in enumerate(tables)))
        problems: list[str] = []

        async def reopen(table: SiteTable, index: int) -> None:
            # A finished match: check it, then the same players open a new table.
            problems.extend(await table.check_final(http))
            for watcher in table.watchers:
                await close_socket(watcher)
            await table.open(http, bases, next(spare))

        if args.mode == "saturation":
            problems.extend(await stagger(tables, http, args.seed, reopen))
        bots = Level3Tables(level3, LEVEL3_HOSTS, bases) if level3 else None
        keeping = None
        if bots is not None:
            await bots.start(http)
            keeping = asyncio.ensure_future(bots.keep_playing(http))
        meter.start()
        watch = generator_watch(args)
        tally = await drive(
            tables, http, args.mode, args.period, args.duration, args.seed, reopen=reopen
        )
        cpu = meter.stop()
        if watch is not None:
            GENERATOR_STALLS["site + level 3" if level3 else "site"] = watch.stop()
        if bots is not None:
            keeping.cancel()
            await bots.stop()
            LEVEL3_FIGURES.update(tables=len(bots.ids), moves=bots.moves)
        PROCESS_RSS.update(
            {
                name: sum(rss_mb(pid) for pid in pids)
                for name, pids in meter.components.items()
                if name.startswith(("daphne", "worker"))
            }
        )
        for table in tables:
            problems.extend(await table.check_final(http))
        if args.idle:
            problems.extend(await measure_idle(args, http, bases, tables, meter))
        for table in tables:
            for watcher in table.watchers:
                await close_socket(watcher)
    name = "site + level 3" if level3 else "site"
    return Phase(name, tally, meter.seconds, cpu, problems, meter)


async def measure_idle(
    args: argparse.Namespace,
    http: Client,
    bases: list[str],
    tables: list[SiteTable],
    meter: CpuMeter,
) -> list[str]:
    """``--idle N`` sockets that only watch (as logged-in players, on the first process): memory
    per socket, and they still get a push."""
    web = meter.components["daphne 1"][0]
    before = rss_mb(web)
    watchers = []
    for index, player in enumerate(IDLE_PLAYERS):
        table = tables[index % len(tables)]
        url = bases[0].replace("http://", "ws://") + f"/ws/tables/{table.id}/"
        watchers.append(await open_socket(http, url, bases[0], player.session))
    await asyncio.sleep(2)
    after = rss_mb(web)
    problems = []
    closed = sum(w.closed for w in watchers)
    if closed:
        problems.append(f"{closed} of {len(watchers)} idle sockets were closed")
    # A move on a watched table still reaches its idle watchers.
    table = tables[0]
    tally = Tally()
    table.watchers.extend(w for i, w in enumerate(watchers) if i % len(tables) == 0)
    await table.play(http, random.Random(args.seed), tally)
    if tally.missing:
        problems.append(f"{tally.missing} idle sockets missed a push")
    IDLE_FIGURES.update(
        sockets=len(watchers),
        before=before,
        after=after,
        per_socket_kb=(after - before) * 1024 / max(1, len(watchers)),
    )
    for watcher in watchers:
        await close_socket(watcher)
    return problems


#: What the site's log must not fill with under load (issue 10 saw all of them).
LOG_MARKERS = ("Traceback", "Internal Server Error", "Too many connections", "Timeout reading")
IDLE_PLAYERS: list[Player] = []
IDLE_FIGURES: dict[str, float] = {}
LEVEL3_HOSTS: list[Player] = []
LEVEL3_FIGURES: dict[str, int] = {}
PROCESS_RSS: dict[str, float] = {}


# --- stalls (--watch) ---------------------------------------------------------------------------
GENERATOR_STALLS: dict[str, dict] = {}


def generator_watch(args: argparse.Namespace) -> Any:
    """The load generator's own loop lag and collector pauses while it drives a phase: a late
    generator would count its own lateness as the site's."""
    if not args.watch:
        return None
    from pdc_site.loop_watch import LoopWatch

    watch = LoopWatch()
    watch.start(reporting=False)
    return watch


def describe_stalls(figures: dict) -> str:
    parts = []
    for kind in ("lag", "gc0", "gc1", "gc2"):
        f = figures[kind]
        parts.append(
            f"{kind} {f['count']}× {f['total_s']:.2f} s max {f['max_ms']:.0f} ms"
            + (f" (≥50 ms: {f['long_ms']})" if f["long_ms"] else "")
        )
    pool = figures.get("pool")
    if pool:
        parts.append(
            f"database pool: {pool['requests_num']} connections lent, {pool['requests_queued']} "
            f"waited ({pool['requests_wait_ms']} ms in all), {pool.get('connections_num', '?')} "
            f"opened, {pool['pool_size']} open at the end, at most {pool['pool_max']}"
        )
    idle = figures.get("idle_collections")
    if idle and any(idle):
        parts.append(f"run by the idle collector: gc0 {idle[0]}×, gc1 {idle[1]}×, gc2 {idle[2]}×")
    looks = figures.get("idle_looks")
    if looks:
        parts.append(
            "the idle collector's looks: "
            + ", ".join(f"{state} {count}×" for state, count in looks.items())
        )
    return "; ".join(parts)


def report_stalls(log: str, components: dict[str, list[int]], floors: list) -> None:
    """The last ``loop-watch`` line of each server process (whole run, set-up included), and the
    load generator's own per phase."""
    import json

    from pdc_site.loop_watch import REPORT_MARK

    last: dict[int, dict] = {}
    for line in log.splitlines():
        if line.startswith(REPORT_MARK):
            figures = json.loads(line[len(REPORT_MARK) :])
            last[figures["pid"]] = figures
    names = {pids[0]: name for name, pids in components.items() if name.startswith("daphne")}
    names.update({pid: f"floor {i + 1}" for i, (_url, pid) in enumerate(floors)})
    for pid, figures in sorted(last.items(), key=lambda item: names.get(item[0], "")):
        print(f"stalls of {names.get(pid, pid)} (whole run): {describe_stalls(figures)}")
        if figures.get("late_samples"):
            print(f"  while its loop was late ({figures['late_samples']} samples), its thread at:")
            for where, count in figures["late_loop"][:8]:
                print(f"    {count:>6}  {where}")
            print("  and the other busy threads at:")
            for where, count in figures["late_others"][:8]:
                print(f"    {count:>6}  {where}")
        for line in describe_ledger(figures.get("stalls")):
            print("  " + line)
    for phase, figures in GENERATOR_STALLS.items():
        print(f"stalls of the load generator during {phase}: {describe_stalls(figures)}")


def describe_ledger(summary: dict | None) -> list[str]:
    """The loop's stalls of a process (``loop_watch.LoopLedger``): by kind, then the callbacks
    that took longest in its stalled turns."""
    if not summary:
        return []
    kinds = {"turn": "turns of callbacks", "select": "select past its timeout"}
    lines = [
        "its loop's stalls ≥ 5 ms: "
        + "; ".join(
            f"{kinds.get(kind, kind)} {n}× {wall:.2f} s (its CPU {cpu:.2f} s) max {ms(longest)}"
            for kind, (n, wall, cpu, longest) in summary["kinds"].items()
        )
    ]
    if summary["callbacks"]:
        lines.append("the longest callbacks of its stalled turns (count, wall, CPU, max):")
        lines += [
            f"  {n:>5}× {ms(wall):>9} {ms(cpu):>9} {ms(longest):>9}  {name}"
            for name, (n, wall, cpu, longest) in summary["callbacks"][:12]
        ]
    return lines


#: A move's steps as ``--watch`` traces them: (name, from mark, to mark); the marks are the
#: server's (``pdc_site.loop_watch``) and the generator's ("sent", "answered", "seen"). The two
#: indented steps split "in its thread": the thread's own CPU there and its time runnable but
#: waiting for its core (``loop_watch.mark_in_thread``); the rest is its waits for the database,
#: Redis and the GIL.
TRACE_STEPS = (
    ("POST to the app", "posted", "arrived"),
    ("wait for its thread", "arrived", "thread"),
    ("in its thread", "thread", "made"),
    ("  its CPU there", "thread_cpu", "made_cpu"),
    ("  its wait for its core there", "thread_runqueue", "made_runqueue"),
    ("answer sent", "made", "sent"),
    ("answer to the client", "sent", "answered"),
    ("sent → render begins", "sent", "jobs"),
    ("render for watchers", "jobs", "rendered"),
    ("rendered → published", "rendered", "published"),
    ("published → last doorbell", "published", "doorbell"),
    ("last doorbell → last frame sent", "doorbell", "pushed"),
    ("last frame sent → seen", "pushed", "seen"),
)


def report_traces(log: str, tally: Tally) -> None:
    """Where a move's time went (``--watch``): each step's p50 over all traced moves, and its
    p50 and largest over the slowest 1 % of them."""
    import json

    from pdc_site.loop_watch import COLLECTIONS_MARK, REPORT_MARK, STALLS_MARK, TRACE_MARK

    traces = {}
    collections: list[tuple[int, float, float, bool]] = []
    reports: list[dict] = []
    stalls: list[list] = []
    for line in log.splitlines():
        if line.startswith(REPORT_MARK):
            reports.append(json.loads(line[len(REPORT_MARK) :]))
        elif line.startswith(TRACE_MARK):
            for trace in json.loads(line[len(TRACE_MARK) :]):
                traces[(trace["match"], trace["version"])] = trace
        elif line.startswith(COLLECTIONS_MARK):
            collections += [tuple(c) for c in json.loads(line[len(COLLECTIONS_MARK) :])]
        elif line.startswith(STALLS_MARK):
            stalls += json.loads(line[len(STALLS_MARK) :])
    moves = []
    for match, version, posted, answered, seen in tally.records:
        trace = traces.get((match, version))
        if trace is None or not trace.get("pushes"):
            continue
        marks = {**trace, "posted": posted, "answered": answered, "seen": seen}
        marks["doorbell"] = max(p[0] for p in trace["pushes"])
        marks["pushed"] = max(p[1] for p in trace["pushes"])
        marks["total"] = seen - posted
        moves.append(marks)
    if not moves:
        print("move traces: none matched")
        return
    moves.sort(key=lambda m: m["total"])
    tail = moves[-max(1, len(moves) // 100) :]
    print(
        f"move traces: {len(moves)} of {len(tally.records)} moves; step: p50 of all | p50, max of "
        f"the slowest {len(tail)} (from {ms(tail[0]['total'])})"
    )
    for name, start, end in TRACE_STEPS:
        every = [m[end] - m[start] for m in moves if start in m and end in m]
        slow = [m[end] - m[start] for m in tail if start in m and end in m]
        if every and slow:
            print(
                f"  {name:34}{ms(quantile(every, 50)):>10} |{ms(quantile(slow, 50)):>10}"
                f"{ms(max(slow)):>10}"
            )
    report_collections_in(tail, collections)
    report_collections_during(moves, collections)
    report_pool_during(moves, reports)
    report_stalls_during(moves, tail, stalls)
    report_selector_during(moves, reports)


def report_selector_during(moves: list[dict], reports: list[dict]) -> None:
    """Each server process's turns of its loop (``select``) and changes of what its selector
    watches (``epoll_ctl``), per move, while moves were played: system calls of the loop's
    thread that let the GIL go (its counts at the end less those of its last report before the
    first move)."""
    first = min(m["posted"] for m in moves)
    by_pid: dict[int, list[dict]] = {}
    for figures in reports:
        if (figures.get("stalls") or {}).get("selects") is not None and "at" in figures:
            by_pid.setdefault(figures["pid"], []).append(figures)
    for pid, seen in sorted(by_pid.items()):
        before = [f["stalls"] for f in seen if f["at"] < first]
        start = before[-1] if before else {"selects": 0, "modified": 0}
        end = seen[-1]["stalls"]
        selects, modified = (end[k] - start[k] for k in ("selects", "modified"))
        print(
            f"  the loop of {pid} while moves were played: {selects} turns "
            f"({selects / len(moves):.1f} a move), {modified} changes of what its selector "
            f"watches ({modified / len(moves):.1f} a move)"
        )


def report_stalls_during(moves: list[dict], tail: list[dict], stalls: list[list]) -> None:
    """The loop's stalls (≥ 5 ms) while moves were played: by kind, by whether a request's
    thread was at work then (the GIL's other taker), by the callback that took longest; and how
    many of the slowest moves one stopped."""
    played = while_played(moves)
    during = [s for s in stalls if played(s[0])]
    if not during:
        print("  the loop's stalls ≥ 5 ms while moves were played: none")
        return
    by: dict[str, list[float]] = {}
    for _start, kind, wall, cpu, _count, named, working in during:
        threads = "a request thread at work" if working else "no request thread at work"
        for key in (f"{kind}, {threads}", f"{kind}: " + (named[0][0] if named else "(waking)")):
            entry = by.setdefault(key, [0, 0.0, 0.0, 0.0])
            entry[0] += 1
            entry[1] += wall
            entry[2] += cpu
            entry[3] = max(entry[3], wall)
    print(
        f"  the loop's stalls ≥ 5 ms while moves were played: {len(during)}, "
        f"{ms(sum(s[2] for s in during))} in all (its CPU {ms(sum(s[3] for s in during))}); "
        "by kind and by the longest callback (count, wall, CPU, max):"
    )
    for key, (n, wall, cpu, longest) in sorted(by.items(), key=lambda item: -item[1][1])[:16]:
        print(f"    {n:>5}× {ms(wall):>9} {ms(cpu):>9} {ms(longest):>9}  {key}")
    stopped = []
    for move in tail:
        inside = [min(s[0] + s[2], move["seen"]) - max(s[0], move["posted"]) for s in during]
        overlap = sum(t for t in inside if t > 0)
        if overlap > 0:
            stopped.append(overlap)
    print(
        f"  the loop's stalls in the slowest {len(tail)}: {len(stopped)} moves stopped "
        f"(p50 {ms(quantile(stopped, 50))} of their time)"
    )


def report_pool_during(moves: list[dict], reports: list[dict]) -> None:
    """The database pool's waits of each server process while moves were played: its counts at
    the end less those of its last report before the first move (reports come every 5 s)."""
    first = min(m["posted"] for m in moves)
    by_pid: dict[int, list[dict]] = {}
    for figures in reports:
        if figures.get("pool") and "at" in figures:
            by_pid.setdefault(figures["pid"], []).append(figures)
    for pid, seen in sorted(by_pid.items()):
        before = [f for f in seen if f["at"] < first]
        start = before[-1]["pool"] if before else dict.fromkeys(seen[-1]["pool"], 0)
        end = seen[-1]["pool"]
        print(
            f"  database pool of {pid} while moves were played: "
            f"{end['requests_num'] - start['requests_num']} connections lent, "
            f"{end['requests_queued'] - start['requests_queued']} waited "
            f"({end['requests_wait_ms'] - start['requests_wait_ms']} ms in all)"
        )


#: Moves further apart than this belong to different spans of play (``--rounds``: the floor's
#: rounds of ``--duration`` lie between the site's); more than a table's ``--period``.
PLAY_GAP_SECONDS = 30.0


def played_spans(moves: list[dict]) -> list[tuple[float, float]]:
    """The spans of time in which moves were played: from a move's POST to the last frame of
    the moves that follow it less than ``PLAY_GAP_SECONDS`` apart."""
    spans: list[list[float]] = []
    for move in sorted(moves, key=lambda m: m["posted"]):
        if spans and move["posted"] <= spans[-1][1] + PLAY_GAP_SECONDS:
            spans[-1][1] = max(spans[-1][1], move["seen"])
        else:
            spans.append([move["posted"], move["seen"]])
    return [(first, last) for first, last in spans]


def while_played(moves: list[dict]) -> Callable[[float], bool]:
    """Whether a moment lies in one of the spans in which moves were played."""
    spans = played_spans(moves)
    return lambda moment: any(first <= moment <= last for first, last in spans)


def report_collections_during(moves: list[dict], collections: list) -> None:
    """The collections (≥ 5 ms) while moves were played (``played_spans``), by generation and by
    who ran them: the ones that could stop a move."""
    played = while_played(moves)
    during: dict[str, list[float]] = {}
    for generation, start, end, idle in collections:
        if played(start):
            kind = f"gc{generation}{' idle' if idle else ''}"
            during.setdefault(kind, []).append(end - start)
    print(
        "  collections ≥ 5 ms while moves were played: "
        + (
            ", ".join(
                f"{kind} {len(times)}× {ms(sum(times))} (max {ms(max(times))})"
                for kind, times in sorted(during.items())
            )
            or "none"
        )
    )


def report_collections_in(tail: list[dict], collections: list) -> None:
    """How many of the slowest moves a collection of the site's processes (≥ 5 ms) stopped
    between their POST and their last frame seen, and for how long, by generation and by who ran
    it (automatic, or the idle collector)."""
    stopped = []
    by_kind: Counter[str] = Counter()
    for move in tail:
        overlap = 0.0
        for generation, start, end, idle in collections:
            inside = min(end, move["seen"]) - max(start, move["posted"])
            if inside > 0:
                overlap += inside
                by_kind[f"gc{generation}{' idle' if idle else ''}"] += 1
        if overlap > 0:
            stopped.append(overlap)
    kinds = ", ".join(f"{kind} {count}×" for kind, count in sorted(by_kind.items())) or "none"
    print(
        f"  collections in the slowest {len(tail)}: {len(stopped)} moves stopped "
        f"(p50 {ms(quantile(stopped, 50))} of their time; {kinds}); "
        f"timed collections ≥ 5 ms in the run: {len(collections)}"
    )


# --- the run ------------------------------------------------------------------------------------
#: A player's limits in the saturation mode: far above what the closed loop reaches.
SATURATION_LIMITS = {"API_CALLS_PER_MINUTE": "1000000", "MOVES_PER_TEN_SECONDS": "1000000"}


def players_limits(mode: str) -> dict[str, str]:
    """The site's per-player limits for the run. In the saturation mode a table's three players
    move as fast as the site answers, and the busiest passes a person's limits in bursts (300 API
    calls a minute, 30 moves in 10 s): a refused move would then measure the limits, not the site,
    so they are raised there. Every request still runs the limits' check."""
    return dict(SATURATION_LIMITS) if mode == "saturation" else {}


def core_of(index: int, pin: bool) -> dict[str, str]:
    """The environment that keeps the ``index``-th daphne of a phase to a core of its own, as the
    README's deployment does (``SERVE_CPUS``): the cores this bench may use, in turn. The site's
    and the floor's daphnes are pinned alike, so the floor is served the same way."""
    if not pin:
        return {}
    cores = sorted(os.sched_getaffinity(0))
    return {"SERVE_CPUS": str(cores[index % len(cores)])}


def services_core() -> int:
    """The core ``--services-core`` keeps the services on: the last that daphnes are given."""
    return sorted(os.sched_getaffinity(0))[-1]


def services_of(worker: int) -> Callable[[], list[int]]:
    """What ``--services-core`` keeps together, as they are at each call: every PostgreSQL and
    Redis process, the worker and its pool, and this load generator (its threads; not the
    daphnes it started, which are its children too)."""

    def services() -> list[int]:
        roots = [*root_processes("postgres"), *root_processes("redis-server"), worker]
        return [*placement.with_descendants(roots, process_parents()), os.getpid()]

    return services


def start_daphne(
    site: LiveSite, application: str, access_log: bool = True, env: dict[str, str] | None = None
) -> tuple[str, int]:
    """A daphne process serving ``application``: its base URL and its pid. Without
    ``access_log``, daphne runs with ``-v 0``, which writes no line per request; ``env`` is
    added to its environment."""
    port = free_port()
    quiet = () if access_log else ("-v", "0")
    process = site.start(
        "-m", "pdc_site.serve", *quiet, "-b", "127.0.0.1", "-p", str(port), application, env=env
    )
    wait_for_port(port, process)
    return f"http://127.0.0.1:{port}", process.pid


def measure_commit_floor(
    args: argparse.Namespace, site: LiveSite, bases: list[str], components: dict[str, list[int]]
) -> Phase:
    """The floor that saves each move first, on the site's PostgreSQL, its backends metered."""
    from bench.floor_asgi import create_commit_tables

    create_commit_tables(site.env["DATABASE_URL"], args.tables)
    meter = CpuMeter({**components, "postgres": root_processes("postgres")})
    return asyncio.run(measure_floor(args, bases, meter, "commit"))


def phase_components(
    webs: list[int],
    worker: int,
    floors: list[int],
    proxies: tuple[int | None, int | None] = (None, None),
) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
    """The processes each phase's meter names: the site's, then the floor's. The servers of the
    other phase are the load generator's children too: named as idle servers, they are counted
    as what they are, not as the load generator (whose children they are). ``proxies``: the
    master of the nginx in front of the site's daphnes and of the floor's (``--proxy``)."""
    generator, redis = [os.getpid()], root_processes("redis-server")
    site_proxy, floor_proxy = proxies
    site = {f"daphne {i + 1}": [pid] for i, pid in enumerate(webs)}
    site["worker"] = [worker]  # with its pool of thinking processes
    site["postgres"] = root_processes("postgres")
    site["redis"] = redis
    site["load generator"] = generator
    if site_proxy is not None:
        site[PROXY] = [site_proxy]
    started = [name for name in site if name.startswith("daphne") or name in ("worker", PROXY)]
    floor = {f"floor {i + 1}": [pid] for i, pid in enumerate(floors)}
    floor.update({"redis": redis, "load generator": generator})
    if floor_proxy is not None:
        floor[PROXY] = [floor_proxy]
        site[f"floor's {PROXY} {IDLE}"] = [floor_proxy]
    floor.update({f"site's {name} {IDLE}": site[name] for name in site if name in started})
    site.update({f"floor {i + 1} {IDLE}": [pid] for i, pid in enumerate(floors)})
    return site, floor


def start_proxy(site: LiveSite, servers: list[tuple[str, int]], name: str) -> tuple[str, int]:
    """nginx in front of ``servers`` (daphnes: base URL and pid) as ``deploy/nginx.conf`` puts
    it there, without TLS (the load generator speaks none): its base URL and its master's pid.
    It stops with the site, before the daphnes."""
    from tests.proxy_server import nginx_in_front

    upstreams = [url.removeprefix("http://") for url, _pid in servers]
    base, process, _certificate = site.stack.enter_context(
        nginx_in_front(site.tmp / name, upstreams)
    )
    return base, process.pid


def report_cpu_per_move(phase: Phase) -> None:
    """All the machine's CPU during a phase per move carried: this run's components (D, the
    daphnes; X, the rest of the run), then what the run cannot own (other databases, other
    programs, backends that closed, kernel threads) and what no live process accounts for."""
    meter, moves = phase.meter, phase.tally.moves
    parts, machine, cores = meter.parts, meter.machine, os.cpu_count() or 1

    def line(name: str, seconds: float) -> str:
        share = 100 * seconds / phase.seconds
        return f"  {name:44}{1000 * seconds / moves:>8.2f} ms{share:>7.0f}% of a core"

    print(
        f"CPU per move during {phase.name} ({moves} moves; the machine's {cores} cores busy "
        f"{machine['busy']:.1f} s of {cores * phase.seconds:.1f} s, /proc/stat):"
    )
    for name, seconds in parts.items():
        if in_run(name):
            print(line(name, seconds))
    rest = 0.0
    for name in OUTSIDE_PARTS:
        print(line(name, parts[name]))
        rest += parts[name]
    for name, seconds in parts.items():
        if name.endswith(IDLE):
            print(line(name, seconds))
            rest += seconds
    top = ", ".join(f"{comm} {1000 * s / moves:.2f}" for comm, s in meter.others.most_common(4))
    if top:
        print(f"    other programs, the most: {top} ms per move")
    print(line("the machine, busy", machine["busy"]))
    print(
        f"  of which in interrupts (irq, softirq; in whichever process ran, or unattributed) "
        f"{1000 * machine['interrupts'] / moves:.2f} ms; stolen by the hypervisor "
        f"{1000 * machine['steal'] / moves:.2f} ms"
    )
    d, x = d_and_x(phase)
    bound = carried_at_most(cores, d, x)
    print(
        f"  D (the daphnes) {1000 * d:.2f} ms, X (the rest of this run) "
        f"{1000 * x:.2f} ms per move: {cores} cores carry at most "
        f"{bound:.0f} moves/s; {1000 * rest / moves:.2f} ms per move outside the run"
    )


def carried_at_most(cores: int, d: float, x: float) -> float:
    """Moves a second that ``cores`` full cores carry at ``d`` + ``x`` CPU seconds a move."""
    return cores / (d + x) if d + x else 0.0


def in_run(name: str) -> bool:
    """Whether the meter's part ``name`` is one of this run's components (the daphnes, D, or
    the rest of the run, X) rather than outside it."""
    return name.startswith("daphne") or name in RUN_PARTS or name == PROXY


def d_and_x(phase: Phase) -> tuple[float, float]:
    """A phase's CPU seconds per move: the daphnes' (D) and the rest of its run's (X); none for
    a phase that carried no move."""
    parts, moves = phase.meter.parts, phase.tally.moves
    if not moves:
        return 0.0, 0.0
    daphnes = sum(seconds for name, seconds in parts.items() if name.startswith("daphne"))
    run = sum(seconds for name, seconds in parts.items() if in_run(name))
    return daphnes / moves, (run - daphnes) / moves


@dataclass
class Slice:
    """One slice of ``--compare-processes``: what its daphnes carried, at what CPU a move."""

    moves: int
    seconds: float
    d: float
    x: float
    busy: float
    #: Matches that ended and were opened again in the slice: two sides compare like with like
    #: only with about as many moves per end (``moves_per_end``).
    ended: int = 0

    @property
    def moves_per_second(self) -> float:
        return self.moves / self.seconds if self.seconds else 0.0


def slice_of(phase: Phase) -> Slice:
    d, x = d_and_x(phase)
    busy = phase.meter.machine["busy"] / phase.seconds
    return Slice(phase.tally.moves, phase.seconds, d, x, busy, phase.tally.reopened)


def pooled_moves_per_second(slices: list[Slice]) -> float:
    seconds = sum(part.seconds for part in slices)
    return sum(part.moves for part in slices) / seconds if seconds else 0.0


def comparison_lines(pairs: list[tuple[Slice, Slice]], cores: int) -> list[str]:
    """Each round's one-process and two-process slices side by side, their ratio and the ratio
    the cores allowed (the two processes' ``carried_at_most`` over one process's moves/s), then
    the median of the rounds' ratios and the ratio of all the moves each side carried over its
    time: the rounds alternate within one run, so a machine that drifts moves both sides alike,
    and a slice the machine slowed weighs on the median less than on its round."""
    lines = [
        f"{'round':>5}  {'1 process: moves/s (D, X; busy)':>36}  "
        f"{'2 processes: moves/s (D, X; busy)':>38}  {'2 / 1':>6}  {'cores allow':>11}"
    ]
    ratios = []
    for number, (one, two) in enumerate(pairs, 1):
        one_carried = one.moves_per_second
        ratio = two.moves_per_second / one_carried if one_carried else 0.0
        ceiling = carried_at_most(cores, two.d, two.x) / one_carried if one_carried else 0.0
        ratios.append(ratio)
        lines.append(
            f"{number:>5}  {describe_slice(one):>36}  {describe_slice(two):>38}  "
            f"{ratio:>6.2f}  {ceiling:>11.2f}"
        )
    if ratios:
        lines.append(
            f"two processes / one, median of {len(ratios)} rounds: "
            f"{statistics.median(ratios):.2f} (each round: "
            + ", ".join(f"{r:.2f}" for r in ratios)
            + ")"
        )
        ones, twos = [one for one, _ in pairs], [two for _, two in pairs]
        pooled_one, pooled_two = pooled_moves_per_second(ones), pooled_moves_per_second(twos)
        lines.append(
            f"all rounds together: {pooled_one:.1f} moves/s on one process, {pooled_two:.1f} on "
            f"two: {pooled_two / pooled_one if pooled_one else 0.0:.2f}"
        )
        lines.append(
            f"matches ended: {moves_per_end(ones)} on one process, {moves_per_end(twos)} on two"
            + ("" if ends_alike(ones, twos) else UNALIKE)
        )
    return lines


#: What the comparison says when its two sides ended their matches at rates too far apart.
UNALIKE = " (not alike: the ratio is biased; compare longer slices)"


def ends_alike(ones: list[Slice], twos: list[Slice], within: float = 0.15) -> bool:
    """Whether both sides ended their matches at rates (ends per move) within ``within`` of
    each other; neither ending any is alike too."""
    rates = [
        sum(part.ended for part in side) / max(1, sum(part.moves for part in side))
        for side in (ones, twos)
    ]
    if not any(rates):
        return True
    return abs(rates[0] - rates[1]) <= within * max(rates)


def moves_per_end(slices: list[Slice]) -> str:
    """How often the slices' matches ended, all of them together: the end of a match and the
    next table's opening cost a daphne as much as a dozen moves, so a side that ends fewer
    matches per move is cheaper per move for that reason alone."""
    ended = sum(part.ended for part in slices)
    if not ended:
        return "none"
    return f"one per {sum(part.moves for part in slices) / ended:.1f} moves"


def describe_slice(part: Slice) -> str:
    return (
        f"{part.moves_per_second:.1f} ({1000 * part.d:.2f}, {1000 * part.x:.2f} ms; "
        f"{100 * part.busy:.0f}%)"
    )


def taking_turns(rounds: int, one: Any, other: Any) -> list[Any]:
    """``one`` then ``other``, then ``other`` then ``one``, and so on for ``rounds`` rounds, so
    that neither side always runs first."""
    order = []
    for number in range(rounds):
        order.extend((one, other) if number % 2 == 0 else (other, one))
    return order


def comparison_order(rounds: int) -> list[int]:
    """The processes of each slice of ``--compare-processes``, taking turns."""
    return taking_turns(rounds, 1, 2)


def compare_processes(
    args: argparse.Namespace, bases: list[str], components: dict, url: str | None
) -> list[Phase]:
    """``--compare-processes``: saturation slices on the first daphne alone and on both, taking
    turns in this run, each with players and tables of its own; prints each round and the
    median ratio, and returns every slice (its errors and problems count as the run's)."""
    slices: dict[int, list[Slice]] = {1: [], 2: []}
    phases = []
    for index, processes in enumerate(comparison_order(args.compare_processes)):
        players = create_players(SEATS * args.tables, f"c{index}p")
        meter = CpuMeter(components, url)
        phase = asyncio.run(measure_site(args, bases[:processes], players, meter))
        phase.name = f"site, {processes} process{'es' if processes > 1 else ''}"
        phases.append(phase)
        slices[processes].append(slice_of(phase))
    print(
        f"\n== two daphnes against one, in one run: {args.compare_processes} rounds of "
        f"{args.duration:.0f} s each way, {args.tables} tables, saturation; the one-process "
        f"slices use daphne 1 alone (daphne 2 idle)"
    )
    for line in comparison_lines(list(zip(slices[1], slices[2], strict=True)), os.cpu_count() or 1):
        print(line)
    return phases


def rounds_order(rounds: int) -> list[str]:
    """The phases of ``--rounds``: the floor and the site, taking turns."""
    return taking_turns(rounds, "floor", "site")


def added_up(tallies: Iterable[Tally]) -> Tally:
    """One tally of all of them: each field of each added up (lists joined, counts summed)."""
    total = Tally()
    for part in tallies:
        for each in fields_of(Tally):
            setattr(total, each.name, getattr(total, each.name) + getattr(part, each.name))
    return total


def pooled(name: str, phases: list[Phase]) -> Phase:
    """The phases' moves as one phase: every latency, error and missing push of each, their
    seconds and CPU added up (no meter: the CPU per move is printed round by round)."""
    cpu: Counter = Counter()
    for phase in phases:
        cpu.update(phase.cpu)
    tally = added_up(phase.tally for phase in phases)
    return Phase(name, tally, sum(phase.seconds for phase in phases), dict(cpu), [])


def round_lines(rounds: list[tuple[Tally, Tally]]) -> list[str]:
    """Each round's floor and site p50 / p99 and their p99 ratio, the median of those ratios, and
    the p99 ratio of all the rounds' moves together."""
    lines = [f"{'round':>5}  {'floor p50 / p99':>20}  {'site p50 / p99':>20}  {'p99 ratio':>9}"]
    ratios = []
    for number, (floor, site) in enumerate(rounds, 1):
        ratio = site.percentile(99) / floor.percentile(99)
        ratios.append(ratio)
        lines.append(
            f"{number:>5}  {ms(floor.percentile(50)) + ' / ' + ms(floor.percentile(99)):>20}  "
            f"{ms(site.percentile(50)) + ' / ' + ms(site.percentile(99)):>20}  {ratio:>9.2f}"
        )
    lines.append(
        f"site / floor p99, median of {len(ratios)} rounds: {statistics.median(ratios):.2f} "
        "(each round: " + ", ".join(f"{r:.2f}" for r in ratios) + ")"
    )
    floors = added_up(floor for floor, _ in rounds).percentile(99)
    sites = added_up(site for _, site in rounds).percentile(99)
    lines.append(
        f"all rounds together: floor p99 {ms(floors)}, site p99 {ms(sites)}: {sites / floors:.2f}"
    )
    return lines


def latency_rounds(
    args: argparse.Namespace,
    floor_bases: list[str],
    floor_components: dict,
    bases: list[str],
    players: list[Player],
    components: dict,
    url: str | None,
    peak: ConnectionPeak,
) -> list[Phase]:
    """``--rounds``: the floor and the site taking turns; prints each round and the median ratio,
    and returns every round's phases, then all the floor's and all the site's moves pooled as
    ``floor`` and ``site`` (the report's ratios are theirs)."""
    measured: dict[str, list[Phase]] = {"floor": [], "site": []}
    for kind in rounds_order(args.rounds):
        if kind == "floor":
            phase = asyncio.run(measure_floor(args, floor_bases, CpuMeter(floor_components)))
        else:
            meter = CpuMeter(components, url, peak)
            phase = asyncio.run(measure_site(args, bases, players, meter))
        phase.name = f"{kind}, round {len(measured[kind]) + 1}"
        measured[kind].append(phase)
    print(
        f"\n== the floor and the site taking turns, in one run: {args.rounds} rounds of "
        f"{args.duration:.0f} s each"
    )
    pairs = [(f.tally, s.tally) for f, s in zip(measured["floor"], measured["site"], strict=True)]
    for line in round_lines(pairs):
        print(line)
    rounds = [phase for pair in zip(*measured.values(), strict=True) for phase in pair]
    return [*rounds, pooled("floor", measured["floor"]), pooled("site", measured["site"])]


def print_ratios(upper: Tally, lower: Tally, name: str) -> None:
    if upper.latencies and lower.latencies:
        for p in (50, 99):
            print(f"p{p} ratio {name}: {upper.percentile(p) / lower.percentile(p):.2f}")


def daphnes_loop(env: dict[str, str]) -> str:
    """The event loop every daphne of the run (the site's and the floor's) runs on: uvloop's as
    deployed, or asyncio's with ``--watch``, whose figures are therefore not the deployed
    site's (its floor and site alike are slower)."""
    from pdc_site.event_loop import ASYNCIO, chosen

    if chosen(env) == ASYNCIO:
        if env.get("PDC_LOOP_WATCH"):
            return "event loop: asyncio's (--watch times its turns; uvloop is deployed)"
        return "event loop: asyncio's"
    return "event loop: uvloop's"


def report(args: argparse.Namespace, phases: list[Phase], site: LiveSite, peak: int) -> None:
    backend = "PostgreSQL" if site.env.get("DATABASE_URL", "").startswith("postgres") else "SQLite"
    layer = "Redis" if site.env.get("REDIS_URL") else "in-memory layer"
    sockets = args.tables * SEATS
    print(
        f"\n== live: {args.mode}, {args.tables} tables ({sockets} seat sockets), "
        f"{args.processes} daphne process(es), {backend} + {layer}, {args.duration:.0f} s, "
        f"GET before a move: {args.look}, "
        f"a table's sockets {'together' if args.together else 'spread'}, "
        f"daphnes {'floating' if args.float else 'one core each'}"
        f"{f', services on core {services_core()}' if args.services_core else ''}"
        f"{' behind nginx' if args.proxy else ''}, "
        f"{'players unlimited, ' if players_limits(args.mode) else ''}"
        f"access log: {'off' if args.no_access_log else 'on'}, client: {args.client}, "
        f"{daphnes_loop(site.env)}"
        + (f", one move per table every {args.period:g} s" if args.mode == "latency" else "")
        + (f", tables staggered over {STAGGER_MOVES} moves" if args.mode == "saturation" else "")
    )
    print(f"{'':15}{'moves':>8}{'moves/s':>9}{'p50':>10}{'p95':>10}{'p99':>10}  errors  missing")
    for phase in phases:
        t = phase.tally
        errors = ", ".join(f"{n}×{s}" for s, n in sorted(t.errors.items())) or "0"
        print(
            f"{phase.name:15}{t.moves:>8}{t.moves / phase.seconds:>9.1f}"
            f"{ms(t.percentile(50)):>10}{ms(t.percentile(95)):>10}{ms(t.percentile(99)):>10}"
            f"  {errors:>6}  {t.missing:>7}"
        )
    for phase in phases:
        t = phase.tally
        if t.reopened:
            print(
                f"{phase.name}: {t.reopened} matches ended and opened again "
                f"(one per {t.moves / t.reopened:.1f} moves)"
            )
        if t.answers:
            print(
                f"{phase.name}: the move's POST answered in p50 {ms(quantile(t.answers, 50))}, "
                f"p99 {ms(quantile(t.answers, 99))}; the last frame after the answer "
                f"p50 {ms(quantile(t.after_answer, 50))}, p99 {ms(quantile(t.after_answer, 99))}"
            )
    named = {p.name: p for p in phases}
    for upper, lower in (("site", "floor"), ("floor+commit", "floor"), ("site", "floor+commit")):
        if upper in named and lower in named:
            print_ratios(named[upper].tally, named[lower].tally, f"{upper} / {lower}")
    if "floor" in named and "site" in named:
        floor, site_phase = named["floor"].tally, named["site"].tally
        if args.mode == "saturation" and floor.moves:
            print(
                f"site moves/s per floor message/s: "
                f"{(site_phase.moves / named['site'].seconds) / (floor.moves / named['floor'].seconds):.3f}"
            )
    for phase in phases:
        shares = ", ".join(
            f"{name} {seconds:.1f} s ({100 * seconds / phase.seconds:.0f}%)"
            for name, seconds in phase.cpu.items()
        )
        print(f"CPU during {phase.name} (of {phase.seconds:.0f} s wall): {shares}")
        if phase.meter is not None and phase.tally.moves and not is_floor(phase.name):
            report_cpu_per_move(phase)
    if peak:
        print(f"database connections at peak (site): {peak}")
    if PROCESS_RSS:
        print(
            "memory (RSS) after the site phase: "
            + ", ".join(f"{name} {mb:.0f} MB" for name, mb in PROCESS_RSS.items())
        )
    if "site" in named and "site + level 3" in named:
        without, beside = named["site"].tally, named["site + level 3"].tally
        print(
            f"level-3 tables: {LEVEL3_FIGURES.get('tables', 0)} of three level-3 bots beside the "
            f"measured tables ({LEVEL3_FIGURES.get('moves', 0)} bot moves in the phase; pool of "
            f"{site.env.get('BOT_POOL_SIZE', 'BOT_POOL_SIZE')} process(es))"
        )
        for p in (50, 99):
            a, b = without.percentile(p), beside.percentile(p)
            if a and b:
                print(f"measured tables p{p}: {ms(a)} without, {ms(b)} beside them ({b / a:.2f}×)")
        thought = thought_per_bot_move(
            named["site"], named["site + level 3"], LEVEL3_FIGURES.get("moves", 0)
        )
        if thought is not None:
            budget = float(site.env.get("BOT_LEVEL3_BUDGET", "1.0"))
            every = named["site + level 3"].seconds / LEVEL3_FIGURES["moves"]
            print(
                f"the bots' thinking: {thought:.2f} s of CPU a bot move beside the tables, "
                f"against a budget of {budget:g} s ({100 * thought / budget:.0f}%); a bot move "
                f"every {every:.1f} s of the phase"
            )
    if IDLE_FIGURES:
        f = IDLE_FIGURES
        print(
            f"idle sockets: {f['sockets']:.0f} on daphne 1, RSS {f['before']:.0f} → "
            f"{f['after']:.0f} MB, {f['per_socket_kb']:.1f} KB per socket"
        )


def verdict(phases: list[Phase], site: LiveSite) -> int:
    """The site log's markers, then the run's exit status: 1 when a phase had an error, a missing
    push or a problem found by the checks (printed with the end of the site's log), else 0."""
    log = site.log_text()
    print("site log: " + ", ".join(f"{log.count(marker)} × {marker!r}" for marker in LOG_MARKERS))
    problems = [p for phase in phases for p in phase.problems]
    failed = problems or any(p.tally.errors or p.tally.missing for p in phases)
    for problem in problems[:20]:
        print("PROBLEM:", problem)
    for phase in phases:
        if phase.tally.errors or phase.tally.missing:
            errors = ", ".join(f"{n}×{s}" for s, n in sorted(phase.tally.errors.items())) or "0"
            print(f"{phase.name}: errors {errors}, missing pushes {phase.tally.missing}")
    if failed:
        print("FAILED: errors, missing pushes or wrong versions (see above)")
        print(log[-3000:])
    return 1 if failed else 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=("latency", "saturation"), default="latency")
    parser.add_argument("--tables", type=int, default=300)
    parser.add_argument(
        "--period", type=float, default=10.0, help="seconds between two moves of a table"
    )
    parser.add_argument("--duration", type=float, default=60.0)
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--idle", type=int, default=0, help="extra watching sockets")
    parser.add_argument(
        "--level3-tables",
        type=int,
        default=0,
        help="measure again beside N tables of three level-3 bots",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--together",
        action="store_true",
        help="with --processes > 1, every socket of a table on the process that takes the "
        "table's moves (the doorbell crosses no process), instead of spread over them",
    )
    parser.add_argument(
        "--float",
        action="store_true",
        help="leave every daphne free to run on any core, instead of one core each "
        "(SERVE_CPUS, as the README's deployment runs them)",
    )
    parser.add_argument(
        "--services-core",
        action="store_true",
        help="keep PostgreSQL, Redis, the worker and this load generator on the last core (the "
        "last daphne's) for the run, as a deployment would pin them (bench/placement.py); "
        "needs the right to set their affinity",
    )
    parser.add_argument(
        "--proxy",
        action="store_true",
        help="serve the site's daphnes, and the floor's, through nginx configured by "
        "deploy/nginx.conf (without TLS), as the README deploys them; its CPU is part of X",
    )
    parser.add_argument("--no-floor", action="store_true")
    parser.add_argument(
        "--commit-floor",
        action="store_true",
        help="after the floor, the floor that saves each move first (one durable statement on "
        "PostgreSQL, then the ring): what never losing an accepted move costs by itself",
    )
    parser.add_argument(
        "--client",
        choices=("wire", "aiohttp"),
        default="wire",
        help="the load generator's HTTP and WebSocket client, for the floor and the site alike: "
        "its own on asyncio Protocols (bench/wire.py), or aiohttp",
    )
    parser.add_argument(
        "--look",
        choices=("when-needed", "always"),
        default="when-needed",
        help="the next mover GETs the table before every move (always), or only when the last "
        "move's answer does not show enough to choose one (cutting and taking need no GET)",
    )
    parser.add_argument(
        "--watch",
        action="store_true",
        help="print each process's event-loop lag and garbage-collector pauses (PDC_LOOP_WATCH)",
    )
    parser.add_argument(
        "--no-access-log",
        action="store_true",
        help="run every daphne (the site's and the floor's) with -v 0: no access log line per request",
    )
    parser.add_argument(
        "--compare-processes",
        type=int,
        default=0,
        metavar="ROUNDS",
        help="saturation on one daphne and on two, taking turns ROUNDS times in this run "
        "(--duration each), and the ratio of each round and their median; needs --processes 2",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="latency: the floor and the site taking turns ROUNDS times in this run (--duration "
        "each), each round's p99 ratio, their median and the ratio of all rounds together",
    )
    parser.add_argument("--smoke", action="store_true", help="CI: 20 s, 10 tables, 1 move/s each")
    args = parser.parse_args(argv)
    if args.smoke:
        args.tables, args.period, args.duration, args.mode = 10, 1.0, 20.0, "latency"
    if args.commit_floor and (
        args.no_floor or not os.environ.get("DATABASE_URL", "").startswith("postgres")
    ):
        parser.error("--commit-floor needs the floor and PostgreSQL (DATABASE_URL=postgres://…)")
    if args.compare_processes:
        beside = args.proxy or args.level3_tables or args.idle or args.commit_floor
        if args.processes != 2 or args.mode != "saturation" or beside:
            parser.error(
                "--compare-processes needs --processes 2 and --mode saturation, without "
                "--proxy, --level3-tables, --idle or --commit-floor"
            )
        args.no_floor = True
    if args.services_core and (args.float or len(os.sched_getaffinity(0)) < 2):
        parser.error("--services-core needs the daphnes pinned (no --float) and two cores")
    if args.rounds < 1:
        parser.error("--rounds needs a positive number")
    if args.rounds > 1:
        beside = args.level3_tables or args.idle or args.commit_floor or args.compare_processes
        if args.mode != "latency" or args.no_floor or beside:
            parser.error(
                "--rounds needs --mode latency and the floor, without --level3-tables, --idle, "
                "--commit-floor or --compare-processes"
            )
    return args


def finish(
    args: argparse.Namespace,
    phases: list[Phase],
    site: LiveSite,
    peak: int,
    components: dict,
    floors: list,
) -> int:
    """The report of the phases (with ``--watch``, the stalls and the site's move traces), then
    the run's exit status."""
    report(args, phases, site, peak)
    if args.watch:
        report_stalls(site.log_text(), components, floors)
        site_phases = [p for p in phases if p.name == "site"]
        if site_phases:
            report_traces(site.log_text(), site_phases[0].tally)
    return verdict(phases, site)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    global LOOK_ALWAYS, TOGETHER
    LOOK_ALWAYS = args.look == "always"
    TOGETHER = args.together
    with tempfile.TemporaryDirectory() as tmp:
        site = LiveSite(
            Path(tmp),
            {
                "PDC_WORKER_TICK": "1.0",
                "BOT_POOL_SIZE": os.environ.get("BOT_POOL_SIZE", "1"),
                **({"PDC_LOOP_WATCH": "1"} if args.watch else {}),
                **players_limits(args.mode),
            },
        )
        try:
            logs = not args.no_access_log
            pin = not args.float
            webs = [
                start_daphne(site, "pdc_site.asgi:application", logs, core_of(i, pin))
                for i in range(args.processes)
            ]
            bases = [url for url, _pid in webs]
            site_proxy = floor_proxy = None
            if args.proxy:
                proxy_base, site_proxy = start_proxy(site, webs, "proxy-site")
                bases = [proxy_base]
            worker = site.start_worker()
            floors = []
            if not args.no_floor:
                floors = [
                    start_daphne(site, "bench.floor_asgi:application", logs, core_of(i, pin))
                    for i in range(len(webs))
                ]
            prepare_django(site)
            if args.services_core:
                services = services_of(worker.pid)
                site.stack.enter_context(placement.kept_on(services_core(), services))
            # The comparison makes the players of each slice itself.
            players = [] if args.compare_processes else create_players(SEATS * args.tables, "p")
            IDLE_PLAYERS.extend(create_players(args.idle, "idle"))
            LEVEL3_HOSTS.extend(create_players(args.level3_tables, "l3host"))
            floor_bases = [url for url, _pid in floors]
            if floors and args.proxy:
                floor_base, floor_proxy = start_proxy(site, floors, "proxy-floor")
                floor_bases = [floor_base]
            components, floor_components = phase_components(
                [pid for _url, pid in webs],
                worker.pid,
                [pid for _url, pid in floors],
                (site_proxy, floor_proxy),
            )
            phases = []
            url = site.env.get("DATABASE_URL")
            if args.rounds > 1:
                with ConnectionPeak(url) as peak:
                    rounds = (floor_bases, floor_components, bases, players, components, url)
                    phases = latency_rounds(args, *rounds, peak)
                return finish(args, phases, site, peak.peak, components, floors)
            if floors:
                floor_meter = CpuMeter(floor_components)
                phases.append(asyncio.run(measure_floor(args, floor_bases, floor_meter)))
            if floors and args.commit_floor:
                phases.append(measure_commit_floor(args, site, floor_bases, floor_components))
            if args.compare_processes:
                return verdict(compare_processes(args, bases, components, url), site)
            with ConnectionPeak(url) as peak:
                meter = CpuMeter(components, url, peak)
                phases.append(asyncio.run(measure_site(args, bases, players, meter)))
                if args.level3_tables:
                    meter = CpuMeter(components, url, peak)
                    beside = measure_site(args, bases, players, meter, args.level3_tables)
                    phases.append(asyncio.run(beside))
            return finish(args, phases, site, peak.peak, components, floors)
        finally:
            site.close()


if __name__ == "__main__":
    sys.exit(main())
