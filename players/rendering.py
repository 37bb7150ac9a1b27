"""Fragments the player's own socket pushes (hx-swap-oob): invitations and friend requests; and
the profile's recent matches, written in Python."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.safestring import SafeString
from django.utils.translation import gettext

from games.engines import get_engine
from games.models import Invitation, Match
from pdc_site.dates import date_formatter
from ratings.charts import escape

from . import friends

#: An invitation to a table that is still open is shown for this long.
INVITATION_SHOWN_FOR = timedelta(minutes=30)


def pending_invitations(user: AbstractBaseUser) -> list[Invitation]:
    """Recent invitations to open tables where the player has no seat yet."""
    return list(
        Invitation.objects.filter(
            to_user=user,
            match__status=Match.Status.OPEN,
            created_at__gte=timezone.now() - INVITATION_SHOWN_FOR,
            dismissed_at__isnull=True,
        )
        .exclude(match__seats__user=user)
        .select_related("from_user", "match")
        .order_by("created_at")
    )


def render_invitations(user: AbstractBaseUser) -> str:
    """The whole toast area, so that a socket that connects late (or reconnects) still shows an
    invitation sent meanwhile, and one sent twice is shown once."""
    invitations = [
        {"invitation": i, "game_name": get_engine(i.match.game).name}
        for i in pending_invitations(user)
    ]
    return render_to_string("players/invitation_toasts.html", {"invitations": invitations})


def render_friend_requests(user: AbstractBaseUser) -> str:
    return render_to_string(
        "players/friend_requests_badge.html",
        {"incoming": friends.incoming_request_count(user), "oob": True},
    )


def recent_matches_html(rows: list[dict[str, Any]]) -> SafeString:
    """The profile's recent matches (``profile.recent_rows_from``), byte for byte what
    ``templates/players/recent_matches.html`` draws (a test compares both in every language),
    written in Python: through the template engine, ten matches cost a profile drawn afresh
    more than all its reads."""
    heading = gettext("Recent matches")
    head = (
        '  <section aria-labelledby="recent-title">\n'
        f'    <h2 id="recent-title">{heading}</h2>\n    '
    )
    if not rows:
        empty = gettext("No finished match yet.")
        return SafeString(f'{head}\n    <p class="empty">{empty}</p>\n    \n  </section>\n')
    titles = (
        gettext("Finished"),
        gettext("Game"),
        gettext("Place"),
        gettext("Score"),
        gettext("Opponents"),
        gettext("Rating"),
        gettext("Replay"),
    )
    header = "".join(f'\n          <th scope="col">{title}</th>' for title in titles)
    words = RecentWords()
    body = "".join(_recent_row_html(row, words) for row in rows)
    return SafeString(
        f'{head}\n    <table class="recent-matches">\n      <thead>\n        <tr>{header}'
        f"\n        </tr>\n      </thead>\n      <tbody>\n        {body}"
        "\n      </tbody>\n    </table>\n    \n  </section>\n"
    )


class RecentWords:
    """The words of the recent matches' table in the active language, translated once a table
    rather than once a row. Printed unescaped, as ``{% translate %}`` prints a literal's
    translation."""

    def __init__(self) -> None:
        self.friendly = gettext("friendly")
        self.not_rated = gettext("Not rated")
        self.replay = gettext("Replay")
        self.place_of = gettext("%(rank)s of %(players)s")
        self.opponent_place = gettext("place %(rank)s, %(score)s points")
        self.of_match = gettext("of match %(id)s")
        #: Escaped as the template prints it.
        self.finished = date_formatter("SHORT_DATETIME_FORMAT", escaped=True)


def _recent_row_html(row: dict[str, Any], words: RecentWords) -> str:
    """One ``<tr>`` of the recent matches' table; every value printed is escaped, the
    translated sentences around them are not (as ``blocktranslate`` does)."""
    finished = row["finished_at"]
    finished_text = "" if finished is None else words.finished(finished)
    friendly = "" if row["ranked"] else f' <span class="muted">({words.friendly})</span>'
    place = words.place_of % {"rank": escape(row["rank"]), "players": escape(row["players"])}
    opponents = "".join(_opponent_html(opponent, words) for opponent in row["opponents"])
    if row["delta"] is not None:
        delta = f'<span class="delta">{escape(row["delta"])}</span>'
    else:
        delta = f'<span class="muted" title="{words.not_rated}">–</span>'
    if row["replay_url"]:
        of_match = words.of_match % {"id": escape(row["id"])}
        replay = (
            f'<a href="{escape(row["replay_url"])}" data-testid="replay-link">{words.replay}'
            f'<span class="visually-hidden"> {of_match}</span></a>'
        )
    else:
        replay = '<span class="muted">–</span>'
    return (
        f'\n        <tr data-match="{escape(row["id"])}">'
        f"\n          <td>{finished_text}</td>"
        f"\n          <td>{escape(row['game'])}{friendly}</td>"
        f'\n          <td class="num">{place}</td>'
        f'\n          <td class="num">{escape(row["score"])}</td>'
        '\n          <td>\n            <ul class="opponents">\n              '
        f"{opponents}\n            </ul>\n          </td>"
        f'\n          <td class="num">{delta}</td>'
        f"\n          <td>{replay}</td>"
        "\n        </tr>\n        "
    )


def _opponent_html(opponent: dict[str, Any], words: RecentWords) -> str:
    name = escape(opponent["name"])
    link = f'<a href="{escape(opponent["url"])}">{name}</a>' if opponent["url"] else name
    place = words.opponent_place % {
        "rank": escape(opponent["rank"]),
        "score": escape(opponent["score"]),
    }
    return (
        f"\n              <li>{link}"
        f'\n                <span class="muted">{place}</span></li>\n              '
    )
