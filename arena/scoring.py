"""Arena points, the fire streak, performance and the order of the standings (spec/arena.md).

Pure: no Django, no clock. Ranks are competition ranks (1 is best; tied seats share a rank).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: Outright wins in a row after which a player is on fire (their points are doubled).
FIRE_AFTER = 2
#: How far one result moves a performance away from the opponent's rating (the classical linear
#: performance: a win counts as the opponent's rating + 400, a loss as − 400, a tie as equal).
PERFORMANCE_SPREAD = 400.0


@dataclass(frozen=True)
class Score:
    """One player's result of one arena match."""

    points: int
    #: The points were doubled (the player was on fire when the match began).
    doubled: bool
    #: Outright wins in a row after this match.
    streak: int


def base_points(ranks: Sequence[int], seat: int) -> int:
    """2 for each opponent finished ahead of, 1 for each opponent sharing the seat's rank."""
    mine = ranks[seat]
    ahead = sum(1 for i, r in enumerate(ranks) if i != seat and r > mine)
    shared = sum(1 for i, r in enumerate(ranks) if i != seat and r == mine)
    return 2 * ahead + shared


def is_outright_win(ranks: Sequence[int], seat: int) -> bool:
    """First and alone: a shared first place is not a win for the fire streak."""
    return ranks[seat] == 1 and sum(1 for r in ranks if r == 1) == 1


def on_fire(streak: int) -> bool:
    return streak >= FIRE_AFTER


def score(ranks: Sequence[int], seat: int, streak: int, abandoned: bool = False) -> Score:
    """The seat's points for the match given its streak before it. The match that ends a streak
    is still doubled (the player was on fire when it began); an abandoner scores nothing."""
    if abandoned:
        return Score(points=0, doubled=False, streak=0)
    doubled = on_fire(streak)
    points = base_points(ranks, seat) * (2 if doubled else 1)
    new_streak = streak + 1 if is_outright_win(ranks, seat) else 0
    return Score(points=points, doubled=doubled, streak=new_streak)


def score_table(
    ranks: Sequence[int], streaks: Sequence[int], abandoned: Sequence[bool] | None = None
) -> list[Score]:
    """Every seat's score for one match."""
    gone = abandoned or [False] * len(ranks)
    return [score(ranks, seat, streaks[seat], gone[seat]) for seat in range(len(ranks))]


def performance_terms(ranks: Sequence[int], ratings: Sequence[float], seat: int) -> float:
    """The seat's sum, over its opponents, of the opponent's rating moved by the result between
    them: + 400 for finishing ahead, − 400 for behind, ± 0 for a shared rank. A performance is the
    sum of these terms over an arena divided by the number of opponents met."""
    total = 0.0
    for other, rating in enumerate(ratings):
        if other == seat:
            continue
        if ranks[seat] < ranks[other]:
            total += rating + PERFORMANCE_SPREAD
        elif ranks[seat] > ranks[other]:
            total += rating - PERFORMANCE_SPREAD
        else:
            total += rating
    return total


def performance(term_sum: float, opponents: int) -> float | None:
    """None before the first match: a player who has not played has no performance."""
    return term_sum / opponents if opponents else None


def standing_key(points: int, perf: float | None, tiebreak: object) -> tuple:
    """Sort key of the standings: points, then performance (players without one after those with
    one), then ``tiebreak`` (for example the time of joining) so the order is stable."""
    return (-points, perf is None, -(perf or 0.0), tiebreak)
