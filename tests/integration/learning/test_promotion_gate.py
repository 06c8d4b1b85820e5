"""Promotion to the planner is gated: compiled, every intent plannable, and the catalog's simulation threshold met."""

from __future__ import annotations

import pytest
import yaml

from catalog_app.editing import EditRefused, version_promote_checked
from catalog_app.models import VersionStatus
from catalog_app.services import version_create_draft, version_promote
from orchestrator.assistants.promotion import assistant_promote_to_planner, policy_set, promotion_report
from orchestrator.assistants.services import assistant_create
from orchestrator.modes import AssistantMode
from orchestrator.simulation.services import run_create, run_execute
from tests.integration.learning.conftest import DEMO


def test_without_a_threshold_a_plannable_draft_promotes_as_before(banking, admin):
    assert version_promote_checked(version=banking, user=admin).status == VersionStatus.PROMOTED


def test_a_threshold_blocks_promotion_until_a_planner_run_of_that_version_reaches_it(banking, run, admin):
    draft = version_create_draft(version=banking, user=admin)
    policy_set(catalog=banking.catalog, threshold=0.2, user=admin)
    with pytest.raises(EditRefused, match="simulation run of version 2"):
        version_promote_checked(version=draft, user=admin)  # the run was of version 1
    assert promotion_report(version=banking).ready  # version 1's own run: 80 conversations, above 20%
    policy_set(catalog=banking.catalog, threshold=0.99, user=admin)
    report = promotion_report(version=banking)
    assert not report.ready and report.run == run and report.success_rate < 0.99
    with pytest.raises(EditRefused, match="asks for 99%"):
        version_promote_checked(version=banking, user=admin)


def test_an_assistant_moves_from_s3_to_the_planner_only_through_a_gated_promotion(workspace, banking, admin):
    # Assistants run promoted versions: S3 runs the first sketch; the draft after it goes to the planner.
    sketch = version_promote(version=banking, user=admin)
    draft = version_create_draft(version=sketch, user=admin)
    assistant = assistant_create(workspace=workspace, version=sketch, key="bank-s3", mode=AssistantMode.S3)
    policy_set(catalog=banking.catalog, threshold=0.1, user=admin)
    with pytest.raises(EditRefused):
        assistant_promote_to_planner(assistant=assistant, version=draft, user=admin)
    assistant.refresh_from_db()
    assert assistant.mode == AssistantMode.S3
    truths = yaml.safe_load((DEMO / "banking-scenario.yaml").read_text())
    run = run_create(workspace=workspace, version=draft, scenario=truths, conversations=20, seed=1, enqueue=False)
    run_execute(run_id=run.pk)
    switched = assistant_promote_to_planner(assistant=assistant, version=draft, user=admin)
    assert switched.mode == AssistantMode.PLANNER and switched.catalog_version.status == VersionStatus.PROMOTED



def test_no_other_path_gives_a_published_assistant_the_planner_past_the_gate(workspace, banking, admin, admin_auth):
    from django.contrib import admin as django_admin
    from django.test import Client

    from orchestrator.assistants.models import Assistant
    from orchestrator.assistants.services import (
        assistant_publish,
        assistant_set_version,
        assistant_update,
        studio_test_assistant,
    )

    banking = version_promote(version=banking, user=admin)  # assistants run promoted versions
    early = assistant_create(workspace=workspace, version=banking, key="bank-early", mode=AssistantMode.PLANNER)
    policy_set(catalog=banking.catalog, threshold=0.5, user=admin)  # no planner run of version 1 reaches it
    with pytest.raises(EditRefused, match="cannot run the planner: a finished simulation run of version 1"):
        assistant_create(workspace=workspace, version=banking, key="bank-planner", mode=AssistantMode.PLANNER)
    assert not Assistant.objects.filter(key="bank-planner").exists()
    s3 = assistant_create(workspace=workspace, version=banking, key="bank-s3", mode=AssistantMode.S3)
    with pytest.raises(EditRefused, match="cannot run the planner"):
        assistant_update(user=admin, assistant=s3, mode=AssistantMode.PLANNER)
    with pytest.raises(EditRefused, match="cannot run the planner"):
        assistant_publish(user=admin, catalog=banking.catalog, key="bank-s3", mode=AssistantMode.PLANNER)
    patched = Client().patch("/api/v1/assistants/bank-s3", {"orchestrator": "planner"},
                             content_type="application/json", **admin_auth)
    assert patched.status_code == 422 and "cannot run the planner" in patched.json()["detail"]
    s3.refresh_from_db()
    assert s3.mode == AssistantMode.S3
    # A planner assistant moved to another version: that version must pass the gate too (v2 was
    # promoted by the ungated import path, as `load_demo` does).
    later = version_promote(version=version_create_draft(version=banking, user=admin), user=admin)
    with pytest.raises(EditRefused, match="version 2 of 'banking' cannot run the planner"):
        assistant_set_version(user=admin, assistant=early, version=later)
    early.refresh_from_db()
    assert early.catalog_version == banking
    # The studio's own test chat (never published) is not gated; S3 assistants move freely.
    assert studio_test_assistant(version=banking).mode == AssistantMode.PLANNER
    assert assistant_set_version(user=admin, assistant=s3, version=later).catalog_version == later
    # The Django admin cannot change an assistant's orchestrator either.
    registered = django_admin.site._registry.get(Assistant)
    assert registered is None or "mode" in registered.get_readonly_fields(None)
    # Without the threshold, the same calls pass: the gate, not the paths, decided.
    policy_set(catalog=banking.catalog, threshold=None, user=admin)
    assert assistant_update(user=admin, assistant=s3, mode=AssistantMode.PLANNER).mode == AssistantMode.PLANNER
