"""The analysis after the game: which playout policy judges La Part du Chef decisions best at the
same time budget.

For hand-built positions whose verdict is known (a blunder, a majority thrown away, and two moves
that are as good as each other), the played move and the better one are played out on the same
re-dealt worlds (as ``engines.analysis.judge_decision`` does) for ``--seconds`` of CPU time, with
each policy in turn (interleaved, seed by seed, so that the load weighs on each alike):

* ``random steps``: every seat draws ``random_move`` and the engine's states step by step (the
  default ``Engine.playout_outcome``);
* ``random lean``: the same random game on lean counts (``PartDuChef.random_playout``);
* ``lean policy``: level 3's playout policy on lean counts (``lean_playout_scores``).

Printed per position and policy: worlds per judgement, the mean rank loss, its spread over the
seeds (the noise of the judgement) and how often the flag is the one the position deserves
against sensible players (a majority given away at a table of three is a blunder there).

Run: ``.venv/bin/python bench/bench_analysis_policy.py [--seconds S] [--seeds N]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engines import CHANCE
from games.engines import analysis as judge
from games.engines.base import Engine, competition_ranks
from games.engines.part_du_chef import ENGINE
from games.engines.part_du_chef_bot import lean_playout_scores

Outcome = Callable[[dict, random.Random], tuple[list[int], list[int]]]


def random_steps(state: dict, rng: random.Random) -> tuple[list[int], list[int]]:
    return Engine.playout_outcome(ENGINE, state, rng)


def random_lean(state: dict, rng: random.Random) -> tuple[list[int], list[int]]:
    scores = ENGINE.random_playout(state, rng)
    return scores, competition_ranks(scores)


def lean_policy(state: dict, rng: random.Random) -> tuple[list[int], list[int]]:
    scores = lean_playout_scores(state, rng)
    return scores, competition_ranks(scores)


POLICIES: dict[str, Outcome] = {
    "random steps": random_steps,
    "random lean": random_lean,
    "lean policy": lean_policy,
}


def dealt(n: int, pizza: list[str], first_chef: int = 0) -> dict:
    """A deal whose first pizza is ``pizza``; the other slices fill the later pizzas (as the
    rule tests build them)."""
    from tests.engines.pdc_helpers import make_deal

    state = ENGINE.new_game(n)
    deal = {"first_chef": first_chef, "pizzas": make_deal(pizza)}
    return ENGINE.apply(state, CHANCE, {"deal": deal})


def positions() -> list[tuple[str, dict, int, dict, dict, str]]:
    """(name, state, seat, played, better, the right flag)."""
    rich = ["T1*"] + ["T1"] * 6 + ["V1"] * 5 + ["B"]
    duel = ENGINE.apply(dealt(2, rich), 0, {"cut": [0, 12]})
    three = dealt(3, ["T1*", "T1", "T1", "T1", "V1", "V1", "V1", "R2", "M2", "M2", "F1", "C", "B"])
    three = ENGINE.apply(three, 0, {"cut": [0, 4, 8]})
    return [
        ("burnt slice for twelve good", duel, 1, {"take": 1, "eat": []}, {"take": 0}, "??"),
        (
            "eats all seven truffles, and wins anyway",
            duel,
            1,
            {"take": 0, "eat": list(range(7))},
            {"take": 0, "eat": []},
            "",
        ),
        ("eats one of five V1", duel, 1, {"take": 0, "eat": [7]}, {"take": 0, "eat": []}, ""),
        (
            "3p: eats the four truffles that win the Truffe majority",
            three,
            1,
            {"take": 0, "eat": [0, 1, 2, 3]},
            {"take": 0, "eat": []},
            "??",
        ),
    ]


def judged(state, seat, played, better, outcome: Outcome, seconds: float, seed: int):
    """The played move beside the better one on the same worlds for ``seconds`` of CPU time."""
    rng = random.Random(seed)
    view = ENGINE.view(state, seat)
    ranks: list[list[int]] = [[], []]
    start = time.process_time()
    while not ranks[0] or time.process_time() - start < seconds:
        world_seed = rng.getrandbits(64)
        world = ENGINE.sample_state(view, random.Random(world_seed))
        for index, move in enumerate((played, better)):
            after = ENGINE.advance(world, seat, move)
            _, end_ranks = outcome(after, random.Random(world_seed ^ judge.PLAYOUT_SALT))
            ranks[index].append(end_ranks[seat])
    losses = [p - b for p, b in zip(*ranks, strict=True)]
    mean = statistics.fmean
    return judge.Judgement(
        best=better,
        same=False,
        played_rank=mean(ranks[0]),
        best_rank=mean(ranks[1]),
        played_score=0,
        best_score=0,
        worlds=len(losses),
        rank_loss_error=judge._standard_error(losses),
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=0.3, help="CPU seconds per judgement")
    parser.add_argument("--seeds", type=int, default=8)
    args = parser.parse_args()
    for name, state, seat, played, better, right in positions():
        results: dict[str, list[judge.Judgement]] = {policy: [] for policy in POLICIES}
        for seed in range(args.seeds):
            for policy, outcome in POLICIES.items():
                results[policy].append(
                    judged(state, seat, played, better, outcome, args.seconds, seed)
                )
        print(f"{name} (right flag {right!r}):")
        for policy, runs in results.items():
            losses = [j.rank_loss for j in runs]
            print(
                f"  {policy:13} worlds {statistics.median(j.worlds for j in runs):6.0f}"
                f"  rank loss {statistics.fmean(losses):+.3f} ± {statistics.pstdev(losses):.3f}"
                f"  right flag {sum(j.flag == right for j in runs)}/{len(runs)}"
                f"  flags {''.join(j.flag or '.' for j in runs)}"
            )


if __name__ == "__main__":
    main()
