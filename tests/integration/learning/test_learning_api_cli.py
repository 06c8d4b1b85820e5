"""The review queue over the API (members read, admins decide) and `manage.py learn`."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from orchestrator.learning.models import Refinement
from orchestrator.learning.services import refinements_propose


def test_members_read_the_queue_and_only_admins_accept(banking, run, basic_auth, admin_auth):
    rows = refinements_propose(catalog=banking.catalog, run=run)
    client = Client()
    listed = client.get("/api/v1/catalogs/banking/refinements", **basic_auth)
    assert listed.status_code == 200 and {r["id"] for r in listed.json()} == {r.pk for r in rows}
    body = json.dumps({"ids": [rows[0].pk]})
    refused = client.post("/api/v1/catalogs/banking/refinements/accept", body, content_type="application/json",
                          **basic_auth)
    assert refused.status_code == 403 and "admin" in refused.json()["detail"]
    accepted = client.post("/api/v1/catalogs/banking/refinements/accept", body, content_type="application/json",
                           **admin_auth)
    assert accepted.status_code == 200, accepted.json()
    assert accepted.json()["draft"] == banking.number + 1 and accepted.json()["diff"]
    rejected = client.post("/api/v1/catalogs/banking/refinements/reject", json.dumps({"ids": [rows[1].pk]}),
                           content_type="application/json", **admin_auth)
    assert rejected.status_code == 200 and rejected.json()["draft"] is None
    again = client.post("/api/v1/catalogs/banking/refinements/reject", json.dumps({"ids": [rows[1].pk]}),
                        content_type="application/json", **admin_auth)
    assert again.status_code == 422 and "already rejected" in again.json()["detail"]
    pending = client.get("/api/v1/catalogs/banking/refinements", **basic_auth).json()
    assert {r["id"] for r in pending} == {r.pk for r in rows[2:]}


def test_learn_prints_the_proposals_as_json_and_queues_them(banking, run):
    out = StringIO()
    call_command("learn", "banking", "--run", str(run.pk), "--json", stdout=out)
    data = json.loads(out.getvalue())
    assert data["refinements"] and all(r["status"] == "pending" for r in data["refinements"])
    assert Refinement.objects.filter(catalog=banking.catalog).count() == len(data["refinements"])


@pytest.mark.parametrize("args", [["banking", "--run", "99999"], ["banking"], ["nope", "--run", "1"]])
def test_learn_exits_2_on_bad_input(banking, args):
    with pytest.raises(CommandError) as raised:
        call_command("learn", *args, stdout=StringIO())
    assert raised.value.returncode == 2


def test_review_accepts_as_an_admin_and_refuses_an_analyst_with_exit_2(banking, run, admin, analyst):
    rows = refinements_propose(catalog=banking.catalog, run=run)
    with pytest.raises(CommandError) as raised:
        call_command("review", "banking", "--accept", str(rows[0].pk), "--user", analyst.username, stdout=StringIO())
    assert raised.value.returncode == 2 and "admin" in str(raised.value)
    out = StringIO()
    call_command("review", "banking", "--accept", str(rows[0].pk), "--reject", str(rows[1].pk),
                 "--user", admin.username, "--json", stdout=out)
    data = json.loads(out.getvalue())
    assert data["draft"] == banking.number + 1 and data["diff"] and data["rejected"] == [rows[1].pk]


def test_promote_planner_switches_an_s3_assistant_only_past_the_threshold(workspace, banking, run, admin):
    from catalog_app.services import version_promote
    from orchestrator.assistants.models import Assistant
    from orchestrator.assistants.services import assistant_create
    from orchestrator.modes import AssistantMode

    # Assistants run promoted versions: v1 runs on S3 first, then passes the gate for the planner.
    assistant_create(workspace=workspace, version=version_promote(version=banking, user=admin), key="cold",
                     mode=AssistantMode.S3)
    with pytest.raises(CommandError) as raised:
        call_command("promote_planner", "banking", "--assistant", "cold", "--user", admin.username,
                     "--threshold", "99", stdout=StringIO())
    assert raised.value.returncode == 1 and "asks for 99%" in str(raised.value)
    assert Assistant.objects.get(key="cold").mode == AssistantMode.S3
    out = StringIO()
    call_command("promote_planner", "banking", "--assistant", "cold", "--user", admin.username, "--threshold", "20",
                 stdout=out)
    assert "now runs banking v1 with the planner" in out.getvalue()
    assert Assistant.objects.get(key="cold").mode == AssistantMode.PLANNER


def test_load_demo_cold_start_publishes_the_thin_catalog_on_s3(db):
    from orchestrator.assistants.models import Assistant
    from orchestrator.modes import AssistantMode

    call_command("load_demo", "--cold-start", stdout=StringIO())
    call_command("load_demo", "--cold-start", stdout=StringIO())
    thin = Assistant.objects.get(key="demo-banking-thin")
    assert thin.mode == AssistantMode.S3 and thin.catalog_version.catalog.slug == "banking-thin"
