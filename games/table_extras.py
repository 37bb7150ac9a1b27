"""Issue 12's parts of a table's context, added to what ``rendering.table_context`` builds: each
seat's clock and what other apps know of its player (a rating), each result row's Elo change, and
what the viewer may do besides moving (resign a running match, play again once it is over; per
viewer, so the parts every seat shares say nothing of it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.urls import reverse

from . import services
from .clocks import seat_clocks
from .models import Match, Seat
from .seat_facts import seat_facts
from .table_urls import table_urls


def add_table_extras(
    context: dict[str, Any],
    match: Match,
    seats: dict[int, Seat],
    me: Seat | None,
    user: AbstractBaseUser | AnonymousUser | None,
    facts: dict[int, dict[str, Any]] | None = None,
    rematch: Callable[[], Match | None] | None = None,
    urls: dict[str, str] | None = None,
) -> None:
    """Adds ``clock`` and ``facts`` to each of ``context["seats"]``, the facts (Elo changes) to
    the result's rows, and ``extras`` (the viewer's actions). New dicts and lists throughout:
    what the context holds may be shared with other viewers. ``facts``: the seats' facts when
    the caller has them already (the same for every viewer of a version); ``rematch``: how the
    caller reads the match's rematch (once for every viewer of a read of the table); ``urls``:
    the table's URLs when the caller has them (``table_urls``)."""
    clocks = seat_clocks(match)
    facts = seat_facts(match, seats) if facts is None else facts
    context["seats"] = [
        {**seat, "clock": clocks.get(seat["index"]), "facts": facts.get(seat["index"], {})}
        for seat in context["seats"]
    ]
    if context.get("result"):
        context["result"] = result_with_facts(context["result"], facts)
    context["extras"] = actions_context(match, me, user, rematch, urls)


def result_with_facts(result: dict[str, Any], facts: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """The result table with each row's facts, and ``rated`` when any row has an Elo change."""
    rows = [{**row, "facts": facts.get(row["seat"], {})} for row in result["rows"]]
    rated = any("elo_change" in row["facts"] for row in rows)
    return {**result, "rows": rows, "rated": rated}


def actions_context(
    match: Match,
    me: Seat | None,
    user: AbstractBaseUser | AnonymousUser | None,
    rematch: Callable[[], Match | None] | None = None,
    urls: dict[str, str] | None = None,
) -> dict[str, Any]:
    """``can_resign``; ``play_again``: None, or what the viewer can do about a rematch
    (``ask``: open it, ``join``: take a seat at the one another player opened, ``go``: go to
    the one they sit at, ``watch``: watch it)."""
    urls = table_urls(match.pk) if urls is None else urls
    return {
        "can_resign": match.is_playing and me is not None and not me.abandoned,
        "resign_url": urls["resign"],
        "rematch_url": urls["rematch"],
        "play_again": _play_again(match, me, user, rematch),
    }


def _play_again(
    match: Match,
    me: Seat | None,
    user: AbstractBaseUser | AnonymousUser | None,
    rematch: Callable[[], Match | None] | None = None,
) -> dict[str, Any] | None:
    if not match.is_over or match.state is None:
        return None
    again = services.rematch_of(match) if rematch is None else rematch()
    if again is None:
        return {"do": "ask"} if me is not None else None
    url = reverse("games:table", args=[again.pk])
    if services.seat_of(again, user) is not None:
        if again.private:
            url = f"{url}?invite={again.invite_code}"
        return {"do": "go", "url": url, "id": again.pk}
    if me is not None and again.is_open:
        return {"do": "join", "id": again.pk}
    if services.may_watch(again, user):
        return {"do": "watch", "url": url, "id": again.pk}
    return None
