"""The validation API: plans, trajectories, and batch analyses stored as jobs."""

from __future__ import annotations

import pytest

from orchestrator.jobs.models import JobStatus
from orchestrator.validation.models import TrajectoryAnalysis
from orchestrator.validation.services import analysis_run
from tests.unit.engine.flows import CHECK_BEFORE_CONSENT

from .conftest import BANKING_SAMPLES

pytestmark = pytest.mark.django_db

PLANS = "/api/v1/validation/plans"
TRAJECTORIES = "/api/v1/validation/trajectories"
ANALYSES = "/api/v1/validation/analyses"


def post(client, url, body, auth):
    return client.post(url, body, content_type="application/json", **auth)


def test_a_plan_checked_over_the_api(client, banking, basic_auth):
    body = {"catalog": "banking", "intent": "apply_loan", "quality": "sound", "plan": CHECK_BEFORE_CONSENT}
    answer = post(client, PLANS, body, basic_auth)
    assert answer.status_code == 200, answer.content
    report = answer.json()
    assert (report["determination"], report["sound"], report["quality"]) == (False, False, "sound")
    assert report["failures"][0] == {
        "line": 2, "step": "credit_score = credit_check(ssn)",
        "reasons": ["the user has not agreed to share sensitive values with credit_check"],
    }
    added = [d["text"] for d in report["diff"] if d["op"] == "+"]
    assert added == ["authorize(credit_check)"]
    assert report["fixed"]["lines"][1:3] == ["authorize(credit_check)", "credit_score = credit_check(ssn)"]


def test_a_plan_as_one_text_with_garbage_and_a_goal_of_our_own(client, banking, basic_auth):
    body = {"catalog": "banking", "goal": {"known": ["email"]}, "plan": "ask(email)\nwhat is this\n",
            "quality": "optimal"}
    report = post(client, PLANS, body, basic_auth).json()
    assert report["determination"] is True
    assert report["warnings"] == [{"line": 2, "text": "what is this", "message": report["warnings"][0]["message"]}]
    assert report["warnings"][0]["message"].startswith("not a step")
    assert report["diff"] == [{"op": " ", "text": "ask(email)"}, {"op": "-", "text": "what is this"}]


def test_values_known_at_the_start(client, banking, basic_auth):
    body = {"catalog": "banking", "goal": {"known": ["name"]}, "known": ["email"],
            "plan": ["name, address, account_number, income = lookup_customer(email)"]}
    assert post(client, PLANS, body, basic_auth).json()["optimal"] is True


@pytest.mark.parametrize(
    ("body", "path", "message"),
    [
        ({"intent": "nope"}, "intent", "unknown intent 'nope'"),
        ({"intent": "apply_loan", "known": ["email", "emial"]}, "known[1]", "unknown element 'emial'"),
        ({"goal": {"done": ["fly"]}}, "goal", "unknown skill 'fly'"),
        ({"intent": "apply_loan", "quality": "best"}, "quality", "Input should be"),
        ({}, "", "give exactly one of 'intent' and 'goal'"),
    ],
)
def test_bad_plan_requests_name_the_field(client, banking, basic_auth, body, path, message):
    answer = post(client, PLANS, {"catalog": "banking", "plan": "ask(email)", **body}, basic_auth)
    assert answer.status_code == 422
    (error,) = answer.json()["errors"]
    assert error["path"].endswith(path) and message in error["message"]


def test_an_unknown_catalog_is_404_and_no_login_is_401(client, banking, basic_auth):
    body = {"catalog": "nope", "intent": "apply_loan", "plan": "ask(email)"}
    assert post(client, PLANS, body, basic_auth).status_code == 404
    assert post(client, PLANS, body, {}).status_code == 401


def test_trajectories_against_a_catalog(client, banking, basic_auth):
    answer = post(client, TRAJECTORIES, {"catalog": "banking", "samples": BANKING_SAMPLES}, basic_auth)
    assert answer.status_code == 200, answer.content
    report = answer.json()
    assert (report["count"], report["passed"], report["troubled"]) == (3, 1, [1, 2])
    assert report["failures_per_tool"] == {"submit_credit_card": 1, "fetch_weather": 1}
    wrong = report["sequences"][1]
    assert wrong["errors"] == [{"kind": "wrong_assignment", "call": 1, "detail": "name=$var1.full_name$"}]
    assert wrong["repaired"][1]["arguments"]["name"] == "$var1.name$"
    assert report["sequences"][2]["compressed"] == []


def test_trajectories_against_tool_specs(client, analyst, basic_auth):
    tools = [{"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                                                   "required": ["city"]},
              "output_parameters": {"temperature": {"type": "number"}}}]
    samples = [{"name": "get_weather", "arguments": {"town": "Paris"}, "label": "var1"}]
    report = post(client, TRAJECTORIES, {"tools": tools, "samples": samples}, basic_auth).json()
    assert [e["kind"] for e in report["sequences"][0]["errors"]] == ["made_up_parameter", "missing_parameter"]


def test_unreadable_trajectories_name_the_place(client, banking, basic_auth):
    samples = [{"output": [{"name": "lookup_customer", "arguments": "not an object"}]}]
    answer = post(client, TRAJECTORIES, {"catalog": "banking", "samples": samples}, basic_auth)
    assert answer.status_code == 422
    assert answer.json()["errors"][0]["path"] == "samples[0].output[0].arguments"
    no_tools = post(client, TRAJECTORIES, {"samples": BANKING_SAMPLES}, basic_auth)
    assert no_tools.status_code == 422 and "brings no tools" in no_tools.json()["detail"]


def test_a_batch_analysis_as_a_job(client, banking, basic_auth):
    created = post(client, ANALYSES, {"catalog": "banking", "samples": BANKING_SAMPLES, "name": "nightly"}, basic_auth)
    assert created.status_code == 202, created.content
    job = created.json()
    assert (job["status"], job["total"], job["done"], job["figures"]) == ("queued", 3, 0, None)
    assert job["page"] == f"/validation/analyses/{job['id']}/"
    report_url = f"{ANALYSES}/{job['id']}/report"
    assert job["report"] == report_url
    assert client.get(report_url, **basic_auth).status_code == 409

    analysis_run(analysis_id=job["id"])  # what the worker does

    done = client.get(f"{ANALYSES}/{job['id']}", **basic_auth).json()
    assert (done["status"], done["done"], done["percent"]) == ("done", 3, 100)
    assert done["figures"]["pass_rate"] == pytest.approx(1 / 3)
    report = client.get(report_url, **basic_auth).json()
    assert len(report["sequences"]) == 3
    assert [a["id"] for a in client.get(ANALYSES, **basic_auth).json()] == [job["id"]]


def test_a_job_is_not_created_for_data_it_could_not_read(client, banking, basic_auth):
    answer = post(client, ANALYSES, {"catalog": "banking", "samples": {"samples": "[oops"}}, basic_auth)
    assert answer.status_code == 422
    assert not TrajectoryAnalysis.objects.exists()


def test_another_workspaces_analysis_does_not_exist(client, banking, basic_auth):
    from catalog_app.models import Workspace

    other = Workspace.objects.create(name="Other", slug="other")
    analysis = TrajectoryAnalysis.objects.create(workspace=other, samples=[], status=JobStatus.QUEUED)
    assert client.get(f"{ANALYSES}/{analysis.pk}", **basic_auth).status_code == 404
