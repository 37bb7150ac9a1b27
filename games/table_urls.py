"""The URLs of a table, reversed once per table and script prefix.

Reversing a URL costs a few tens of microseconds, and a version's pushes asked for about thirty
of them (the table's links, each viewer's forms), the same ones every time: a table's URLs never
change, so they are kept per table (and per script prefix and URLconf, which a deployment or a
test may set)."""

from __future__ import annotations

from functools import lru_cache

from django.conf import settings
from django.urls import get_script_prefix, get_urlconf, reverse

#: URL name → the name under which ``table_urls`` returns it.
_TABLE_URLS = {
    "games:table": "table",
    "games:move": "move",
    "games:join": "join",
    "games:leave": "leave",
    "games:add_bot": "add_bot",
    "games:resign": "resign",
    "games:rematch": "rematch",
    "games:record": "record",
    "games:replay": "replay",
    "players:invite_friend": "invite_friend",
}


def table_urls(pk: int) -> dict[str, str]:
    """The table's URLs by short name (``table``, ``move``, …, ``invite_friend``) and the login
    page's (``login``). Shared: never change the dict."""
    return _table_urls(pk, get_script_prefix(), get_urlconf() or settings.ROOT_URLCONF)


@lru_cache(maxsize=4096)
def _table_urls(pk: int, prefix: str, urlconf: object) -> dict[str, str]:
    urls = {short: reverse(name, args=[pk]) for name, short in _TABLE_URLS.items()}
    urls["login"] = reverse("players:login")
    return urls
