"""The schedule of recurring arenas (spec/arena.md). Pure: no Django; the caller passes the time.

Each occurrence has a key that depends only on its rule, its game and its start, so the worker
can compute the plan as often as it likes, from as many processes as it likes, and the database's
unique key on it makes creating an occurrence twice impossible.

The default plan: every game has an hourly 30-minute arena on the hour, and a daily 2-hour arena
at 19:00 UTC. An hourly arena that would overlap the game's daily one is left out, so the players
of a game are not split between two arenas at once.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

HORIZON = timedelta(hours=6)
EPOCH = datetime(2000, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class GameSlot:
    """A game as the schedule sees it."""

    game: str
    name: str
    seats: int


@dataclass(frozen=True)
class Rule:
    """A recurring arena: every ``every`` (from midnight UTC plus ``offset``), ``minutes`` long.
    A rule with a higher ``priority`` wins an overlap with a lower one of the same game."""

    kind: str
    title: str
    minutes: int
    every: timedelta
    offset: timedelta = timedelta(0)
    priority: int = 0


@dataclass(frozen=True)
class Occurrence:
    key: str
    game: str
    name: str
    starts_at: datetime
    minutes: int
    seats: int
    priority: int = 0

    @property
    def ends_at(self) -> datetime:
        return self.starts_at + timedelta(minutes=self.minutes)

    def overlaps(self, other: Occurrence) -> bool:
        return self.starts_at < other.ends_at and other.starts_at < self.ends_at


HOURLY = Rule("hourly", "Hourly {game} arena", minutes=30, every=timedelta(hours=1))
DAILY = Rule(
    "daily",
    "Daily {game} arena",
    minutes=120,
    every=timedelta(days=1),
    offset=timedelta(hours=19),
    priority=1,
)
DEFAULT_RULES = (HOURLY, DAILY)


def occurrence_key(rule: Rule, game: str, starts_at: datetime) -> str:
    return f"{rule.kind}:{game}:{starts_at.astimezone(UTC):%Y-%m-%dT%H:%MZ}"


def plan(
    games: Sequence[GameSlot],
    now: datetime,
    horizon: timedelta = HORIZON,
    rules: Sequence[Rule] = DEFAULT_RULES,
) -> list[Occurrence]:
    """The arenas starting in ``[now, now + horizon)``, by start then key. An occurrence that
    overlaps a higher-priority one of the same game is left out (even when that one starts
    beyond the horizon, so that the plan of a later hour never contradicts an earlier one)."""
    if now.tzinfo is None:
        raise ValueError("the schedule needs an aware datetime")
    found: list[Occurrence] = []
    for slot in games:
        # Look one longest-arena back and forth so overlaps at the window's edges are seen.
        reach = max((timedelta(minutes=r.minutes) for r in rules), default=timedelta(0))
        candidates = [
            occ
            for rule in rules
            for occ in _occurrences(rule, slot, now - reach, now + horizon + reach)
        ]
        found.extend(
            occ
            for occ in candidates
            if now <= occ.starts_at < now + horizon
            and not any(o.priority > occ.priority and o.overlaps(occ) for o in candidates)
        )
    return sorted(found, key=lambda o: (o.starts_at, o.key))


def _occurrences(
    rule: Rule, slot: GameSlot, start: datetime, end: datetime
) -> Iterator[Occurrence]:
    """The rule's starts in ``[start, end)``, counted from a fixed midnight so that every call
    agrees on them."""
    anchor = EPOCH + rule.offset
    first = anchor + -((anchor - start) // rule.every) * rule.every  # the first start ≥ start
    when = first
    while when < end:
        yield Occurrence(
            key=occurrence_key(rule, slot.game, when),
            game=slot.game,
            name=rule.title.format(game=slot.name),
            starts_at=when,
            minutes=rule.minutes,
            seats=slot.seats,
            priority=rule.priority,
        )
        when += rule.every
