"""The profile page written in Python: byte for byte what ``templates/players/profile.html``
draws (a test compares both in every language, for visitors, the player and friends at every
stage, with and without ratings and trophies). Through the template engine the page cost the
busiest player's profile more CPU than all its reads (issue 10); the template stays the
reference."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.middleware.csrf import get_token
from django.urls import reverse
from django.utils.translation import gettext, ngettext

from pdc_site.dates import date_formatter
from pdc_site.page_html import page_html
from ratings.charts import escape


def profile_page_html(request: HttpRequest, context: dict[str, Any]) -> str:
    """The whole page of ``profile.profile_context``'s ``context``."""
    target = context["profile_user"]
    css = escape(static_css())
    token = get_token(request)
    return page_html(
        request,
        title=target.username,
        head=f'<link rel="stylesheet" href="{css}">',
        content=content_html(request, context, token),
        incoming=context.get("incoming_friend_requests"),
        token=token,
    )


def static_css() -> str:
    from django.templatetags.static import static

    return static("css/ratings.css")


def content_html(request: HttpRequest, context: dict[str, Any], token: str) -> str:
    """The template's ``content`` block."""
    target = context["profile_user"]
    name = escape(target.username)
    return (
        f'\n<article class="profile" data-player="{name}">\n'
        f"{header_html(request, context, name, token)}"
        f"{ratings_html(context['ratings'], name)}"
        f"\n  {context['recent']}\n\n"
        f"{trophies_html(context['trophies'])}"
        "</article>\n"
    )


def header_html(request: HttpRequest, context: dict[str, Any], name: str, token: str) -> str:
    target = context["profile_user"]
    online = ""
    if context["online"]:
        online = (
            '<span class="presence online" aria-hidden="true"></span>'
            f' <strong data-testid="online">{gettext("Online now")}</strong> ·'
        )
    since = gettext("Member since %(since)s") % {
        "since": escape(date_formatter("DATE_FORMAT")(target.date_joined))
    }
    note = ""
    if context["friend_note"]:
        note = f'<p class="muted" data-testid="friend-note">{escape(context["friend_note"])}</p>'
    actions = ""
    if context["friend_actions"]:
        path = escape(request.path)
        forms = "".join(
            _friend_form_html(action, target.username, escape(token), path)
            for action in context["friend_actions"]
        )
        actions = f'\n    <div class="friend-actions">\n      {forms}\n    </div>\n    '
    return (
        '  <header class="profile-header">\n'
        f"    <h1>{name}</h1>\n"
        '    <p class="profile-facts">\n'
        f"      {online}\n"
        f"      {since}\n"
        "    </p>\n"
        f"    {note}\n"
        f"    {actions}\n"
        "  </header>\n\n"
    )


def _friend_form_html(action: dict[str, Any], username: str, token: str, path: str) -> str:
    url = escape(reverse(action["url_name"], args=[username]))
    primary = ' class="primary"' if action["primary"] else ""
    return (
        f'\n      <form method="post" action="{url}" class="inline">'
        f'<input type="hidden" name="csrfmiddlewaretoken" value="{token}">\n'
        f'        <input type="hidden" name="next" value="{path}">\n'
        f'        <button type="submit"{primary} data-testid="friend-button">'
        f"{escape(action['label'])}</button>\n"
        "      </form>\n      "
    )


def ratings_html(sections: list[dict[str, Any]], name: str) -> str:
    """The ratings' table and their charts."""
    heading = gettext("Ratings")
    head = (
        '  <section aria-labelledby="ratings-title">\n'
        f'    <h2 id="ratings-title">{heading}</h2>\n    '
    )
    if not sections:
        empty = gettext("No rated match yet.")
        return f'{head}\n    <p class="empty">{empty}</p>\n    \n  </section>\n'
    provisional = gettext("Provisional: fewer than 10 rated matches")
    caption = gettext("Ratings of %(name)s per game") % {"name": name}
    titles = (
        gettext("Game"),
        gettext("Rating"),
        gettext("Level"),
        gettext("Rank"),
        gettext("Matches"),
        gettext("Wins"),
    )
    header = "".join(f'\n          <th scope="col">{title}</th>' for title in titles)
    rank_text = gettext("#%(rank)s")
    rows = "".join(_rating_row_html(s, provisional, rank_text) for s in sections)
    figures = "".join(_figure_html(s) for s in sections)
    return (
        f"{head}\n    \n"
        '    <table class="ratings-table">\n'
        f'      <caption class="visually-hidden">{caption}</caption>\n'
        f"      <thead>\n        <tr>{header}\n        </tr>\n      </thead>\n"
        f"      <tbody>\n        {rows}\n      </tbody>\n    </table>\n"
        f"    {figures}\n    \n  </section>\n"
    )


def _rating_row_html(section: dict[str, Any], provisional: str, rank_text: str) -> str:
    standing = section["standing"]
    mark = ""
    if standing.provisional:
        mark = f'<abbr class="provisional" title="{provisional}">?</abbr>'
    rank = rank_text % {"rank": escape(standing.rank)}
    return (
        f'\n        <tr data-game="{escape(section["slug"])}">'
        f'\n          <th scope="row">{escape(section["name"])}</th>'
        f'\n          <td class="num" data-testid="elo">{escape(standing.elo)}{mark}</td>'
        f"\n          <td>{escape(standing.level)}</td>"
        f'\n          <td class="num"><a href="{escape(section["ladder_url"])}"'
        f' data-testid="rank">{rank}</a></td>'
        f'\n          <td class="num">{escape(standing.matches)}</td>'
        f'\n          <td class="num">{escape(standing.wins)}</td>'
        "\n        </tr>\n        "
    )


def _figure_html(section: dict[str, Any]) -> str:
    if not section["chart"]:
        return "\n    \n    "
    truncated = ""
    if section["history_truncated"]:
        count = section["history_count"]
        last = ngettext("the last rated match", "the last %(matches)s rated matches", count)
        truncated = f" · {last % {'matches': escape(count)}}"
    return (
        f'\n    \n    <figure class="rating-history" data-game="{escape(section["slug"])}">'
        f"\n      {section['chart']}"
        f"\n      <figcaption>{escape(section['chart_title'])}{truncated}</figcaption>"
        "\n    </figure>\n    \n    "
    )


def trophies_html(trophies: list[dict[str, Any]]) -> str:
    heading = gettext("Trophies")
    head = (
        '  <section aria-labelledby="trophies-title">\n'
        f'    <h2 id="trophies-title">{heading}</h2>\n    '
    )
    if not trophies:
        empty = gettext("No trophy yet.")
        return f'{head}\n    <p class="empty">{empty}</p>\n    \n  </section>\n'
    sentence = gettext("Place %(place)s in %(name)s (%(game)s)")
    when = date_formatter("DATE_FORMAT")
    items = "".join(_trophy_html(t, sentence, when) for t in trophies)
    return f'{head}\n    <ul class="trophies">\n      {items}\n    </ul>\n    \n  </section>\n'


def _trophy_html(trophy: dict[str, Any], sentence: str, when: Any) -> str:
    place = trophy["place"]
    medal = "🥇" if place == 1 else "🥈" if place == 2 else "🥉"
    text = sentence % {
        "place": escape(place),
        "name": escape(trophy["tournament"]),
        "game": escape(trophy["game"]),
    }
    ends = ""
    if trophy["ends_at"]:
        ends = f'<span class="muted">{escape(when(trophy["ends_at"]))}</span>'
    url = escape(reverse("arena:detail", args=[trophy["tournament_id"]]))
    return (
        f'\n      <li class="trophy place-{escape(place)}">'
        f'\n        <span class="medal" aria-hidden="true">{medal}</span>'
        f'\n        <a href="{url}">{text}</a>'
        f"\n        {ends}"
        "\n      </li>\n      "
    )
