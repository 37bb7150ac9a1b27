"""The ladder's rows as HTML, rendered once for what they show.

Fifty rows through the template engine cost more than all of a page's queries together, and a
ladder page is read far more often than its rows change; so the rendered rows are kept in the
cache under everything they print (each row's rank, name, link, rating, level and counts, who
of them is online, which one is the viewer, the language). A change to any of these makes a new
key, so what is served is always what a fresh render would give."""

from __future__ import annotations

import hashlib
from collections.abc import Collection
from typing import Any

from django.core.cache import cache
from django.template.loader import render_to_string
from django.utils.safestring import SafeString
from django.utils.translation import get_language

#: Rendered rows are kept this long (their key changes with their content, so this only bounds
#: the memory they take).
ROWS_CACHE_SECONDS = 3600
#: Part of the key: bump it when ``ratings/ladder_rows.html`` changes, so that rows rendered by
#: the previous template are not served after a deploy.
ROWS_TEMPLATE_VERSION = 1


def ladder_rows_html(
    rows: list[dict[str, Any]], online: Collection[int], me: int | None
) -> SafeString:
    """The ``<tr>`` of each row (``ladder.display_rows``): ``online`` holds the ids of the players
    online now, ``me`` the viewer's id (None when logged out)."""
    on_page = [row["user_id"] for row in rows]
    shown = (
        ROWS_TEMPLATE_VERSION,
        get_language(),
        [tuple(row.items()) for row in rows],
        sorted(user_id for user_id in on_page if user_id in online),
        me if me in on_page else None,
    )
    key = "ladder-rows:" + hashlib.sha256(repr(shown).encode()).hexdigest()
    html = cache.get(key)
    if html is None:
        html = render_to_string(
            "ratings/ladder_rows.html", {"rows": rows, "online": online, "me": me}
        )
        cache.set(key, html, ROWS_CACHE_SECONDS)
    return SafeString(html)
