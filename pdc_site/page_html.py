"""The site's page around a page's content, written in Python: byte for byte what
``templates/base.html`` draws with its default blocks (a test compares both in every language,
for visitors and players, with messages). Through the template engine the shell alone cost a
busy profile about 0.75 ms of CPU, a third of the trivial view (issue 10); the template stays
the reference and the layout of every other page."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from django.conf import settings
from django.contrib.messages import get_messages
from django.http import HttpRequest
from django.middleware.csrf import get_token
from django.templatetags.static import static
from django.urls import get_script_prefix, reverse
from django.utils.html import conditional_escape
from django.utils.translation import get_language, gettext, ngettext
from django_htmx.templatetags.django_htmx import htmx_script

from ratings.charts import escape


def page_html(
    request: HttpRequest,
    *,
    title: str = "",
    title_html: str | None = None,
    head: str = "",
    content: str,
    incoming: int | None = None,
    token: str | None = None,
) -> str:
    """The whole page: ``title`` (text, escaped here) or ``title_html`` (markup, as the block
    ``title`` prints it), ``head`` and ``content`` (markup, as the blocks of the same names
    print them) in the site's shell. ``incoming``: the header's
    count of friend requests, when the page read it with its own reads; else read here, as the
    badge's context processor would. ``token``: the request's CSRF token, when the content
    printed one already (the template engine masks it once a page too)."""
    language = get_language()
    words = shell_words(language, get_script_prefix())
    token = escape(token or get_token(request))
    user = request.user
    if user.is_authenticated:
        if incoming is None:
            from players.friends import incoming_request_count

            incoming = incoming_request_count(user)
        account = (
            f'\n      <span class="user">\n        {badge_html(incoming, words)}\n'
            f'        <a href="{words["account_url"]}" data-testid="account-link">'
            f"{escape(user.username)}</a>\n"
            f'        <form class="inline" action="{words["logout_url"]}" method="post">'
            f'<input type="hidden" name="csrfmiddlewaretoken" value="{token}">\n'
            f'          <button type="submit" class="link-button">{words["log_out"]}</button>\n'
            "        </form>\n      </span>\n      "
        )
        socket = (
            "\n  \n"
            '  <div id="player-socket" hx-ext="ws" ws-connect="/ws/me/">\n'
            '    <form ws-send hx-trigger="every 25s"><input type="hidden" name="type"'
            ' value="ping"></form>\n  </div>\n  '
        )
    else:
        account = (
            f'\n        <a href="{words["login_url"]}">{words["log_in"]}</a>\n'
            f'        <a href="{words["signup_url"]}">{words["sign_up"]}</a>\n      '
        )
        socket = ""
    options = "".join(
        f'<option value="{escape(code)}"{" selected" if code == language else ""}>'
        f"{escape(name)}</option>"
        for code, name in words["languages"]
    )
    return (
        f'<!doctype html>\n\n<html lang="{escape(language)}">\n<head>\n'
        f"{words['head']}"
        f"  <title>{escape(title) if title_html is None else title_html}"
        f" · {words['pizza_games']}</title>\n"
        f"{words['scripts']}"
        f"  {head}\n</head>\n"
        f'<body hx-headers=\'{{"X-CSRFToken": "{token}"}}\'>\n'
        f"{words['header']}"
        f"      {account}\n    </nav>\n  </header>\n"
        f'  <main id="main">\n    {messages_html(request)}\n    {content}\n  </main>\n'
        f"{words['footer']}"
        f'<input type="hidden" name="csrfmiddlewaretoken" value="{token}">\n'
        '      <input type="hidden" name="next"'
        f' value="{escape(request.get_full_path())}">\n'
        f"{words['language_label']}"
        f'      <select id="language" name="language">\n        \n        {options}\n'
        f"      </select>\n{words['change']}"
        f"  </footer>\n"
        f'  <div id="toasts" class="toasts" aria-live="polite"></div>\n  {socket}\n  \n'
        "</body>\n</html>\n"
    )


def badge_html(incoming: int, words: dict[str, Any]) -> str:
    """``templates/players/friend_requests_badge.html`` as the header includes it."""
    badge = ""
    if incoming:
        label = ngettext("%(n)s friend request", "%(n)s friend requests", incoming) % {
            "n": escape(incoming)
        }
        badge = f' <span class="badge" aria-label="{label}">{escape(incoming)}</span>'
    return (
        f'<a id="friend-requests" data-digest="{int(incoming or 0)}" href="{words["friends_url"]}" '
        'class="friend-requests">'
        f"{words['friends']}{badge}</a>\n"
    )


def messages_html(request: HttpRequest) -> str:
    """The messages' list, which reading marks as shown (as iterating them in the template
    does)."""
    messages = get_messages(request)
    if not messages:
        return ""
    items = "".join(
        f'<li class="message {escape(message.tags)}">{conditional_escape(str(message))}</li>'
        for message in messages
    )
    return f'\n    <ul class="messages" role="status">\n      {items}\n    </ul>\n    '


@lru_cache(maxsize=32)
def shell_words(language: str, script_prefix: str) -> dict[str, Any]:
    """What the shell prints the same on every page of a language and links' prefix: its
    translated words (printed unescaped, as ``{% translate %}`` prints a literal's
    translation), links and static files' addresses."""

    def url(name: str) -> str:
        return escape(reverse(name))

    description = gettext(
        "Play La Part du Chef, Pizza Party and Café Fatal live in your browser: friendly and"
        " ranked tables, arena tournaments, an Elo ladder per game, rules pages and a JSON API"
        " for bots."
    )
    brand = gettext("La Part du Chef")
    nav = [
        (url("games:lobby"), gettext("Play")),
        (url("arena:list"), gettext("Arenas")),
        (url("ratings:index"), gettext("Rankings")),
        (url("games:howto_index"), gettext("How to play")),
    ]
    links = "".join(f'      <a href="{href}">{text}</a>\n' for href, text in nav)
    logo = (
        '<svg class="logo" viewBox="0 0 32 32" width="28" height="28" aria-hidden="true"'
        ' focusable="false"><path d="M16 3 L29 27 Q16 33 3 27 Z" fill="#f6d776"'
        ' stroke="#c8792f" stroke-width="2.5" stroke-linejoin="round"/><circle cx="16" cy="14"'
        ' r="2.6" fill="#b3261e"/><circle cx="11" cy="22" r="2.6" fill="#b3261e"/><circle'
        ' cx="20.5" cy="23" r="2.6" fill="#b3261e"/></svg>'
    )
    return {
        "head": (
            '  <meta charset="utf-8">\n'
            '  <meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f'  <meta name="description" content="{description}">\n'
            '  <meta name="theme-color" content="#b3261e">\n'
            f'  <link rel="icon" href="{escape(static("favicon.svg"))}" type="image/svg+xml">\n'
        ),
        "pizza_games": gettext("Pizza games"),
        "scripts": (
            f'  <link rel="stylesheet" href="{escape(static("css/site.css"))}">\n'
            "  \n"
            '  <script>document.documentElement.classList.add("js")</script>\n'
            f'  <script src="{escape(static("js/site.js"))}" defer></script>\n'
            f"  {conditional_escape(htmx_script({}, extensions='hx-ws'))}\n"
        ),
        "header": (
            f'  <a class="skip-link" href="#main">{gettext("Skip to content")}</a>\n'
            '  <header class="site-header">\n'
            f'    <a class="brand" href="{url("games:home")}">{logo} {brand}</a>\n'
            '    <button type="button" class="nav-toggle" aria-expanded="false"'
            ' aria-controls="site-nav" data-testid="nav-toggle">'
            f"{gettext('Menu')}</button>\n"
            f'    <nav id="site-nav" class="site-nav" aria-label="{gettext("Main")}">\n'
            f"{links}      \n"
        ),
        "footer": (
            '  <footer class="site-footer">\n'
            f'    <nav aria-label="{gettext("Footer")}">\n'
            f'      <a href="{url("games:howto_index")}">{gettext("How to play")}</a>\n'
            f'      <a href="{url("games:api_help")}">{gettext("API")}</a>\n'
            "    </nav>\n"
            f'    <form action="{url("set_language")}" method="post">'
        ),
        "language_label": f'      <label for="language">{gettext("Language")}</label>\n',
        "change": f'      <button type="submit">{gettext("Change")}</button>\n    </form>\n',
        "languages": [(code, gettext(name)) for code, name in settings.LANGUAGES],
        "friends_url": url("players:friends"),
        "friends": gettext("Friends"),
        "account_url": url("players:account"),
        "logout_url": url("players:logout"),
        "log_out": gettext("Log out"),
        "login_url": url("players:login"),
        "log_in": gettext("Log in"),
        "signup_url": url("players:signup"),
        "sign_up": gettext("Sign up"),
    }
