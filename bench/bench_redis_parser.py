"""What reading Redis's answers costs a process, with redis-py's parser in Python against
hiredis's in C (the one redis-py takes when hiredis is installed), taking turns in one process:

- the synchronous client (the cache, the limits): an ``MGET`` of 24 keys, as
  ``limits.held_many`` asks who watches a table, and a two-key script, as ``ratelimit.check``;
- the asyncio Pub/Sub client (the channel layer): receiving a 20 KB message, about the size of a
  move's doorbell with its rendered parts.

    REDIS_URL=redis://127.0.0.1:6379/12 .venv/bin/python bench/bench_redis_parser.py --rounds 5

CPU microseconds (process time) per pair of commands and per message received, medians of the
rounds. It writes two keys and publishes on one channel, all named ``pdc-bench…``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time

import redis
import redis.asyncio
from redis._parsers import _AsyncHiredisParser, _AsyncRESP3Parser, _HiredisParser, _RESP3Parser

KEYS = [f"pdc-bench:viewer|{i}|x|fr" for i in range(24)]
SCRIPT = "return {redis.call('INCR', KEYS[1]), redis.call('GET', KEYS[2])}"
CHANNEL = "pdc-bench-doorbell"


def sync_commands(url: str, parser: type, count: int) -> float:
    client = redis.Redis.from_url(url, protocol=3, parser_class=parser)
    client.set(KEYS[0], 1)
    script = client.register_script(SCRIPT)
    started = time.process_time()
    for _ in range(count):
        client.mget(KEYS)
        script(keys=KEYS[:2])
    spent = time.process_time() - started
    client.delete(KEYS[0])
    client.close()
    return 1e6 * spent / count


async def messages_received(url: str, parser: type, count: int) -> float:
    publisher = redis.asyncio.Redis.from_url(url, protocol=3)
    subscriber = redis.asyncio.Redis.from_url(url, protocol=3, parser_class=parser)
    pubsub = subscriber.pubsub()
    await pubsub.subscribe(CHANNEL)
    await pubsub.get_message(timeout=1)
    message = os.urandom(10_000).hex().encode()
    spent = 0.0
    for _ in range(count):
        await publisher.publish(CHANNEL, message)
        started = time.process_time()
        received = None
        while received is None:
            received = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1)
        spent += time.process_time() - started
    await pubsub.aclose()
    await subscriber.aclose()
    await publisher.aclose()
    return 1e6 * spent / count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--count", type=int, default=2000)
    args = parser.parse_args()
    url = os.environ.get("REDIS_URL")
    if not url:
        print("set REDIS_URL to a Redis server")
        return 2
    runs: dict[str, list[float]] = {name: [] for name in ("sync py", "sync c", "pub py", "pub c")}
    for _ in range(args.rounds):
        runs["sync py"].append(sync_commands(url, _RESP3Parser, args.count))
        runs["sync c"].append(sync_commands(url, _HiredisParser, args.count))
        runs["pub py"].append(asyncio.run(messages_received(url, _AsyncRESP3Parser, args.count)))
        runs["pub c"].append(asyncio.run(messages_received(url, _AsyncHiredisParser, args.count)))
    median = {name: statistics.median(values) for name, values in runs.items()}
    print(f"== Redis answers read in Python or in C (hiredis), {args.rounds} rounds")
    for label, py, c in (
        ("MGET of 24 keys + a 2-key script", "sync py", "sync c"),
        ("a 20 KB Pub/Sub message received", "pub py", "pub c"),
    ):
        print(
            f"{label:34s} Python {median[py]:6.1f} us, hiredis {median[c]:6.1f} us: "
            f"{median[c] / median[py]:.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
