from django.urls import path

from .views import catalogs, editor, graph, intent_try, tools, versions

app_name = "catalog"


def _edit(route: str, op: str) -> object:
    """An edit of version `number` of a catalog; `op` names the change (see `views.edits.EDITS`)."""
    return path(f"catalogs/<slug:slug>/v<int:number>/{route}", editor.studio_edit, {"op": op}, name=op)


urlpatterns = [
    path("", catalogs.catalog_list_page, name="list"),
    path("catalogs/new/", catalogs.catalog_create_view, name="create"),
    path("catalogs/import/", catalogs.catalog_import_view, name="import"),
    path("catalogs/<slug:slug>/", catalogs.catalog_detail_page, name="detail"),
    path("catalogs/<slug:slug>/pddl/", catalogs.version_pddl_page, name="pddl"),
    path("catalogs/<slug:slug>/plans/", catalogs.version_plans_page, name="plans"),
    path("catalogs/<slug:slug>/edit/", editor.editor_page, name="edit"),
    path("catalogs/<slug:slug>/preview/", editor.preview_fragment, name="preview"),
    path("catalogs/<slug:slug>/graph/", graph.graph_page, name="graph"),
    path("catalogs/<slug:slug>/versions/", versions.versions_page, name="versions"),
    path("catalogs/<slug:slug>/diff/", versions.version_diff_fragment, name="diff"),
    path("catalogs/<slug:slug>/export/", versions.export_view, name="export"),
    path("catalogs/<slug:slug>/tools/", tools.tools_page, name="tools"),
    path("catalogs/<slug:slug>/v<int:number>/draft/", versions.version_draft_view, name="draft"),
    path("catalogs/<slug:slug>/v<int:number>/promote/", versions.version_promote_view, name="promote"),
    path("catalogs/<slug:slug>/v<int:number>/promote/confirm/", versions.version_promote_confirm_page,
         name="promote_confirm"),
    path("catalogs/<slug:slug>/v<int:number>/list/<str:kind>/", editor.section_fragment, name="section"),
    path("catalogs/<slug:slug>/v<int:number>/forms/element/<str:name>/", editor.card_form, {"card": "element"},
         name="element_form"),
    path("catalogs/<slug:slug>/v<int:number>/forms/intent/<str:name>/", editor.card_form, {"card": "intent"},
         name="intent_form"),
    path("catalogs/<slug:slug>/v<int:number>/forms/skill/<str:name>/", editor.card_form, {"card": "skill"},
         name="skill_form"),
    path("catalogs/<slug:slug>/v<int:number>/forms/skill/<str:name>/new-mode/", editor.card_form,
         {"card": "new-mode"}, name="new_mode_form"),
    path("catalogs/<slug:slug>/v<int:number>/forms/skill/<str:name>/modes/<int:mode>/", editor.card_form,
         {"card": "mode"}, name="mode_form"),
    path("catalogs/<slug:slug>/v<int:number>/undo/", editor.undo_view, name="undo"),
    path("catalogs/<slug:slug>/v<int:number>/redo/", editor.undo_view, {"redo": True}, name="redo"),
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
    path("catalogs/<slug:slug>/try-intent/", intent_try.intent_try_fragment, name="intent_try"),
]
