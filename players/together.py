"""Several reads in one round trip to the database.

On a busy server each query waits its turn (to be read, then to be answered) whatever it costs
to run; a page that needs a few small independent reads pays that wait once when they go
together. On PostgreSQL psycopg sends them as one string (Django binds the parameters on the
client) and returns one result per statement; elsewhere they run one after the other."""

from __future__ import annotations

from collections.abc import Sequence
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
