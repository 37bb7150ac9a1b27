"""Seating an arena's waiting players at tables of n (spec/arena.md). Pure: no Django, no clock.

How a round of seating works:

1. Fewer than n waiting: nobody is seated.
2. ``k = len(waiting) // n`` tables are formed. The players left over (fewer than n) are those
   who have waited least; a player who has waited ``max_wait`` or more is never left over while
   someone who waited less is seated. Left-over players simply keep waiting for the next round.
3. The players to seat are sorted by standing (points, then rating) and cut into consecutive
   groups of n, so that players of similar standing meet.
4. Groups that contain players who sat together at their last table are improved by swapping a
   player with a nearby group (or with a left-over player who is not overdue) when a swap lowers
   the number of such repeated pairs; among equal improvements the closest in standing wins.
5. A group that is exactly the table that just played together, with nobody overdue, is held
   back: its players keep waiting for someone else to arrive, but never longer than ``max_wait``.
   So a bounded wait is the only price of avoiding a rematch.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

#: Seconds after which a waiting player is seated as soon as enough players wait.
MAX_WAIT = 20.0
#: How many groups on each side a swap looks at: near enough to keep standings together.
SWAP_REACH = 2


@dataclass(frozen=True)
class Waiting:
    player: Hashable
    points: int
    rating: float
    #: Seconds since this player started waiting.
    waited: float = 0.0
    #: The players of this player's last table in the arena (themselves included), if any.
    last_table: frozenset = field(default_factory=frozenset)


def pair(waiting: Sequence[Waiting], seats: int, max_wait: float = MAX_WAIT) -> list[list]:
    """The tables to open now, each a list of players, best standing first."""
    if seats < 1 or len(waiting) < seats:
        return []
    chosen, spare = _choose(waiting, seats, max_wait)
    order = {w.player: i for i, w in enumerate(sorted(waiting, key=_standing))}
    groups = [chosen[i : i + seats] for i in range(0, len(chosen), seats)]
    _avoid_rematches(groups, spare, order, max_wait)
    return [
        [w.player for w in sorted(group, key=_standing)]
        for group in groups
        if not _hold_back(group, max_wait)
    ]


def _standing(w: Waiting) -> tuple:
    return (-w.points, -w.rating, str(w.player))


def _choose(
    waiting: Sequence[Waiting], seats: int, max_wait: float
) -> tuple[list[Waiting], list[Waiting]]:
    """Who is seated this round (sorted by standing) and who is left over."""
    count = len(waiting) // seats * seats
    by_patience = sorted(waiting, key=lambda w: (w.waited < max_wait, -w.waited, _standing(w)))
    return sorted(by_patience[:count], key=_standing), list(by_patience[count:])


def _repeats(group: Sequence[Waiting]) -> int:
    """Pairs in the group who sat together at their last table."""
    return sum(1 for i, a in enumerate(group) for b in group[i + 1 :] if b.player in a.last_table)


def _avoid_rematches(
    groups: list[list[Waiting]], spare: list[Waiting], order: dict, max_wait: float
) -> None:
    # Every accepted swap lowers the total of repeated pairs, so the passes end.
    improved = True
    while improved:
        improved = False
        for index in range(len(groups)):
            while _repeats(groups[index]) and _best_swap(groups, spare, index, order, max_wait):
                improved = True


def _best_swap(
    groups: list[list[Waiting]], spare: list[Waiting], index: int, order: dict, max_wait: float
) -> bool:
    """Make the swap of a player of ``groups[index]`` that lowers repeated pairs most; False if
    no swap helps."""
    group = groups[index]
    best: tuple | None = None
    neighbours = [
        groups[j]
        for j in range(max(0, index - SWAP_REACH), min(len(groups), index + SWAP_REACH + 1))
        if j != index
    ]
    for other in [*neighbours, spare]:
        leaving_to_spare = other is spare
        before = _repeats(group) + (0 if leaving_to_spare else _repeats(other))
        for a_pos, a in enumerate(group):
            if leaving_to_spare and a.waited >= max_wait:
                continue  # an overdue player is never sent back to wait
            for b_pos, b in enumerate(other):
                new_group = [*group[:a_pos], b, *group[a_pos + 1 :]]
                after = _repeats(new_group)
                if not leaving_to_spare:
                    after += _repeats([*other[:b_pos], a, *other[b_pos + 1 :]])
                gain = before - after
                if gain <= 0:
                    continue
                candidate = (-gain, abs(order[a.player] - order[b.player]), a_pos, b_pos)
                if best is None or candidate < best[0]:
                    best = (candidate, other, a_pos, b_pos)
    if best is None:
        return False
    _, other, a_pos, b_pos = best
    group[a_pos], other[b_pos] = other[b_pos], group[a_pos]
    return True


def _hold_back(group: Sequence[Waiting], max_wait: float) -> bool:
    """The very table that just played, nobody overdue: let them wait for fresh opponents."""
    players = frozenset(w.player for w in group)
    return all(w.last_table == players for w in group) and all(w.waited < max_wait for w in group)
