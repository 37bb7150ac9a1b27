"""The Redis cache's calls with and without Django's memcached check of every key
(``pdc_site.cache.ForgivingRedisCache.validate_key``), taking turns in one process: CPU
microseconds per ``get_many`` of a table's 24 watchers' counts (as ``games.limits.held_many``
reads them) and per ``set`` + ``get``.

    REDIS_URL=redis://… .venv/bin/python bench/bench_cache_keys.py --rounds 7
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--count", type=int, default=2000, help="calls per round and way")
    args = parser.parse_args()
    url = os.environ.get("REDIS_URL")
    if not url:
        print("set REDIS_URL")
        return 1
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pdc_site.settings")
    import django

    django.setup()
    from django.core.cache.backends.base import BaseCache

    from pdc_site.cache import ForgivingRedisCache

    cache = ForgivingRedisCache(url, {"KEY_PREFIX": f"bench-keys-{uuid.uuid4().hex[:8]}"})
    keys = [f"held:watch:{n}:user:{1000 + n}" for n in range(24)]
    cache.set_many({key: 1 for key in keys[::2]}, 60)
    ways = {"Django's check": BaseCache.validate_key, "none (the site's)": None}
    found: dict[str, dict[str, list[float]]] = {
        name: {"get_many": [], "set+get": []} for name in ways
    }
    for _ in range(args.rounds):
        for name, check in ways.items():
            if check is None:
                vars(cache).pop("validate_key", None)
            else:
                cache.validate_key = check.__get__(cache)
            started = time.process_time()
            for _ in range(args.count):
                cache.get_many(keys)
            found[name]["get_many"].append(1e6 * (time.process_time() - started) / args.count)
            started = time.process_time()
            for n in range(args.count):
                cache.set(keys[n % 24], n, 60)
                cache.get(keys[n % 24])
            found[name]["set+get"].append(1e6 * (time.process_time() - started) / args.count)
    base, site = ways
    for call in ("get_many", "set+get"):
        before = statistics.median(found[base][call])
        after = statistics.median(found[site][call])
        print(
            f"{call:9} (24 keys)" if call == "get_many" else f"{call:9} (1 key) ",
            f"{base}: {before:7.1f} µs, {site}: {after:7.1f} µs, ratio {after / before:.2f} "
            f"(medians of {args.rounds} rounds, load average {os.getloadavg()[0]:.1f})",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
