"""The admin's rule for game data: staff may look, never write past the services.

A match's state, its moves, its seats, the ratings it moved and the arena points it gave must
agree; only the services keep them agreeing (in one transaction, with their checks and signals).
So the admin pages of that data add, change and delete nothing. A model may name harmless fields
staff may still edit (``editable_fields``, such as an arena's name); every other field is shown
read-only.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest


class ReadOnlyAdmin(admin.ModelAdmin):
    #: Harmless fields staff may edit; with none, the pages are view-only.
    editable_fields: tuple[str, ...] = ()
    #: Computed fields (methods of the admin) shown after the model's fields.
    extra_readonly: tuple[str, ...] = ()

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return bool(self.editable_fields) and super().has_change_permission(request, obj)

    def get_readonly_fields(self, request: HttpRequest, obj: Model | None = None) -> list[str]:
        shown = self.get_fields(request, obj)
        return [name for name in shown if name not in self.editable_fields]

    def save_model(self, request: HttpRequest, obj: Model, form: Any, change: bool) -> None:
        # Only the editable fields: a full save could rewrite what the services derived.
        obj.save(update_fields=self.editable_fields)

    def get_fields(self, request: HttpRequest, obj: Model | None = None) -> list[Any]:
        if self.fields:
            return list(self.fields)
        # The model's own fields (asking the form, as Django does, would ask for these again).
        names = [f.name for f in self.model._meta.fields if f.name not in (self.exclude or ())]
        return [*names, *self.extra_readonly]


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False
