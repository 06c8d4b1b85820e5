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

# --- simulations (issue 12) ----------------------------------------------------------------------
from . import simulation_views  # noqa: E402

urlpatterns += [
    path("catalogs/<slug:slug>/simulations/", simulation_views.simulation_index_page, name="simulations"),
    path("catalogs/<slug:slug>/simulations/start/", simulation_views.simulation_start_view, name="simulation_start"),
    path("simulations/compare/", simulation_views.simulation_compare_page, name="simulation_compare"),
    path("simulations/<int:pk>/", simulation_views.simulation_page, name="simulation"),
    path("simulations/<int:pk>/cancel/", simulation_views.simulation_cancel_view, name="simulation_cancel"),
    path("simulations/<int:pk>/conversations/<int:index>/", simulation_views.simulated_conversation_page,
         name="simulated_conversation"),
]

# --- cold-start learning: the review queue and gated promotion (issue 13) -----------------------
from . import learning_views  # noqa: E402

urlpatterns += [
    path("catalogs/<slug:slug>/review/", learning_views.review_page, name="review"),
    path("catalogs/<slug:slug>/review/learn/", learning_views.review_learn_view, name="review_learn"),
    path("catalogs/<slug:slug>/review/jobs/<int:pk>/", learning_views.review_job_view, name="review_job"),
    path("catalogs/<slug:slug>/review/decide/", learning_views.review_decide_view, name="review_decide"),
    path("catalogs/<slug:slug>/promotion/", learning_views.promotion_page, name="promotion"),
    path("catalogs/<slug:slug>/promotion/threshold/", learning_views.promotion_threshold_view,
         name="promotion_threshold"),
    path("catalogs/<slug:slug>/promotion/switch/", learning_views.promotion_switch_view, name="promotion_switch"),
]

# --- publishing: the Assistants screen of a catalog (issue 14) ----------------------------------
from . import assistant_views  # noqa: E402  (this section stays self-contained for merging)

urlpatterns += [
    path("catalogs/<slug:slug>/assistants/", assistant_views.assistants_page, name="assistants"),
    path("catalogs/<slug:slug>/assistants/publish/", assistant_views.assistant_publish_view, name="assistant_publish"),
    path("catalogs/<slug:slug>/assistants/<slug:key>/<str:action>/", assistant_views.assistant_action_view,
         name="assistant_action"),
]

# --- the studio's test chat beside the editor (issue 14) ------------------------------------------
from . import studio_chat_views  # noqa: E402  (this section stays self-contained for merging)

urlpatterns += [
    path("catalogs/<slug:slug>/test-chat/", studio_chat_views.chat_panel, name="test_chat"),
    path("catalogs/<slug:slug>/test-chat/messages/", studio_chat_views.chat_message, name="test_chat_message"),
    path("catalogs/<slug:slug>/test-chat/explain/", studio_chat_views.chat_explain, name="test_chat_explain"),
]

# --- analysis jobs whose worker died: re-queue (issue 10) -----------------------------------------
urlpatterns += [
    path("validation/analyses/<int:pk>/requeue/", analysis_job_views.analysis_requeue_view, name="analysis_requeue"),
]
