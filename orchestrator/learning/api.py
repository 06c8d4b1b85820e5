"""The review queue over the API, under /api/v1/catalogs/{slug}/refinements.

    GET  /catalogs/{slug}/refinements?status=pending   the queue (any member)
    POST /catalogs/{slug}/refinements/learn            propose now from a finished run, live sessions and/or
                                                       imported tool-call trajectories (any member)
    POST /catalogs/{slug}/refinements/jobs             the same, as a Celery job: answers 202 with the job
    GET  /catalogs/{slug}/refinements/jobs/{id}        the job's status (queued, running, done, failed, cancelled)
    POST /catalogs/{slug}/refinements/jobs/{id}/cancel  stop a learning job (its proposals are not queued)
    POST /catalogs/{slug}/refinements/jobs/{id}/requeue learn again for a stalled, unclaimed or failed job (admins)
    POST /catalogs/{slug}/refinements/accept           accept (with optional edits): a new draft, with its diff (admins)
    POST /catalogs/{slug}/refinements/reject           reject (admins)

Analysts read the queue and may ask the learner; only admins decide (403 otherwise).
"""

from __future__ import annotations

from typing import Any, Literal

from django.http import HttpRequest
from django.urls import reverse
from ninja import Router, Schema, Status
from ninja.errors import HttpError
from pydantic import ConfigDict, Field

from catalog_app.access import api_version, api_workspace
from catalog_app.api_base import ErrorOut, studio_auth
from orchestrator.engine.analysis.trajectory_io import decode_json
from orchestrator.jobs.api import JobStateOut, job_state, requeue_answer
from orchestrator.learning.models import LearningJob, Refinement
from orchestrator.learning.selectors import learning_job_get, refinement_list
from orchestrator.learning.services import (
    Decision,
    learning_job_cancel,
    learning_job_create,
    learning_job_requeue,
    refinements_decide,
    refinements_propose,
)
from orchestrator.simulation.models import SimulationRun

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
    trajectories: Any = Field(default=None, description=(
        "imported tool-call trajectories in a format the trajectory analyser reads (NESTFUL samples, "
        "{samples, tools}, a bare list of calls), as JSON or as JSON Lines text; a call names a skill or skill.mode"))


class JobOut(JobStateOut):
    id: int
    status: str = Field(description="queued, running, done, failed or cancelled")
    run: int | None
    sessions: bool
    trajectories: str = Field(description="the imported file's name, if any")
    proposed: int = Field(description="refinements queued for review, once done")
    error: str


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


def _job_out(job: LearningJob) -> dict[str, Any]:
    return {"id": job.pk, "status": job.status, "run": job.run_id, "sessions": job.sessions,
            "trajectories": job.trajectories_name or ("inline" if _has_trajectories(job) else ""),
            "proposed": job.proposed, "error": job.error, **job_state(job)}


def _has_trajectories(job: LearningJob) -> bool:
    # annotated by learning_job_get, which leaves the trajectories unread; a job just created has them
    annotated = getattr(job, "has_trajectories", None)
    return annotated if annotated is not None else job.trajectories is not None


def _sources(request: HttpRequest, payload: LearnIn) -> tuple[SimulationRun | None, Any]:
    run = None
    if payload.run is not None:
        run = SimulationRun.objects.filter(pk=payload.run, workspace=api_workspace(request)).first()
        if run is None:
            raise HttpError(404, f"unknown simulation '{payload.run}'")
    trajectories = payload.trajectories
    if isinstance(trajectories, str):  # JSON Lines, or JSON sent as text
        trajectories = decode_json(trajectories, "the trajectories")
    return run, trajectories


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
             summary="Propose refinements now from a finished simulation run, live sessions and/or trajectories")
def refinements_learn(request: HttpRequest, slug: str, payload: LearnIn) -> list[dict[str, Any]]:
    catalog = api_version(request, slug, None).catalog
    run, trajectories = _sources(request, payload)
    return [_out(r) for r in refinements_propose(catalog=catalog, run=run, sessions=payload.sessions,
                                                 trajectories=trajectories)]


@router.post("/{slug}/refinements/jobs", response={202: JobOut, 404: ErrorOut, 422: ErrorOut, 503: ErrorOut},
             summary="Propose refinements in a Celery job; poll the job for its status")
def refinements_job_create(request: HttpRequest, slug: str, payload: LearnIn) -> Status:
    catalog = api_version(request, slug, None).catalog
    run, trajectories = _sources(request, payload)
    job = learning_job_create(catalog=catalog, user=request.auth, run=run, sessions=payload.sessions,  # type: ignore[attr-defined]
                              trajectories=trajectories)
    return Status(202, _job_out(job))


@router.get("/{slug}/refinements/jobs/{job_id}", response={200: JobOut, 404: ErrorOut},
            summary="A learning job's status, and how many refinements it queued")
def refinements_job_get(request: HttpRequest, slug: str, job_id: int) -> dict[str, Any]:
    catalog = api_version(request, slug, None).catalog
    job = learning_job_get(catalog=catalog, pk=job_id)
    if job is None:
        raise HttpError(404, f"unknown learning job '{job_id}'")
    return _job_out(job)


@router.post("/{slug}/refinements/jobs/{job_id}/cancel", response={200: JobOut, 404: ErrorOut},
             summary="Stop a learning job: its proposals are not queued")
def refinements_job_cancel(request: HttpRequest, slug: str, job_id: int) -> dict[str, Any]:
    job = _job(request, slug, job_id)
    learning_job_cancel(job=job, user=request.auth)  # type: ignore[attr-defined]
    return _job_out(_job(request, slug, job_id))


@router.post("/{slug}/refinements/jobs/{job_id}/requeue",
             response={202: JobOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 503: ErrorOut},
             summary="Learn again for a job whose worker stopped, that no worker took, or that failed (admins)")
def refinements_job_requeue(request: HttpRequest, slug: str, job_id: int) -> Status:
    job = _job(request, slug, job_id)
    requeue_answer(lambda: learning_job_requeue(job=job, user=request.auth))  # type: ignore[attr-defined]
    return Status(202, _job_out(_job(request, slug, job_id)))


def _job(request: HttpRequest, slug: str, job_id: int) -> LearningJob:
    catalog = api_version(request, slug, None).catalog
    job = learning_job_get(catalog=catalog, pk=job_id)
    if job is None:
        raise HttpError(404, f"unknown learning job '{job_id}'")
    return job


@router.post("/{slug}/refinements/accept", response={200: DecisionOut, 403: ErrorOut, 404: ErrorOut, 422: ErrorOut},
             summary="Accept refinements (admins): they form a new draft, returned with its diff")
def refinements_accept(request: HttpRequest, slug: str, payload: AcceptIn) -> dict[str, Any]:
    catalog = api_version(request, slug, None).catalog
    # The service checks the role; config.api answers its NotAllowed with a 403.
    decision = refinements_decide(catalog=catalog, user=request.auth, accept=payload.ids,  # type: ignore[attr-defined]
                                  edits=payload.edits)
    return _decision_out(decision, slug)


@router.post("/{slug}/refinements/reject", response={200: DecisionOut, 403: ErrorOut, 404: ErrorOut, 422: ErrorOut},
             summary="Reject refinements (admins)")
def refinements_reject(request: HttpRequest, slug: str, payload: RejectIn) -> dict[str, Any]:
    catalog = api_version(request, slug, None).catalog
    decision = refinements_decide(catalog=catalog, user=request.auth, reject=payload.ids)  # type: ignore[attr-defined]
    return _decision_out(decision, slug)
