"""Read side of the ladder: pages of a game's rankings, a player's standing and rating history,
their recent matches. Every function answers in a fixed number of queries, however many players
or matches there are (the profile and rankings pages count on it)."""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any
from urllib.parse import quote

from django.db import connection
from django.db.models import OuterRef, Prefetch, QuerySet, Subquery
from django.utils.translation import gettext_lazy as _

from games.models import Match, Seat
from pdc_site.links import around_argument

from .kept import KeptInProcess
from .models import LadderBucket, LadderChange, Rating, RatingChange

PAGE_SIZE = 50
#: Matches shown per game in a rating-history chart: enough to see a trend, few enough that the
#: SVG stays small for a player with thousands of matches.
HISTORY_POINTS = 100
RECENT_MATCHES = 10
#: Fewer rated matches than this and a rating is provisional (still moving fast, K = 60).
PROVISIONAL_BELOW = 10
SEARCH_MAX_LENGTH = 150
#: A search shows at most this many players, the best first (20 pages): it is for finding
#: someone, and counting every name that contains "a" would read the whole ladder.
SEARCH_LIMIT = 1000

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

    @property
    def profile_url(self) -> str:
        return profile_url(self.username)


def profile_url(username: str) -> str:
    """What ``{% url 'profile' username %}`` gives, without reversing fifty times a page."""
    prefix, suffix = _profile_url_parts()
    return prefix + quote(username, safe=URL_SAFE) + suffix


def profile_urls() -> Callable[[str], str]:
    """``profile_url`` for many players: the links' prefix looked up once rather than once a
    player (a profile's recent matches link some twenty opponents)."""
    prefix, suffix = _profile_url_parts()
    return lambda username: prefix + quote(username, safe=URL_SAFE) + suffix


#: What ``reverse()`` leaves unquoted in a path argument.
URL_SAFE = "!$&'()*+,;=/~:@"


def _profile_url_parts() -> tuple[str, str]:
    return around_argument("profile", "PROFILE-NAME")


def display_rows(rows: list[LadderRow]) -> list[dict[str, Any]]:
    """What the ladder's table prints of each row, as plain dictionaries: the template engine
    finds a key of a dictionary at once, where an attribute costs it a failed lookup first, and
    the levels are translated once for the page rather than once a row."""
    levels = [(bound, str(label)) for bound, label in LEVELS]
    prefix, suffix = _profile_url_parts()
    return [
        {
            "rank": row.rank,
            "user_id": row.user_id,
            "username": row.username,
            "profile_url": prefix + quote(row.username, safe=URL_SAFE) + suffix,
            "elo": row.elo,
            "provisional": row.provisional,
            "level": next(label for bound, label in levels if row.elo < bound),
            "matches": row.matches,
            "wins": row.wins,
        }
        for row in rows
    ]


@dataclass(frozen=True)
class LadderPage:
    game: str
    number: int
    pages: int
    #: Players on all the pages.
    total: int
    rows: list[LadderRow]
    #: A search matched more than ``SEARCH_LIMIT`` players: only the best of them are shown.
    capped: bool = False
    #: Where the viewer stands on the whole ladder (None when they are not rated in the game).
    mine: Standing | None = None

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
    only_user_ids: Collection[int] | QuerySet | None = None,
    size: int = PAGE_SIZE,
    viewer_id: int | None = None,
) -> LadderPage:
    """Page ``page`` (clamped to the pages there are) of ``game``'s ladder, best first, however
    long the ladder and however deep the page: one query (three past the last page of the whole
    ladder). ``search`` keeps names containing it (the best ``SEARCH_LIMIT`` of them);
    ``only_user_ids`` (ids, or a subquery of them) keeps those players (friends). Ranks are
    always ranks on the whole ladder, and tied ratings share a rank. The same query says where
    ``viewer_id`` stands (``mine``)."""
    query = page_query(
        game, page, search=search, only_user_ids=only_user_ids, size=size, viewer_id=viewer_id
    )
    sql, params = query.statement
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return query.finish(cursor.fetchall())


@dataclass(frozen=True)
class PageQuery:
    """The query of a ladder page, for a caller that may send it with other reads, and what
    makes the page of its rows (``finish``; it may read more past the last page)."""

    statement: tuple[str, list[Any]]
    finish: Callable[[list[tuple]], LadderPage]


#: A query that finds nothing, for a page that needs none (a friends' page without friends).
NOTHING = ("SELECT 1 WHERE 1 = 0", [])


def page_query(
    game: str,
    page: int = 1,
    *,
    search: str = "",
    only_user_ids: Collection[int] | QuerySet | None = None,
    size: int = PAGE_SIZE,
    viewer_id: int | None = None,
) -> PageQuery:
    """``ladder_page`` in two steps: its query, then its page from the query's rows."""
    if search or only_user_ids is not None:
        return _filtered_page_query(game, page, search, only_user_ids, size, viewer_id)
    number = max(page, 1)

    def finish(found: list[tuple]) -> LadderPage:
        return _plain_page(game, number, size, viewer_id, _ladder_slice_from(game, found))

    return PageQuery(_ladder_slice_sql(game, (number - 1) * size, size, viewer_id), finish)


def _plain_page(
    game: str,
    number: int,
    size: int,
    viewer_id: int | None,
    read: tuple[int, list[tuple], int, Standing | None],
) -> LadderPage:
    total, rows, tied_before, mine = read
    if not rows and number > 1:
        # Past the last page (a stale link): show the last page there is.
        number, offset, pages = _clamped(number, ladder_size(game), size)
        total, rows, tied_before, mine = _ladder_slice(game, offset, size, viewer_id)
    number, offset, pages = _clamped(number, total, size)
    ranks = _consecutive_ranks(rows, offset, tied_before)
    return _page(game, number, pages, total, rows, ranks, mine=mine)


def _clamped(page: int, total: int, size: int) -> tuple[int, int, int]:
    pages = max(1, math.ceil(total / size))
    number = min(max(page, 1), pages)
    return number, (number - 1) * size, pages


def _page(
    game: str,
    number: int,
    pages: int,
    total: int,
    rows: list[tuple],
    ranks: list[int],
    capped: bool = False,
    mine: Standing | None = None,
) -> LadderPage:
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
        capped=capped,
        mine=mine,
    )


ROW_FIELDS = ("id", "user_id", "name", "value", "matches", "wins")


def _buckets() -> str:
    return connection.ops.quote_name(LadderBucket._meta.db_table)


def _ratings() -> str:
    return connection.ops.quote_name(Rating._meta.db_table)


def _changes_table() -> str:
    return connection.ops.quote_name(LadderChange._meta.db_table)


def _viewer_sql() -> str:
    """A CTE ``mine`` with the viewer's rating in the game and its rank (``%s``: the game, the
    viewer's id, the game), the way ``standings`` ranks it; no row for a viewer not rated. The
    bucket is compared as an integer (the column's type): compared as a double, PostgreSQL read
    every bucket row of the game instead of walking their index from it."""
    floor = _floor_sql("m.value")
    return f"""mine AS (
            SELECT m.value AS mine_value, m.matches AS mine_matches, m.wins AS mine_wins,
                (SELECT COALESCE(SUM(b.players), 0) FROM {_buckets()} b
                 WHERE b.game = %s AND b.bucket > CAST({floor} AS INTEGER))
                + (SELECT COUNT(*) FROM {_ratings()} o
                   WHERE o.game = m.game AND o.value > m.value AND o.value < {floor} + 1)
                + 1 AS mine_rank
            FROM {_ratings()} m WHERE m.user_id = %s AND m.game = %s
        )"""


def _viewer_standing(game: str, columns: tuple) -> Standing | None:
    value, matches, wins, rank = columns
    if value is None:
        return None
    return Standing(game, value, matches, wins, int(rank))


def ladder_size(game: str) -> int:
    """How many players are rated in ``game``: a sum of the bucket counts."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT COALESCE(SUM(players), 0) FROM {_buckets()} WHERE game = %s", [game]
        )
        return int(cursor.fetchone()[0])


def _ladder_slice(
    game: str, offset: int, size: int, viewer_id: int | None = None
) -> tuple[int, list[tuple], int, Standing | None]:
    """The players on the ladder, ``size`` rows of it from position ``offset`` (0 first), and how
    many rows before the first one tie with it, in one query. The bucket counts, added up best
    first, say in which whole Elo point the position falls and how many players are above that
    point; the index is then walked from that point only, skipping no more than the players of one
    bucket (a few hundred at most) instead of ``offset``. Only ids are skipped through (from the
    index alone); the page's rows are read afterwards. No rows past the end of the ladder (and
    then no viewer's standing either)."""
    sql, params = _ladder_slice_sql(game, offset, size, viewer_id)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return _ladder_slice_from(game, cursor.fetchall())


def _ladder_slice_sql(
    game: str, offset: int, size: int, viewer_id: int | None
) -> tuple[str, list[Any]]:
    fields = ", ".join(f"r.{connection.ops.quote_name(f)}" for f in ROW_FIELDS)
    sql = f"""
        WITH counts AS (
            SELECT bucket, SUM(players) AS n FROM {_buckets()} WHERE game = %s GROUP BY bucket
        ), running AS (
            SELECT bucket, n, SUM(n) OVER (ORDER BY bucket DESC) - n AS above FROM counts
        ), start AS (
            SELECT bucket, above FROM running WHERE above + n > %s ORDER BY bucket DESC LIMIT 1
        ), page AS (
            SELECT id FROM {_ratings()}
            WHERE game = %s AND value < (SELECT bucket + 1 FROM start)
            ORDER BY value DESC, id
            LIMIT %s OFFSET COALESCE((SELECT %s - above FROM start), 0)
        ), first AS (
            SELECT id, value FROM {_ratings()} WHERE id IN (SELECT id FROM page)
            ORDER BY value DESC, id LIMIT 1
        ), {_viewer_sql()}
        SELECT {fields},
            (SELECT SUM(n) FROM counts),
            (SELECT COUNT(*) FROM {_ratings()} t, first
             WHERE t.game = %s AND t.value = first.value AND t.id < first.id),
            mine.*
        FROM {_ratings()} r LEFT JOIN mine ON 1 = 1
        WHERE r.id IN (SELECT id FROM page)
        ORDER BY r.value DESC, r.id
    """
    params = [game, offset, game, size, offset, game, viewer_id, game, game]
    return sql, params


def _ladder_slice_from(
    game: str, found: list[tuple]
) -> tuple[int, list[tuple], int, Standing | None]:
    if not found:
        return 0, [], 0, None
    first = found[0]
    rows = [row[: len(ROW_FIELDS)] for row in found]
    total, tied_before = first[len(ROW_FIELDS)], first[len(ROW_FIELDS) + 1]
    mine = _viewer_standing(game, first[len(ROW_FIELDS) + 2 :])
    return int(total), rows, int(tied_before), mine


#: Pages past this are treated as this one (then clamped to the last page there is): a page
#: number typed by hand stays within what the database's integers hold.
MAX_PAGE = 10**9


def _filtered_page_query(
    game: str,
    page: int,
    search: str,
    only_user_ids: Collection[int] | QuerySet | None,
    size: int,
    viewer_id: int | None,
) -> PageQuery:
    """A page of the players kept by a search or a set of ids, with whole-ladder ranks, in one
    query. The matches are read in no order (a rare name once, through the trigram index on
    PostgreSQL) and counted; a search stops counting past ``SEARCH_LIMIT``, since to count every
    name containing "a" would read the whole ladder. The asked page is clamped to the pages there
    are inside the query, so a stale link costs nothing more."""
    if only_user_ids is not None and not isinstance(only_user_ids, QuerySet) and not only_user_ids:
        return PageQuery(
            NOTHING,
            lambda _found: _page(game, 1, 1, 0, [], [], mine=_standing(game, viewer_id)),
        )
    limit = SEARCH_LIMIT if search else None
    matched = _matched(game, search, only_user_ids)
    offset = (min(max(page, 1), MAX_PAGE) - 1) * size

    def finish(found: list[tuple]) -> LadderPage:
        rows, total, mine = _filtered_rows_from(game, found)
        shown = min(total, limit) if limit else total
        number, start, pages = _clamped(page, shown, size)
        # Past the cap, the query reads a whole page: the best ``limit`` end within it.
        rows = rows[: shown - start]
        ranks = [rank for *_row, rank in rows]
        rows = [tuple(row[:-1]) for row in rows]
        return _page(game, number, pages, shown, rows, ranks, capped=shown < total, mine=mine)

    return PageQuery(_filtered_rows_sql(game, matched, limit, offset, size, viewer_id), finish)


def _matched(
    game: str, search: str, only_user_ids: Collection[int] | QuerySet | None
) -> QuerySet | tuple[str, list[Any]]:
    """The ratings a filtered page keeps, as ``id`` and ``value``: a queryset, or raw SQL for
    a list of players on PostgreSQL (``_among_users_sql``)."""
    listed = isinstance(only_user_ids, Collection) and not isinstance(only_user_ids, QuerySet)
    if listed and not search and connection.vendor == "postgresql":
        return _among_users_sql(game, only_user_ids)
    query = Rating.objects.filter(game=game)
    if search:
        query = query.filter(name__icontains=search)
    if isinstance(only_user_ids, QuerySet):
        # A subquery (friends): it runs inside this page's one query.
        query = query.filter(user_id__in=only_user_ids)
    elif only_user_ids is not None:
        query = query.filter(user_id__in=list(only_user_ids))
    return query.order_by().values("id", "value")


def _among_users_sql(game: str, user_ids: Collection[int]) -> tuple[str, list[Any]]:
    """``id`` and ``value`` of the ratings of ``game`` held by ``user_ids`` (friends), as
    PostgreSQL SQL with the ids as one array: the ORM's ``IN`` with a parameter per friend cost
    more to build and to bind (0.8 and 1.7 ms of CPU for 150 friends) than PostgreSQL took to
    run the page."""
    sql = f"SELECT id, value FROM {_ratings()} WHERE game = %s AND user_id = ANY(%s)"
    return sql, [game, sorted(user_ids)]


def _filtered_rows_sql(
    game: str, matched: Any, limit: int | None, offset: int, size: int, viewer_id: int | None
) -> tuple[str, list[Any]]:
    """The query of the rows (``ROW_FIELDS`` and their rank) of one page of the ratings
    ``matched`` selects (a queryset, or raw SQL without a limit), best first, and how many it
    selects (at most ``limit`` + 1, all without a limit); the page starts at ``offset``, or on
    the last page when there are fewer.

    When no more than ``limit`` match, the page is sorted from those already read; past it, only
    the best ``limit`` count, and the page is found by walking the ladder's index in order and
    testing each name it holds (no row is read), a few times the page's length at most. Each
    row's rank adds the players of the buckets above its own (running sums of the bucket counts)
    to those above it in its own bucket (a few, counted on the index)."""
    if isinstance(matched, tuple):  # raw SQL and its parameters, without a limit
        (found_sql, found_params), (best_sql, best_params) = matched, matched
    else:
        found = matched[: limit + 1] if limit else matched
        found_sql, found_params = found.query.sql_with_params()
        best_sql, best_params = matched.query.sql_with_params()
    cap = limit if limit is not None else "n"
    fields = ", ".join(f"r.{connection.ops.quote_name(f)}" for f in ROW_FIELDS)
    bucket = _floor_sql("r.value")
    # PostgreSQL skips the branch that is not taken (its WHERE is a one-time filter) and plans
    # better with a constant LIMIT; SQLite would still walk the whole ladder testing that WHERE
    # on every row, but stops at once on a LIMIT of 0.
    many_limit = "%s"
    if connection.vendor != "postgresql":
        many_limit = "CASE WHEN (SELECT capped FROM window_) THEN %s ELSE 0 END"
    sql = f"""
        WITH found AS ({found_sql}),
        total AS (SELECT COUNT(*) AS n FROM found),
        shown AS (SELECT n, CASE WHEN n > {cap} THEN {cap} ELSE n END AS n_shown FROM total),
        last AS (
            SELECT n, n_shown, CASE WHEN n_shown = 0 THEN 0
                ELSE ((n_shown + %s - 1) / %s - 1) * %s END AS start FROM shown
        ), here AS (
            SELECT n, n_shown, CASE WHEN %s < start THEN %s ELSE start END AS start FROM last
        ), window_ AS (
            SELECT n > n_shown AS capped, start FROM here
        ), page AS (
            SELECT id FROM (
                SELECT id, value FROM found WHERE NOT (SELECT capped FROM window_)
                ORDER BY value DESC, id
                LIMIT %s OFFSET (SELECT start FROM window_)
            ) few
            UNION ALL
            SELECT id FROM (
                SELECT id, value FROM ({best_sql}) best WHERE (SELECT capped FROM window_)
                ORDER BY value DESC, id
                LIMIT {many_limit} OFFSET (SELECT start FROM window_)
            ) many
        ), counts AS (
            -- Only the buckets from the page's lowest row up: the running sums of those are
            -- the same, and a page near the top adds up a few instead of every bucket.
            -- An integer, so that PostgreSQL compares the buckets as integers and walks
            -- their index from there, rather than reading every bucket row of the game.
            SELECT bucket, SUM(players) AS n FROM {_buckets()}
            WHERE game = %s AND bucket >= (
                SELECT CAST(MIN({bucket}) AS INTEGER) FROM page JOIN {_ratings()} r
                ON r.id = page.id
            )
            GROUP BY bucket
        ), running AS (
            SELECT bucket, SUM(n) OVER (ORDER BY bucket DESC) - n AS above FROM counts
        ), ranked AS (
            SELECT {fields}, running.above AS above, (
                SELECT COUNT(*) FROM {_ratings()} o
                WHERE o.game = %s AND o.value > r.value AND o.value < {bucket} + 1
            ) AS in_bucket
            FROM page JOIN {_ratings()} r ON r.id = page.id
            LEFT JOIN running ON running.bucket = {bucket}
        ), {_viewer_sql()}
        SELECT ranked.*, total.n, mine.* FROM total
        LEFT JOIN ranked ON 1 = 1 LEFT JOIN mine ON 1 = 1
        ORDER BY ranked.value DESC, ranked.id
    """
    params = [
        *found_params,
        *[size] * 3,
        *[offset] * 2,
        size,
        *best_params,
        size,
        game,
        game,
        game,
        viewer_id,
        game,
    ]
    return sql, params


def _filtered_rows_from(game: str, found: list[tuple]) -> tuple[list[tuple], int, Standing | None]:
    """The rows of ``_filtered_rows_sql``'s query, each with its rank; how many matched; where
    the viewer stands."""
    width = len(ROW_FIELDS)
    total = int(found[0][width + 2])
    mine = _viewer_standing(game, found[0][width + 3 :])
    rows = []
    for *row, above, in_bucket in (line[: width + 2] for line in found):
        if row[0] is None:  # nothing matched: the one row of the LEFT JOIN
            continue
        value = row[3]
        if above is None:
            # The rating left its bucket since it was read, and the bucket is empty now.
            above = _in_buckets_above(game, math.floor(value))
        rows.append((*row, int(above) + int(in_bucket) + 1))
    return rows, total, mine


def _floor_sql(expression: str) -> str:
    """SQL for floor(expression): SQLite has no floor() outside Django's own connections, and
    CAST truncates towards zero, so a negative value with a fraction needs one less."""
    if connection.vendor == "postgresql":
        return f"FLOOR({expression})"
    return f"(CAST({expression} AS INTEGER) - ({expression} < CAST({expression} AS INTEGER)))"


def _consecutive_ranks(rows: list[tuple], offset: int, tied_before: int) -> list[int]:
    """Ranks of a slice of the whole ladder: a row ranks by its position unless it ties with the
    row above it. Only the first row may tie with rows on the pages before: ``tied_before`` of
    them, which share its rank."""
    ranks = [offset + 1 - tied_before] if rows else []
    for i in range(1, len(rows)):
        tied = rows[i][3] == rows[i - 1][3]
        ranks.append(ranks[-1] if tied else offset + i + 1)
    return ranks


def _ranks_of(game: str, values: list[float]) -> list[int]:
    """The whole-ladder ranks of ratings of these values, in one query: for each, the players of
    the buckets above its own (running sums of the bucket counts, computed once), plus those
    above it in its own bucket (a few, counted on the index)."""
    distinct = sorted(set(values), reverse=True)
    if not distinct:
        return []
    # Typed, so that PostgreSQL compares doubles with doubles and can use the ladder's index.
    pairs = ", ".join(["(CAST(%s AS DOUBLE PRECISION), CAST(%s AS INTEGER))"] * len(distinct))
    sql = f"""
        WITH asked(value, bucket) AS (VALUES {pairs}),
        counts AS (
            SELECT bucket, SUM(players) AS n FROM {_buckets()} WHERE game = %s GROUP BY bucket
        ), running AS (
            SELECT bucket, SUM(n) OVER (ORDER BY bucket DESC) - n AS above FROM counts
        )
        SELECT asked.value, running.above, (
            SELECT COUNT(*) FROM {_ratings()} r
            WHERE r.game = %s AND r.value > asked.value AND r.value < asked.bucket + 1
        )
        FROM asked LEFT JOIN running ON running.bucket = asked.bucket
    """
    params: list[Any] = [p for value in distinct for p in (value, math.floor(value))]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, game, game])
        found = cursor.fetchall()
    rank_by_value = {}
    for value, above, in_bucket in found:
        if above is None:
            # The rating left its bucket since it was read, and the bucket is empty now.
            above = _in_buckets_above(game, math.floor(value))
        rank_by_value[value] = int(above) + int(in_bucket) + 1
    return [rank_by_value[value] for value in values]


def _in_buckets_above(game: str, bucket: int) -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT COALESCE(SUM(players), 0) FROM {_buckets()} WHERE game = %s AND bucket > %s",
            [game, bucket],
        )
        return int(cursor.fetchone()[0])


def page_of(rank: int) -> int:
    """The ladder page showing a rank (a tie straddling a page break may push a player onto the
    next one)."""
    return (rank - 1) // PAGE_SIZE + 1


def rank_of(game: str, value: float) -> int:
    """The ladder rank a rating of ``value`` has in ``game`` (ties share the best rank)."""
    return _ranks_of(game, [value])[0]


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
    rank adds up the buckets above the rating's own, then counts its bucket's few players above
    it). Written as SQL: building the ORM's two correlated subqueries took longer than running
    them."""
    sql, params = standings_sql(user)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return standings_from(cursor.fetchall())


def standings_sql(user: Any) -> tuple[str, list[Any]]:
    """The query of ``standings``, for a caller that sends it with others (``standings_from``
    reads its rows)."""
    return _standings_sql(user.pk), [user.pk]


def _standings_sql(user_id: int, more_columns: str = "") -> str:
    """Rows of ``(game, value, matches, wins, the players in the buckets above, those above
    in the rating's bucket)``, then ``more_columns`` (of the rating ``r``)."""
    floor = _floor_sql("r.value")
    return f"""
        SELECT r.game, r.value, r.matches, r.wins,
            (SELECT COALESCE(SUM(b.players), 0) FROM {_buckets()} b
             WHERE b.game = r.game AND b.bucket > CAST({floor} AS INTEGER)),
            (SELECT COUNT(*) FROM {_ratings()} o
             WHERE o.game = r.game AND o.value > r.value AND o.value < {floor} + 1)
            {more_columns}
        FROM {_ratings()} r WHERE r.user_id = %s ORDER BY r.game
    """


def standings_from(rows: list[tuple]) -> dict[str, Standing]:
    return {
        game: Standing(game, value, matches, wins, int(buckets) + int(bucket) + 1)
        for game, value, matches, wins, buckets, bucket in rows
    }


def _standing(game: str, viewer_id: int | None) -> Standing | None:
    if viewer_id is None:
        return None
    sql, params = standing_sql(game, viewer_id)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return standing_from(game, cursor.fetchall())


def standing_sql(game: str, viewer_id: int) -> tuple[str, list[Any]]:
    """The query of the viewer's standing in ``game``, for a caller that sends it with others
    (``standing_from`` reads its rows)."""
    return f"WITH {_viewer_sql()} SELECT * FROM mine", [game, viewer_id, game]


def standing_from(game: str, rows: list[tuple]) -> Standing | None:
    return _viewer_standing(game, rows[0]) if rows else None


# --- pages kept under the ladder's generation ------------------------------------------------
#: A generation: the sum of a game's ``LadderChange`` rows and their highest id.
Generation = tuple[int, int | None]


def generation_sql(game: str) -> tuple[str, list[Any]]:
    """The query of ``game``'s generation (one row), for a caller that sends it with others.

    The sum grows with every committed write of one of the game's ratings, whichever order
    transactions commit in; the highest id tells apart two states of equal sum on either side
    of a rolled-back write (PostgreSQL never hands an id out twice) and moves on with a fold."""
    return f"SELECT COALESCE(SUM(changes), 0), MAX(id) FROM {_changes_table()} WHERE game = %s", [
        game
    ]


def generation_from(rows: list[tuple]) -> Generation:
    total, highest = rows[0]
    return int(total), highest


def generations() -> dict[str, Generation]:
    """Every game's generation, in one query (a game nobody is rated in has none)."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT game, SUM(changes), MAX(id) FROM {_changes_table()} GROUP BY game")
        return {game: (int(total), highest) for game, total, highest in cursor.fetchall()}


#: More changes than this since a page was kept and it is read again rather than checked.
CHANGES_CHECKED = 100


def changes_since_sql(game: str, since: Generation) -> tuple[str, list[Any]]:
    """The query of ``game``'s generation and its change rows written after generation
    ``since`` (those with a higher id), in one statement so that both see the same commits:
    rows of ``(sum, highest id, changes, user_id, value_before, value_after, name)`` (the moved
    rating's name now), at least one (the change columns NULL when there is none) and at most
    one more than ``CHANGES_CHECKED``."""
    table = _changes_table()
    sql = f"""
        WITH generation AS (
            SELECT COALESCE(SUM(changes), 0) AS total, MAX(id) AS highest FROM {table}
            WHERE game = %s
        ), since AS (
            SELECT id, changes, user_id, value_before, value_after FROM {table}
            WHERE game = %s AND id > %s ORDER BY id LIMIT %s
        )
        SELECT g.total, g.highest, c.changes, c.user_id, c.value_before, c.value_after, r.name
        FROM generation g LEFT JOIN since c ON 1 = 1
        LEFT JOIN {_ratings()} r ON r.user_id = c.user_id AND r.game = %s
        ORDER BY c.id
    """
    highest = since[1] if since[1] is not None else 0
    return sql, [game, game, highest, CHANGES_CHECKED + 1, game]


def _all_changes_since(counts: list[int], since: Generation, now: Generation) -> bool:
    """Whether change rows of these counts are all the changes from ``since`` to ``now``: few
    enough to check, and adding up to the growth of the sum (a write that committed late, with
    a lower id, adds to the sum without a row among them)."""
    return len(counts) <= CHANGES_CHECKED and sum(counts) == now[0] - since[0]


def _rank_shift(before: float, after: float, value: float) -> int:
    """How a rating moving from ``before`` to ``after`` changes the rank of a rating of
    ``value`` (a rank is one more than the ratings above it)."""
    return (after > value) - (before > value)


def carried_page(
    page: LadderPage,
    since: Generation,
    now: Generation,
    found: list[tuple],
    *,
    search: str = "",
    only: Collection[int] | None = None,
) -> LadderPage | None:
    """``page`` (of the players ``search`` and ``only`` keep, or of everyone), right at
    generation ``since``, as it is at ``now``, from ``found``: the rows of
    ``changes_since_sql`` (the change rows with an id above ``since``'s); None when they cannot
    tell, or when they were read at another generation than ``now``.

    They tell only when they are all the changes since (their sum is the growth of the sum: a
    write that committed late, with a lower id, would add to the sum without a row here) and
    each is a rating that only moved, of a player not on the page. A rank is one more than the
    count of ratings above it: a rating that moved from one value to another past some of the
    page's adds one to or takes one from their ranks. The rows stay the same when the moved
    rating stays on the same side of all of them (with none equal to either value), or when
    the page does not keep its player (another name, not a friend), whatever it passed. A fold
    (its row names no player) or any other write reads the page again."""
    if (int(found[0][0]), found[0][1]) != now:
        return None
    changes = [row[2:] for row in found if row[2] is not None]
    if not _all_changes_since([row[0] for row in changes], since, now):
        return None
    on_page = {row.user_id for row in page.rows}
    values = sorted(row.value for row in page.rows)
    shifts = [0] * len(page.rows)
    for _n, user_id, before, after, name in changes:
        if user_id is None or user_id in on_page or before is None or after is None:
            return None
        low, high = min(before, after), max(before, after)
        first_not_below = bisect.bisect_left(values, low)
        if first_not_below == len(values) or values[first_not_below] > high:
            continue  # on the same side of every row: nothing on the page moves
        if _may_keep(user_id, name, search, only):
            return None  # it may join the page, or leave a place on it
        for i, row in enumerate(page.rows):
            shifts[i] += _rank_shift(before, after, row.value)
    if not any(shifts):
        return page
    rows = [
        replace(row, rank=row.rank + shift) for row, shift in zip(page.rows, shifts, strict=True)
    ]
    return replace(page, rows=rows)


def _may_keep(user_id: int, name: str | None, search: str, only: Collection[int] | None) -> bool:
    """Whether a page of ``search`` and ``only`` may keep this player: surely not when they are
    not among ``only``, or when their name does not contain ``search`` in ASCII, where both
    databases and Python agree on upper case; maybe otherwise."""
    if only is not None and user_id not in only:
        return False
    if not search:
        return True
    if name is None or not (name.isascii() and search.isascii()):
        return True
    return search.upper() in name.upper()


#: Pages kept per process (a few KB each): the first pages, searches and friends' pages read
#: most. A page is kept with the generation it was read in; it is served at a later generation
#: only as the changes since made it (``carried_page``), so nothing stale is
#: ever served, in any process, and no shared cache is asked.
PAGES_KEPT = 512


#: The pages kept with their generations (``kept_page_read``).
_kept: KeptInProcess[tuple, tuple[Generation, LadderPage]] = KeptInProcess(PAGES_KEPT)


@dataclass(frozen=True)
class KeptPageRead:
    """A kept page on its way (``kept_page_read``). ``statements`` go with the generation's
    query: the page's own query (``query``) and the generation again, when it is not kept; or
    the changes since the generation it is kept with (``kept``), to carry it forward."""

    game: str
    page: int
    search: str
    only: tuple[int, ...] | None
    size: int
    query: PageQuery | None
    kept: tuple[Generation, LadderPage] | None = None

    @property
    def key(self) -> tuple:
        database = connection.settings_dict["NAME"]
        return (database, self.game, self.page, self.search, self.only, self.size)

    @property
    def statements(self) -> list[tuple[str, list[Any]]]:
        if self.query is not None:
            # The generation read again after the page: the same twice, and no change of the
            # ladder committed between the two reads, so the page is exactly at it. Not inside
            # a transaction, where nothing is kept.
            if connection.in_atomic_block:
                return [self.query.statement]
            return [self.query.statement, generation_sql(self.game)]
        if self.kept is not None:
            return [changes_since_sql(self.game, self.kept[0])]
        return []

    def read_afresh(self) -> tuple[LadderPage, Generation | None]:
        """The page read now, and the generation read just after it (None inside a
        transaction, where nothing is kept)."""
        from players.together import read_together

        query = page_query(
            self.game, self.page, search=self.search, only_user_ids=self.only, size=self.size
        )
        read = replace(self, query=query, kept=None)
        return _page_and_generation(query, read_together(read.statements))


def _page_and_generation(
    query: PageQuery, found: list[list[tuple]]
) -> tuple[LadderPage, Generation | None]:
    """The page of ``KeptPageRead.statements``' rows, and the generation read after it."""
    return query.finish(found[0]), generation_from(found[1]) if len(found) > 1 else None


def kept_page_read(
    game: str,
    page: int = 1,
    *,
    search: str = "",
    only_user_ids: Collection[int] | None = None,
    size: int = PAGE_SIZE,
) -> KeptPageRead:
    """The first step of a kept page (``kept_page`` is the second): its ``statements``, to send
    with the generation's query so that the page costs no round trip more. Inside a transaction
    nothing is kept: the page's query."""
    only = None if only_user_ids is None else tuple(sorted(set(only_user_ids)))
    read = KeptPageRead(game, page, search, only, size, None)
    kept = None if connection.in_atomic_block else _kept.get(read.key)
    if kept is not None:
        return KeptPageRead(game, page, search, only, size, None, kept)
    query = page_query(game, page, search=search, only_user_ids=only, size=size)
    return KeptPageRead(game, page, search, only, size, query)


def kept_page(
    read: KeptPageRead, generation: Generation, found: list[list[tuple]] | None
) -> LadderPage:
    """``ladder_page`` without the viewer's standing, read once per ``generation`` of the ladder
    and kept, or carried forward from an earlier generation by the changes since. ``generation``
    was read before ``found``, the rows of ``read.statements`` (None when there are none).

    A page is kept only when it is exactly at ``generation``: the generation read again just
    after it is the same (a page read a moment later may show a rating that moved since, and
    carrying it forward would move its ranks twice). Inside a transaction nothing is kept nor
    taken: what it wrote may yet be rolled back."""
    if read.statements and found is None:
        raise ValueError("The page's statements were to be sent with the generation.")
    if read.query is not None:
        page, after = _page_and_generation(read.query, found)
    elif read.kept is not None and read.kept[0] == generation:
        return read.kept[1]
    else:
        carried = None
        if read.kept is not None:
            since, kept = read.kept
            only = None if read.only is None else set(read.only)
            carried = carried_page(kept, since, generation, found[0], search=read.search, only=only)
        page, after = (carried, generation) if carried is not None else read.read_afresh()
    if after == generation and not connection.in_atomic_block:
        _kept.put(read.key, (generation, page))
    return page


def kept_ladder_page(
    generation: Generation,
    game: str,
    page: int = 1,
    *,
    search: str = "",
    only_user_ids: Collection[int] | None = None,
    size: int = PAGE_SIZE,
) -> LadderPage:
    """``kept_page`` for a caller that read the generation already: ``kept_page_read``'s
    statements (the changes since the page was kept, a cheap query, or the page itself) in a
    round trip of their own, none when the page is kept at ``generation``."""
    from players.together import read_together

    read = kept_page_read(game, page, search=search, only_user_ids=only_user_ids, size=size)
    if read.kept is not None and read.kept[0] == generation:
        return read.kept[1]
    return kept_page(read, generation, read_together(read.statements))


def rating_history(
    user: Any, per_game: int = HISTORY_POINTS
) -> dict[str, list[tuple[datetime, float]]]:
    """The player's rating after each of their last ``per_game`` rated matches of each game,
    oldest first, in one query."""
    sql, params = rating_history_sql(user, per_game)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return rating_history_from(cursor.fetchall())


def rating_history_sql(user: Any, per_game: int = HISTORY_POINTS) -> tuple[str, list[Any]]:
    """The query of ``rating_history``, for a caller that sends it with other reads
    (``rating_history_from`` reads its rows). Raw SQL: building the ORM's window query cost
    more than running it."""
    table = connection.ops.quote_name(RatingChange._meta.db_table)
    sql = f"""
        SELECT game, created_at, after FROM (
            SELECT game, created_at, after, id, ROW_NUMBER() OVER (
                PARTITION BY game ORDER BY created_at DESC, id DESC
            ) AS newest
            FROM {table} WHERE user_id = %s
        ) history WHERE newest <= %s ORDER BY game, created_at, id
    """
    return sql, [user.pk, per_game]


def rating_history_from(rows: list[tuple]) -> dict[str, list[tuple[datetime, float]]]:
    from players.together import column_converter

    as_datetime = column_converter(RatingChange, "created_at")
    history: dict[str, list[tuple[datetime, float]]] = {}
    for game, when, after in rows:
        history.setdefault(game, []).append((as_datetime(when), after))
    return history


def recent_matches(user: Any, limit: int = RECENT_MATCHES) -> list[Match]:
    """The player's last finished public matches, newest first, with their seats and players
    (two queries). Each match carries ``rating_delta``: the player's rating change in it, or
    None for a friendly match."""
    delta = RatingChange.objects.filter(match=OuterRef("pk"), user=user).values("delta")[:1]
    # Not the game states: a long match's state with its whole log is the bulk of its row.
    seats = Seat.objects.select_related("user").only(
        "match_id", "index", "user__username", "bot_level", "score", "rank"
    )
    return list(
        Match.objects.filter(seats__user=user, status=Match.Status.FINISHED, private=False)
        .only("id", "game", "mode", "finished_at")
        .annotate(rating_delta=Subquery(delta))
        .prefetch_related(Prefetch("seats", queryset=seats.order_by("index")))
        .order_by("-finished_at", "-pk")[:limit]
    )


# --- a player's standings kept under the ladders' generations ---------------------------------
#: Players' standings kept per process (a few hundred bytes each): the profiles read most.
STANDINGS_KEPT = 512

#: A player's standings as kept: per game, the generation they were read (or carried) at.
KeptStandings = dict[str, tuple[Generation, Standing]]


#: The standings kept per player (``standings_read``).
_kept_standings: KeptInProcess[tuple, KeptStandings] = KeptInProcess(STANDINGS_KEPT)


@dataclass(frozen=True)
class StandingsRead:
    """A player's standings on their way (``standings_read``): ``statements`` go with the
    page's other reads, ``standings_read_from`` reads their rows."""

    user_id: int
    kept: KeptStandings

    @property
    def key(self) -> tuple:
        return _standings_key(self.user_id)

    @property
    def statements(self) -> list[tuple[str, list[Any]]]:
        """Nothing kept: the standings with their generations, in one statement. Kept: the
        player's ratings, then their ladders' generations and the changes since the kept
        ones; two small statements that PostgreSQL plans at a fraction of the cost of the
        first (whose planning, not its running, was most of its time). Read in this order, a
        move of the player's own rating between them shows among the changes (and the
        standings are read afresh); another player's, in the second: the ranks are those of
        the second's state of the ladder."""
        if not self.kept:
            return [fresh_standings_sql(self.user_id)]
        return [player_ratings_sql(self.user_id), changes_since_kept_sql(self.kept)]


def standings_read(user: Any) -> StandingsRead:
    """The first step of ``standings`` for a page that sends its reads together: what this
    process keeps of the player's standings (nothing inside a transaction, whose writes may
    yet be rolled back)."""
    kept = None if connection.in_atomic_block else _kept_standings.get(_standings_key(user.pk))
    return StandingsRead(user.pk, kept or {})


def _standings_key(user_id: int) -> tuple:
    return (connection.settings_dict["NAME"], user_id)


def fresh_standings_sql(user_id: int) -> tuple[str, list[Any]]:
    """``standings_sql`` with each game's generation, in one statement so that both see one
    state of the ladder: rows of ``(game, value, matches, wins, the players in the buckets
    above, those above in the rating's bucket, the generation's sum, its highest id)``."""
    generation = f"""
        , (SELECT COALESCE(SUM(c.changes), 0) FROM {_changes_table()} c WHERE c.game = r.game),
        (SELECT MAX(c.id) FROM {_changes_table()} c WHERE c.game = r.game)
    """
    return _standings_sql(user_id, generation), [user_id]


def player_ratings_sql(user_id: int) -> tuple[str, list[Any]]:
    """The player's ratings: ``(game, value, matches, wins)``."""
    sql = f"SELECT game, value, matches, wins FROM {_ratings()} WHERE user_id = %s"
    return sql, [user_id]


def changes_since_kept_sql(kept: KeptStandings) -> tuple[str, list[Any]]:
    """In one statement (one state of the ladders): each kept game's generation, as rows of
    ``(0, game, sum, highest id, NULL, NULL, NULL)``; then the change rows written after the
    oldest of the kept generations, as ``(1, game, changes, id, user_id, value_before,
    value_after)``, in order, at most one more than ``CHANGES_CHECKED`` per game."""
    games = sorted(kept)
    marks = ", ".join(["%s"] * len(games))
    since = min(generation[1] or 0 for generation, _standing in kept.values())
    table = _changes_table()
    sql = f"""
        SELECT 0, game, COALESCE(SUM(changes), 0), MAX(id), NULL, NULL, NULL
        FROM {table} WHERE game IN ({marks}) GROUP BY game
        UNION ALL
        SELECT * FROM (
            SELECT 1, game, changes, id, user_id, value_before, value_after FROM {table}
            WHERE game IN ({marks}) AND id > %s ORDER BY id LIMIT %s
        ) since
    """
    return sql, [*games, *games, since, (CHANGES_CHECKED + 1) * len(games)]


def standings_read_from(
    read: StandingsRead, found: list[list[tuple]]
) -> dict[str, Standing] | None:
    """The standings of the rows of ``read.statements``, kept for the next read; None when
    the changes since what was kept cannot tell a rank (read afresh: ``standings_afresh``)."""
    if not read.kept:
        rows = found[0]
        standings = standings_from([row[:6] for row in rows])
        generations = {row[0]: (int(row[6]), row[7]) for row in rows}
    else:
        ratings, changes = found
        generations = {row[1]: (int(row[2]), row[3]) for row in changes if row[0] == 0}
        moved = [row[1:] for row in changes if row[0] == 1]
        standings = {}
        for game, value, matches, wins in ratings:
            kept = read.kept.get(game)
            rank = None
            if kept is not None and game in generations and value == kept[1].value:
                rank = carried_rank(read.user_id, kept, generations[game], moved)
            if rank is None:
                return None
            standings[game] = Standing(game, value, matches, wins, rank)
    if not connection.in_atomic_block:
        keep = {
            game: (generations[game], s) for game, s in standings.items() if game in generations
        }
        _kept_standings.put(read.key, keep)
    return dict(sorted(standings.items()))


def carried_rank(
    user_id: int,
    kept: tuple[Generation, Standing],
    now: Generation,
    moved: list[tuple],
) -> int | None:
    """The rank of ``kept`` (right at its generation) at generation ``now``, from ``moved``:
    change rows ``(game, changes, id, user_id, value_before, value_after)``; None when they
    cannot tell. A rank is one more than the ratings above: another player's rating that moved
    from ``b`` to ``a`` shifts it by ``(a > v) - (b > v)``. The rows tell only when they are
    all the game's changes since (their sum is the generation's growth: a write that committed
    late, with a lower id, adds to the sum without a row here) and each is another player's
    rating that only moved; a fold, a new or deleted rating, a rename or the player's own
    change cannot tell."""
    since, standing = kept
    if now == since:
        return standing.rank
    mine = [row for row in moved if row[0] == standing.game and row[2] > (since[1] or 0)]
    if not _all_changes_since([row[1] for row in mine], since, now):
        return None
    value, shift = standing.value, 0
    for _game, _n, _id, mover, before, after in mine:
        if mover is None or mover == user_id or before is None or after is None:
            return None
        shift += _rank_shift(before, after, value)
    return standing.rank + shift


def standings_afresh(user: Any) -> dict[str, Standing]:
    """The player's standings read afresh (and kept), in a round trip of their own."""
    read = StandingsRead(user.pk, {})
    sql, params = read.statements[0]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        found = standings_read_from(read, [cursor.fetchall()])
    assert found is not None  # nothing kept: nothing to carry
    return found
