"""The campaign from the studio, no terminal: the form, a real job (the Celery task run eagerly where the worker
would), rounds on banking-thin to the end, the plot beside the reference, the review link."""

from __future__ import annotations

import re
from unittest import mock

import pytest
from django.test import Client

from orchestrator.cold_start.models import CampaignState, ColdStartCampaign
from orchestrator.cold_start.tasks import cold_start_round
from orchestrator.learning.models import SandboxVersion

pytestmark = pytest.mark.django_db


def eager(round_id: int) -> None:
    """What a worker does with the message: the registered task, run here (Celery's own eager `apply`)."""
    cold_start_round.apply(args=[round_id], throw=True)


def test_an_admin_runs_a_sandbox_campaign_on_banking_thin_from_the_studio_to_the_end(
        thin, reference, admin, django_capture_on_commit_callbacks):
    client = Client()
    client.force_login(admin)
    page = client.get("/catalogs/banking-thin/cold-start/")
    assert page.status_code == 200 and b"Start the campaign" in page.content
    with mock.patch("orchestrator.cold_start.tasks.cold_start_round.delay", side_effect=eager) as delay, \
            django_capture_on_commit_callbacks(execute=True):
        answer = client.post("/catalogs/banking-thin/cold-start/start/", {
            "version": "1", "scenario": "realistic", "conversations": "200", "max_rounds": "2", "seed": "11",
            "first_orchestrator": "s3", "reference": "banking", "mode": "sandbox", "confidence": "0.9"})
    assert answer.status_code == 302, answer.content.decode()[:2000]
    campaign = ColdStartCampaign.objects.get()
    assert answer["Location"] == f"/cold-start/{campaign.pk}/"
    assert delay.call_count == 2  # round 1, then round 2 queued by round 1's job
    assert campaign.state == CampaignState.FINISHED and campaign.rounds.count() == 2
    first, second = campaign.rounds.order_by("number")
    assert first.status == second.status == "done" and second.version == first.draft
    assert SandboxVersion.objects.filter(version=first.draft).exists()
    shown = client.get(answer["Location"])
    html = shown.content.decode()
    assert shown.status_code == 200 and "Goal success per round" in html
    assert html.count("<rect") >= 3  # two rounds and the reference
    assert re.search(r"reference banking v1 planner", html)
    assert "sandbox: not promotable" in html
    assert f'href="/simulations/{second.run_id}/"' in html
    polled = client.get(answer["Location"], HTTP_HX_REQUEST="true")
    assert polled.status_code == 286  # finished: htmx stops polling


def test_a_review_campaign_links_to_the_review_queue_and_an_analyst_cannot_choose_the_sandbox(
        thin, analyst, django_capture_on_commit_callbacks):
    client = Client()
    client.force_login(analyst)
    page = client.get("/catalogs/banking-thin/cold-start/").content.decode()
    assert "(admins only)" in page
    refused = client.post("/catalogs/banking-thin/cold-start/start/", {
        "version": "1", "scenario": "realistic", "conversations": "10", "max_rounds": "2", "seed": "1",
        "first_orchestrator": "s3", "mode": "sandbox", "confidence": "0.9"})
    assert refused.status_code == 403 and not ColdStartCampaign.objects.exists()
    bad = client.post("/catalogs/banking-thin/cold-start/start/", {
        "version": "1", "scenario": "realistic", "conversations": "0", "max_rounds": "2", "seed": "1",
        "first_orchestrator": "s3", "mode": "review"})
    assert bad.status_code == 422 and not ColdStartCampaign.objects.exists()
    with mock.patch("orchestrator.cold_start.tasks.cold_start_round.delay", side_effect=eager), \
            django_capture_on_commit_callbacks(execute=True):
        answer = client.post("/catalogs/banking-thin/cold-start/start/", {
            "version": "1", "scenario": "realistic", "conversations": "200", "max_rounds": "3", "seed": "11",
            "first_orchestrator": "s3", "mode": "review"})
    campaign = ColdStartCampaign.objects.get()
    assert campaign.state == CampaignState.REVIEW
    html = client.get(answer["Location"]).content.decode()
    assert 'href="/catalogs/banking-thin/review/"' in html and "Once a reviewed draft exists" in html
