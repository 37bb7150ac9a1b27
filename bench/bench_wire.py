"""What the load generator's client costs per request and per pushed frame, ``bench/wire.py``'s
against aiohttp's, taking turns in the same run (the ratio is the figure).

One daphne serves ``bench/wire_app.py`` (no Django). Per round and client: ``--requests`` JSON
POSTs from ``--concurrency`` callers on keep-alive connections, then ``--frames`` pushed frames of
``--size`` bytes, each with a version mark the client looks for, received on ``--concurrency``
sockets. CPU seconds of this process (the client) and of daphne, from ``/proc``.

    .venv/bin/python bench/bench_wire.py --rounds 3
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.wire import opened_client  # noqa: E402
from tests.live_server import free_port, wait_for_port  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
VERSION = re.compile(r'id="table-status"[^>]*data-version="(\d+)"')
VERSION_BYTES = re.compile(VERSION.pattern.encode())


def cpu_of(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


async def requests(name: str, base: str, count: int, concurrency: int) -> None:
    async with opened_client(name) as client:

        async def caller() -> None:
            for i in range(count // concurrency):
                body = {"version": i, "move": {"cut": [1, 5, 9]}}
                status, _data = await client.call(
                    "POST", base + "/length", body, {"Authorization": "Bearer x"}
                )
                assert status == 200

        await asyncio.gather(*(caller() for _ in range(concurrency)))


async def pushes(name: str, url: str, count: int, concurrency: int, size: int) -> None:
    """Frames as the site pushes them: each looked at for its version mark, as bench/live.py's
    sockets do."""
    async with opened_client(name) as client:
        per_socket = count // concurrency
        done = [asyncio.get_running_loop().create_future() for _ in range(concurrency)]
        sockets = []
        for future in done:
            seen = [0]

            def on_text(
                data: bytes | str, future: asyncio.Future = future, seen: list = seen
            ) -> None:
                marks = VERSION_BYTES if isinstance(data, bytes) else VERSION
                seen[0] += len(marks.findall(data))
                if seen[0] == per_socket and not future.done():
                    future.set_result(None)

            sockets.append(await client.websocket(url, {"Origin": "http://bench"}, on_text))
        for socket in sockets:
            command = f"push {per_socket} {size}"
            if name == "wire":
                socket.send_text(command)
            else:
                await socket.socket.send_str(command)
        await asyncio.wait_for(asyncio.gather(*done), 120)
        for socket in sockets:
            await socket.close()


def measured(server: int, work: object) -> tuple[float, float]:
    """CPU seconds of this process and of the server while ``work`` runs."""
    times, server_before = os.times(), cpu_of(server)
    asyncio.run(work)
    after = os.times()
    own = after.user + after.system - times.user - times.system
    return own, cpu_of(server) - server_before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--frames", type=int, default=6000)
    parser.add_argument("--size", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=20)
    args = parser.parse_args()
    port = free_port()
    command = [sys.executable, "-m", "daphne", "-v", "0", "-b", "127.0.0.1", "-p", str(port)]
    daphne = subprocess.Popen([*command, "bench.wire_app:application"], cwd=ROOT)
    figures: dict[tuple[str, str], list[float]] = {}
    try:
        wait_for_port(port, daphne)
        base, url = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}/echo"
        for name in ("wire", "aiohttp"):  # warm up: imports, first connections
            measured(daphne.pid, requests(name, base, 200, 20))
        for round_ in range(args.rounds):
            for name in ("wire", "aiohttp"):
                load = os.getloadavg()[0]
                work = requests(name, base, args.requests, args.concurrency)
                own, server = measured(daphne.pid, work)
                work = pushes(name, url, args.frames, args.concurrency, args.size)
                own_f, server_f = measured(daphne.pid, work)
                per_request, per_frame = own / args.requests, own_f / args.frames
                figures.setdefault((name, "request"), []).append(per_request)
                figures.setdefault((name, "frame"), []).append(per_frame)
                print(
                    f"round {round_ + 1} {name:8} client {1e3 * per_request:.3f} ms per request "
                    f"(daphne {1e3 * server / args.requests:.3f}), "
                    f"{1e3 * per_frame:.3f} ms per frame (daphne {1e3 * server_f / args.frames:.3f})"
                    f"; load {load:.2f}",
                    flush=True,
                )
    finally:
        daphne.terminate()
        daphne.wait(10)
    for kind in ("request", "frame"):
        wire = statistics.median(figures[("wire", kind)])
        aio = statistics.median(figures[("aiohttp", kind)])
        print(
            f"per {kind}, medians: wire {1e3 * wire:.3f} ms, aiohttp {1e3 * aio:.3f} ms: "
            f"{wire / aio:.2f}×"
        )


if __name__ == "__main__":
    main()
