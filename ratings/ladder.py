"""Read side of the ladder: pages of a game's rankings, a player's standing and rating history,
their recent matches. Every function answers in a fixed number of queries, however many players
or matches there are (the profile and rankings pages count on it)."""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from itertools import accumulate
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Count, F, OuterRef, Subquery, Window
from django.db.models.functions import RowNumber
from django.utils.translation import gettext_lazy as _

from games.models import Match

from .models import Rating, RatingChange

PAGE_SIZE = 50
#: Matches shown per game in a rating-history chart: enough to see a trend, few enough that the
#: SVG stays small for a player with thousands of matches.
HISTORY_POINTS = 100
RECENT_MATCHES = 10
#: Fewer rated matches than this and a rating is provisional (still moving fast, K = 60).
PROVISIONAL_BELOW = 10
SEARCH_MAX_LENGTH = 150

#: (upper bound, label): a level is the first whose bound is above the rating.
LEVELS: tuple[tuple[float, Any], ...] = (
    (1300, _("Commis")),
    (1500, _("Chef de partie")),
    (1700, _("Sous-chef")),
    (1900, _("Chef")),
    (math.inf, _("Grand chef")),
)


def level_for(value: float) -> str:
    """The kitchen rank of a rating (the displayed, rounded value decides)."""
    shown = round(value)
    return next(str(label) for bound, label in LEVELS if shown < bound)


class ShownRating:
    """How a rating is shown: rounded, provisional while young, with its level."""

    value: float
    matches: int

    @property
    def elo(self) -> int:
        return round(self.value)

    @property
    def provisional(self) -> bool:
        return self.matches < PROVISIONAL_BELOW

    @property
    def level(self) -> str:
        return level_for(self.value)


@dataclass(frozen=True)
class LadderRow(ShownRating):
    rank: int
    user_id: int
    username: str
    value: float
    matches: int
    wins: int


@dataclass(frozen=True)
class LadderPage:
    game: str
    number: int
    pages: int
    total: int
    rows: list[LadderRow]

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def has_next(self) -> bool:
        return self.number < self.pages


def clean_search(text: str | None) -> str:
    return (text or "").strip()[:SEARCH_MAX_LENGTH]


def ladder_page(
    game: str,
    page: int = 1,
    *,
    search: str = "",
    only_user_ids: Collection[int] | None = None,
    size: int = PAGE_SIZE,
) -> LadderPage:
    """Page ``page`` (clamped to the pages there are) of ``game``'s ladder, best first, in at most
    three queries. ``search`` keeps names containing it; ``only_user_ids`` keeps those players
    (friends). Ranks are always ranks on the whole ladder, and tied ratings share a rank."""
    query = Rating.objects.filter(game=game)
    filtered = bool(search) or only_user_ids is not None
    if search:
        # Matching names first (one pass over auth_user), then their ratings: joining each
        # rating to its user to test the name costs a random read per rating instead.
        names = get_user_model().objects.filter(username__icontains=search).values("pk")
        query = query.filter(user_id__in=Subquery(names))
    if only_user_ids is not None:
        query = query.filter(user_id__in=list(only_user_ids))
    total = query.count()
    pages = max(1, math.ceil(total / size))
    number = min(max(page, 1), pages)
    offset = (number - 1) * size
    # The id breaks ties so that pages neither repeat nor skip anyone. The whole ladder is walked
    # in the order of its (game, -value, id) index: no sort.
    order: tuple[Any, ...] = ("-value", "id")
    if filtered:
        # Searched or friends' ratings are fetched through the filter and sorted: walking the
        # ladder in order and testing each player costs a random read per rating passed, so a
        # deep page or a rare name would read most of the ladder. Ordering by ``value + 0``
        # keeps SQLite, which has no statistics to see this, off the index.
        order = ((F("value") + 0).desc(), "id")
    # Only ids are skipped through (from the index alone); the page's rows are read afterwards.
    page_ids = query.order_by(*order).values("id")[offset : offset + size]
    rows = (
        list(
            Rating.objects.filter(pk__in=Subquery(page_ids))
            .order_by("-value", "id")
            .values_list("id", "user_id", "user__username", "value", "matches", "wins")
        )
        if total
        else []
    )
    if not rows:
        ranks: list[int] = []
    elif filtered:
        ranks = _ladder_ranks(game, rows)
    else:
        ranks = _consecutive_ranks(game, rows, offset)
    return LadderPage(
        game=game,
        number=number,
        pages=pages,
        total=total,
        rows=[
            LadderRow(rank, user_id, username, value, matches, wins)
            for rank, (_id, user_id, username, value, matches, wins) in zip(
                ranks, rows, strict=True
            )
        ],
    )


def _consecutive_ranks(game: str, rows: list[tuple], offset: int) -> list[int]:
    """Ranks of a slice of the whole ladder: a row ranks by its position unless it ties with the
    row above it. Only the first row may tie with a row on the page before, so only its rank needs
    counting."""
    ranks = [1 if offset == 0 else rank_of(game, rows[0][3])]
    for i in range(1, len(rows)):
        tied = rows[i][3] == rows[i - 1][3]
        ranks.append(ranks[-1] if tied else offset + i + 1)
    return ranks


def _ladder_ranks(game: str, rows: list[tuple]) -> list[int]:
    """Whole-ladder ranks of scattered rows (a search, friends) in one query. Between each two
    consecutive ratings of the page, one count on the ladder index: together they read
    the index once down to the page's lowest rating, where RANK() over that part of the ladder
    would also sort it, or a count per row would read its top again and again. Written as SQL
    because fifty ORM subqueries take longer to build and compile than to run."""
    values = sorted({row[3] for row in rows}, reverse=True)
    table = connection.ops.quote_name(Rating._meta.db_table)
    counts, params = [], []
    for i, value in enumerate(values):
        between = f"(SELECT COUNT(*) FROM {table} WHERE game = %s AND value > %s"
        params += [game, value]
        if i:
            between += " AND value <= %s"
            params.append(values[i - 1])
        counts.append(between + ")")
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {', '.join(counts)}", params)
        found = cursor.fetchone()
    # Everyone above a rating is everyone above the previous one plus those in between.
    rank_by_value = {
        value: above + 1 for value, above in zip(values, accumulate(found), strict=True)
    }
    return [rank_by_value[row[3]] for row in rows]


def page_of(rank: int) -> int:
    """The ladder page showing a rank (a tie straddling a page break may push a player onto the
    next one)."""
    return (rank - 1) // PAGE_SIZE + 1


def rank_of(game: str, value: float) -> int:
    """The ladder rank a rating of ``value`` has in ``game`` (ties share the best rank)."""
    return Rating.objects.filter(game=game, value__gt=value).count() + 1


@dataclass(frozen=True)
class Standing(ShownRating):
    """A player's rating in one game, with their place on its ladder."""

    game: str
    value: float
    matches: int
    wins: int
    rank: int


def standings(user: Any) -> dict[str, Standing]:
    """The player's rating in every game they are rated in, with ladder ranks, in one query (each
    rank is a count on the ladder index)."""
    above = (
        Rating.objects.filter(game=OuterRef("game"), value__gt=OuterRef("value"))
        .order_by()
        .values("game")
        .annotate(n=Count("id"))
        .values("n")
    )
    rows = (
        Rating.objects.filter(user=user)
        .annotate(above=Subquery(above))
        .order_by("game")
        .values_list("game", "value", "matches", "wins", "above")
    )
    return {
        game: Standing(game, value, matches, wins, (above or 0) + 1)
        for game, value, matches, wins, above in rows
    }


def rating_history(
    user: Any, per_game: int = HISTORY_POINTS
) -> dict[str, list[tuple[datetime, float]]]:
    """The player's rating after each of their last ``per_game`` rated matches of each game,
    oldest first, in one query."""
    rows = (
        RatingChange.objects.filter(user=user)
        .annotate(
            newest=Window(
                RowNumber(),
                partition_by=[F("game")],
                order_by=[F("created_at").desc(), F("id").desc()],
            )
        )
        .filter(newest__lte=per_game)
        .order_by("game", "created_at", "id")
        .values_list("game", "created_at", "after")
    )
    history: dict[str, list[tuple[datetime, float]]] = {}
    for game, when, after in rows:
        history.setdefault(game, []).append((when, after))
    return history


def recent_matches(user: Any, limit: int = RECENT_MATCHES) -> list[Match]:
    """The player's last finished public matches, newest first, with their seats and players
    (three queries). Each match carries ``rating_delta``: the player's rating change in it, or
    None for a friendly match."""
    delta = RatingChange.objects.filter(match=OuterRef("pk"), user=user).values("delta")[:1]
    return list(
        Match.objects.filter(seats__user=user, status=Match.Status.FINISHED, private=False)
        .annotate(rating_delta=Subquery(delta))
        .prefetch_related("seats__user")
        .order_by("-finished_at", "-pk")[:limit]
    )
