"""What the push path's pieces changed in stop 24 cost a process, the way before and the way now
taking turns in one process (CPU microseconds per move or table, medians of the rounds):

- **who watches** a table at each move (``published``): the 32 viewers' fields and their cache
  keys made at every move and read with Django's ``get_many``, against ``published.viewers_of``
  (made once per table) and ``limits.HeldCounts`` (the keys made once, read with the cache's
  client); needs Redis.
- **the doorbell unpacked** for a table's three sockets of one process: channels-redis's
  deserialize per socket, against ``layer.PubSubChannelLayer.deserialize`` (once per process).
- **three sockets connecting** to a table, one after another: three reads and renders
  (``consumers.load_and_render``), against one read and two checks that take it (``reuse``).

- **the watchers' render** of a version for a table's three seats of one language (stop 25): a
  language switch per viewer, against one per language (``published.render_for_watchers``).
- **a doorbell's parts picked** by each of a table's three sockets (stop 25): the shared and
  own parts merged, checked and ordered in three passes, against ``published.parts_of``'s one.

    REDIS_URL=redis://127.0.0.1:6379/13 .venv/bin/python bench/bench_push_path.py --rounds 5

Django runs on a scratch SQLite file (no PostgreSQL: the reads' queries cost less than on the
live site); Redis, when ``REDIS_URL`` is set, is used with a key prefix of its own.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_push import scratch_sqlite_site  # noqa: E402


def cpu_us(work: Callable[[], object], count: int) -> float:
    """CPU microseconds (process time) per call of ``work``, over ``count`` calls."""
    started = time.process_time()
    for _ in range(count):
        work()
    return 1e6 * (time.process_time() - started) / count


def taking_turns(
    name: str, before: Callable, now: Callable, count: int, rounds: int, per: str = "move"
) -> None:
    """``before`` and ``now`` measured in turn, ``rounds`` times each: medians and ratio."""
    before(), now()  # warm
    pairs = [(cpu_us(before, count), cpu_us(now, count)) for _ in range(rounds)]
    old = statistics.median(p[0] for p in pairs)
    new = statistics.median(p[1] for p in pairs)
    print(f"{name}: before {old:.1f} µs, now {new:.1f} µs per {per} ({new / old:.2f}×)")


def a_started_table(seats: int = 3):
    from django.contrib.auth import get_user_model

    from games import services

    users = [
        get_user_model().objects.create_user(f"b-{uuid.uuid4().hex[:8]}") for _ in range(seats)
    ]
    match = services.create_table(users[0], "part-du-chef", seats=seats)
    for user in users[1:]:
        services.join_table(user, match.pk)
    match.refresh_from_db()
    return match, [s.user for s in match.seats.select_related("user").order_by("index")]


def who_watches(count: int, rounds: int) -> None:
    from django.core.cache import cache

    from games import limits, published, rendering

    match, users = a_started_table()
    seats = rendering.seats_of(match)
    for user in users:
        published.start_watching(match.pk, published.viewer_field(user.pk, None, "en"))

    def before() -> None:  # main's render_for_watchers, up to the read of the counts
        candidates = published._candidates(match, seats)
        holders = {published._holder(match.pk, field): field for field in candidates}
        keys = {limits._key(published.VIEWER_KIND, h): h for h in holders}
        found = cache.get_many(list(keys))
        {keys[k]: int(v) for k, v in found.items() if int(v or 0) > 0}

    def now() -> None:
        published.viewers_of(match, seats).watching()

    taking_turns("who watches (32 viewers, 3 watching)", before, now, count, rounds)


def doorbell_unpacked(count: int, rounds: int) -> None:
    from django.utils import translation

    from games import published
    from pdc_site.layer import PubSubChannelLayer

    match, users = a_started_table()
    for user in users:
        published.start_watching(match.pk, published.viewer_field(user.pk, None, "en"))
    with translation.override("en"):
        parts = published.render_for_watchers(match)
    message = {"type": "table.changed", "match": match.pk, "version": match.version}
    message["parts"] = parts
    layer = PubSubChannelLayer(hosts=[{"address": "redis://127.0.0.1:1/0"}], prefix="bench")
    data = layer.serialize(message)
    plain = layer._serializer

    def before() -> None:
        for _socket in range(3):
            plain.deserialize(data)

    def now() -> None:
        layer._unpacked = None  # a new doorbell: the first socket unpacks it
        for _socket in range(3):
            layer.deserialize(data)

    name = f"a doorbell of {len(data) / 1024:.1f} KB unpacked for 3 sockets"
    taking_turns(name, before, now, count, rounds)


def _parts_of_before(message: dict, field: str, invite: str | None, language: str) -> dict | None:
    """``published.parts_of`` before stop 25."""
    from games import published, rendering

    carried = message.get("parts")
    if not isinstance(carried, dict):
        return None
    own = carried.get("own", {}).get(field)
    shared = carried.get("shared", {}).get(published.shared_field(invite, language))
    if own is None or shared is None:
        return None
    merged = {**shared, **own}
    if any(part not in merged for part in rendering.TABLE_PARTS):
        return None
    return {part: merged[part] for part in rendering.TABLE_PARTS}


def _render_for_watchers_before(match):
    """``published.render_for_watchers`` before stop 25: the language switched per viewer."""
    from django.contrib.auth.models import AnonymousUser
    from django.utils import translation

    from games import published, rendering

    seats = rendering.seats_of(match)
    viewers = published.viewers_of(match, seats)
    watching = viewers.watching()
    if not watching:
        return None
    snapshot = published._read(match, seats)
    shared: dict = {}
    own: dict = {}
    users: dict = {s.user_id: s.user for s in seats if s.user_id is not None}
    users[None] = AnonymousUser()
    for field in watching:
        pk, invite, language = viewers.candidates[field]
        user = users[pk]
        with translation.override(language):
            parts = rendering.table_parts(snapshot, user, invite)
        shared.setdefault(
            published.shared_field(invite, language),
            {part: parts[part] for part in rendering.SHARED_PARTS},
        )
        own[field] = {p: html for p, html in parts.items() if p not in rendering.SHARED_PARTS}
    snapshot.memo = rendering.kept_memo(snapshot.memo)
    return {"shared": shared, "own": own}


def watchers_rendered(count: int, rounds: int) -> None:
    from games import published

    match, users = a_started_table()
    for user in users:
        published.start_watching(match.pk, published.viewer_field(user.pk, None, "en"))
    assert published.render_for_watchers(match) == _render_for_watchers_before(match)
    taking_turns(
        "the watchers' render of a version, 3 seats in English",
        lambda: _render_for_watchers_before(match),
        lambda: published.render_for_watchers(match),
        count,
        rounds,
    )


def parts_picked(count: int, rounds: int) -> None:
    from django.utils import translation

    from games import published

    match, users = a_started_table()
    fields = [published.viewer_field(user.pk, None, "en") for user in users]
    for field in fields:
        published.start_watching(match.pk, field)
    with translation.override("en"):
        message = {"type": "table.changed", "parts": published.render_for_watchers(match)}
    for field in fields:
        assert published.parts_of(message, field, None, "en") == _parts_of_before(
            message, field, None, "en"
        )

    def before() -> None:
        for field in fields:
            _parts_of_before(message, field, None, "en")

    def now() -> None:
        for field in fields:
            published.parts_of(message, field, None, "en")

    taking_turns("a doorbell's parts picked by its 3 sockets", before, now, count * 10, rounds)


def sockets_connecting(count: int, rounds: int) -> None:
    from games import consumers

    match, users = a_started_table()
    viewers = [((u.pk, None, "en"), (u, None, "en"), -1) for u in users]

    def connect_three(reuse: bool) -> None:
        previous = None
        for index in range(3):
            # The socket connecting is behind; the ones connected before it are not.
            behind = [
                (key, viewer, -1 if i >= index else match.version)
                for i, (key, viewer, _sent) in enumerate(viewers)
            ]
            previous, _rendered = consumers.load_and_render(match.pk, behind, previous, reuse)

    taking_turns(
        "3 sockets connecting (first reads and renders)",
        lambda: connect_three(False),
        lambda: connect_three(True),
        count,
        rounds,
        per="table",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--count", type=int, default=300, help="moves measured per round")
    args = parser.parse_args(argv)
    redis_url = os.environ.get("REDIS_URL")
    print(f"load average {os.getloadavg()[0]:.2f}")
    with scratch_sqlite_site():
        random.seed(1)
        if redis_url:
            from django.conf import settings
            from django.core.cache import caches

            settings.CACHES = {
                "default": {
                    "BACKEND": "pdc_site.cache.ForgivingRedisCache",
                    "LOCATION": redis_url,
                    "KEY_PREFIX": f"bench-{uuid.uuid4().hex[:8]}",
                }
            }
            caches._settings = caches.settings = settings.CACHES
            from pdc_site.cache import ForgivingRedisCache

            assert isinstance(caches["default"], ForgivingRedisCache)
            who_watches(args.count, args.rounds)
        doorbell_unpacked(args.count, args.rounds)
        parts_picked(args.count, args.rounds)
        watchers_rendered(args.count, args.rounds)
        sockets_connecting(max(1, args.count // 10), args.rounds)
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
