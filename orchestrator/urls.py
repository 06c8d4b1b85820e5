from django.urls import path

from . import analysis_job_views, views

app_name = "orchestrator"

urlpatterns = [
    path("catalogs/<slug:slug>/validate/", views.plan_validate_page, name="plan"),
    path("validation/", views.validation_index_page, name="index"),
    path("validation/analyses/", views.analysis_create_view, name="analysis_create"),
    path("validation/analyses/<int:pk>/", views.analysis_page, name="analysis"),
    path("validation/analyses/<int:pk>/report.json", views.analysis_report_json, name="report_json"),
    path("validation/analyses/<int:pk>/report.html", views.analysis_report_html, name="report_html"),
]

# --- chat sessions: the inspector (issue 3) -----------------------------------------------------
urlpatterns += [
    path("sessions/", views.session_list_page, name="sessions"),
    path("sessions/<uuid:session_id>/", views.session_inspector_page, name="session"),
]

# --- analysis jobs whose worker died: re-queue (issue 10) -----------------------------------------
urlpatterns += [
    path("validation/analyses/<int:pk>/requeue/", analysis_job_views.analysis_requeue_view, name="analysis_requeue"),
]
