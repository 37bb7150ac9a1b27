"""What a level-3 move's budget buys: playouts per CPU second of the search, from real positions.

The positions are the seats' decisions in seeded games of level-2 bots (what level 3 meets at a
table); only decisions with more than one candidate count (with one, the search plays it at once).
Each position is searched by level 3 with ``--iterations K`` playouts, timed with
``time.process_time`` (the CPU this process got, so other processes on the machine slow it less
than they slow the clock); the figure is the playouts over the CPU seconds, overall and the median
of the positions. With ``--seconds S`` the search thinks S seconds of wall time instead, as on the
site, and the playouts each move got are counted.

Run: ``.venv/bin/python bench/bench_level3_playouts.py [--game cafe-fatal] [--players 3]
[--games 2] [--iterations 400 | --seconds 1]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engines import CHANCE, search
from games.engines.registry import get_engine


def positions(slug: str, players: int, games: int) -> list[dict[str, Any]]:
    """Every seat's view at its decisions in ``games`` seeded games of level-2 bots."""
    engine = get_engine(slug)
    views = []
    for seed in range(games):
        rng = random.Random(seed)
        state = engine.new_game(players)
        while not engine.is_over(state):
            seat = rng.choice(engine.to_move(state))
            if seat == CHANCE:
                move = engine.sample_chance(state, rng)
            else:
                view = engine.view(state, seat)
                views.append(view)
                move = engine.bot_move(view, rng, 2)
            state = engine.apply(state, seat, move)
    return views


class PlayoutCounter:
    """Wraps ``search.search_move`` to count the playouts (rollouts) of each search, and whether
    it had a choice to make at all."""

    def __init__(self) -> None:
        self.playouts = 0
        self.candidates = 0
        self._search = search.search_move

    def __enter__(self) -> PlayoutCounter:
        def counted(sample, advance, candidates, seat, rollout, rng, *rest, **options):
            self.candidates = len(candidates)

            def rollout_counted(state, hero, luck):
                self.playouts += 1
                return rollout(state, hero, luck)

            return self._search(
                sample, advance, candidates, seat, rollout_counted, rng, *rest, **options
            )

        search.search_move = counted
        return self

    def __exit__(self, *exc: object) -> None:
        search.search_move = self._search


def measure(slug: str, views: list[dict[str, Any]], seconds: float, iterations: int | None):
    """(playouts, CPU seconds, wall seconds) of each searched decision (more than one
    candidate)."""
    engine = get_engine(slug)
    rows = []
    with search.budget(seconds=seconds, iterations=iterations), PlayoutCounter() as counter:
        for index, view in enumerate(views):
            counter.playouts = counter.candidates = 0
            cpu, wall = time.process_time(), time.perf_counter()
            engine.bot_move(view, random.Random(index), 3)
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            if counter.candidates > 1:
                rows.append((counter.playouts, cpu, wall))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="cafe-fatal")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--games", type=int, default=2, help="seeded level-2 games for positions")
    parser.add_argument("--iterations", type=int, default=400, help="playouts a search")
    parser.add_argument("--seconds", type=float, help="think this wall time instead")
    args = parser.parse_args()
    views = positions(args.game, args.players, args.games)
    iterations = None if args.seconds else args.iterations
    rows = measure(args.game, views, args.seconds or 1.0, iterations)
    playouts = sum(p for p, _, _ in rows)
    cpu = sum(c for _, c, _ in rows)
    wall = sum(w for _, _, w in rows)
    per_move = sorted(p for p, _, _ in rows)
    thinking = f"{args.seconds:g} s wall" if args.seconds else f"{args.iterations} playouts"
    print(f"# {args.game} {args.players}p level 3, {thinking} a move, {len(rows)} decisions")
    print(f"playouts per CPU second: {playouts / cpu:,.0f} overall", end="")
    print(f" (median of decisions {statistics.median(p / c for p, c, _ in rows if c):,.0f})")
    print(f"playouts per wall second: {playouts / wall:,.0f}; CPU / wall {cpu / wall:.2f}")
    print(f"playouts a move: min {per_move[0]}, median {statistics.median(per_move):g}, ", end="")
    print(f"max {per_move[-1]}; wall a move max {max(w for _, _, w in rows) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
