"""The watchers' render of a version (``games.published``: three seats' parts), with the parts'
writers as they are and as they were before stop 25, alternating in one process: the CPU of the
same versions of the same seeded matches, rendered each way in turn, and a check that both ways
write the same bytes.

"Before" puts back, for the time of its rounds, what stop 25 replaced (kept here, as it was):

- ``mark_safe`` where the writers now make ``SafeString`` of their text directly (``mark_safe``
  first looks for a lazy argument among its arguments: Django's ``keep_lazy``);
- Django's ``ngettext`` where the writers and presenters now read ``translations.ngettext``
  (kept per language while a viewer's parts are written, as ``gettext`` is);
- the result part by its template at every version, where an unfinished match's empty result is
  now written in Python;
- ``boards._e`` as it was (the safe-text check before the look-up of what was escaped).

Run: ``.venv/bin/python bench/bench_push_writers.py`` (SQLite, no server; ``--versions``,
``--rounds``, ``--game``).
"""

from __future__ import annotations

import argparse
import contextlib
import random
import statistics
import sys
import time
from collections.abc import Iterator
from html import escape
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

SEATS = 3


def _e_before(value: Any) -> str:
    """``boards._e`` before stop 25 (with an escape cache of its own)."""
    if isinstance(value, _SafeData):
        return str(value)
    text = value if type(value) is str else str(value)
    escaped = _ESCAPED_BEFORE.get(text)
    if escaped is None:
        escaped = escape(text)
        if len(_ESCAPED_BEFORE) >= 20_000:
            _ESCAPED_BEFORE.clear()
        _ESCAPED_BEFORE[text] = escaped
    return escaped


_ESCAPED_BEFORE: dict[str, str] = {}
_SafeData: Any = None


#: What ``before`` can put back, by name.
CHANGES = ("mark_safe", "ngettext", "result", "_e")


@contextlib.contextmanager
def before(changes: tuple[str, ...] = CHANGES) -> Iterator[None]:
    """The writers as they were before stop 25 (only ``changes`` of it), while inside."""
    from django.utils import translation
    from django.utils.safestring import SafeData, mark_safe

    from games.presenters import cafe_fatal, part_du_chef
    from games.templatetags import boards, game_panels, move_forms, table_lists, table_parts

    global _SafeData
    _SafeData = SafeData
    patched: list[tuple[Any, str, Any]] = []

    def patch(module: Any, name: str, value: Any) -> None:
        patched.append((module, name, getattr(module, name)))
        setattr(module, name, value)

    for module in (boards, game_panels, move_forms, table_lists, table_parts):
        if "mark_safe" in changes:
            patch(module, "SafeString", mark_safe)
        if "_e" in changes and hasattr(module, "_e"):
            patch(module, "_e", _e_before)
    if "ngettext" in changes:
        for module in (boards, move_forms, table_lists, part_du_chef, cafe_fatal):
            patch(module, "ngettext", translation.ngettext)
    # ``rendering`` holds the writers' dict itself (imported by name): changed in place.
    writer = table_parts.PART_WRITERS.pop("result") if "result" in changes else None
    try:
        yield
    finally:
        if writer is not None:
            table_parts.PART_WRITERS["result"] = writer
        for module, name, value in reversed(patched):
            setattr(module, name, value)


def play_matches(slug: str, versions: int) -> list[tuple[Any, list[Any], list[Any]]]:
    """Seeded matches of three players, each as (its read before the first move, the match as
    saved at each of its versions, its players), ``versions`` versions in all."""
    from django.contrib.auth import get_user_model

    from games import rendering, services
    from games.engines import get_engine
    from games.models import Match

    engine = get_engine(slug)
    rng = random.Random(7)
    matches = []
    played = 0
    number = 0
    while played < versions:
        number += 1
        users = [get_user_model().objects.create_user(f"w{number}-{i}") for i in range(SEATS)]
        match = services.create_table(users[0], slug, seats=SEATS)
        Match.objects.filter(pk=match.pk).update(seed=f"bench-writers-{slug}-{number}")
        for user in users[1:]:
            services.join_table(user, match.pk)
        match.refresh_from_db()
        seated = {s.index: s.user for s in match.seats.select_related("user")}
        first = rendering.load_table(match.pk)
        saved = []
        while match.is_playing and played < versions:
            seat = rng.choice(engine.to_move(match.state))
            move = engine.random_move(match.state, seat, rng)
            match = services.play(match.pk, seated[seat], move, match.version)
            saved.append(match)
            played += 1
        matches.append((first, saved, list(seated.values())))
    return matches


def render_all(matches: list[tuple[Any, list[Any], list[Any]]]) -> tuple[float, list[str]]:
    """Every version's three seats' parts, each read after the previous as the publishing
    process reads it: (CPU milliseconds of the renders, the parts written)."""
    from django.utils import translation

    from games import rendering

    spent = 0.0
    written: list[str] = []
    with translation.override("en"):
        for first, saved, players in matches:
            previous = first
            for match in saved:
                snapshot = rendering.snapshot_of(match, previous)
                start = time.process_time()
                for user in players:
                    written.extend(rendering.table_parts(snapshot, user).values())
                spent += time.process_time() - start
                snapshot.memo = rendering.kept_memo(snapshot.memo)
                previous = snapshot
    return 1000 * spent, written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="part-du-chef")
    parser.add_argument("--versions", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument(
        "--each", action="store_true", help="also each change alone (the others kept)"
    )
    args = parser.parse_args(argv)
    from bench_push import scratch_sqlite_site

    with scratch_sqlite_site():
        matches = play_matches(args.game, args.versions)
        # Warm: the caches of escapes and translations, the creators kept on the matches.
        _ms, now_parts = render_all(matches)
        with before():
            _ms, before_parts = render_all(matches)
        assert now_parts == before_parts, "the two ways wrote different parts"
        compared = [CHANGES, *((change,) for change in CHANGES)] if args.each else [CHANGES]
        for changes in compared:
            times: dict[str, list[float]] = {"before": [], "now": []}
            for _ in range(args.rounds):
                with before(changes):
                    times["before"].append(render_all(matches)[0])
                times["now"].append(render_all(matches)[0])
            was, now = (statistics.median(times[key]) for key in ("before", "now"))
            ratios = sorted(n / b for b, n in zip(times["before"], times["now"], strict=True))
            what = "all" if changes == CHANGES else changes[0]
            print(
                f"{args.game}, {what}: {args.versions} versions, three seats' parts each, "
                f"{args.rounds} rounds each way, alternating: before {was:.1f} ms, now "
                f"{now:.1f} ms CPU (medians; per version {was / args.versions:.3f} → "
                f"{now / args.versions:.3f} ms), now/before {now / was:.3f} (pairs "
                f"{ratios[0]:.3f}–{ratios[-1]:.3f})"
            )
    print(f"{len(now_parts)} parts written alike both ways")
    return 0


if __name__ == "__main__":
    sys.exit(main())
