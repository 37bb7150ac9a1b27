"""The rankings pages: an index of the games' ladders and one paginated ladder per game."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.utils.translation import gettext

from games.engines import all_engines, get_engine
from pdc_site.page_html import page_html
from players import presence
from players.models import Friendship
from players.together import Statement, incoming_count_sql, quoted_table, read_together

from . import ladder, rendering
from .charts import escape

#: Players shown per game on the rankings index.
INDEX_TOP = 5


def index(request: HttpRequest) -> HttpResponse:
    generations = ladder.generations()
    games = [
        {
            "slug": engine.slug,
            "name": engine.name,
            "page": ladder.kept_ladder_page(
                generations.get(engine.slug, (0, None)), engine.slug, size=INDEX_TOP
            ),
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
    context = ladder_context(request, engine)
    # A search typed with htmx swaps only the results; the page itself works without it.
    if request.htmx:
        return render(request, "ratings/ladder_content.html#results", context)
    return HttpResponse(ladder_page_html(request, context))


def ladder_page_html(request: HttpRequest, context: dict[str, Any]) -> str:
    """The ladder's whole page: its content through the template engine, in the site's shell
    written in Python (``pdc_site.page_html``), byte for byte what ``ratings/ladder.html``
    draws in ``base.html`` (a test compares both): through the template engine the shell cost
    every ladder page about 0.75 ms of CPU (issue 10)."""
    title = gettext("Rankings · %(game)s") % {"game": escape(context["game"]["name"])}
    return page_html(
        request,
        title_html=title,
        head=f'<link rel="stylesheet" href="{escape(static("css/ratings.css"))}">',
        content=render_to_string("ratings/ladder_content.html", context, request),
        incoming=context.get("incoming_friend_requests"),
    )


def ladder_context(request: HttpRequest, engine: Any) -> dict[str, Any]:
    """What the ladder's page of ``engine``'s game prints, for the request's page, search and
    friends-only choice."""
    user = request.user
    search = ladder.clean_search(request.GET.get("q"))
    friends_only = user.is_authenticated and request.GET.get("friends") == "1"
    number = page_number(request.GET.get("page"))
    if friends_only:
        # The friends are read with the generation: their page cannot go with them.
        read = viewer_reads(engine.slug, user, friends_only)
        page = ladder.kept_ladder_page(
            read.generation, engine.slug, number, only_user_ids=read.friends_and_self
        )
    else:
        coming = ladder.kept_page_read(engine.slug, number, search=search)
        read = viewer_reads(engine.slug, user, friends_only, coming.statements)
        page = ladder.kept_page(coming, read.generation, read.page_rows)
    mine = read.mine
    online = presence.online_ids(row.user_id for row in page.rows)
    context: dict[str, Any] = {
        "game": {"slug": engine.slug, "name": engine.name},
        "games": [{"slug": e.slug, "name": e.name} for e in all_engines()],
        "page": page,
        "rows_html": rendering.ladder_rows_html(page.rows, online, user.pk),
        "search": search,
        "friends_only": friends_only,
        "mine": mine,
        "my_page": ladder.page_of(mine.rank) if mine else None,
    }
    if read.incoming is not None:
        # Read with the rest: the header's badge (players.context_processors) need not ask.
        context["incoming_friend_requests"] = read.incoming
    return context


@dataclass(frozen=True)
class ViewerReads:
    #: The ladder's generation, under which its pages are kept.
    generation: ladder.Generation
    #: Where the viewer stands (None: a visitor, or not rated in the game).
    mine: ladder.Standing | None
    #: Friend requests waiting for the viewer's answer (None for visitors).
    incoming: int | None
    #: Friends-only: the ids of the viewer's friends and their own.
    friends_and_self: set[int] | None
    #: The rows of the page's statement, when it was sent with the rest.
    page_rows: list[list[tuple]] | None = None


def viewer_reads(
    game: str, user: Any, friends_only: bool, page_statements: Sequence[Statement] = ()
) -> ViewerReads:
    """What a ladder page reads in one round trip: the ladder's generation; for a logged-in
    viewer their standing, the header's count of friend requests and (friends only) who their
    friends are; and ``page_statements`` (``ladder.KeptPageRead.statements``: the page's
    query, or the changes since it was kept), whose rows go last (``page_rows``)."""
    reads: list[Any] = [ladder.generation_sql(game)]
    if user.is_authenticated:
        reads += [ladder.standing_sql(game, user.pk), incoming_count_sql(user)]
        if friends_only:
            reads.append(friend_pairs(user))
    reads += page_statements
    found = read_together(reads)
    generation = ladder.generation_from(found[0])
    page_rows = found[len(found) - len(page_statements) :] if page_statements else None
    if not user.is_authenticated:
        return ViewerReads(generation, None, None, None, page_rows)
    only = None
    if friends_only:
        # Friends-only includes the viewer, so that they see where they stand among their friends.
        only = {b if a == user.pk else a for a, b in found[3]} | {user.pk}
    return ViewerReads(
        generation, ladder.standing_from(game, found[1]), found[2][0][0], only, page_rows
    )


def friend_pairs(user: Any) -> Statement:
    """The player's friendships, as ``(from_user_id, to_user_id)``."""
    sql = (
        f"SELECT from_user_id, to_user_id FROM {quoted_table(Friendship)}"
        " WHERE (from_user_id = %s OR to_user_id = %s) AND accepted_at IS NOT NULL"
    )
    return sql, [user.pk, user.pk]
