"""Where Café Fatal's level 3 judges a round wrongly: its decisions judged by a dearer oracle.

Bench only (issue 13's brief "cf", stop 26). ``collect`` replays ``bench/bots.py``'s games
(``--game cafe-fatal --players 3 --levels 2,3 --iterations K``: the same seeds, seating and
random numbers as ``bench/bench_cafe_fatal_variants.py play main``) and, at each of level 3's
decisions with a choice, judges level 1's best ``--candidates`` placements on ``--worlds`` worlds
(the same worlds for every candidate) three ways, from the same playout:

- ``r1``: level 3's own reward, ``round_end_reward`` once the round is played out by level 1;
- ``r2``: the same one round later (the next round played out by level 1 too);
- ``win``: the game played out to its end by level 1 for every seat: 1 won outright, 1/2 tied
  first, 0 lost; and ``margin``, the final points over the best other seat.

Only the games level 3 did not win are judged (``--won-too``: every game). Each decision is a
JSON line with what describes the position (round, scores, dice left, who starts the next round,
tied tables, ...), the candidates' mean judgements over all the worlds and over each half of
them, and the real game's outcome. ``report`` reads the lines and tells, by kind of position,
what level 3's choice, the best by ``r1``, the best by ``r2`` and level 2's choice lose in the
oracle's win rate, and how often the best by ``r1`` is not the oracle's. ``order`` measures what
a seat gains in a round by its place in the round's order, in seeded self-play.

Run: ``.venv/bin/python bench/cf_oracle.py collect --games 20 --first-seed 0 --worlds 300 >
oracle-0.jsonl``; ``... report oracle-*.jsonl``; ``... order --games 2000 --level 1``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engines import CHANCE, cafe_fatal_bot, search
from games.engines.base import Move, State
from games.engines.cafe_fatal import ENGINE, WINNING_SCORE, table_winner

PLAYERS = 3


def _level1_to_the_end(state: State, rng: random.Random) -> State:
    """Every seat plays level 1 until the game's end."""
    while not ENGINE.is_over(state):
        [mover] = ENGINE.to_move(state)
        if mover == CHANCE:
            move: Any = ENGINE.sample_chance(state, rng)
        else:
            move = cafe_fatal_bot.placement(state, mover, rng)
        state = ENGINE.advance(state, mover, move)
    return state


def _game_value(state: State, seat: int) -> tuple[float, float]:
    """(1 won outright, 1/2 tied first, 0 lost; points over the best other seat)."""
    result = ENGINE.result(state)
    firsts = [s for s, rank in enumerate(result.ranks) if rank == 1]
    win = (1.0 if len(firsts) == 1 else 0.5) if seat in firsts else 0.0
    rival = max(score for s, score in enumerate(result.scores) if s != seat)
    return win, float(result.scores[seat] - rival)


def judge(
    state: State, seat: int, move: Move, world_seed: int
) -> tuple[float, float, float, float]:
    """(r1, r2, win, margin) of ``move`` on one world: the round played out as level 3's search
    plays it, then one more round, then the game's end, all by level 1."""
    rng = random.Random(world_seed)
    after = ENGINE.advance(state, seat, move)
    after, _ = cafe_fatal_bot._round_played_out(after, seat, rng, ENGINE.advance)
    r1 = cafe_fatal_bot.round_end_reward(after, seat)
    if ENGINE.is_over(after):
        return (r1, r1, *_game_value(after, seat))
    # The next round, from its serve to its share, played as the search plays the first.
    [mover] = ENGINE.to_move(after)
    later = ENGINE.advance(after, mover, ENGINE.sample_chance(after, rng))
    later, _ = cafe_fatal_bot._round_played_out(later, seat, rng, ENGINE.advance)
    r2 = cafe_fatal_bot.round_end_reward(later, seat)
    end = _level1_to_the_end(later, rng)
    return (r1, r2, *_game_value(end, seat))


def position(state: State, seat: int) -> dict[str, Any]:
    """What describes a decision's position."""
    scores = state["scores"]
    others = [s for other, s in enumerate(scores) if other != seat]
    tied = [t for t, dice in enumerate(state["dice"]) if any(dice) and table_winner(dice) is None]
    return {
        "round": state["round"],
        "scores": list(scores),
        "lead": scores[seat] - max(others),
        "top": max(scores),
        "near_end": max(scores) >= WINNING_SCORE - 15,
        "remaining": list(state["remaining"]),
        "rolled": len(state["rolled"]),
        "placed": len(state["values"][seat]),
        "starter": state["round"] % PLAYERS == seat,
        "next_starter": (state["round"] + 1) % PLAYERS == seat,
        "others_left": sum(r for other, r in enumerate(state["remaining"]) if other != seat),
        "tied_tables": len(tied),
        "prospects": [cafe_fatal_bot.prospect(h) for h in state["held"]],
    }


def collect(
    first: int, games: int, iterations: int, worlds: int, candidates: int, won_too: bool
) -> None:
    """``bench/bots.py``'s games with level 3 as it is; the decisions of the games it did not win
    (of every game with ``won_too``) judged, one JSON line each."""
    for seed in range(first, first + games):
        rng = random.Random(seed)
        hero = seed % PLAYERS
        state = ENGINE.new_game(PLAYERS)
        decisions = []
        while not ENGINE.is_over(state):
            seat = rng.choice(ENGINE.to_move(state))
            if seat == CHANCE:
                move = ENGINE.sample_chance(state, rng)
            elif seat == hero:
                view = ENGINE.view(state, seat)
                world = ENGINE.sample_state(view, rng)
                with search.budget(iterations=iterations):
                    move = cafe_fatal_bot.searched_placement(view, world, rng)
                ranked = [m for _, m in cafe_fatal_bot.placement_scores(world, seat)]
                if len(ranked) > 1:
                    decisions.append((world, ranked[:candidates], move))
            else:
                move = ENGINE.bot_move(ENGINE.view(state, seat), rng, 2)
            state = ENGINE.apply(state, seat, move)
        outcome, _ = _game_value(state, hero)
        if outcome == 1 and not won_too:
            continue
        for world, moves, move in decisions:
            line = _judged(world, hero, moves, move, seed, worlds)
            line["outcome"] = outcome
            print(json.dumps(line), flush=True)


def _judged(
    state: State, seat: int, moves: list[Move], chosen: Move, seed: int, worlds: int
) -> dict[str, Any]:
    """One decision: each candidate's mean judgements over the same worlds, on two halves of
    them apart (one half picks the oracle's best, the other measures what a pick loses)."""
    if chosen not in moves:
        moves = [*moves, chosen]
    per = [[judge(state, seat, m, seed * 1_000_003 + w) for w in range(worlds)] for m in moves]
    level2 = cafe_fatal_bot.strong_placement(state, seat, random.Random(seed))
    half = worlds // 2
    out = position(state, seat)
    out.update(
        seed=seed,
        seat=seat,
        worlds=worlds,
        chosen=moves.index(chosen),
        level2=moves.index(level2) if level2 in moves else -1,
        moves=[m["place"] for m in moves],
        spent=[state["rolled"].count(m["place"]["value"]) for m in moves],
        # (r1, r2, win, margin) means, over all worlds, the first half, the second half.
        mean=[_means(rows) for rows in per],
        mean_a=[_means(rows[:half]) for rows in per],
        mean_b=[_means(rows[half:]) for rows in per],
    )
    return out


def _means(rows: list[tuple[float, float, float, float]]) -> list[float]:
    return [statistics.fmean(x[k] for x in rows) for k in range(4)]


#: The picks ``report`` compares: level 3's choice, level 2's, and the best by each judgement
#: among level 1's best 5 or among every candidate judged.
PICKS = ("chosen", "level2", "r1 top5", "r2 top5", "win top5", "r1 all", "r2 all")


def report(paths: list[str]) -> None:
    """What each pick (``PICKS``) loses in the oracle's win rate against the oracle's best among
    every candidate judged, by kind of position. The oracle's best is picked on one half of the
    worlds and every loss measured on the other (and the other way round, averaged), so that the
    noise of the pick does not flatter it; the other judgements pick on the same half."""
    rows = [json.loads(line) for p in paths for line in Path(p).read_text().splitlines()]
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        for key in _kinds(row):
            groups[key].append(row)
    print(f"{len(rows)} decisions, {len({r['seed'] for r in rows})} games")
    print("| kind | decisions | " + " | ".join(PICKS) + " | oracle's best not in level 1's 5 |")
    print("|---|---|" + "---|" * (len(PICKS) + 1))
    for key in sorted(groups):
        part = groups[key]
        losses: dict[str, list[float]] = defaultdict(list)
        outside = 0
        for row in part:
            for pick, judge_on in (("mean_a", "mean_b"), ("mean_b", "mean_a")):
                for name, loss in _losses(row, row[pick], row[judge_on]).items():
                    losses[name].append(loss)
            whole = row["mean"]
            outside += max(range(len(whole)), key=lambda i: whole[i][2]) >= 5
        means = [statistics.fmean(losses[k]) if losses[k] else float("nan") for k in PICKS]
        print(
            f"| {key} | {len(part)} | " + " | ".join(f"{m:.4f}" for m in means) + f" | {outside} |"
        )


def _losses(
    row: dict[str, Any], picked: list[list[float]], measured: list[list[float]]
) -> dict[str, float]:
    """Each pick's loss in win rate (``measured``) against the best by ``picked``'s win rate."""
    wins = [m[2] for m in measured]
    every = range(len(wins))
    top5 = range(min(5, len(wins)))

    def best(among: range, k: int) -> int:
        return max(among, key=lambda i: picked[i][k])

    top = wins[best(every, 2)]
    out = {
        "chosen": top - wins[row["chosen"]],
        "r1 top5": top - wins[best(top5, 0)],
        "r2 top5": top - wins[best(top5, 1)],
        "win top5": top - wins[best(top5, 2)],
        "r1 all": top - wins[best(every, 0)],
        "r2 all": top - wins[best(every, 1)],
    }
    if row["level2"] >= 0:
        out["level2"] = top - wins[row["level2"]]
    return out


def _kinds(row: dict[str, Any]) -> list[str]:
    """The groups a decision counts in."""
    kinds = ["all", "lost game" if row["outcome"] < 1 else "won game"]
    top = row["top"]
    kinds.append("top<20" if top < 20 else "top 20-29" if top < 30 else "top>=30")
    kinds.append("leader" if row["lead"] > 0 else "chaser" if row["lead"] < 0 else "level")
    mine = row["remaining"][row["seat"]]
    kinds.append("dice 1-2" if mine <= 2 else "dice 3-4" if mine <= 4 else "dice 5-6")
    kinds.append(f"placed {min(row['placed'], 3)}")
    kinds.append("next starter" if row["next_starter"] else "not next starter")
    kinds.append("others left 0" if row["others_left"] == 0 else "others hold dice")
    kinds.append("tied tables" if row["tied_tables"] else "no tied table")
    return kinds


def order(games: int, first: int, level: int) -> None:
    """What a seat gains in a round by its place in the round's order (first to roll, second,
    third), in points and prospect, over seeded self-play of ``level``; and how many pieces tied
    tables leave."""
    gains: dict[int, list[float]] = defaultdict(list)
    worths: dict[int, list[float]] = defaultdict(list)
    left: list[int] = []
    for seed in range(first, first + games):
        rng = random.Random(seed)
        state = ENGINE.new_game(PLAYERS)
        before = state
        while not ENGINE.is_over(state):
            [seat] = ENGINE.to_move(state)
            if seat == CHANCE:
                if state["phase"] == "serve":
                    before = state
                move: Any = ENGINE.sample_chance(state, rng)
            else:
                move = ENGINE.bot_move(ENGINE.view(state, seat), rng, level)
            state = ENGINE.apply(state, seat, move)
            if state["phase"] in ("serve", "over") and before["phase"] == "serve":
                starter = before["round"] % PLAYERS
                for s in range(PLAYERS):
                    place = (s - starter) % PLAYERS
                    gains[place].append(state["scores"][s] - before["scores"][s])
                    worths[place].append(
                        cafe_fatal_bot.prospect(state["held"][s])
                        - cafe_fatal_bot.prospect(before["held"][s])
                    )
                if state["phase"] == "serve":
                    left.append(sum(sum(t.values()) for t in state["tables"]))
                before = state
    for place in sorted(gains):
        print(
            f"place {place + 1} in the round: points {statistics.fmean(gains[place]):.2f}, "
            f"prospect {statistics.fmean(worths[place]):.2f} over {len(gains[place])} rounds"
        )
    print(f"pieces left on tied tables after a round: mean {statistics.fmean(left):.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("collect", "report", "order"))
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--worlds", type=int, default=400)
    parser.add_argument("--candidates", type=int, default=5)
    parser.add_argument("--won-too", action="store_true", help="collect: judge won games too")
    parser.add_argument("--level", type=int, default=1, help="order: the self-play's level")
    args = parser.parse_args()
    if args.mode == "order":
        order(args.games, args.first_seed, args.level)
        return
    if args.mode == "report":
        report(args.paths)
        return
    collect(
        args.first_seed, args.games, args.iterations, args.worlds, args.candidates, args.won_too
    )


if __name__ == "__main__":
    main()
