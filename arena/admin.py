"""Arenas in the admin: to look at, never to change past the services (pdc_site.readonly_admin):
an entry's points come from its results, a table from the seating round. Staff may rename an
arena."""

from django.contrib import admin

from pdc_site.readonly_admin import ReadOnlyAdmin, ReadOnlyInline

from .models import ArenaMatch, ArenaResult, Entry, Tournament, Trophy


@admin.register(Tournament)
class TournamentAdmin(ReadOnlyAdmin):
    list_display = ["name", "game", "status", "starts_at", "ends_at", "seats", "private"]
    list_filter = ["status", "game", "private"]
    search_fields = ["name", "schedule_key"]
    exclude = ["invite_code"]
    editable_fields = ("name",)


@admin.register(Entry)
class EntryAdmin(ReadOnlyAdmin):
    list_display = ["tournament", "user", "points", "matches", "fire_streak", "paused"]
    list_select_related = ["tournament", "user"]


class ArenaResultInline(ReadOnlyInline):
    model = ArenaResult
    fields = ["entry", "rank", "points", "doubled", "abandoned", "created_at"]
    readonly_fields = fields


@admin.register(ArenaMatch)
class ArenaMatchAdmin(ReadOnlyAdmin):
    list_display = ["tournament", "number", "match", "scored", "created_at"]
    list_select_related = ["tournament", "match"]
    inlines = [ArenaResultInline]


@admin.register(ArenaResult)
class ArenaResultAdmin(ReadOnlyAdmin):
    list_display = ["table", "entry", "rank", "points", "doubled", "abandoned"]
    list_select_related = ["table", "entry"]


@admin.register(Trophy)
class TrophyAdmin(ReadOnlyAdmin):
    list_display = ["tournament", "place", "user"]
    list_select_related = ["tournament", "user"]
