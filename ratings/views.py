"""The rankings pages: an index of the games' ladders and one paginated ladder per game."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from games.engines import all_engines, get_engine
from players import friends, presence

from . import ladder, rendering

#: Players shown per game on the rankings index.
INDEX_TOP = 5


def index(request: HttpRequest) -> HttpResponse:
    games = [
        {
            "slug": engine.slug,
            "name": engine.name,
            "page": ladder.ladder_page(engine.slug, size=INDEX_TOP),
        }
        for engine in all_engines()
    ]
    return render(request, "ratings/index.html", {"games": games})


def page_number(text: str | None) -> int:
    """The page asked for; anything that is not a number means the first page (``ladder_page``
    clamps numbers out of range, so a stale or hand-typed link still shows a page)."""
    try:
        return int(text or 1)
    except ValueError:
        return 1


def ladder_view(request: HttpRequest, game: str) -> HttpResponse:
    try:
        engine = get_engine(game)
    except KeyError:
        raise Http404("There is no such game.") from None
    user = request.user
    search = ladder.clean_search(request.GET.get("q"))
    friends_only = user.is_authenticated and request.GET.get("friends") == "1"
    # Friends-only includes the viewer, so that they see where they stand among their friends.
    only = friends.friends_and_self_ids(user) if friends_only else None
    page = ladder.ladder_page(
        engine.slug,
        page_number(request.GET.get("page")),
        search=search,
        only_user_ids=only,
        viewer_id=user.pk,
    )
    mine = page.mine
    rows = ladder.display_rows(page.rows)
    online = presence.online_ids(row.user_id for row in page.rows)
    context: dict[str, Any] = {
        "game": {"slug": engine.slug, "name": engine.name},
        "games": [{"slug": e.slug, "name": e.name} for e in all_engines()],
        "page": page,
        "rows_html": rendering.ladder_rows_html(rows, online, user.pk),
        "search": search,
        "friends_only": friends_only,
        "mine": mine,
        "my_page": ladder.page_of(mine.rank) if mine else None,
    }
    # A search typed with htmx swaps only the results; the page itself works without it.
    template = "ratings/ladder.html#results" if request.htmx else "ratings/ladder.html"
    return render(request, template, context)
