from django.urls import path

from . import intent_try_views, views

app_name = "catalog"


def _edit(route: str, op: str) -> object:
    """An edit of version `number` of a catalog; `op` names the change (see `views.EDITS`)."""
    return path(f"catalogs/<slug:slug>/v<int:number>/{route}", views.studio_edit, {"op": op}, name=op)


urlpatterns = [
    path("", views.catalog_list_page, name="list"),
    path("catalogs/new/", views.catalog_create_view, name="create"),
    path("catalogs/import/", views.catalog_import_view, name="import"),
    path("catalogs/<slug:slug>/", views.catalog_detail_page, name="detail"),
    path("catalogs/<slug:slug>/pddl/", views.version_pddl_page, name="pddl"),
    path("catalogs/<slug:slug>/plans/", views.version_plans_page, name="plans"),
    path("catalogs/<slug:slug>/edit/", views.editor_page, name="edit"),
    path("catalogs/<slug:slug>/preview/", views.preview_fragment, name="preview"),
    path("catalogs/<slug:slug>/graph/", views.graph_page, name="graph"),
    path("catalogs/<slug:slug>/versions/", views.versions_page, name="versions"),
    path("catalogs/<slug:slug>/diff/", views.version_diff_fragment, name="diff"),
    path("catalogs/<slug:slug>/export/", views.export_view, name="export"),
    path("catalogs/<slug:slug>/tools/", views.tools_page, name="tools"),
    path("catalogs/<slug:slug>/v<int:number>/draft/", views.version_draft_view, name="draft"),
    path("catalogs/<slug:slug>/v<int:number>/promote/", views.version_promote_view, name="promote"),
    _edit("elements/add/", "element_add"),
    _edit("elements/<str:name>/", "element_update"),
    _edit("elements/<str:name>/delete/", "element_delete"),
    _edit("skills/add/", "skill_add"),
    _edit("skills/<str:name>/", "skill_update"),
    _edit("skills/<str:name>/delete/", "skill_delete"),
    _edit("skills/<str:skill>/modes/add/", "mode_add"),
    _edit("skills/<str:skill>/modes/<int:mode>/", "mode_update"),
    _edit("skills/<str:skill>/modes/<int:index>/delete/", "mode_delete"),
    _edit("skills/<str:skill>/modes/<int:mode>/outcomes/add/", "outcome_add"),
    _edit("skills/<str:skill>/modes/<int:mode>/outcomes/<int:outcome>/", "outcome_update"),
    _edit("skills/<str:skill>/modes/<int:mode>/outcomes/<int:index>/delete/", "outcome_delete"),
    _edit("intents/add/", "intent_add"),
    _edit("intents/<str:name>/", "intent_update"),
    _edit("intents/<str:name>/delete/", "intent_delete"),
    _edit("settings/", "settings_update"),
]

# --- issue #11: the studio's intent tester ---
urlpatterns += [
    path("catalogs/<slug:slug>/try-intent/", intent_try_views.intent_try_fragment, name="intent_try"),
]
