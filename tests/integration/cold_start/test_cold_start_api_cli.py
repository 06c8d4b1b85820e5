"""The campaign over the API and from `manage.py cold_start`: 202 and a poll; the rounds printed; 2 on bad input."""

from __future__ import annotations

import json
from io import StringIO
from unittest import mock

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from orchestrator.cold_start.models import CampaignState, ColdStartCampaign, ColdStartRound

pytestmark = pytest.mark.django_db


def cold_start(*args: str) -> str:
    out = StringIO()
    call_command("cold_start", *args, stdout=out)
    return out.getvalue()


def test_the_api_starts_a_campaign_whose_first_round_is_queued_and_polls_it(thin, basic_auth,
                                                                           django_capture_on_commit_callbacks):
    client = Client()
    with mock.patch("orchestrator.cold_start.tasks.cold_start_round.delay") as delay, \
            django_capture_on_commit_callbacks(execute=True):
        answer = client.post("/api/v1/catalogs/banking-thin/cold-start", json.dumps(
            {"scenario": "realistic", "conversations": 5, "max_rounds": 2}), content_type="application/json",
            **basic_auth)
    assert answer.status_code == 202, answer.content
    body = answer.json()
    assert body["state"] == "running" and body["mode"] == "review"
    assert body["review"] == "/catalogs/banking-thin/review/"
    assert [r["status"] for r in body["rounds"]] == ["queued"] and body["rounds"][0]["orchestrator"] == "s3"
    round_id = ColdStartRound.objects.get().pk
    delay.assert_called_once_with(round_id)  # handed to a worker once the row was committed
    polled = client.get(f"/api/v1/catalogs/banking-thin/cold-start/{body['id']}", **basic_auth).json()
    assert polled["id"] == body["id"] and polled["page"] == f"/cold-start/{body['id']}/"
    listed = client.get("/api/v1/catalogs/banking-thin/cold-start", **basic_auth).json()
    assert [c["id"] for c in listed] == [body["id"]]


def test_the_api_refuses_an_analysts_sandbox_and_a_bad_scenario_at_its_path(thin, basic_auth):
    client = Client()
    refused = client.post("/api/v1/catalogs/banking-thin/cold-start", json.dumps(
        {"scenario": "realistic", "mode": "sandbox", "confidence": 0.9}), content_type="application/json",
        **basic_auth)
    assert refused.status_code == 403
    bad = client.post("/api/v1/catalogs/banking-thin/cold-start", json.dumps(
        {"scenario": {"scenario": "x", "users": {"cannot": {"nope": 0.5}}}}), content_type="application/json",
        **basic_auth)
    assert bad.status_code == 422
    assert [e["path"] for e in bad.json()["errors"]] == ["scenario.users.cannot.nope"]
    assert not ColdStartCampaign.objects.exists()


def test_the_command_runs_a_sandbox_campaign_and_prints_its_rounds_and_the_reference(thin, reference):
    text = cold_start("banking-thin", "--conversations", "20", "--seed", "3", "--max-rounds", "1", "--sandbox",
                      "--confidence", "0.9", "--reference", "banking")
    assert "round 1: version 1 on s3" in text and "goal success" in text
    assert "reference 'banking' version 1 on planner" in text
    assert "Finished:" in text


def test_the_command_in_review_mode_stops_for_the_review_and_says_how_to_continue(thin):
    data = json.loads(cold_start("banking-thin", "--conversations", "200", "--seed", "11", "--json"))
    assert data["state"] == CampaignState.REVIEW and data["mode"] == "review"
    assert data["rounds"][0]["proposed"] >= 1 and data["rounds"][0]["draft"] is None
    with pytest.raises(CommandError) as caught:  # nothing was accepted: no new version to simulate
        cold_start("banking-thin", "--continue", str(data["campaign"]))
    assert caught.value.returncode == 2 and "review queue first" in str(caught.value)


def test_bad_input_exits_2_and_saves_nothing(thin, analyst):
    for args in (["--conversations", "0"], ["--scenario", "nope"], ["--version", "9"], ["--sandbox"],
                 ["--sandbox", "--confidence", "0.9", "--user", analyst.username], ["--user", "nobody"],
                 ["--continue", "99"], ["--reference", "nope"]):
        with pytest.raises(CommandError) as caught:
            cold_start("banking-thin", *args)
        assert caught.value.returncode == 2, args
    with pytest.raises(CommandError) as caught:
        cold_start("no-such-catalog")
    assert caught.value.returncode == 2
    assert not ColdStartCampaign.objects.exists()
