"""The validation API under /api/v1/validation: plans, trajectories, and batch analyses as jobs.

    POST /validation/plans                  judge a written plan (sound | valid | optimal)
    POST /validation/trajectories           analyse up to 1,000 recorded sequences right away
    POST /validation/analyses               store a batch and analyse it in a Celery job (202)
    GET  /validation/analyses               the workspace's analyses, newest first
    GET  /validation/analyses/{id}          status, progress and, when done, the batch figures
    GET  /validation/analyses/{id}/report   the whole report (409 until the job is done)
    POST /validation/analyses/{id}/requeue  put a stalled, unclaimed or failed analysis back in the queue (admins)
    POST /validation/analyses/{id}/cancel   stop an analysis

Starting or re-queueing a job while the job queue cannot be reached answers 503 with Retry-After.

Errors come back as {"detail", "errors": [{"path", "message"}]} through `config.api`'s handlers.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from django.http import HttpRequest
from django.urls import reverse
from ninja import Router, Schema, Status
from ninja.errors import HttpError
from pydantic import ConfigDict, Field, model_validator

from catalog_app.access import api_version, api_workspace
from catalog_app.api_base import ErrorOut, GoalIn, check_known, studio_auth
from orchestrator.engine.analysis.trajectories import analyze_batch
from orchestrator.engine.analysis.trajectory_io import report_to_data
from orchestrator.engine.catalog.spec import Goal
from orchestrator.engine.errors import UnknownName
from orchestrator.jobs.api import JobStateOut, job_state, requeue_answer
from orchestrator.jobs.models import JobStatus
from orchestrator.validation.analysis_jobs import analysis_cancel, analysis_requeue
from orchestrator.validation.models import TrajectoryAnalysis
from orchestrator.validation.services import (
    SYNC_SEQUENCES,
    analysis_create,
    analysis_get,
    analysis_list,
    plan_validate,
    trajectory_samples,
)

router = Router(tags=["validation"], auth=studio_auth())


# --- schemas ------------------------------------------------------------------------------------


class PlanCheckIn(Schema):
    model_config = ConfigDict(extra="forbid")

    catalog: str = Field(description="the catalog's slug")
    version: int | None = Field(default=None, description="version number; the latest when left out")
    intent: str | None = None
    goal: GoalIn | None = None
    known: list[str] = Field(default=[], description="elements whose values are known at the start")
    plan: str | list[str] = Field(description="the plan: one step per line, as one string or a list of lines")
    quality: Literal["sound", "valid", "optimal"] = "optimal"

    @model_validator(mode="after")
    def _one_target(self) -> PlanCheckIn:
        if (self.intent is None) == (self.goal is None):
            raise ValueError("give exactly one of 'intent' and 'goal'")
        return self


class ParsedLineOut(Schema):
    number: int
    text: str
    step: str | None = Field(description="the step in the planner's spelling; null when the line did not parse")
    warning: str | None


class PlanWarningOut(Schema):
    line: int
    text: str
    message: str


class PlanFailureOut(Schema):
    line: int
    step: str
    reasons: list[str]


class FixedPlanOut(Schema):
    cost: int
    lines: list[str]


class DiffLineOut(Schema):
    op: Literal[" ", "+", "-"]
    text: str


class PlanCheckOut(Schema):
    quality: str
    determination: bool = Field(description="the answer to the quality asked for")
    sound: bool
    valid: bool
    optimal: bool
    summary: str
    cost: int
    optimal_cost: int | None
    parsed: list[ParsedLineOut]
    warnings: list[PlanWarningOut]
    failures: list[PlanFailureOut]
    unreached: list[str]
    fixed: FixedPlanOut | None
    diff: list[DiffLineOut]
    unsolvable: str | None


class TrajectoriesIn(Schema):
    model_config = ConfigDict(extra="forbid")

    catalog: str | None = Field(default=None, description="check the calls against this catalog's skills")
    version: int | None = None
    tools: list[Any] | dict[str, Any] | None = Field(
        default=None, description="or against these tool specs (OpenAPI 3, NESTFUL or OpenAI function specs)")
    samples: list[Any] | dict[str, Any] = Field(
        description="NESTFUL-style samples (each with an `output` list of calls), or one list of calls")


class AnalysisIn(TrajectoriesIn):
    name: str = Field(default="", max_length=200)


class TagOut(Schema):
    kind: str
    call: int = Field(description="0-based index of the call; -1 for the whole sequence")
    detail: str


class CallOut(Schema):
    name: str
    arguments: dict[str, Any]
    label: str


class SequenceOut(Schema):
    index: int
    ident: str
    passed: bool
    calls: list[CallOut]
    errors: list[TagOut]
    repaired: list[CallOut]
    repaired_errors: list[TagOut]
    repair_diff: list[str]
    compressed: list[CallOut]
    compress_diff: list[str]
    milliseconds: float


class BatchFiguresOut(Schema):
    count: int
    passed: int
    repaired: int
    pass_rate: float
    calls: int
    compressed_calls: int
    compression_rate: float
    troubled: list[int]
    failures_per_tool: dict[str, int]
    errors_per_type: dict[str, int]
    mean_ms: float
    total_seconds: float


class BatchOut(BatchFiguresOut):
    sequences: list[SequenceOut]


class AnalysisOut(JobStateOut):
    id: int
    name: str
    status: str
    total: int
    done: int
    percent: int
    error: str | None
    catalog: str | None
    version: int | None
    created_at: datetime
    finished_at: datetime | None
    figures: BatchFiguresOut | None = Field(description="the batch figures, once done")
    page: str
    report: str


# --- endpoints ----------------------------------------------------------------------------------


@router.post("/plans", response={200: PlanCheckOut, 404: ErrorOut, 422: ErrorOut},
             summary="Judge a written plan: sound, valid or optimal, with the fix as a diff")
def plans_check(request: HttpRequest, payload: PlanCheckIn) -> dict[str, Any]:
    version = api_version(request, payload.catalog, payload.version)
    check_known(version, payload.known, "known")
    goal = None if payload.goal is None else Goal(known=tuple(payload.goal.known), done=tuple(payload.goal.done))
    try:
        report = plan_validate(version=version, plan=payload.plan, quality=payload.quality, intent=payload.intent,
                               goal=goal, known=payload.known)
    except UnknownName as exc:  # the intent, or a name in the goal
        raise exc.at("intent" if payload.intent is not None else "goal") from exc
    return report.to_data()


@router.post("/trajectories", response={200: BatchOut, 404: ErrorOut, 413: ErrorOut, 422: ErrorOut},
             summary="Analyse recorded tool-call sequences now (up to 1,000; more through /analyses)")
def trajectories(request: HttpRequest, payload: TrajectoriesIn) -> dict[str, Any]:
    version = api_version(request, payload.catalog, payload.version) if payload.catalog else None
    samples, catalog = trajectory_samples(samples=payload.samples, version=version, tools=payload.tools)
    if len(samples) > SYNC_SEQUENCES:
        raise HttpError(413, f"{len(samples):,} sequences; analyse more than {SYNC_SEQUENCES:,} through "
                             "POST /api/v1/validation/analyses")
    return report_to_data(analyze_batch(samples, catalog))  # read once, counted, then analysed


@router.post("/analyses", response={202: AnalysisOut, 404: ErrorOut, 422: ErrorOut, 503: ErrorOut},
             summary="Analyse a batch of sequences in the background; poll the answer's `page` or itself")
def analyses_create(request: HttpRequest, payload: AnalysisIn) -> Status[dict[str, Any]]:
    version = api_version(request, payload.catalog, payload.version) if payload.catalog else None
    analysis = analysis_create(workspace=api_workspace(request), samples=payload.samples, name=payload.name,
                               version=version, tools=payload.tools, user=request.auth)
    return Status(202, _analysis_out(analysis))


@router.get("/analyses", response=list[AnalysisOut], summary="The analyses of your workspace, newest first")
def analyses_list(request: HttpRequest) -> list[dict[str, Any]]:
    return [_analysis_out(a) for a in analysis_list(workspace=api_workspace(request))[:100]]


@router.get("/analyses/{analysis_id}", response={200: AnalysisOut, 404: ErrorOut}, summary="An analysis")
def analyses_get(request: HttpRequest, analysis_id: int) -> dict[str, Any]:
    return _analysis_out(_analysis(request, analysis_id))


@router.get("/analyses/{analysis_id}/report", response={200: BatchOut, 404: ErrorOut, 409: ErrorOut},
            summary="The whole report of a finished analysis", url_name="validation_analysis_report")
def analyses_report(request: HttpRequest, analysis_id: int) -> dict[str, Any]:
    analysis = _analysis(request, analysis_id)
    if analysis.status != JobStatus.DONE:
        raise HttpError(409, f"analysis {analysis_id} is {analysis.status}: the report comes when it is done")
    return analysis.report


@router.post("/analyses/{analysis_id}/requeue", response={202: AnalysisOut, 403: ErrorOut, 404: ErrorOut,
                                                          409: ErrorOut, 503: ErrorOut},
             summary="Put an analysis whose worker stopped, that no worker took, or that failed back in the queue "
                     "(admins)")
def analyses_requeue(request: HttpRequest, analysis_id: int) -> Status[dict[str, Any]]:
    analysis = _analysis(request, analysis_id)
    requeued = requeue_answer(lambda: analysis_requeue(analysis=analysis, user=request.auth))  # type: ignore[attr-defined]
    return Status(202, _analysis_out(_analysis(request, requeued.pk)))


@router.post("/analyses/{analysis_id}/cancel", response={200: AnalysisOut, 404: ErrorOut},
             summary="Stop an analysis: its worker stops at its next progress, writing no report")
def analyses_cancel(request: HttpRequest, analysis_id: int) -> dict[str, Any]:
    analysis = _analysis(request, analysis_id)
    analysis_cancel(analysis=analysis, user=request.auth)  # type: ignore[attr-defined]
    return _analysis_out(_analysis(request, analysis_id))


# --- helpers ------------------------------------------------------------------------------------


def _analysis(request: HttpRequest, analysis_id: int) -> TrajectoryAnalysis:
    try:
        return analysis_get(workspace=api_workspace(request), pk=analysis_id)
    except UnknownName as exc:
        raise HttpError(404, str(exc)) from exc


def _analysis_out(analysis: TrajectoryAnalysis) -> dict[str, Any]:
    # The figures are kept apart from the report: a list of analyses never reads a report.
    figures = analysis.figures if analysis.status == JobStatus.DONE else None
    version = analysis.version
    return {
        "id": analysis.pk, "name": analysis.name, "status": analysis.status, "total": analysis.total,
        "done": analysis.done, "percent": analysis.percent, "error": analysis.error or None,
        "catalog": version.catalog.slug if version else None, "version": version.number if version else None,
        "created_at": analysis.created_at, "finished_at": analysis.finished_at, "figures": figures,
        "page": reverse("orchestrator:analysis", args=[analysis.pk]),
        "report": reverse("api:validation_analysis_report", args=[analysis.pk]), **job_state(analysis),
    }
