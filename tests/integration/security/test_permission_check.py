"""The one permission check: its table, its refusals, and the services, pages, API and commands that share it."""

from __future__ import annotations

import base64
import html
from io import StringIO

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.core.management import CommandError, call_command
from django.test import Client

from catalog_app.models import Role, Workspace
from catalog_app.permissions import MINIMUM_ROLE, OPERATOR, Action, NotAllowed, check_allowed, is_allowed
from catalog_app.services import membership_set, user_create, version_promote
from orchestrator.analytics.services import example_propose
from orchestrator.assistants.models import Assistant
from orchestrator.assistants.services import (
    assistant_create,
    assistant_publish,
    assistant_rotate_key,
    assistant_set_enabled,
    assistant_set_origins,
)
from orchestrator.conversation_tests.models import ConversationTest, ConversationTestPolicy, ConversationTestRun
from orchestrator.conversation_tests.services import (
    conversation_test_create,
    conversation_test_delete,
    conversation_tests_policy_set,
    conversation_tests_run,
)
from orchestrator.engine.errors import ConcertoError
from orchestrator.jobs.models import JobStatus
from orchestrator.learning.models import LearningJob, Refinement
from orchestrator.learning.services import learning_job_cancel
from orchestrator.validation.analysis_jobs import analysis_cancel
from orchestrator.validation.models import TrajectoryAnalysis
from tests.integration.conftest import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin(workspace):
    user = user_create(username="ada", password=PASSWORD)
    membership_set(workspace=workspace, user=user, role=Role.ADMIN)
    return user


@pytest.fixture
def live(workspace, banking):
    return assistant_create(workspace=workspace, version=version_promote(version=banking, user=None), key="bank-live",
                            allowed_origins=["https://shop.example.com"])


def test_every_action_names_the_least_role_that_may_do_it():
    assert set(MINIMUM_ROLE) == set(Action)
    assert {MINIMUM_ROLE[a] for a in (Action.ASSISTANT_ROTATE_KEY, Action.ASSISTANT_ENABLE, Action.ASSISTANT_ORIGINS,
                                      Action.ASSISTANT_PUBLISH, Action.VERSION_PROMOTE)} == {Role.ADMIN}
    assert MINIMUM_ROLE[Action.CATALOG_EDIT] == Role.ANALYST


def test_an_analyst_authors_and_an_admin_also_publishes(workspace, analyst, admin):
    assert is_allowed(analyst, workspace, Action.CATALOG_EDIT) and is_allowed(admin, workspace, Action.CATALOG_EDIT)
    assert is_allowed(admin, workspace, Action.ASSISTANT_ROTATE_KEY)
    with pytest.raises(NotAllowed, match="only an admin of the workspace can rotate an assistant's key") as refused:
        check_allowed(analyst, workspace, Action.ASSISTANT_ROTATE_KEY)
    # A 403 for Django and the API, never a catalog problem a form would show as a field error.
    assert isinstance(refused.value, PermissionDenied) and not isinstance(refused.value, ConcertoError)
    assert refused.value.action == Action.ASSISTANT_ROTATE_KEY


def test_other_workspaces_and_anonymous_callers_may_do_nothing(workspace, analyst):
    elsewhere = Workspace.objects.create(name="Other", slug="other")
    for user in (analyst, AnonymousUser()):
        with pytest.raises(NotAllowed, match="you are not a member of this workspace, so you cannot edit a catalog"):
            check_allowed(user, elsewhere, Action.CATALOG_EDIT)


def test_the_operator_at_the_command_line_may_do_anything(workspace):
    assert all(is_allowed(OPERATOR, workspace, action) for action in Action)


def test_the_assistant_services_refuse_an_analyst_whoever_calls_them(analyst, admin, live):
    for write in (lambda: assistant_set_enabled(user=analyst, assistant=live, enabled=False),
                  lambda: assistant_rotate_key(user=analyst, assistant=live),
                  lambda: assistant_set_origins(user=analyst, assistant=live, allowed_origins=["https://evil.example"]),
                  lambda: assistant_publish(user=analyst, catalog=live.catalog_version.catalog, key="mine")):
        with pytest.raises(NotAllowed):
            write()
    live.refresh_from_db()
    assert (live.key, live.enabled, live.allowed_origins) == ("bank-live", True, ["https://shop.example.com"])
    assert not Assistant.objects.filter(key="mine").exists()
    assert assistant_set_enabled(user=admin, assistant=live, enabled=False).enabled is False


def test_page_and_api_refuse_the_same_analyst_the_same_way(analyst, live):
    page = Client()
    page.force_login(analyst)
    token = base64.b64encode(f"{analyst.username}:{PASSWORD}".encode()).decode()
    refused_page = page.post("/catalogs/banking/assistants/bank-live/rotate/")
    refused_api = Client().post("/api/v1/assistants/bank-live/rotate-key", HTTP_AUTHORIZATION=f"Basic {token}")
    message = "only an admin of the workspace can rotate an assistant's key"
    assert refused_page.status_code == refused_api.status_code == 403
    assert message in html.unescape(refused_page.content.decode()).lower()
    assert refused_api.json() == {"detail": message, "errors": []}
    assert Assistant.objects.filter(key="bank-live").exists()


def test_a_command_acting_for_an_analyst_exits_2_with_the_refusal(analyst, live):
    with pytest.raises(CommandError, match="only an admin of the workspace can switch an assistant to the planner") \
            as refused:
        call_command("promote_planner", "banking", "--assistant", "bank-live", "--user", analyst.username,
                     stdout=StringIO())
    assert refused.value.returncode == 2


def test_conversation_tests_analytics_and_job_cancels_refuse_another_workspace(workspace, banking, analyst, admin):
    """Their services check the user themselves: a caller that forgets to scope by workspace still cannot write."""
    outsider = user_create(username="otto", password=PASSWORD)
    membership_set(workspace=Workspace.objects.create(name="Other", slug="other"), user=outsider, role=Role.ADMIN)
    turns = [{"user": "I'd like to apply for a loan", "expect": {"intents": ["apply_loan"]}}]
    test = conversation_test_create(catalog=banking.catalog, name="loan", mode="planner", turns=turns, user=analyst)
    live = assistant_create(workspace=workspace, version=version_promote(version=banking, user=None), key="bank-live")
    job = LearningJob.objects.create(catalog=banking.catalog)
    analysis = TrajectoryAnalysis.objects.create(workspace=workspace, version=banking, samples=[], total=1)
    for write in (
        lambda: conversation_test_create(catalog=banking.catalog, name="mine", mode="planner", turns=turns,
                                         user=outsider),
        lambda: conversation_test_delete(test=test, user=outsider),
        lambda: conversation_tests_run(version=banking, user=outsider),
        lambda: conversation_tests_policy_set(catalog=banking.catalog, required=True, user=outsider),
        lambda: example_propose(assistant=live, intent="apply_loan", text="can I borrow money", user=outsider),
        lambda: learning_job_cancel(job=job, user=outsider),
        lambda: analysis_cancel(analysis=analysis, user=outsider),
    ):
        with pytest.raises(NotAllowed, match="you are not a member of this workspace"):
            write()
    assert list(ConversationTest.objects.values_list("name", flat=True)) == ["loan"]
    assert not ConversationTestRun.objects.exists() and not ConversationTestPolicy.objects.filter(required=True)
    assert not Refinement.objects.exists()
    job.refresh_from_db()
    analysis.refresh_from_db()
    assert job.status == analysis.status == JobStatus.QUEUED
    # Analysts run and cancel what they may start; only admins set the promotion gate.
    assert conversation_tests_run(version=banking, user=analyst).ok
    assert learning_job_cancel(job=job, user=analyst).status == JobStatus.CANCELLED
    with pytest.raises(NotAllowed, match="only an admin of the workspace can require conversation tests"):
        conversation_tests_policy_set(catalog=banking.catalog, required=True, user=analyst)
    assert conversation_tests_policy_set(catalog=banking.catalog, required=True, user=admin).required
