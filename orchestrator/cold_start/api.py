"""Cold-start campaigns over the API, under /api/v1/catalogs/{slug}/cold-start.

    POST /catalogs/{slug}/cold-start                 start a campaign (202); its rounds run as jobs
    GET  /catalogs/{slug}/cold-start                 the catalog's campaigns, newest first
    GET  /catalogs/{slug}/cold-start/{id}            a campaign: its state, rounds and their success
    POST /catalogs/{slug}/cold-start/{id}/continue   after an admin's review: simulate the draft it made
    POST /catalogs/{slug}/cold-start/{id}/cancel     stop the campaign

Analysts start review campaigns (proposals wait for an admin); only admins start a sandbox campaign,
which auto-accepts proposals into drafts that can never be promoted (403 otherwise).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from django.http import HttpRequest
from django.urls import reverse
from ninja import Router, Schema, Status
from ninja.errors import HttpError
from pydantic import ConfigDict, Field

from catalog_app.access import api_version, api_workspace
from catalog_app.api_base import ErrorOut, studio_auth
from orchestrator.cold_start.models import ColdStartCampaign
from orchestrator.cold_start.selectors import campaign_get, campaign_list, campaign_rounds, reference_success_rate
from orchestrator.cold_start.services import (
    MAX_CAMPAIGN_CONVERSATIONS,
    MAX_ROUNDS,
    campaign_cancel,
    campaign_continue,
    campaign_create,
)
from orchestrator.engine.errors import ConcertoError
from orchestrator.jobs.api import job_state
from orchestrator.simulation.api import scenario_faults

router = Router(tags=["cold start"], auth=studio_auth())


class CampaignIn(Schema):
    model_config = ConfigDict(extra="forbid")

    version: int | None = Field(default=None, description="the version the first round simulates; the latest "
                                                          "when left out")
    scenario: str | dict[str, Any] = Field(description="a scenario stored for the catalog, by name, or a whole one")
    conversations: int = Field(default=200, ge=1, le=MAX_CAMPAIGN_CONVERSATIONS, description="a round")
    seed: int = Field(default=0, ge=0, lt=2**31)
    max_rounds: int = Field(default=3, ge=1, le=MAX_ROUNDS)
    first_orchestrator: Literal["s3", "planner"] = Field(default="s3", description="later rounds use the planner")
    mode: Literal["review", "sandbox"] = Field(
        default="review", description="review: proposals wait for an admin in the review queue; sandbox (admins): "
                                      "those at or above `confidence` go into drafts that can never be promoted")
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    reference: str = Field(default="", description="a hand-written catalog to compare with (its planner success)")


class RoundOut(Schema):
    number: int
    version: int
    orchestrator: str
    status: str
    run: int | None
    success_rate: float | None
    proposed: int
    refinements: list[dict[str, Any]]
    draft: int | None = Field(description="the sandbox draft this round's auto-accepted proposals made")
    error: str | None
    heartbeat_at: datetime | None
    attempts: int
    waiting: str | None
    requeueable: bool


class CampaignOut(Schema):
    id: int
    catalog: str
    start_version: int
    scenario: str
    mode: str
    confidence: float | None
    conversations: int
    seed: int
    max_rounds: int
    threshold: float | None = Field(description="the catalog's promotion threshold when the campaign started")
    reference: str | None
    reference_success_rate: float | None
    state: str = Field(description="running, review (waiting for an admin), finished, failed or cancelled")
    stop_reason: str
    rounds: list[RoundOut]
    review: str = Field(description="the review queue's page")
    page: str
    created_at: datetime


@router.post("/{slug}/cold-start", response={202: CampaignOut, 403: ErrorOut, 404: ErrorOut, 422: ErrorOut,
                                             503: ErrorOut},
             summary="Start a cold-start campaign; poll it, or its `page`")
def cold_start_create(request: HttpRequest, slug: str, payload: CampaignIn) -> Status[dict[str, Any]]:
    version = api_version(request, slug, payload.version)
    with scenario_faults():
        campaign = campaign_create(
            catalog=version.catalog, user=request.auth, scenario=payload.scenario,  # type: ignore[attr-defined]
            version=version, conversations=payload.conversations, seed=payload.seed, max_rounds=payload.max_rounds,
            mode=payload.mode, confidence=payload.confidence, first_orchestrator=payload.first_orchestrator,
            reference=payload.reference)
    return Status(202, _out(campaign))


@router.get("/{slug}/cold-start", response={200: list[CampaignOut], 404: ErrorOut},
            summary="The catalog's cold-start campaigns, newest first")
def cold_start_list(request: HttpRequest, slug: str) -> list[dict[str, Any]]:
    catalog = api_version(request, slug, None).catalog
    return [_out(c) for c in campaign_list(workspace=api_workspace(request), catalog=catalog)[:50]]


@router.get("/{slug}/cold-start/{campaign_id}", response={200: CampaignOut, 404: ErrorOut},
            summary="A cold-start campaign with its rounds")
def cold_start_get(request: HttpRequest, slug: str, campaign_id: int) -> dict[str, Any]:
    return _out(_campaign(request, slug, campaign_id))


@router.post("/{slug}/cold-start/{campaign_id}/continue",
             response={202: CampaignOut, 403: ErrorOut, 404: ErrorOut, 422: ErrorOut, 503: ErrorOut},
             summary="After an admin's review: the next round simulates the draft the decisions made")
def cold_start_continue(request: HttpRequest, slug: str, campaign_id: int,
                        version: int | None = None) -> Status[dict[str, Any]]:
    """`?version=N` names the reviewed draft to simulate; the newest version that is no sandbox draft by default."""
    campaign = _campaign(request, slug, campaign_id)
    chosen = api_version(request, slug, version) if version is not None else None
    campaign = campaign_continue(campaign=campaign, user=request.auth, version=chosen)  # type: ignore[attr-defined]
    return Status(202, _out(campaign))


@router.post("/{slug}/cold-start/{campaign_id}/cancel", response={200: CampaignOut, 403: ErrorOut, 404: ErrorOut},
             summary="Stop a campaign: its running round writes nothing more")
def cold_start_cancel(request: HttpRequest, slug: str, campaign_id: int) -> dict[str, Any]:
    campaign = _campaign(request, slug, campaign_id)
    return _out(campaign_cancel(campaign=campaign, user=request.auth))  # type: ignore[attr-defined]


def _campaign(request: HttpRequest, slug: str, campaign_id: int) -> ColdStartCampaign:
    try:
        found = campaign_get(workspace=api_workspace(request), pk=campaign_id)
    except ConcertoError as exc:
        raise HttpError(404, str(exc)) from exc
    if found.catalog.slug != slug:
        raise HttpError(404, f"unknown cold-start campaign '{campaign_id}' of catalog '{slug}'")
    return found


def _out(campaign: ColdStartCampaign) -> dict[str, Any]:
    slug = campaign.catalog.slug
    return {
        "id": campaign.pk, "catalog": slug, "start_version": campaign.start_version.number,
        "scenario": campaign.scenario_name, "mode": campaign.mode, "confidence": campaign.confidence,
        "conversations": campaign.conversations, "seed": campaign.seed, "max_rounds": campaign.max_rounds,
        "threshold": campaign.threshold, "reference": campaign.reference or None,
        "reference_success_rate": reference_success_rate(campaign),
        "state": campaign.state, "stop_reason": campaign.stop_reason,
        "rounds": [{"number": r.number, "version": r.version.number, "orchestrator": r.orchestrator,
                    "status": r.status, "run": r.run_id, "success_rate": r.success_rate, "proposed": r.proposed,
                    "refinements": r.refinements, "draft": r.draft.number if r.draft else None,
                    "error": r.error or None, **job_state(r)} for r in campaign_rounds(campaign=campaign)],
        "review": reverse("orchestrator:review", args=[slug]),
        "page": reverse("orchestrator:cold_start", args=[campaign.pk]), "created_at": campaign.created_at,
    }
