"""Matches in the admin: to look at, never to change (pdc_site.readonly_admin). What a running
match keeps hidden (its seed, its state, its chance moves) stays hidden here too: staff play."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from pdc_site.readonly_admin import ReadOnlyAdmin, ReadOnlyInline

from .models import ChatMessage, Invitation, Match, Move, Seat

HIDDEN = _("(hidden while the match runs)")


class SeatInline(ReadOnlyInline):
    model = Seat
    fields = ["index", "user", "bot_level", "score", "rank", "timeouts_in_row", "abandoned"]
    readonly_fields = fields


@admin.register(Match)
class MatchAdmin(ReadOnlyAdmin):
    list_display = ["pk", "game", "mode", "status", "private", "version", "created_at"]
    list_filter = ["status", "game", "mode", "private"]
    exclude = ["seed", "state"]
    extra_readonly = ("final_state",)
    inlines = [SeatInline]

    @admin.display(description=_("state"))
    def final_state(self, match: Match) -> Any:
        return match.state if match.is_over else HIDDEN


@admin.register(Seat)
class SeatAdmin(ReadOnlyAdmin):
    list_display = ["match", "index", "user", "bot_level", "score", "rank", "abandoned"]
    list_select_related = ["match", "user"]


@admin.register(Move)
class MoveAdmin(ReadOnlyAdmin):
    list_display = ["match", "number", "seat", "by_bot", "created_at"]
    list_select_related = ["match"]
    exclude = ["payload"]
    extra_readonly = ("shown_payload",)

    @admin.display(description=_("move"))
    def shown_payload(self, move: Move) -> Any:
        return move.payload if move.match.is_over else HIDDEN


@admin.register(Invitation)
class InvitationAdmin(ReadOnlyAdmin):
    list_display = ["match", "from_user", "to_user", "created_at"]
    list_select_related = ["match", "from_user", "to_user"]


@admin.register(ChatMessage)
class ChatMessageAdmin(ReadOnlyAdmin):
    """A table's chat, for staff who look into a complaint (public to the table's viewers)."""

    list_display = ["match", "author", "seat", "text", "created_at"]
    list_select_related = ["match", "author"]
    search_fields = ["text", "author__username"]
