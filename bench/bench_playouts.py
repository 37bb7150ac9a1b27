"""Random playouts per second, the two ways an engine can be driven, against the engines as they
were when issue 13 asked for faster ones.

``apply`` is what the site does (every move checked, the log kept); ``advance`` is what a search
does with moves it drew itself (``Engine.advance``); ``random_playout`` is a whole random game in
one call (``Engine.random_playout``, on a lean state where the engine has one). All three play the
same seeded games. The floor is
the same playouts on the engines of commit ``--baseline`` (read from git into a scratch package,
never committed), measured in the same run, so the ratios survive a noisy machine.

Run: ``.venv/bin/python bench/bench_playouts.py [--seconds S] [--baseline COMMIT|none]
[--rounds N]``. On a busy machine ``--rounds N`` measures the three N times, interleaved, each for
S / N seconds, and prints the median of each (and of each ratio): a load that comes and goes then
weighs on the floor as much as on the engine.
"""

from __future__ import annotations

import argparse
import importlib
import io
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engines import CHANCE, Engine
from games.engines.registry import get_engine

ROOT = Path(__file__).resolve().parents[1]
#: Main when issue 13 was filed: its "today's games/s" are these engines' ``apply``.
ISSUE_13_BASELINE = "9effea2"
TABLES = (("part-du-chef", 3), ("cafe-fatal", 3), ("pizza-party", 3))


def playout(engine: Engine, n: int, seed: int, step_name: str) -> dict:
    rng = random.Random(seed)
    state = engine.new_game(n)
    step = getattr(engine, step_name)
    while not engine.is_over(state):
        seat = rng.choice(engine.to_move(state))
        if seat == CHANCE:
            move = engine.sample_chance(state, rng)
        else:
            move = engine.random_move(state, seat, rng)
        state = step(state, seat, move)
    return state


def whole_playout(engine: Engine, n: int, seed: int, step_name: str) -> None:
    """One random game: ``Engine.random_playout`` (a lean state where the engine has one), else
    step by step through ``step_name``."""
    if step_name == "random_playout":
        engine.random_playout(engine.new_game(n), random.Random(seed))
    else:
        playout(engine, n, seed, step_name)


def games_per_second(engine: Engine, n: int, step_name: str, seconds: float) -> float:
    start, games = time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        whole_playout(engine, n, games, step_name)
        games += 1
    return games / (time.perf_counter() - start)


def baseline_registry(commit: str, scratch: Path) -> ModuleType:
    """The ``registry`` module of ``games/engines`` at ``commit``, imported as a package of its
    own (the engines only import each other relatively)."""
    archive = subprocess.run(
        ["git", "archive", "--format=tar", commit, "games/engines"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(scratch, filter="data")
    package = scratch / f"baseline_{commit}"
    (scratch / "games" / "engines").rename(package)
    sys.path.insert(0, str(scratch))
    return importlib.import_module(f"{package.name}.registry")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--baseline", default=ISSUE_13_BASELINE, help="a commit, or 'none'")
    parser.add_argument("--rounds", type=int, default=1, help="interleaved rounds (medians)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        old = None if args.baseline == "none" else baseline_registry(args.baseline, Path(scratch))
        for slug, n in TABLES:
            engine = get_engine(slug)
            seconds = args.seconds / max(1, args.rounds)
            rounds = []
            for _ in range(max(1, args.rounds)):
                floor = games_per_second(old.get_engine(slug), n, "apply", seconds) if old else 0
                checked = games_per_second(engine, n, "apply", seconds)
                lean = games_per_second(engine, n, "advance", seconds)
                whole = games_per_second(engine, n, "random_playout", seconds)
                rounds.append((floor, checked, lean, whole))
            floor, checked, lean, whole = (
                statistics.median(column) for column in zip(*rounds, strict=True)
            )
            line = (
                f"{slug:13} {n}p random games/s: apply {checked:8.1f}  advance {lean:8.1f}"
                f"  random_playout {whole:8.1f}"
            )
            if old:
                apply_ratio = statistics.median(c / f for f, c, _, _ in rounds)
                advance_ratio = statistics.median(a / f for f, _, a, _ in rounds)
                whole_ratio = statistics.median(w / f for f, _, _, w in rounds)
                line += (
                    f"  | {args.baseline} apply {floor:8.1f}:"
                    f" apply {apply_ratio:4.2f}x  advance {advance_ratio:4.2f}x"
                    f"  random_playout {whole_ratio:4.2f}x"
                )
            print(line, flush=True)


if __name__ == "__main__":
    main()
