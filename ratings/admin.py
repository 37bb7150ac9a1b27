"""Ratings in the admin: to look at, never to change (pdc_site.readonly_admin)."""

from django.contrib import admin

from pdc_site.readonly_admin import ReadOnlyAdmin

from .models import Rating, RatingChange


@admin.register(Rating)
class RatingAdmin(ReadOnlyAdmin):
    list_display = ["user", "game", "value", "matches", "wins", "updated_at"]
    list_filter = ["game"]
    list_select_related = ["user"]
    search_fields = ["user__username"]


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnlyAdmin):
    list_display = ["match", "user", "game", "before", "after", "delta", "rank", "created_at"]
    list_filter = ["game"]
    list_select_related = ["match", "user"]
    search_fields = ["user__username"]
