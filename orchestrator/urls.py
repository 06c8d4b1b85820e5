"""The orchestrator's studio pages, one block per feature; each feature's views live in its package."""

from django.urls import path

from orchestrator.analytics import views as analytics
from orchestrator.assistants import views as assistants
from orchestrator.chat import inspector_views as inspector
from orchestrator.chat import studio_views as test_chat
from orchestrator.cold_start import views as cold_start
from orchestrator.conversation_tests import views as conversation_tests
from orchestrator.learning import job_views as learning_jobs
from orchestrator.learning import views as learning
from orchestrator.simulation import job_views as simulation_jobs
from orchestrator.simulation import scenario_views as scenarios
from orchestrator.simulation import views as simulation
from orchestrator.validation import job_views
from orchestrator.validation import views as validation

app_name = "orchestrator"

validation_urls = [
    path("catalogs/<slug:slug>/validate/", validation.plan_validate_page, name="plan"),
    path("validation/", validation.validation_index_page, name="index"),
    path("validation/analyses/", validation.analysis_create_view, name="analysis_create"),
    path("validation/analyses/<int:pk>/", validation.analysis_page, name="analysis"),
    path("validation/analyses/<int:pk>/report.json", validation.analysis_report_json, name="report_json"),
    path("validation/analyses/<int:pk>/report.html", validation.analysis_report_html, name="report_html"),
    path("validation/analyses/<int:pk>/requeue/", job_views.analysis_requeue_view, name="analysis_requeue"),
    path("validation/analyses/<int:pk>/cancel/", job_views.analysis_cancel_view, name="analysis_cancel"),
]

chat_urls = [
    path("sessions/", inspector.session_list_page, name="sessions"),
    path("sessions/<uuid:session_id>/", inspector.session_inspector_page, name="session"),
    path("catalogs/<slug:slug>/test-chat/", test_chat.chat_panel, name="test_chat"),
    path("catalogs/<slug:slug>/test-chat/messages/", test_chat.chat_message, name="test_chat_message"),
    path("catalogs/<slug:slug>/test-chat/explain/", test_chat.chat_explain, name="test_chat_explain"),
]

simulation_urls = [
    path("catalogs/<slug:slug>/simulations/", simulation.simulation_index_page, name="simulations"),
    path("catalogs/<slug:slug>/simulations/start/", simulation.simulation_start_view, name="simulation_start"),
    path("simulations/compare/", simulation.simulation_compare_page, name="simulation_compare"),
    path("simulations/<int:pk>/", simulation.simulation_page, name="simulation"),
    path("simulations/<int:pk>/cancel/", simulation.simulation_cancel_view, name="simulation_cancel"),
    path("simulations/<int:pk>/requeue/", simulation_jobs.simulation_requeue_view, name="simulation_requeue"),
    path("simulations/<int:pk>/conversations/<int:index>/", simulation.simulated_conversation_page,
         name="simulated_conversation"),
]

learning_urls = [
    path("catalogs/<slug:slug>/review/", learning.review_page, name="review"),
    path("catalogs/<slug:slug>/review/learn/", learning.review_learn_view, name="review_learn"),
    path("catalogs/<slug:slug>/review/jobs/<int:pk>/", learning.review_job_view, name="review_job"),
    path("catalogs/<slug:slug>/review/jobs/<int:pk>/requeue/", learning_jobs.review_job_requeue_view,
         name="review_job_requeue"),
    path("catalogs/<slug:slug>/review/jobs/<int:pk>/cancel/", learning_jobs.review_job_cancel_view,
         name="review_job_cancel"),
    path("catalogs/<slug:slug>/review/decide/", learning.review_decide_view, name="review_decide"),
    path("catalogs/<slug:slug>/promotion/", learning.promotion_page, name="promotion"),
    path("catalogs/<slug:slug>/promotion/threshold/", learning.promotion_threshold_view,
         name="promotion_threshold"),
    path("catalogs/<slug:slug>/promotion/switch/", learning.promotion_switch_view, name="promotion_switch"),
]

assistants_urls = [
    path("catalogs/<slug:slug>/assistants/", assistants.assistants_page, name="assistants"),
    path("catalogs/<slug:slug>/assistants/publish/", assistants.assistant_publish_view, name="assistant_publish"),
    path("catalogs/<slug:slug>/assistants/<slug:key>/<str:action>/", assistants.assistant_action_view,
         name="assistant_action"),
]

conversation_tests_urls = [
    path("catalogs/<slug:slug>/tests/", conversation_tests.tests_page, name="conversation_tests"),
    path("catalogs/<slug:slug>/tests/run/", conversation_tests.tests_run_view, name="conversation_tests_run"),
    path("catalogs/<slug:slug>/tests/save/", conversation_tests.conversation_test_save_view,
         name="conversation_test_save"),
    path("catalogs/<slug:slug>/tests/gate/", conversation_tests.tests_gate_fragment, name="conversation_tests_gate"),
    path("catalogs/<slug:slug>/tests/policy/", conversation_tests.tests_policy_view,
         name="conversation_tests_policy"),
    path("catalogs/<slug:slug>/tests/<int:pk>/", conversation_tests.conversation_test_page, name="conversation_test"),
    path("catalogs/<slug:slug>/tests/<int:pk>/delete/", conversation_tests.conversation_test_delete_view,
         name="conversation_test_delete"),
]

analytics_urls = [
    path("catalogs/<slug:slug>/analytics/<slug:key>/", analytics.analytics_page, name="analytics"),
    path("catalogs/<slug:slug>/analytics/<slug:key>/examples/", analytics.analytics_example_view,
         name="analytics_example"),
]

scenario_urls = [
    path("catalogs/<slug:slug>/scenarios/", scenarios.scenario_index_page, name="scenarios"),
    path("catalogs/<slug:slug>/scenarios/edit/", scenarios.scenario_edit_page, name="scenario_edit"),
    path("catalogs/<slug:slug>/scenarios/save/", scenarios.scenario_save_view, name="scenario_save"),
]

cold_start_urls = [
    path("catalogs/<slug:slug>/cold-start/", cold_start.cold_start_index_page, name="cold_start_index"),
    path("catalogs/<slug:slug>/cold-start/start/", cold_start.cold_start_start_view, name="cold_start_start"),
    path("cold-start/<int:pk>/", cold_start.cold_start_page, name="cold_start"),
    path("cold-start/<int:pk>/continue/", cold_start.cold_start_continue_view, name="cold_start_continue"),
    path("cold-start/<int:pk>/cancel/", cold_start.cold_start_cancel_view, name="cold_start_cancel"),
]

urlpatterns = (validation_urls + chat_urls + simulation_urls + learning_urls + assistants_urls
               + conversation_tests_urls + analytics_urls + scenario_urls + cold_start_urls)
