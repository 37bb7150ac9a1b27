"""Several reads in one round trip to the database.

On a busy server each query waits its turn (to be read, then to be answered) whatever it costs
to run; a page that needs a few small independent reads pays that wait once when they go
together. On PostgreSQL psycopg sends them as one string (Django binds the parameters on the
client) and returns one result per statement; elsewhere they run one after the other."""

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
