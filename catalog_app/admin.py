"""Django admin: workspaces and memberships are edited here; catalog content is read-only.

Catalog content changes only through the services, which validate the whole spec and keep
promoted versions immutable; the admin's per-row forms could do neither.
"""

from django.contrib import admin
from django.http import HttpRequest

from .models import Catalog, CatalogVersion, Element, Intent, Membership, Skill, Workspace


class ReadOnlyMixin:
    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ("user",)


@admin.register(Workspace)
class WorkspaceAdmin(admin.ModelAdmin):
    list_display = ("name", "slug")
    search_fields = ("name", "slug")
    inlines = (MembershipInline,)


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ("user", "workspace", "role")
    list_filter = ("role", "workspace")
    autocomplete_fields = ("user", "workspace")


class VersionInline(ReadOnlyMixin, admin.TabularInline):
    model = CatalogVersion
    fields = ("number", "status", "title", "created_by", "created_at", "promoted_at", "note")
    readonly_fields = fields
    show_change_link = True


@admin.register(Catalog)
class CatalogAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("slug", "title", "workspace")
    list_filter = ("workspace",)
    search_fields = ("slug", "title")
    inlines = (VersionInline,)


class ElementInline(ReadOnlyMixin, admin.TabularInline):
    model = Element
    fk_name = "version"
    fields = ("position", "name", "parent", "sensitive", "askable", "format", "description")
    readonly_fields = fields


class SkillInline(ReadOnlyMixin, admin.TabularInline):
    model = Skill
    fields = ("position", "name", "endpoint", "max_retries", "cost", "description")
    readonly_fields = fields


class IntentInline(ReadOnlyMixin, admin.TabularInline):
    model = Intent
    fields = ("position", "name", "goal_known", "goal_done", "extensions", "description")
    readonly_fields = fields


@admin.register(CatalogVersion)
class CatalogVersionAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("catalog", "number", "status", "created_by", "created_at", "promoted_at")
    list_filter = ("status", "catalog__workspace")
    search_fields = ("catalog__slug", "title", "note")
    inlines = (
        ElementInline,
        SkillInline,
        IntentInline,
    )
