"""Who watches a table, read at every version (a ``MGET`` of its 32 viewers' counts) or kept by
a process whose sockets hear the table's viewers come and go (``games.published.Viewers
.watching`` after ``published.listen``): the calling thread's CPU per call, the two ways taking
turns in the same run, on the site's cache (Redis when ``REDIS_URL`` is set, as on the site).

    REDIS_URL=redis://… .venv/bin/python bench/bench_who_watches.py [--calls 5000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pdc_site.settings")


def per_call(viewers, calls: int) -> float:
    """Thread CPU microseconds per ``watching()``."""
    started = time.thread_time()
    for _ in range(calls):
        viewers.watching()
    return 1e6 * (time.thread_time() - started) / calls


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    import django

    django.setup()
    from django.core.cache import caches

    from games import published
    from games.models import Match, Seat

    # A table as the site has it (unsaved: only its id, invitation code and players count).
    match = Match(pk=987_654_321, game="part-du-chef", invite_code="bench-code")
    seats = [Seat(index=i, user_id=900_000 + i) for i in range(3)]
    fields = [published.viewer_field(seat.user_id, None, "en") for seat in seats]
    for field in fields:
        published.start_watching(match.pk, field)
    try:
        viewers = published.Viewers(match, seats)
        assert viewers.watching() == sorted(fields)
        read, kept = [], []
        for _ in range(args.rounds):
            read.append(per_call(viewers, args.calls))
            published.listen(match.pk)
            kept.append(per_call(viewers, args.calls))
            published.stop_listening(match.pk)
    finally:
        for field in fields:
            published.stop_watching(match.pk, field)
    backend = type(caches["default"]).__name__
    print(f"who watches a table of 32 viewers (3 watching), cache {backend}, {args.calls} calls")
    for label, figures in (("read at every call", read), ("kept (listening)", kept)):
        rounds = ", ".join(f"{value:.1f}" for value in figures)
        print(f"  {label:<18}  {statistics.median(figures):8.1f} µs a call (rounds {rounds})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
