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

from django.urls import get_script_prefix
from django.utils.safestring import SafeString
from django.utils.translation import get_language, gettext

from .charts import escape
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
    # ``language`` and ``script_prefix`` (part of the key for that reason). Written in Python
    # rather than a template: fifty rows through the template engine took 1.4 ms, which a page
    # read first after every rated match paid again.
    provisional = escape(gettext("Provisional: fewer than 10 rated matches"))
    presence = (
        f' <span class="presence online" title="{escape(gettext("Online now"))}"></span>'
        f'<span class="visually-hidden">{escape(gettext("online now"))}</span>'
    )
    mark = f'<abbr class="provisional" title="{provisional}">?</abbr>'
    return "".join(
        [
            "\n        ",
            *(
                _row_html(row, row["user_id"] in online, row["user_id"] == me, presence, mark)
                for row in display_rows(list(rows))
            ),
            "\n      \n",
        ]
    )


def _row_html(row: dict, online: bool, mine: bool, presence: str, provisional: str) -> str:
    """One ``<tr>`` of the ladder's table."""
    name = escape(row["username"])
    me = ' class="me"' if mine else ""
    return (
        f'\n        <tr data-player="{name}"{me}>'
        f'\n          <td class="num" data-testid="rank">{row["rank"]}</td>'
        f'\n          <th scope="row"><a href="{escape(row["profile_url"])}">{name}</a>'
        f"{presence if online else ''}</th>"
        f'\n          <td class="num" data-testid="elo">{row["elo"]}'
        f"{provisional if row['provisional'] else ''}</td>"
        f"\n          <td>{escape(row['level'])}</td>"
        f'\n          <td class="num">{row["matches"]}</td>'
        f'\n          <td class="num">{row["wins"]}</td>'
        "\n        </tr>\n        "
    )
