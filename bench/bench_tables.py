"""Rendering a table: median milliseconds for every live fragment of a table page (what a socket
pushes after each move) for a spectator and for the seat to move, at a table in mid-game of each
game, beside the floor of an open table's fragments (the same frame with no game to draw).

Run: ``.venv/bin/python bench/bench_tables.py`` (a few seconds, on a temporary SQLite file).
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

REPEAT = 30
WARM_UP = 3
#: (game, players, moves played before measuring)
TABLES = [("part-du-chef", 3, 6), ("pizza-party", 3, 20), ("cafe-fatal", 4, 25)]


def median_ms(render, *args) -> float:
    for _ in range(WARM_UP):
        render(*args)
    times = []
    for _ in range(REPEAT):
        start = time.perf_counter()
        render(*args)
        times.append(1000 * (time.perf_counter() - start))
    return statistics.median(times)


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        os.environ["SQLITE_PATH"] = str(Path(folder) / "bench.sqlite3")
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pdc_site.settings")
        import django

        django.setup()
        from django.contrib.auth import get_user_model
        from django.contrib.auth.models import AnonymousUser
        from django.core.management import call_command

        from games import rendering, services
        from games.engines import get_engine

        call_command("migrate", verbosity=0)
        users = [get_user_model().objects.create_user(f"p{i}") for i in range(5)]
        floor_table = services.create_table(users[0], "part-du-chef", seats=3)
        render = rendering.render_table_fragments
        floor = median_ms(render, floor_table, AnonymousUser())
        print(f"floor (an open table): {floor:.2f} ms")
        for game, players, moves in TABLES:
            engine = get_engine(game)
            match = services.create_table(users[0], game, seats=players)
            for user in users[1:players]:
                services.join_table(user, match.pk)
            match.refresh_from_db()
            rng = random.Random(1)
            seated = {s.index: s.user for s in match.seats.select_related("user")}
            for _ in range(moves):
                seat = rng.choice(engine.to_move(match.state))
                move = engine.random_move(match.state, seat, rng)
                match = services.play(match.pk, seated[seat], move, match.version)
            mover = seated[engine.to_move(match.state)[0]]
            spectator = median_ms(render, match, AnonymousUser())
            player = median_ms(render, match, mover)
            print(
                f"{game:13} spectator {spectator:6.2f} ms ({spectator / floor:4.1f}× floor)   "
                f"seat to move {player:6.2f} ms ({player / floor:4.1f}× floor)"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
