"""The simulation API: start a run, read it, refuse a bad scenario with its paths and save nothing."""

from __future__ import annotations

from unittest import mock

from django.test import Client

from orchestrator.simulation.models import SimulationRun
from orchestrator.simulation.services import run_execute

URL = "/api/v1/catalogs/banking/simulations"


def post(client: Client, headers: dict, body: dict):
    return client.post(URL, body, content_type="application/json", **headers)


def test_a_run_is_started_read_and_its_conversations_opened(banking, realistic, basic_auth,
                                                            django_capture_on_commit_callbacks):
    client = Client()
    with mock.patch("orchestrator.simulation.tasks.simulation_start.delay") as delay, \
            django_capture_on_commit_callbacks(execute=True):
        answer = post(client, basic_auth, {"scenario": "realistic", "conversations": 6, "seed": 2,
                                           "orchestrator": "s3"})
    assert answer.status_code == 202, answer.content
    body = answer.json()
    assert (body["status"], body["conversations"], body["orchestrator"], body["success_rate"]) == ("queued", 6, "s3",
                                                                                                   None)
    delay.assert_called_once_with(body["id"])
    assert any(d["kind"] == "unfillable" for d in body["differences"])
    run_execute(run_id=body["id"])
    done = client.get(f"{URL}/{body['id']}", **basic_auth).json()
    assert done["status"] == "done" and done["done"] == 6
    assert 0 <= done["success_rate"] <= 1 and done["summary"]["conversations"] == 6
    listed = client.get(URL, **basic_auth).json()
    assert [r["id"] for r in listed] == [body["id"]]
    conversation = client.get(f"{URL}/{body['id']}/conversations/3", **basic_auth)
    assert conversation.status_code == 200
    assert conversation.json()["transcript"][0]["role"] == "assistant"
    assert client.get(f"{URL}/{body['id']}/conversations/99", **basic_auth).status_code == 404
    assert client.get(f"/api/v1/catalogs/other/simulations/{body['id']}", **basic_auth).status_code == 404


def test_a_bad_scenario_is_refused_with_paths_and_nothing_is_saved(banking, basic_auth, scenario_data):
    scenario_data["users"]["cannot"]["pin_code"] = 0.5
    scenario_data["skills"]["teleport"] = {"failure_rate": 0.1}
    answer = post(Client(), basic_auth, {"scenario": scenario_data, "conversations": 5})
    assert answer.status_code == 422
    paths = {e["path"]: e["message"] for e in answer.json()["errors"]}
    assert paths["scenario.users.cannot.pin_code"] == "unknown element 'pin_code'"
    assert paths["scenario.skills.teleport"] == "unknown skill 'teleport'"
    scenario_data["skills"]["teleport"] = {"failure_rate": 7}
    answer = post(Client(), basic_auth, {"scenario": scenario_data, "conversations": 5})
    assert answer.status_code == 422
    assert "scenario.skills.teleport.failure_rate" in {e["path"] for e in answer.json()["errors"]}
    assert SimulationRun.objects.count() == 0


def test_bad_requests_name_their_field(banking, realistic, basic_auth):
    answer = post(Client(), basic_auth, {"scenario": "nope", "conversations": 5})
    assert answer.status_code == 422 and answer.json()["errors"][0]["path"] == "scenario"
    answer = post(Client(), basic_auth, {"scenario": "realistic", "conversations": 0})
    assert answer.status_code == 422 and answer.json()["errors"][0]["path"] == "body.conversations"
    assert Client().post(URL, {}, content_type="application/json").status_code == 401
    assert SimulationRun.objects.count() == 0


def test_a_run_can_be_cancelled(banking, realistic, basic_auth):
    client = Client()
    with mock.patch("orchestrator.simulation.tasks.simulation_start.delay"):
        body = post(client, basic_auth, {"scenario": "realistic", "conversations": 50}).json()
    answer = client.post(f"{URL}/{body['id']}/cancel", **basic_auth)
    assert answer.status_code == 200 and answer.json()["status"] == "cancelled"


def test_scenarios_are_stored_by_name_and_checked(banking, basic_auth, scenario_data):
    client = Client()
    answer = client.put("/api/v1/catalogs/banking/scenarios/realistic", scenario_data,
                        content_type="application/json", **basic_auth)
    assert answer.status_code == 200, answer.content
    assert answer.json()["data"]["unfillable"] == ["account_number"]
    from orchestrator.simulation.models import ScenarioRevision

    assert ScenarioRevision.objects.get(scenario__name="realistic").created_by is not None  # who saved it
    assert [s["name"] for s in client.get("/api/v1/catalogs/banking/scenarios", **basic_auth).json()] == ["realistic"]
    scenario_data["users"]["refuse"]["ssn"] = 3
    answer = client.put("/api/v1/catalogs/banking/scenarios/realistic", scenario_data,
                        content_type="application/json", **basic_auth)
    assert answer.status_code == 422
    assert "users.refuse.ssn" in {e["path"] for e in answer.json()["errors"]}
    stored = client.get("/api/v1/catalogs/banking/scenarios", **basic_auth).json()[0]
    assert stored["data"]["users"]["refuse"]["ssn"] == 0.05  # the refused one changed nothing
