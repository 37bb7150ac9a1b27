"""How long an event loop waits for the GIL while a thread computes (``GIL_SWITCH_INTERVAL``).

A daphne process serves every socket on one event loop while a move's request renders on a
thread of its own. Each time the loop waits on the network it lets the GIL go; the thread takes
it, and the loop gets it back only once the thread has held it for the switch interval. This
measures that in one process, taking turns between intervals in the same minutes: a thread
renders in bursts (``--burst`` ms of Python work every ``--every`` ms, as moves come), and the
loop, meanwhile, sends a byte through a socket pair and reads it back every 2 ms (a frame out, a
frame in), and times each from the moment it was due. It prints each interval's round-trip p50/p99/max and how much work the thread did
per second (what the extra switching costs it).

    .venv/bin/python bench/bench_gil_handover.py --seconds 5 --rounds 3
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import sys
import threading
import time


def quantile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def render_in_bursts(stop: threading.Event, burst: float, every: float, done: list[int]) -> None:
    """Pure Python work for ``burst`` seconds every ``every`` seconds; counts its steps."""
    steps = 0
    while not stop.is_set():
        start = time.perf_counter()
        while time.perf_counter() - start < burst:
            sum(i * i for i in range(200))
            steps += 1
        stop.wait(max(0.0, every - (time.perf_counter() - start)))
    done.append(steps)


async def round_trips(seconds: float) -> list[float]:
    """The loop's byte out and back through a socket pair, every 2 ms, for ``seconds``."""
    loop = asyncio.get_running_loop()
    left, right = socket.socketpair()
    left.setblocking(False)
    right.setblocking(False)
    trips = []
    until = time.perf_counter() + seconds
    try:
        while time.perf_counter() < until:
            # From the moment the loop was due to wake (the select it waited in returned) to
            # the byte back: what a socket's frame waits while a thread holds the GIL.
            due = time.perf_counter() + 0.002
            await asyncio.sleep(0.002)
            await loop.sock_sendall(left, b"x")
            await loop.sock_recv(right, 1)
            trips.append(time.perf_counter() - due)
    finally:
        left.close()
        right.close()
    return trips


def measure(interval: float, seconds: float, burst: float, every: float) -> tuple[list, float]:
    sys.setswitchinterval(interval)
    stop = threading.Event()
    done: list[int] = []
    thread = threading.Thread(target=render_in_bursts, args=(stop, burst, every, done))
    thread.start()
    try:
        trips = asyncio.run(round_trips(seconds))
    finally:
        stop.set()
        thread.join()
    return trips, done[0] / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--burst", type=float, default=15.0, help="ms of work per burst")
    parser.add_argument("--every", type=float, default=40.0, help="ms from burst to burst")
    parser.add_argument("--intervals", default="0.005,0.001")
    args = parser.parse_args()
    intervals = [float(i) for i in args.intervals.split(",")]
    for round_ in range(1, args.rounds + 1):
        for interval in intervals:
            trips, steps = measure(interval, args.seconds, args.burst / 1000, args.every / 1000)
            print(
                f"round {round_}, switch interval {interval * 1000:g} ms: round trip "
                f"p50 {quantile(trips, 50) * 1000:.2f} ms, p99 {quantile(trips, 99) * 1000:.2f} "
                f"ms, max {max(trips) * 1000:.1f} ms ({len(trips)} trips); "
                f"the thread's work {steps:,.0f} steps/s"
            )


if __name__ == "__main__":
    main()
