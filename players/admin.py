"""Tokens and friendships in the admin: to look at (pdc_site.readonly_admin). A token's hash is
not shown; revoking is the one change staff may make, as an action."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from pdc_site.readonly_admin import ReadOnlyAdmin

from .auth import tokens_changed
from .models import ApiToken, Friendship


@admin.register(ApiToken)
class ApiTokenAdmin(ReadOnlyAdmin):
    list_display = ["user", "name", "hint", "created_at", "last_used_at", "revoked_at"]
    list_select_related = ["user"]
    search_fields = ["user__username", "name", "hint"]
    exclude = ["key_hash"]
    actions = ["revoke"]

    @admin.action(description=_("Revoke the selected tokens"), permissions=["view"])
    def revoke(self, request: HttpRequest, tokens: QuerySet[ApiToken]) -> None:
        count = tokens.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
        tokens_changed()  # an update sends no signal: every process must forget them
        text = ngettext("%(count)d token revoked.", "%(count)d tokens revoked.", count)
        messages.info(request, text % {"count": count})


@admin.register(Friendship)
class FriendshipAdmin(ReadOnlyAdmin):
    list_display = ["from_user", "to_user", "created_at", "accepted_at"]
    list_select_related = ["from_user", "to_user"]
