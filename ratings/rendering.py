"""The ladder's rows as HTML, rendered once for what they show.

Fifty rows through the template engine cost more than all of a page's queries together, and a
ladder page is read far more often than its rows change; so each process keeps the rows it
rendered last under everything they are drawn from (each row's rank, name, rating and counts,
who of them is online, which one is the viewer, the language, the links' prefix). A change to
any of these is another key, so what is served is always what a fresh render would give, in every process
alike; and no round trip to a shared cache is needed to find them."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from functools import lru_cache

from django.template.loader import render_to_string
from django.urls import get_script_prefix
from django.utils.safestring import SafeString
from django.utils.translation import get_language

from .ladder import LadderRow, display_rows

#: Renderings kept per process (about 15 KB each): the pages read most, in every language.
ROWS_KEPT = 256


def ladder_rows_html(
    rows: Sequence[LadderRow], online: Collection[int], me: int | None
) -> SafeString:
    """The ``<tr>`` of each row: ``online`` holds the ids of the players online now, ``me`` the
    viewer's id (None when logged out). The rows themselves (frozen: rank, name, rating, counts)
    are the key, with the language and the script prefix the links start with; what they print
    (``ladder.display_rows``) is worked out only to draw them."""
    on_page = [row.user_id for row in rows]
    return SafeString(
        _rendered_rows(
            get_language(),
            get_script_prefix(),
            tuple(rows),
            frozenset(user_id for user_id in on_page if user_id in online),
            me if me in on_page else None,
        )
    )


@lru_cache(maxsize=ROWS_KEPT)
def _rendered_rows(
    language: str,
    script_prefix: str,
    rows: tuple[LadderRow, ...],
    online: frozenset,
    me: int | None,
) -> str:
    # Rendered in the active language and under the active script prefix, which are
    # ``language`` and ``script_prefix`` (part of the key for that reason).
    context = {"rows": display_rows(list(rows)), "online": online, "me": me}
    return render_to_string("ratings/ladder_rows.html", context)
