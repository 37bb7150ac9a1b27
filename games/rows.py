"""The statements of a move, built once per process and database, then run with new parameters.

A move's request reads the match (locked) and its seats with their players, inserts its moves and
updates the match. Through the ORM each of these statements was compiled anew on every call, and
the compiling (with ``prefetch_related``'s machinery) was half of a move's CPU in a profile
(``bench/bench_move_request.py --profile``). Here each statement is written once from the models'
own fields: their columns, and their conversions to and from the database (JSON, dates on SQLite),
so values are read and written exactly as the ORM would. What a read gives back are the model
instances the ORM makes, with the same caches filled: the seats as ``prefetch_related("seats")``
leaves them on the match (``match.seats.all()`` costs no query, ``match.seats.filter(…)`` still
asks the database about this match only), each seat's player as ``select_related("user")`` does.

On PostgreSQL these statements are prepared once per connection (``_cursor``): PostgreSQL then
only binds and runs them, where it parsed and planned them on every move before (Django's cursors
bind on the client, so nothing of theirs is prepared).

Only ``games.services`` changes a match; it calls these.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from django.contrib.auth import get_user_model
from django.db import DatabaseError, connections, router
from django.db.models import Model
from django.db.models.signals import post_save, pre_save

from .models import Match, Move, Seat

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Columns:
    """A model's concrete fields as a statement names them, with what turns a value read back
    into the field's Python value."""

    model: type[Model]
    fields: tuple[Any, ...]
    attnames: tuple[str, ...]
    sql: str
    #: (position, converters, column) for each field whose value needs converting.
    converters: tuple[tuple[int, tuple[Callable, ...], Any], ...]

    def instance(self, alias: str, values: Sequence[Any], connection: Any) -> Model:
        values = list(values)
        for position, converters, column in self.converters:
            value = values[position]
            for convert in converters:
                value = convert(value, column, connection)
            values[position] = value
        return self.model.from_db(alias, self.attnames, values)


def _columns(model: type[Model], connection: Any) -> _Columns:
    quote = connection.ops.quote_name
    table = model._meta.db_table
    fields = tuple(model._meta.concrete_fields)
    converters = []
    for position, field in enumerate(fields):
        column = field.get_col(table)
        found = tuple(connection.ops.get_db_converters(column)) + tuple(
            column.get_db_converters(connection)
        )
        if found:
            converters.append((position, found, column))
    return _Columns(
        model=model,
        fields=fields,
        attnames=tuple(f.attname for f in fields),
        sql=", ".join(f"{quote(table)}.{quote(f.column)}" for f in fields),
        converters=tuple(converters),
    )


@dataclass(frozen=True)
class _Statements:
    match: _Columns
    seat: _Columns
    user: _Columns
    #: The match, its seats and their players, in one statement (``%s``: the match's key).
    select: str
    select_locked: str
    #: ``INSERT … VALUES`` without its rows, and one row's placeholders.
    insert_move: str
    move_row: str
    move_fields: tuple[Any, ...]
    update_match: str
    update_fields: tuple[Any, ...]
    #: The numbers a match's primary key can hold in this database.
    pk_range: tuple[int, int]
    #: PostgreSQL: the locked read also gives each seat's and player's row version (``xmin``),
    #: an update gives back the match as saved with its own (``RETURNING``), and a move may be
    #: saved on this process's last save of its table (``update_if_unchanged``,
    #: ``save_if_unchanged``).
    stamped: bool = False
    update_match_returning: str = ""
    #: ``WITH updated AS (UPDATE … WHERE unchanged RETURNING …), moved AS (INSERT … SELECT …
    #: WHERE EXISTS (SELECT 1 FROM updated))``: without its rows (``{rows}``), one row's
    #: placeholders cast to the columns' types in ``move_row_cast``.
    update_if_unchanged: str = ""
    move_row_cast: str = ""


@cache
def _statements(alias: str, vendor: str) -> _Statements:
    """The statements for the database ``alias`` (one per process; ``vendor`` keys a test that
    points the alias at another kind of database)."""
    connection = connections[alias]
    quote = connection.ops.quote_name
    user_model = get_user_model()
    match, seat, user = (_columns(m, connection) for m in (Match, Seat, user_model))
    match_table, seat_table = quote(Match._meta.db_table), quote(Seat._meta.db_table)
    user_table = quote(user_model._meta.db_table)
    match_pk = f"{match_table}.{quote(Match._meta.pk.column)}"
    seat_user = Seat._meta.get_field("user")
    seat_match = Seat._meta.get_field("match")
    order = ", ".join(
        f"{seat_table}.{quote(Seat._meta.get_field(name.lstrip('-')).column)}"
        + (" DESC" if name.startswith("-") else " ASC")
        for name in Seat._meta.ordering
    )
    # One statement: the match on every row (once per seat; the rows past the first are not
    # converted), its seats and their players joined to it; a match without seats is one row
    # with NULLs for them.
    select = (
        f"SELECT {match.sql}, {seat.sql}, {user.sql} FROM {match_table} "
        f"LEFT OUTER JOIN {seat_table} "
        f"ON ({seat_table}.{quote(seat_match.column)} = {match_pk}) "
        f"LEFT OUTER JOIN {user_table} "
        f"ON ({seat_table}.{quote(seat_user.column)} = "
        f"{user_table}.{quote(user_model._meta.pk.column)}) "
        f"WHERE {match_pk} = %s ORDER BY {order}"
    )
    locked = select
    stamped = connection.vendor == "postgresql"
    if stamped:
        # The row versions of the seats and players read, in the same statement as their values.
        locked = locked.replace(
            f" FROM {match_table} ",
            f", {seat_table}.xmin::text, {user_table}.xmin::text FROM {match_table} ",
            1,
        )
    if connection.features.has_select_for_update:
        # Only the match row is locked, as ``select_for_update()`` on the match alone does.
        locked += (
            f" FOR UPDATE OF {match_table}"
            if connection.features.has_select_for_update_of
            else " FOR UPDATE"
        )
    move_fields = tuple(f for f in Move._meta.concrete_fields if not f.primary_key)
    insert_move = (
        f"INSERT INTO {quote(Move._meta.db_table)} "
        f"({', '.join(quote(f.column) for f in move_fields)}) VALUES "
    )
    update_fields = tuple(f for f in Match._meta.concrete_fields if not f.primary_key)
    update_match = (
        f"UPDATE {match_table} SET "
        + ", ".join(f"{quote(f.column)} = %s" for f in update_fields)
        + f" WHERE {match_table}.{quote(Match._meta.pk.column)} = %s"
    )
    returning = f" RETURNING {match.sql}, {match_table}.xmin::text"
    seats_stamp = (
        "(SELECT coalesce(string_agg(s.xmin::text || ':' || coalesce(u.xmin::text, '-'), ','"
        f" ORDER BY s.{quote(Seat._meta.pk.column)}), '') FROM {seat_table} s"
        f" LEFT OUTER JOIN {user_table} u"
        f" ON (s.{quote(seat_user.column)} = u.{quote(user_model._meta.pk.column)})"
        f" WHERE s.{quote(seat_match.column)} = {match_pk})"
    )
    update_if_unchanged = (
        f"WITH updated AS ({update_match} AND {match_table}.xmin = CAST(%s AS xid)"
        f" AND {seats_stamp} = %s{returning}), "
        f"moved AS ({insert_move.replace(' VALUES ', ' ')}SELECT * FROM (VALUES {{rows}}) AS given"
        " WHERE EXISTS (SELECT 1 FROM updated)) SELECT * FROM updated"
    )
    move_row_cast = (
        "(" + ", ".join(f"CAST(%s AS {f.cast_db_type(connection)})" for f in move_fields) + ")"
    )
    return _Statements(
        match=match,
        seat=seat,
        user=user,
        select=select,
        select_locked=locked,
        insert_move=insert_move,
        move_row="(" + ", ".join(["%s"] * len(move_fields)) + ")",
        move_fields=move_fields,
        update_match=update_match,
        update_fields=update_fields,
        pk_range=_range(connection, Match._meta.pk),
        stamped=stamped,
        update_match_returning=update_match + returning if stamped else "",
        update_if_unchanged=update_if_unchanged if stamped else "",
        move_row_cast=move_row_cast if stamped else "",
    )


def _range(connection: Any, field: Any) -> tuple[float, float]:
    low, high = connection.ops.integer_field_range(field.get_internal_type())
    return (float("-inf") if low is None else low, float("inf") if high is None else high)


def _cursor(connection: Any) -> Any:
    """Django's cursor of ``connection`` (so the statement is counted and logged as any other);
    on PostgreSQL, when the connection may prepare (``prepare_threshold`` set: see
    ``DATABASE_PREPARED`` in the settings), the psycopg cursor inside it binds on the server and
    prepares each statement the first time a connection runs it. Only the statements here, one
    statement each and run on every move, and the reads a page sends together
    (``players.together``, one statement per cursor) take it; the site's other queries bind on
    the server too and are prepared from their second run (psycopg's threshold in the
    settings), since a migration sends several statements at once, which PostgreSQL cannot
    prepare."""
    cursor = connection.cursor()
    if prepares(connection):
        cursor.cursor = prepared_cursor(connection)
    return cursor


def prepares(connection: Any) -> bool:
    """Whether statements are prepared on ``connection`` (already connected): PostgreSQL,
    unless ``DATABASE_PREPARED=0`` left psycopg's ``prepare_threshold`` None."""
    raw = connection.connection
    return connection.vendor == "postgresql" and getattr(raw, "prepare_threshold", None) is not None


def prepared_cursor(connection: Any) -> Any:
    """A psycopg cursor of ``connection`` (where ``prepares``) that binds on the server and
    prepares each statement the first time the connection runs it."""
    return _prepared_cursor(connection, connection.connection)


@cache
def _prepared_class() -> type:
    """A psycopg cursor that binds on the server and prepares what it runs (made on first use:
    psycopg is imported only on PostgreSQL)."""
    from django.db.backends.postgresql.base import ServerBindingCursor

    class Prepared(ServerBindingCursor):
        def execute(self, query: Any, params: Any = None, **kwargs: Any) -> Any:
            kwargs.setdefault("prepare", True)
            return super().execute(query, params, **kwargs)

        def _send_query_prepared(self, name: bytes, pgq: Any, **kwargs: Any) -> None:
            super()._send_query_prepared(name, pgq, **kwargs)
            # psycopg keeps the query sent only when it was not prepared; Django logs it from
            # there (``connection.queries``, the tests' counts): here with $1, $2 for values.
            self._query = pgq

    return Prepared


def _prepared_cursor(connection: Any, raw: Any) -> Any:
    from django.db.backends.postgresql.psycopg_any import register_tzloader
    from psycopg.pq import Format

    cursor = _prepared_class()(raw)
    timestamptz = raw.adapters.types["timestamptz"].oid
    if _session_zone_is_djangos(connection, raw):
        cursor.adapters.register_loader(timestamptz, _psycopg_timestamp_loader(timestamptz))
    elif connection.timezone != raw.adapters.get_loader(timestamptz, Format.TEXT).timezone:
        # As Django's own cursors: a connection whose time zone is not its adapters' reads
        # timestamps in its own.
        register_tzloader(connection.timezone, cursor)
    return cursor


def _session_zone_is_djangos(connection: Any, raw: Any) -> bool:
    """Whether psycopg's own loader reads a timestamp exactly as Django's does on
    ``connection``: Django's loader (Python, 5 µs a value: about 20 values in a move's locked
    read) takes psycopg's value and puts Django's time zone on it; where the session's time
    zone, in which psycopg gives it, is that very zone (Django sets it on connecting: UTC
    here), psycopg's loader (C, 0.3 µs) gives the same value with the same ``tzinfo``."""
    zone = connection.timezone
    return zone is not None and raw.info.timezone is zone


@cache
def _psycopg_timestamp_loader(oid: int) -> type:
    """psycopg's own text loader of ``timestamptz`` (its C one where psycopg has it)."""
    import psycopg
    from psycopg.pq import Format

    return psycopg.postgres.adapters.get_loader(oid, Format.TEXT)


def _for(alias: str) -> tuple[Any, _Statements]:
    connection = connections[alias]
    return connection, _statements(alias, connection.vendor)


def match_with_seats(match_id: Any, *, lock: bool = False) -> Match | None:
    """The match ``match_id`` with its seats and their players (one query), or None if there is
    none. ``lock``: the match row is locked until the transaction ends (``select_for_update``).
    A ``match_id`` that is no number raises ValueError or TypeError, as with the ORM."""
    pk = Match._meta.pk.get_prep_value(match_id)
    alias = router.db_for_write(Match) if lock else router.db_for_read(Match)
    connection, statements = _for(alias)
    if not statements.pk_range[0] <= pk <= statements.pk_range[1]:
        return None  # no row has it (the ORM finds none either, rather than overflow)
    with _cursor(connection) as cursor:
        cursor.execute(statements.select_locked if lock else statements.select, [pk])
        found = cursor.fetchall()
    if not found:
        return None
    match_width = len(statements.match.fields)
    stamps = None
    if lock and statements.stamped:
        stamps = [row[-2:] for row in found]
        found = [row[:-2] for row in found]
    seat_pk = match_width + statements.seat.fields.index(Seat._meta.pk)
    seat_rows = [row[match_width:] for row in found if row[seat_pk] is not None]
    match = _match_of_rows(statements, alias, connection, found[0][:match_width], seat_rows)
    if stamps is not None:
        seat_stamps = [
            stamp for row, stamp in zip(found, stamps, strict=True) if row[seat_pk] is not None
        ]
        stamp = _seats_stamp(seat_rows, seat_stamps, seat_pk - match_width)
        vars(match)[_SEATS_AS_READ] = (tuple(seat_rows), stamp)
    return match


def _seats_stamp(
    seat_rows: Sequence[Sequence[Any]], stamps: Sequence[Sequence[Any]], pk: int
) -> str:
    """The row versions of a match's seats and their players as ``update_if_unchanged``'s
    subquery writes them: ``seat:player`` (``-`` for no player) by seat key (at ``pk`` in a
    seat's row), comma-separated."""
    ordered = sorted(zip(seat_rows, stamps, strict=True), key=lambda pair: pair[0][pk])
    return ",".join(f"{seat}:{player or '-'}" for _, (seat, player) in ordered)


def _match_of_rows(
    statements: _Statements,
    alias: str,
    connection: Any,
    match_row: Sequence[Any],
    seat_rows: Sequence[Sequence[Any]],
) -> Match:
    """A match made from its row and its seats' rows (each with its player's), its seats kept
    on it in that order, as ``match_with_seats`` gives it."""
    match = statements.match.instance(alias, match_row, connection)
    _keep_seats(match, [_seat(statements, alias, match, row, connection) for row in seat_rows])
    return match


def forget_seats(match: Match) -> None:
    """``match`` forgets the seats it was read with (``match_with_seats``). The match and its
    seats refer to each other (the seats' cache of their match, the match's prefetched seats), so
    a read no longer used, its match's state with it, waits for a collection to be freed; once
    forgotten, reference counts free it. Should someone still use the match, ``seats_of``
    reads the seats again."""
    vars(match).pop("_prefetched_objects_cache", None)


def _seat(statements: _Statements, alias: str, match: Match, row: Sequence[Any], connection: Any):
    width = len(statements.seat.fields)
    seat = statements.seat.instance(alias, row[:width], connection)
    player = None
    if seat.user_id is not None:
        player = statements.user.instance(alias, row[width:], connection)
    # What ``select_related("user")`` and the prefetch of ``match.seats`` leave on a seat.
    Seat._meta.get_field("user").set_cached_value(seat, player)
    Seat._meta.get_field("match").set_cached_value(seat, match)
    return seat


def keep_seats(match: Match, seats: Sequence[Seat]) -> None:
    """The seats of ``match`` kept (``_keep_seats``) in the order a read gives them (by their
    number): for a change that adds a seat to a match read with its seats (``match_with_seats``)
    or numbers them anew, so that what follows in it reads them without a query. Each seat must
    have its player cached (as ``select_related("user")`` leaves it)."""
    _keep_seats(match, sorted(seats, key=lambda seat: seat.index))


def has_kept_seats(match: Match) -> bool:
    """Whether ``match.seats.all()`` gives seats kept on ``match`` (``keep_seats``)."""
    cache_name = Seat._meta.get_field("match").remote_field.cache_name
    return cache_name in vars(match).get("_prefetched_objects_cache", {})


def _keep_seats(match: Match, seats: list[Seat]) -> None:
    """``match.seats.all()`` from now on gives ``seats`` without a query, as after
    ``prefetch_related("seats")``: the manager's own queryset (filtered on this match, so a
    further ``filter`` asks about this match only), with its result already there."""
    vars(match).get("_prefetched_objects_cache", {}).pop(
        Seat._meta.get_field("match").remote_field.cache_name, None
    )
    queryset = match.seats.all()
    queryset._result_cache = seats
    queryset._prefetch_done = True
    cache_name = Seat._meta.get_field("match").remote_field.cache_name
    vars(match).setdefault("_prefetched_objects_cache", {})[cache_name] = queryset


def insert_moves(moves: Sequence[Move]) -> None:
    """``Move.objects.bulk_create(moves)`` in one statement; the moves get no primary key back
    (nothing reads them after they are written)."""
    if not moves:
        return
    alias = router.db_for_write(Move)
    connection, statements = _for(alias)
    with _cursor(connection) as cursor:
        cursor.execute(*_insert(statements, connection, moves))
    _written(moves, alias)


def _insert(
    statements: _Statements, connection: Any, moves: Sequence[Move]
) -> tuple[str, list[Any]]:
    params = _move_values(statements, connection, moves)
    return statements.insert_move + ", ".join([statements.move_row] * len(moves)), params


def _move_values(statements: _Statements, connection: Any, moves: Sequence[Move]) -> list[Any]:
    """The values of ``moves``' rows, one row after the other, as an insert writes them."""
    params: list[Any] = []
    for move in moves:
        params.extend(
            field.get_db_prep_save(field.pre_save(move, True), connection)
            for field in statements.move_fields
        )
    return params


def _match_values(statements: _Statements, connection: Any, match: Match) -> list[Any]:
    """The values an update of ``match`` writes (``update_fields``), then its key."""
    values = [
        field.get_db_prep_save(field.pre_save(match, False), connection)
        for field in statements.update_fields
    ]
    values.append(match.pk)
    return values


def _insert_then_update(
    statements: _Statements, connection: Any, moves: Sequence[Move], update: list[Any]
) -> tuple[str, list[Any]]:
    """The insert of ``moves`` and the update of their match (``update``: its values, then its
    key) as one statement: the insert in a ``WITH`` runs once, to its end, whether or not the
    update reads it (PostgreSQL's data-modifying ``WITH``), and the statement's row count and
    row (the match as saved, with its row version) are the update's. One statement where there
    were two: one execution less for PostgreSQL, and one call less through Django's and
    psycopg's cursors, per move."""
    insert, params = _insert(statements, connection, moves)
    return f"WITH moved AS ({insert}) {statements.update_match_returning}", [*params, *update]


def _written(moves: Sequence[Move], alias: str) -> None:
    for move in moves:
        move._state.adding = False
        move._state.db = alias


def save_match(match: Match) -> None:
    """``match.save()`` for a match read from the database: every field written, in one
    statement built once. With a ``pre_save`` or ``post_save`` receiver for matches (none today)
    it is ``match.save()`` itself, so that they still hear of it."""
    if match._state.adding or pre_save.has_listeners(Match) or post_save.has_listeners(Match):
        match.save()
        return
    alias = router.db_for_write(Match, instance=match)
    connection, statements = _for(alias)
    with _cursor(connection) as cursor:
        cursor.execute(statements.update_match, _match_values(statements, connection, match))
        updated = cursor.rowcount
    if updated == 0:
        match.save()  # the row is gone: what the ORM's save() does then (it inserts it again)
        return
    match._state.db = alias


@cache
def _update_statement(
    model: type[Model], alias: str, vendor: str, fields: tuple[str, ...]
) -> tuple[str, tuple[Any, ...]]:
    """``UPDATE`` of a row's ``fields`` by its key (``%s``: their values, then the key), and
    the fields (one statement per model, set of fields, database and process)."""
    quote = connections[alias].ops.quote_name
    table = quote(model._meta.db_table)
    chosen = tuple(model._meta.get_field(name) for name in fields)
    sql = (
        f"UPDATE {table} SET "
        + ", ".join(f"{quote(f.column)} = %s" for f in chosen)
        + f" WHERE {table}.{quote(model._meta.pk.column)} = %s"
    )
    return sql, chosen


def save_rows(rows: Sequence[Model], fields: Sequence[str], *, signals: bool = True) -> None:
    """``row.save(update_fields=fields)`` for each of ``rows`` (of one model, read from the
    database and locked, so they are there), in one statement built once and run for them all in
    one round trip. ``signals``: as ``save()``, so with a ``pre_save`` or ``post_save`` receiver
    for the model each is ``row.save(update_fields=fields)`` itself; False: as ``bulk_update``,
    which sends none (and builds a ``CASE`` for every field and row, dearer in the ORM)."""
    if not rows:
        return
    model = type(rows[0])
    if signals and (pre_save.has_listeners(model) or post_save.has_listeners(model)):
        for row in rows:
            row.save(update_fields=list(fields))
        return
    alias = router.db_for_write(model, instance=rows[0])
    connection = connections[alias]
    sql, chosen = _update_statement(model, alias, connection.vendor, tuple(fields))
    params = [
        [*(f.get_db_prep_save(f.pre_save(row, False), connection) for f in chosen), row.pk]
        for row in rows
    ]
    with _cursor(connection) as cursor:
        cursor.executemany(sql, params)
    for row in rows:
        row._state.db = alias


def commits_with_last_write(alias: str) -> bool:
    """Whether the transaction on ``alias`` may be committed with its last write
    (``save_and_commit``): an outermost ``transaction.atomic()`` block (no savepoint, no outer
    transaction such as a test's) that will commit, on a PostgreSQL connection that prepares its
    statements (so ``DATABASE_PREPARED=0`` turns this off too)."""
    connection = connections[alias]
    return (
        connection.vendor == "postgresql"
        and connection.in_atomic_block
        and len(connection.atomic_blocks) == 1
        and not connection.savepoint_ids
        and not connection.needs_rollback
        and connection.commit_on_exit
        and prepares(connection)
    )


class QueryWhileCommitting(DatabaseError):
    """A query asked for by ``save_and_commit``'s ``while_committing``: the connection is busy
    committing, so the work that asked for it is left for after the commit."""


def _refuse_queries(execute: Callable, sql: str, params: Any, many: bool, context: Any) -> Any:
    raise QueryWhileCommitting("no query while the transaction commits")


def _meanwhile(connection: Any, work: Callable[[], Any]) -> None:
    """``work`` while the connection commits: a query it asks for is refused, and whatever it
    raises is logged, never raised here (the transaction is committing: raised, it would make
    the caller roll back a commit that happened)."""
    try:
        with connection.execute_wrapper(_refuse_queries):
            work()
    except Exception:
        logger.exception("the work while a transaction committed failed")


def save_and_commit(
    match: Match, moves: Sequence[Move], while_committing: Callable[[], Any] | None = None
) -> bool:
    """``insert_moves(moves)`` then ``save_match(match)``, and the transaction committed, in one
    round trip (a psycopg pipeline) where ``commits_with_last_write``: a move sent its insert,
    its update and ``COMMIT`` one after the other, each waiting for the answer to the one before
    (the insert and the update are now one statement, ``_insert_then_update``).
    False (nothing done) elsewhere, or for a match that ``save_match`` would save through
    ``save()``. The caller's ``atomic()`` block then finds the transaction committed, commits
    nothing more and runs its ``on_commit`` hooks as usual; so this must be the block's last
    statement, on a match read locked in it (its row cannot be gone). An error in either
    statement or in the ``COMMIT`` raises here, and the block rolls back (or finds the
    transaction already ended).

    ``while_committing`` runs once the ``COMMIT`` is sent and before its answer is read, so that
    what it does (the watchers' render of the new version) overlaps PostgreSQL's commit instead
    of following it. It may not query the database (a query raises ``QueryWhileCommitting``
    inside it), it must not ring anything (the commit may still fail), and whatever it raises
    is logged and changes nothing of the commit."""
    alias = router.db_for_write(Match, instance=match)
    if (
        match._state.adding
        or pre_save.has_listeners(Match)
        or post_save.has_listeners(Match)
        or not commits_with_last_write(alias)
    ):
        return False
    connection, statements = _for(alias)
    raw = connection.connection
    update = _match_values(statements, connection, match)
    with _cursor(connection) as cursor, connection.wrap_database_errors:
        with raw.pipeline():
            if moves:
                cursor.execute(*_insert_then_update(statements, connection, moves, update))
            else:
                cursor.execute(statements.update_match_returning, update)
            # Not through Django's wrapper: a commit is not a query it counts or logs.
            raw.cursor().execute("COMMIT", prepare=False)
            if while_committing is not None:
                _meanwhile(connection, while_committing)
        updated = cursor.rowcount
        saved = cursor.fetchone() if updated == 1 else None
    if updated != 1:
        raise DatabaseError(f"match {match.pk} was not updated")  # locked: cannot happen
    _saved(match, moves, alias, saved)
    return True


def _saved(match: Match, moves: Sequence[Move], alias: str, row: Sequence[Any]) -> None:
    """``match`` and ``moves`` as written on ``alias``, the match's ``row`` as the update gave it
    back kept on it (``keep_for_next_move``)."""
    _written(moves, alias)
    match._state.db = alias
    vars(match)[_AS_SAVED] = row


# --- a move on this process's last save of its table ---------------------------------------------
#: On a match read locked (PostgreSQL): its seats and players as read, and their row versions.
_SEATS_AS_READ = "_seats_as_read"
#: On a match just saved by ``save_and_commit`` or ``save_if_unchanged``: its row as saved, then
#: its row version.
_AS_SAVED = "_row_as_saved"
#: Tables whose last save a process keeps for their next move (``Kept``).
KEPT_TABLES = 1000


@dataclass(frozen=True)
class Kept:
    """A match as this process last saved it, with its seats and players as last read: the
    rows as a read gives them (nothing of them is shared with a match in use), and the row
    versions (``xmin``) that say whether the database still holds exactly these."""

    alias: str
    match_row: tuple[Any, ...]
    stamp: str
    seat_rows: tuple[tuple[Any, ...], ...]
    seats_stamp: str


_kept: OrderedDict[tuple[str, Any], Kept] = OrderedDict()
_kept_lock = threading.Lock()


def keep_for_next_move(match: Match) -> None:
    """Keep ``match`` as just saved (``save_and_commit`` or ``save_if_unchanged``, on a match
    read locked with its seats, none of them written since) for the table's next move in this
    process (``kept_match``)."""
    saved = vars(match).pop(_AS_SAVED, None)
    seats = vars(match).get(_SEATS_AS_READ)
    if saved is None or seats is None:
        return
    alias = match._state.db
    kept = Kept(alias, tuple(saved[:-1]), saved[-1], seats[0], seats[1])
    with _kept_lock:
        _kept[(alias, match.pk)] = kept
        _kept.move_to_end((alias, match.pk))
        while len(_kept) > KEPT_TABLES:
            _kept.popitem(last=False)


def kept_match(match_id: Any) -> tuple[Match, Kept] | None:
    """The match ``match_id`` as this process last saved it, with its seats and players (new
    instances, as ``match_with_seats`` gives them), and what it was made from; None when this
    process keeps none, or where a move could not be saved on it (``save_if_unchanged``: only
    on PostgreSQL, in no transaction)."""
    alias = router.db_for_write(Match)
    try:
        pk = Match._meta.pk.get_prep_value(match_id)
    except (ValueError, TypeError):
        return None
    with _kept_lock:
        kept = _kept.get((alias, pk))
    if kept is None:
        return None
    connection, statements = _for(alias)
    if connection.in_atomic_block or not statements.stamped:
        return None
    connection.ensure_connection()
    if not prepares(connection):
        return None
    match = _match_of_rows(statements, alias, connection, kept.match_row, kept.seat_rows)
    vars(match)[_SEATS_AS_READ] = (kept.seat_rows, kept.seats_stamp)
    return match, kept


def save_if_unchanged(
    match: Match,
    moves: Sequence[Move],
    kept: Kept,
    while_committing: Callable[[], Any] | None = None,
) -> bool:
    """``insert_moves(moves)`` and ``save_match(match)`` in one statement, in no transaction
    (so committed by itself), on condition that the match row, its seats and their players are
    still the very rows ``kept`` was made of (their row versions, ``xmin``): whoever changed
    any of them since, in any process, changed its row version. False, with nothing written,
    otherwise (the caller then reads the match locked, as any move did before).
    ``while_committing`` as ``save_and_commit``'s: it runs while the statement is on its way."""
    if pre_save.has_listeners(Match) or post_save.has_listeners(Match) or not moves:
        return False
    alias = kept.alias
    connection, statements = _for(alias)
    if connection.in_atomic_block:
        return False
    raw = connection.connection
    params = [
        *_match_values(statements, connection, match),
        kept.stamp,
        kept.seats_stamp,
        *_move_values(statements, connection, moves),
    ]
    sql = statements.update_if_unchanged.replace(
        "{rows}", ", ".join([statements.move_row_cast] * len(moves))
    )
    with _cursor(connection) as cursor, connection.wrap_database_errors:
        with raw.pipeline():
            cursor.execute(sql, params)
            if while_committing is not None:
                _meanwhile(connection, while_committing)
        saved = cursor.fetchone()
    if saved is None:
        return False
    _saved(match, moves, alias, saved)
    return True
