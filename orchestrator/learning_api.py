"""The review queue over the API, under /api/v1/catalogs/{slug}/refinements.

    GET  /catalogs/{slug}/refinements?status=pending   the queue (any member)
    POST /catalogs/{slug}/refinements/learn            propose from a finished run and/or live sessions (any member)
    POST /catalogs/{slug}/refinements/accept           accept (with optional edits): a new draft, with its diff (admins)
    POST /catalogs/{slug}/refinements/reject           reject (admins)

Analysts read the queue and may ask the learner; only admins decide (403 otherwise).
"""

from __future__ import annotations

from typing import Any, Literal

from django.http import HttpRequest
from django.urls import reverse
from ninja import Router, Schema
from ninja.errors import HttpError
from pydantic import ConfigDict, Field

from catalog_app.access import api_version, api_workspace
from catalog_app.api_base import ErrorOut, studio_auth
from catalog_app.editing import NotAllowed

from .learning_selectors import refinement_list
from .learning_services import Decision, refinements_decide, refinements_propose
from .models import Refinement, SimulationRun

router = Router(tags=["refinements"], auth=studio_auth())


class RefinementOut(Schema):
    id: int
    kind: str
    key: str
    subject: str
    change: dict[str, Any]
    summary: str
    evidence: dict[str, Any]
    confidence: float
    effects: list[dict[str, Any]] = Field(description="intents whose plan the change alters: before/after steps")
    breaks: bool = Field(description="the change would leave an intent without a plan")
    status: str
    edited: bool
    version: int = Field(description="the version it was learned on")
    draft: int | None = Field(description="the draft it went into, once accepted")


class LearnIn(Schema):
    model_config = ConfigDict(extra="forbid")

    run: int | None = Field(default=None, description="a finished simulation run of the catalog")
    sessions: bool = Field(default=False, description="also learn from the catalog's live sessions")


class AcceptIn(Schema):
    model_config = ConfigDict(extra="forbid")

    ids: list[int] = Field(min_length=1, max_length=500)
    edits: dict[int, dict[str, Any]] = Field(default_factory=dict, description="id -> the change as edited")


class RejectIn(Schema):
    model_config = ConfigDict(extra="forbid")

    ids: list[int] = Field(min_length=1, max_length=500)


class DecisionOut(Schema):
    draft: int | None = Field(description="the new draft's number, when refinements were accepted")
    diff: list[str] = Field(description="the draft against the version it was copied from, one line per change")
    accepted: list[int]
    rejected: list[int]
    page: str | None


def _out(row: Refinement) -> dict[str, Any]:
    return {"id": row.pk, "kind": row.kind, "key": row.key, "subject": row.subject, "change": row.change,
            "summary": row.summary, "evidence": row.evidence, "confidence": row.confidence, "effects": row.effects,
            "breaks": row.breaks, "status": row.status, "edited": row.edited, "version": row.version.number,
            "draft": row.draft.number if row.draft else None}


def _decision_out(decision: Decision, slug: str) -> dict[str, Any]:
    draft = decision.draft
    return {"draft": draft.number if draft else None, "diff": [str(c) for c in decision.diff],
            "accepted": [r.pk for r in decision.accepted], "rejected": [r.pk for r in decision.rejected],
            "page": f"{reverse('catalog:versions', args=[slug])}" if draft else None}


@router.get("/{slug}/refinements", response={200: list[RefinementOut], 404: ErrorOut},
            summary="The catalog's refinements (the review queue: pending ones by default)")
def refinements_get(request: HttpRequest, slug: str,
                    status: Literal["pending", "accepted", "rejected", "all"] = "pending") -> list[dict[str, Any]]:
    catalog = api_version(request, slug, None).catalog
    rows = refinement_list(catalog=catalog, status=None if status == "all" else status)
    return [_out(r) for r in rows[:1000]]


@router.post("/{slug}/refinements/learn", response={200: list[RefinementOut], 404: ErrorOut, 422: ErrorOut},
             summary="Propose refinements from a finished simulation run and/or live sessions")
def refinements_learn(request: HttpRequest, slug: str, payload: LearnIn) -> list[dict[str, Any]]:
    catalog = api_version(request, slug, None).catalog
    run = None
    if payload.run is not None:
        run = SimulationRun.objects.filter(pk=payload.run, workspace=api_workspace(request)).first()
        if run is None:
            raise HttpError(404, f"unknown simulation '{payload.run}'")
    return [_out(r) for r in refinements_propose(catalog=catalog, run=run, sessions=payload.sessions)]


@router.post("/{slug}/refinements/accept", response={200: DecisionOut, 403: ErrorOut, 404: ErrorOut, 422: ErrorOut},
             summary="Accept refinements (admins): they form a new draft, returned with its diff")
def refinements_accept(request: HttpRequest, slug: str, payload: AcceptIn) -> dict[str, Any]:
    catalog = api_version(request, slug, None).catalog
    try:
        decision = refinements_decide(catalog=catalog, user=request.auth, accept=payload.ids,  # type: ignore[attr-defined]
                                      edits=payload.edits)
    except NotAllowed as exc:
        raise HttpError(403, str(exc)) from exc
    return _decision_out(decision, slug)


@router.post("/{slug}/refinements/reject", response={200: DecisionOut, 403: ErrorOut, 404: ErrorOut, 422: ErrorOut},
             summary="Reject refinements (admins)")
def refinements_reject(request: HttpRequest, slug: str, payload: RejectIn) -> dict[str, Any]:
    catalog = api_version(request, slug, None).catalog
    try:
        decision = refinements_decide(catalog=catalog, user=request.auth, reject=payload.ids)  # type: ignore[attr-defined]
    except NotAllowed as exc:
        raise HttpError(403, str(exc)) from exc
    return _decision_out(decision, slug)
