"""A table's chat: short lines from its players and spectators, kept with the match.

Posting checks, in order: the author (logged in, allowed to see the table), the text (a string,
not empty, one line of at most ``MAX_CHARS`` characters, no markup), then the rate; a refusal
says why and stores nothing. The author's name and seat come from the server, never from the
client. A viewer may mute another person: from then on their lines are left out of everything
that viewer is shown (nobody else is affected).

A new line rings the table's group with its id only; each socket renders the chat for its own
viewer (their mutes), in a fragment of its own, apart from the table's.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any
from urllib.parse import urlencode

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _

from . import notify, ratelimit, services
from .models import ChatMessage, ChatMute, Match

MAX_CHARS = 200
#: Lines one person may write, per window of seconds, at all tables together.
LINES_PER_WINDOW = (5, 10)
#: The latest lines a table shows (the API pages back with ``before``).
SHOWN_LINES = 100

#: A tag, a closing tag, a comment or a doctype: ``<b>``, ``</a>``, ``<!--``, ``<?xml``. A lone
#: "<" as in "<3" or "1 < 2" is plain text.
_MARKUP = re.compile(r"<\s*/?\s*[A-Za-z!?]")

User = AbstractBaseUser | AnonymousUser | None


def _logged_in(user: User) -> bool:
    return bool(user is not None and user.is_authenticated)


def _watchable(match_id: int, user: User, invite_code: str | None) -> Match:
    match = Match.objects.filter(pk=match_id).first()
    # A private table the user may not see answers exactly like a missing one.
    if match is None or not services.may_watch(match, user, invite_code):
        raise services.NotFound(_("There is no such table."))
    return match


# --- posting -------------------------------------------------------------------------------------
def checked_text(text: Any) -> str:
    """The line as it will be kept (spaces around it trimmed), or a refusal saying what is wrong."""
    if not isinstance(text, str):
        raise services.BadRequest(_("Send the message as text."))
    text = text.strip()
    if not text:
        raise services.BadRequest(_("The message is empty: write something first."))
    if len(text) > MAX_CHARS:
        raise services.BadRequest(
            _("A message has at most %(limit)d characters; this one has %(count)d.")
            % {"limit": MAX_CHARS, "count": len(text)}
        )
    if any(unicodedata.category(c) in ("Cc", "Cs") for c in text):
        raise services.BadRequest(_("A message is one line of text, without control characters."))
    if _MARKUP.search(text):
        raise services.BadRequest(_("Messages are plain text: HTML and other markup are refused."))
    return text


def post(user: User, match_id: int, text: Any, invite_code: str | None = None) -> ChatMessage:
    """Add ``text`` to the table's chat as ``user`` (their seat if they have one, else a
    spectator), and ring the table's group after the commit."""
    if not _logged_in(user):
        raise services.NotAllowed(_("Log in to write in the chat."))
    match = _watchable(match_id, user, invite_code)
    text = checked_text(text)
    if not ratelimit.allow(f"chat:{user.pk}", *LINES_PER_WINDOW):
        raise services.TooMany(_("You are writing too fast: wait a few seconds."))
    seat = services.seat_of(match, user)
    with transaction.atomic():
        line = ChatMessage.objects.create(
            match=match, author=user, seat=seat.index if seat else None, text=text
        )
        match_id, line_id = match.pk, line.pk
        transaction.on_commit(
            lambda: notify.send(
                notify.table_group(match_id),
                {"type": "chat.posted", "match": match_id, "line": line_id},
            )
        )
    return line


# --- muting --------------------------------------------------------------------------------------
def set_muted(
    user: User, match_id: int, name: Any, muted: Any, invite_code: str | None = None
) -> list[str]:
    """``user``, at the table ``match_id``, mutes (or unmutes) the person called ``name``, at every
    table; the names they mute now."""
    if not _logged_in(user):
        raise services.NotAllowed(_("Log in to mute someone."))
    _watchable(match_id, user, invite_code)
    if not isinstance(name, str) or not isinstance(muted, bool):
        raise services.BadRequest(_('Send {"player": name, "muted": true or false}.'))
    target = get_user_model().objects.filter(username=name).first()
    if target is None:
        raise services.BadRequest(_("There is no player called %(name)r.") % {"name": name})
    if target.pk == user.pk:
        raise services.BadRequest(_("You cannot mute yourself."))
    if muted:
        ChatMute.objects.get_or_create(user=user, muted=target)
    else:
        ChatMute.objects.filter(user=user, muted=target).delete()
    return muted_names(user)


def muted_ids(user: User) -> set[int]:
    if not _logged_in(user):
        return set()
    return set(ChatMute.objects.filter(user=user).values_list("muted_id", flat=True))


def muted_names(user: User) -> list[str]:
    if not _logged_in(user):
        return []
    return list(
        ChatMute.objects.filter(user=user)
        .order_by("muted__username")
        .values_list("muted__username", flat=True)
    )


# --- reading -------------------------------------------------------------------------------------
def lines_for(match: Match, user: User, before: int | None = None) -> list[ChatMessage]:
    """The latest ``SHOWN_LINES`` lines of the table (before the line ``before``, if given) that
    ``user`` has not muted, oldest first."""
    query = ChatMessage.objects.filter(match=match).select_related("author")
    muted = muted_ids(user)
    if muted:
        query = query.exclude(author_id__in=muted)
    if before is not None:
        query = query.filter(pk__lt=before)
    return list(reversed(query.order_by("-pk")[:SHOWN_LINES]))


def line_json(line: ChatMessage) -> dict[str, Any]:
    return {
        "id": line.pk,
        "player": line.author.username,
        "seat": line.seat,
        "text": line.text,
        "at": line.created_at.isoformat(),
    }


def chat_context(
    match: Match, user: User, invite_code: str | None = None, error: str | None = None
) -> dict[str, Any]:
    """What the chat panel shows ``user``."""
    me = user.pk if _logged_in(user) else None
    invite = invite_code if invite_code and invite_code == match.invite_code else None
    table_url = reverse("games:table", args=[match.pk])
    return {
        "chat": {
            "lines": [
                {**line_json(line), "mine": line.author_id == me} for line in lines_for(match, user)
            ],
            "muted": muted_names(user),
            "can_post": me is not None,
            "can_mute": me is not None,
            "max_chars": MAX_CHARS,
            "post_url": reverse("games:chat", args=[match.pk]),
            "mute_url": reverse("games:chat_mute", args=[match.pk]),
            "invite": invite,
            "login_url": f"{reverse('players:login')}?{urlencode({'next': table_url})}",
            "error": error,
        }
    }


def render_chat_lines(match_id: int, user: User, invite_code: str | None = None) -> str | None:
    """The chat's lines as ``user`` reads them, as an hx-swap-oob fragment (None: no table)."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        return None
    context = {**chat_context(match, user, invite_code), "oob": True}
    return render_to_string("games/partials/chat.html#lines", context)


def render_chat_error(text: str) -> str:
    """The chat form's error line (empty: no error), as an hx-swap-oob fragment."""
    return render_to_string(
        "games/partials/chat.html#error", {"chat": {"error": text}, "oob": True}
    )
