from django.contrib import admin

from .models import ArenaMatch, Entry, Tournament, Trophy


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ["name", "game", "status", "starts_at", "ends_at", "seats", "private"]
    list_filter = ["status", "game", "private"]
    search_fields = ["name", "schedule_key"]
    readonly_fields = ["ends_at", "schedule_key", "invite_code"]


@admin.register(Entry)
class EntryAdmin(admin.ModelAdmin):
    list_display = ["tournament", "user", "points", "matches", "fire_streak", "paused"]
    list_select_related = ["tournament", "user"]
    raw_id_fields = ["tournament", "user", "table"]


@admin.register(ArenaMatch)
class ArenaMatchAdmin(admin.ModelAdmin):
    list_display = ["tournament", "number", "match", "scored", "created_at"]
    raw_id_fields = ["tournament", "match"]


@admin.register(Trophy)
class TrophyAdmin(admin.ModelAdmin):
    list_display = ["tournament", "place", "user"]
    raw_id_fields = ["tournament", "user"]
