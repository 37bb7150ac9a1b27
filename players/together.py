"""Several reads in one round trip to the database.

On a busy server each query waits its turn (to be read, then to be answered) whatever it costs
to run; a page that needs a few small independent reads pays that wait once when they go
together. On PostgreSQL they go in one psycopg pipeline, each statement prepared once per
connection (``games.rows.prepared_cursor``): PostgreSQL parsed and planned a profile's
statements on every read when they went as one string bound on the client, and planning was
about half of their time. With ``DATABASE_PREPARED=0`` they still go as one string. Elsewhere
they run one after the other. Either way Django counts and logs them as one query."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from django.db import connection
from django.db.models import QuerySet

#: Raw SQL and its parameters.
Statement = tuple[str, Sequence[Any]]


def read_together(reads: Sequence[QuerySet | Statement]) -> list[list[tuple]]:
    """The rows of each read, in order: a ``values_list`` queryset gives its tuples (converted
    as the queryset would convert them), raw SQL its rows as the database sends them."""
    compiled = []
    for read in reads:
        if isinstance(read, QuerySet):
            compiler = read.query.get_compiler(using=read.db)
            sql, params = compiler.as_sql()
            compiled.append((sql, params, compiler))
        else:
            compiled.append((read[0], read[1], None))
    found = _execute([(sql, params) for sql, params, _compiler in compiled])
    return [
        list(compiler.results_iter(results=[rows], tuple_expected=True)) if compiler else rows
        for (_sql, _params, compiler), rows in zip(compiled, found, strict=True)
    ]


def _execute(statements: list[Statement]) -> list[list[tuple]]:
    with connection.cursor() as cursor:
        pipelined = _pipelined(statements)
        if pipelined is not None:
            # Through Django's wrapper, so that the reads are counted and logged as one query.
            cursor.cursor = pipelined
            cursor.execute(pipelined.sql, pipelined.params)
            return pipelined.results
        if connection.vendor != "postgresql" or len(statements) < 2:
            found = []
            for sql, params in statements:
                cursor.execute(sql, params)
                found.append(cursor.fetchall())
            return found
        sql = ";\n".join(sql for sql, _params in statements)
        cursor.execute(sql, [param for _sql, params in statements for param in params])
        found = [cursor.fetchall()]
        while cursor.nextset():
            found.append(cursor.fetchall())
        return found


def _pipelined(statements: list[Statement]) -> _PipelinedReads | None:
    """The reads as one pipeline of prepared statements, where the connection prepares them."""
    from games.rows import prepares

    return _PipelinedReads(statements) if prepares(connection) else None


def _prepared_cursors(count: int) -> list[Any]:
    """``count`` cursors of the connection that prepare what they run
    (``games.rows.prepared_cursor``), kept on the psycopg connection and run again rather than
    made anew for every read (making one cost about 15 µs); they go with the connection."""
    from games.rows import prepared_cursor

    kept = vars(connection.connection).setdefault("_pdc_pipeline_cursors", [])
    while len(kept) < count:
        kept.append(prepared_cursor(connection))
    return kept[:count]


class _PipelinedReads:
    """In place of the psycopg cursor inside Django's cursor: ``execute`` sends ``statements``
    in one pipeline, each on a cursor that prepares it, and keeps every statement's rows.
    ``sql`` and ``params`` are the statements joined, for Django's wrapper, which logs the text
    with the values in (``_query``, composed only when read)."""

    def __init__(self, statements: list[Statement]) -> None:
        self.statements = statements
        self.sql = ";\n".join(sql for sql, _params in statements)
        self.params = [param for _sql, params in statements for param in params]
        self.results: list[list[tuple]] = []

    def execute(self, _sql: str, _params: Sequence[Any]) -> None:
        cursors = _prepared_cursors(len(self.statements))
        with cursors[0].connection.pipeline():
            for cursor, (sql, params) in zip(cursors, self.statements, strict=True):
                cursor.execute(sql, params, prepare=True)
        self.results = [cursor.fetchall() for cursor in cursors]

    @property
    def _query(self) -> Any:
        """What Django logs of the query run (``last_executed_query`` reads ``_query.query``):
        the statements with their values, as the client-bound string was."""
        import psycopg

        composer = psycopg.ClientCursor(connection.connection)
        text = ";\n".join(composer.mogrify(sql, params) for sql, params in self.statements)
        return _Logged(text.encode())

    def close(self) -> None:
        pass


class _Logged:
    def __init__(self, query: bytes) -> None:
        self.query = query


def column_converter(model: Any, name: str) -> Callable[[Any], Any]:
    """What the ORM does to a value of the column of ``model``'s field ``name`` as the database
    sends it (SQLite sends a datetime as text), for raw SQL's rows."""
    return _column_converter(model, name, connection.alias, connection.vendor)


@lru_cache(maxsize=256)
def _column_converter(model: Any, name: str, alias: str, vendor: str) -> Callable[[Any], Any]:
    """``column_converter``, found once per field and database: finding the converters cost a
    profile's read of its player (eleven fields) more than converting their values."""
    column = model._meta.get_field(name).get_col(model._meta.db_table)
    converters = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
    if not converters:
        return _as_sent

    def convert(value: Any) -> Any:
        for converter in converters:
            value = converter(value, column, connection)
        return value

    return convert


def _as_sent(value: Any) -> Any:
    return value


def one_instance(model: Any, where: str, params: Sequence[Any]) -> Any | None:
    """The instance of ``model`` whose row matches ``where`` (SQL; None when none does), read
    without building the ORM's query, which cost five times the reading."""
    select, attnames, converters = _instance_reading(model, connection.alias, connection.vendor)
    with connection.cursor() as cursor:
        cursor.execute(f"{select} WHERE {where}", params)
        row = cursor.fetchone()
    if row is None:
        return None
    values = [convert(value) for convert, value in zip(converters, row, strict=True)]
    return model.from_db(connection.alias, attnames, values)


@lru_cache(maxsize=64)
def _instance_reading(
    model: Any, alias: str, vendor: str
) -> tuple[str, list[str], list[Callable[[Any], Any]]]:
    """What ``one_instance`` needs of ``model`` on a database, found once: the statement's
    start, the fields' attribute names and each column's converter."""
    fields = model._meta.concrete_fields
    columns = ", ".join(connection.ops.quote_name(field.column) for field in fields)
    return (
        f"SELECT {columns} FROM {quoted_table(model)}",
        [field.attname for field in fields],
        [_column_converter(model, field.name, alias, vendor) for field in fields],
    )


def quoted_table(model: Any) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def incoming_count_sql(user: Any) -> Statement:
    """The header's badge, as a statement to send with a page's other reads: one row, how many
    friend requests wait for ``user``'s answer (``friends.incoming_request_count``). Raw SQL, as
    building the ORM's query cost more than running it."""
    from .models import Friendship

    sql = (
        f"SELECT COUNT(*) FROM {quoted_table(Friendship)}"
        " WHERE to_user_id = %s AND accepted_at IS NULL"
    )
    return sql, [user.pk]
