"""The ladder's buckets (``LadderBucket``): triggers add a +1 or -1 row per change of a rating;
``fold`` adds each game's rows up into one row per bucket, so that reading them stays cheap. The
same goes for the count of its writes (``LadderChange``), folded into one row. Folding changes no
sum, so it may run at any time, beside any writer."""

from __future__ import annotations

from django.db import connection, transaction

from games.worker import job

from .models import LadderBucket, LadderChange

#: Fewer loose rows than this in a game and folding is not worth its write.
FOLD_AFTER = 200
#: The same for the rows of changes, which are read on every ladder page (as one sum).
FOLD_CHANGES_AFTER = 200


def table() -> str:
    return connection.ops.quote_name(LadderBucket._meta.db_table)


def loose_buckets() -> str:
    """The buckets of a game (its one parameter) with more than one row: the ones a fold
    rewrites."""
    return f"SELECT bucket FROM {table()} WHERE game = %s GROUP BY bucket HAVING COUNT(*) > 1"


def changes_table() -> str:
    return connection.ops.quote_name(LadderChange._meta.db_table)


def fold(game: str) -> None:
    """One row per non-empty bucket of ``game``, with the same sums as before; and one row of its
    changes (a new one: the highest id moves on, which no reader minds)."""
    _fold_buckets(game)
    _fold_changes(game)


def _fold_changes(game: str) -> None:
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                f"WITH gone AS (DELETE FROM {changes_table()} WHERE game = %s RETURNING changes)"
                f" INSERT INTO {changes_table()} (game, changes)"
                " SELECT %s, SUM(changes) FROM gone HAVING COUNT(*) > 0",
                [game, game],
            )
            return
        cursor.execute(f"SELECT SUM(changes) FROM {changes_table()} WHERE game = %s", [game])
        (total,) = cursor.fetchone()
        if total is not None:
            cursor.execute(f"DELETE FROM {changes_table()} WHERE game = %s", [game])
            LadderChange.objects.create(game=game, changes=total)


def _fold_buckets(game: str) -> None:
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # One statement deletes exactly the rows it adds up: a row written meanwhile by
            # another transaction is neither deleted nor counted, and stays for the next fold.
            # Only the buckets with loose rows: rewriting all of them left a dead row per bucket
            # at every fold, which the ladder's running sums then stepped over.
            cursor.execute(
                f"WITH loose AS ({loose_buckets()}),"
                f" gone AS (DELETE FROM {table()} WHERE game = %s AND bucket IN"
                " (SELECT bucket FROM loose) RETURNING bucket, players)"
                f" INSERT INTO {table()} (game, bucket, players)"
                " SELECT %s, bucket, SUM(players) FROM gone GROUP BY bucket"
                " HAVING SUM(players) <> 0",
                [game, game, game],
            )
            return
        # SQLite has one writer at a time: nothing is written between these statements.
        cursor.execute(
            f"SELECT bucket, SUM(players) FROM {table()} WHERE game = %s"
            f" AND bucket IN ({loose_buckets()}) GROUP BY bucket HAVING SUM(players) <> 0",
            [game, game],
        )
        sums = cursor.fetchall()
        cursor.execute(
            f"DELETE FROM {table()} WHERE game = %s AND bucket IN ({loose_buckets()})", [game, game]
        )
        LadderBucket.objects.bulk_create(
            LadderBucket(game=game, bucket=bucket, players=players) for bucket, players in sums
        )


@job
def fold_ladder_buckets() -> int:
    """The worker folds the buckets (and changes) of every game that gathered many loose rows."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT game FROM {table()} GROUP BY game"
            " HAVING COUNT(*) > COUNT(DISTINCT bucket) + %s"
            f" UNION SELECT game FROM {changes_table()} GROUP BY game HAVING COUNT(*) > %s",
            [FOLD_AFTER, FOLD_CHANGES_AFTER],
        )
        games = [game for (game,) in cursor.fetchall()]
    for game in games:
        fold(game)
    return len(games)
