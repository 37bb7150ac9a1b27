"""How strong the bots are: every pairing of random, 1, 2 and 3 in every game and player count.

A pairing "A vs B" seats one A (the hero) and B at every other seat; the hero's seat rotates with
the game number and every game has its own seed, so each pairing plays the same deals. For each
pairing: the hero's outright wins with a 95% Wilson interval, its ties for first, its mean margin
over the best other seat, and the time the hero's bot took per move (median and max).

Level 3 thinks for ``--budget`` seconds of one core's CPU per move, as on the site (default 1 s;
a move still stops at ``search.WALL_CAP`` times that in wall time). A full run at that
budget takes hours; ``--budget 0.1 --games 40`` takes minutes and says so in its heading. With
``--iterations K`` level 3 thinks K playouts a move whatever the machine's load (its rows say so),
and under the table each game's line says what share of one CPU second K playouts are there, from
level 3's playouts per CPU second measured in the same run (``bench_level3_playouts.py``). A run
split over processes with ``--first-seed`` plays the same games as one run.

Run: ``.venv/bin/python bench/bots.py [--games N] [--budget S] [--game SLUG] [--levels 1,2,3]``.
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# bench/ is the script's directory, so its modules import as they are.
from bench_level3_playouts import measure, positions

from games.engines import CHANCE, Engine
from games.engines.registry import get_engine
from games.engines.search import budget

RANDOM = 0
#: (game, players, options) the benchmark covers: each game at the counts people play most.
TABLES: tuple[tuple[str, int], ...] = (
    ("part-du-chef", 3),
    ("part-du-chef", 2),
    ("cafe-fatal", 3),
    ("pizza-party", 3),
    ("pizza-party", 2),
)


def level_name(level: int) -> str:
    return "random" if level == RANDOM else f"L{level}"


def wilson(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    centre = p + z * z / (2 * trials)
    spread = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    denominator = 1 + z * z / trials
    return (centre - spread) / denominator, (centre + spread) / denominator


@dataclass
class Pairing:
    hero: int
    others: int
    games: int = 0
    wins: int = 0
    shared: int = 0
    margins: list[float] = field(default_factory=list)
    times: list[float] = field(default_factory=list)


Chooser = Callable[[Engine, dict[str, Any], int, random.Random], dict[str, Any]]


def choose(engine: Engine, state: dict[str, Any], seat: int, level: int, rng: random.Random):
    if level == RANDOM:
        return engine.random_move(state, seat, rng)
    return engine.bot_move(engine.view(state, seat), rng, level)


def play_one(engine: Engine, n: int, hero_seat: int, pairing: Pairing, seed: int) -> None:
    rng = random.Random(seed)
    state = engine.new_game(n)
    levels = [pairing.hero if s == hero_seat else pairing.others for s in range(n)]
    while not engine.is_over(state):
        seat = rng.choice(engine.to_move(state))
        if seat == CHANCE:
            move = engine.sample_chance(state, rng)
        else:
            start = time.perf_counter()
            move = choose(engine, state, seat, levels[seat], rng)
            if seat == hero_seat:
                pairing.times.append(time.perf_counter() - start)
        state = engine.apply(state, seat, move)
    result = engine.result(state)
    firsts = [s for s, rank in enumerate(result.ranks) if rank == 1]
    pairing.games += 1
    if firsts == [hero_seat]:
        pairing.wins += 1
    elif hero_seat in firsts:
        pairing.shared += 1
    rival = max(score for s, score in enumerate(result.scores) if s != hero_seat)
    pairing.margins.append(result.scores[hero_seat] - rival)


def run_pairing(
    engine: Engine, n: int, hero: int, others: int, games: int, first: int = 0
) -> Pairing:
    """Games ``first`` to ``first + games - 1``: game g has seed g and the hero in seat g mod n,
    so a run split into seed ranges plays the same games as one run."""
    pairing = Pairing(hero, others)
    for game in range(first, first + games):
        play_one(engine, n, game % n, pairing, seed=game)
    return pairing


def row(slug: str, n: int, p: Pairing, iterations: int | None = None) -> str:
    low, high = wilson(p.wins, p.games)
    vs = level_name(p.others) if n == 2 else f"{n - 1}× {level_name(p.others)}"
    if iterations and 3 in (p.hero, p.others):
        vs += f" ({iterations:,} playouts)"
    median = 1000 * statistics.median(p.times) if p.times else 0.0
    longest = 1000 * max(p.times) if p.times else 0.0
    timing = f"{median:.1f} / {longest:.0f}" if p.hero != RANDOM else "–"
    return (
        f"| {slug} {n}p | {level_name(p.hero)} vs {vs} | {p.games} "
        f"| {100 * p.wins / p.games:.0f}% [{100 * low:.0f}, {100 * high:.0f}] "
        f"| {100 * p.shared / p.games:.0f}% | {statistics.mean(p.margins):+.1f} | {timing} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per pairing")
    parser.add_argument("--budget", type=float, default=1.0, help="level-3 seconds of CPU per move")
    parser.add_argument(
        "--iterations", type=int, help="level 3 thinks this many worlds per move, not a time"
    )
    parser.add_argument(
        "--first-seed", type=int, default=0, help="play seeds first..first+games-1 (split a run)"
    )
    parser.add_argument("--game", action="append", help="only this game (repeatable)")
    parser.add_argument("--players", type=int, help="only this player count")
    parser.add_argument("--levels", default="0,1,2,3", help="levels to pair (0 is random)")
    args = parser.parse_args()
    levels = [int(x) for x in args.levels.split(",")]
    thinking = f"{args.iterations:,} playouts" if args.iterations else f"{args.budget:g} s of CPU"
    print(
        f"# bots: {args.games} games per pairing, level 3 budget {thinking} per move, "
        "hero's seat rotated; wins are outright (ties for first apart)\n"
    )
    print("| table | pairing | games | hero wins [95%] | tied first | margin | ms/move med / max |")
    print("|---|---|---|---|---|---|---|")
    notes = []
    with budget(seconds=args.budget, iterations=args.iterations, on_cpu=True):
        for slug, n in TABLES:
            if (args.game and slug not in args.game) or (args.players and n != args.players):
                continue
            engine = get_engine(slug)
            for others, hero in itertools.combinations(levels, 2):
                if hero not in (RANDOM, *engine.bot_levels) or others not in (
                    RANDOM,
                    *engine.bot_levels,
                ):
                    continue
                pairing = run_pairing(engine, n, hero, others, args.games, args.first_seed)
                print(row(slug, n, pairing, args.iterations), flush=True)
            if args.iterations and 3 in levels and 3 in engine.bot_levels:
                notes.append(budget_note(slug, n, args.iterations))
    for note in notes:
        print(note)


def budget_note(slug: str, n: int, iterations: int) -> str:
    """What share of one CPU second ``iterations`` playouts of level 3 are at this table, from its
    playouts per CPU second over one seeded game's positions (200 playouts each)."""
    rows = measure(slug, positions(slug, n, 1), 1.0, 200)
    rate = sum(p for p, _, _ in rows) / sum(c for _, c, _ in rows)
    return (
        f"{slug} {n}p: level 3's {iterations:,} playouts a move are {iterations / rate:.2f} s of one"
        f" CPU here ({rate:,.0f} playouts per CPU second; the site's 1 s budget buys about that"
        " many on an idle core)"
    )


if __name__ == "__main__":
    main()
