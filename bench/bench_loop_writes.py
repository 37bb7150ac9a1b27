"""How long an event loop takes to send a move's frames while a thread computes: Twisted's way
(watch the socket for writability, send when the next turn finds it writable, stop watching)
against ``pdc_site/turn_writes.py``'s (send at the end of the turn that wrote, no watching).

Daphne's reactor runs on asyncio: Twisted's ``startWriting`` and ``stopWriting`` are the loop's
``add_writer`` and ``remove_writer`` (``epoll_ctl`` on a socket it also reads), so this plays
the same system calls in one process, taking turns between the two ways in the same minutes:
every 10 ms the loop writes a frame to each of ``--sockets`` socket pairs (a move's three seats)
and times how long after it was due the last frame left; meanwhile a thread renders in bursts
(``--burst`` ms of Python work every ``--every`` ms, as moves come), and each system call that
lets the GIL go may leave the loop waiting for that thread's switch interval. The floor is the
same without the thread, in the same run. It prints each way's p50/p90/p99/max and the p99's ratio
to the floor's.

With ``--hops`` turns of the loop before the writes (a doorbell crosses several: Redis's reply
read, the layer's queue, the socket's consumer), and a fourth way that polls the network at most
every ``--poll-every`` ms while callbacks are ready (``pdc_site/loop_polls.py``).

    .venv/bin/python bench/bench_loop_writes.py --seconds 4 --rounds 3
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pdc_site.loop_polls import SparsePolls

FRAME = b"x" * 2000


def quantile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def render_in_bursts(stop: threading.Event, burst: float, every: float) -> None:
    while not stop.is_set():
        start = time.perf_counter()
        while time.perf_counter() - start < burst:
            sum(i * i for i in range(200))
        stop.wait(max(0.0, every - (time.perf_counter() - start)))


def watched_write(loop: asyncio.AbstractEventLoop, sock: socket.socket, done) -> None:
    """Twisted's: watch for writability, send when writable, stop watching."""

    def writable() -> None:
        sock.send(FRAME)
        loop.remove_writer(sock.fileno())
        done()

    loop.add_writer(sock.fileno(), writable)


#: Sends kept for the end of the loop's turn (``turn_end_write``), with their callbacks.
_pending: list[tuple[socket.socket, object]] = []


def turn_end_write(loop: asyncio.AbstractEventLoop, sock: socket.socket, done) -> None:
    """``turn_writes``: send at the end of this turn of the loop, before its next ``select``."""
    _pending.append((sock, done))


def flushing_turns(loop: asyncio.AbstractEventLoop) -> None:
    """Make every turn of ``loop`` end with the sends kept meanwhile (as ``turn_writes``)."""
    turn = loop._run_once

    def turn_then_flush() -> None:
        turn()
        while _pending:
            sock, done = _pending.pop(0)
            sock.send(FRAME)
            done()

    loop._run_once = turn_then_flush


class Countdown:
    """A future that is done, with the time, once ``count`` frames were sent."""

    def __init__(self, loop: asyncio.AbstractEventLoop, count: int) -> None:
        self.future = loop.create_future()
        self.left = count

    def done(self) -> None:
        self.left -= 1
        if self.left == 0:
            self.future.set_result(time.perf_counter())


async def frames(way, seconds: float, sockets: int, hops: int, poll_every: float) -> list[float]:
    loop = asyncio.get_running_loop()
    if way is turn_end_write:
        flushing_turns(loop)
    if poll_every:
        SparsePolls(loop, poll_every).install()
    pairs = [socket.socketpair() for _ in range(sockets)]
    for left, right in pairs:
        left.setblocking(False)
        right.setblocking(False)
        # A reader of its own: the loop also watches these sockets for reading, as daphne does.
        loop.add_reader(left.fileno(), left.recv, 1)
    times = []
    until = time.perf_counter() + seconds
    try:
        while time.perf_counter() < until:
            due = time.perf_counter() + 0.01
            await asyncio.sleep(0.01)
            for _ in range(hops):  # a doorbell's turns: Redis's reply, the layer's queue…
                await asyncio.sleep(0)
            sent = Countdown(loop, sockets)
            for left, _right in pairs:
                way(loop, left, sent.done)
            times.append(await sent.future - due)
            for _left, right in pairs:
                right.recv(1 << 20)
    finally:
        for left, right in pairs:
            loop.remove_reader(left.fileno())
            left.close()
            right.close()
    return times


def measure(way, busy: bool, poll_every: float, args: argparse.Namespace) -> list[float]:
    stop = threading.Event()
    burst, every = args.burst / 1000, args.every / 1000
    thread = threading.Thread(target=render_in_bursts, args=(stop, burst, every))
    if busy:
        thread.start()
    try:
        return asyncio.run(frames(way, args.seconds, args.sockets, args.hops, poll_every))
    finally:
        stop.set()
        if busy:
            thread.join()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sockets", type=int, default=3)
    parser.add_argument("--burst", type=float, default=15.0, help="ms of work per burst")
    parser.add_argument("--every", type=float, default=40.0, help="ms between bursts' starts")
    parser.add_argument("--hops", type=int, default=3, help="turns of the loop before the writes")
    parser.add_argument("--poll-every", type=float, default=2.0, help="ms, for loop_polls")
    args = parser.parse_args()
    ways = {
        "floor (no thread)": (turn_end_write, False, 0.0),
        "watched (Twisted)": (watched_write, True, 0.0),
        "turn end (turn_writes)": (turn_end_write, True, 0.0),
        "turn end, sparse polls": (turn_end_write, True, args.poll_every / 1000),
    }
    results: dict[str, list[float]] = {name: [] for name in ways}
    for _round in range(args.rounds):
        for name, (way, busy, poll_every) in ways.items():
            results[name] += measure(way, busy, poll_every, args)
    floor_p99 = quantile(results["floor (no thread)"], 99)
    for name, times in results.items():
        p50, p99 = quantile(times, 50) * 1000, quantile(times, 99) * 1000
        p90 = quantile(times, 90) * 1000
        print(
            f"{name:24} frames {len(times):>5}  p50 {p50:6.2f} ms  p90 {p90:6.2f} ms  "
            f"p99 {p99:6.2f} ms  "
            f"max {max(times) * 1000:6.1f} ms  p99 / floor {p99 / (floor_p99 * 1000):5.2f}"
        )


if __name__ == "__main__":
    main()
