"""The simulation API under /api/v1/catalogs/{slug}/simulations: runs as jobs, their figures, their conversations.

    POST /catalogs/{slug}/simulations                         start a run (202); poll it
    GET  /catalogs/{slug}/simulations                         the catalog's runs, newest first
    GET  /catalogs/{slug}/simulations/{id}                    status, progress and, when done, the figures
    POST /catalogs/{slug}/simulations/{id}/cancel             stop a run
    POST /catalogs/{slug}/simulations/{id}/requeue            start a stalled, unclaimed or failed run again (admins)
    GET  /catalogs/{slug}/simulations/{id}/conversations/{i}  one conversation: transcript and trace
    GET  /catalogs/{slug}/scenarios                           the scenarios stored for the catalog
    PUT  /catalogs/{slug}/scenarios/{name}                    store (or replace) a scenario under its name
    GET  /catalogs/{slug}/scenarios-default                   a default scenario generated from the catalog

A bad scenario (unknown element or skill, a rate outside 0..1) is refused with the paths of its
faults under `scenario`, and nothing is saved. A run started while the job queue cannot be reached
is not kept: 503 with Retry-After.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any, Literal

from django.http import HttpRequest
from django.urls import reverse
from ninja import Body, Router, Schema, Status
from ninja.errors import HttpError
from pydantic import ConfigDict, Field

from catalog_app.access import api_version, api_workspace
from catalog_app.api_base import ErrorOut, studio_auth
from catalog_app.selectors import version_spec
from orchestrator.engine.errors import ConcertoError, Issue, SpecError, UnknownName
from orchestrator.engine.simulation.default_scenario import default_scenario, values_needed
from orchestrator.jobs.api import JobStateOut, job_state, requeue_answer
from orchestrator.simulation.models import SimulationRun
from orchestrator.simulation.selectors import conversation_get, run_get, run_list, scenario_list
from orchestrator.simulation.services import run_cancel, run_create, run_requeue, scenario_save

router = Router(tags=["simulations"], auth=studio_auth())


class SimulationIn(Schema):
    model_config = ConfigDict(extra="forbid")

    version: int | None = Field(default=None, description="version number; the latest when left out")
    scenario: str | dict[str, Any] = Field(description="a scenario stored for the catalog, by name, or a whole one")
    orchestrator: Literal["planner", "s3"] = "planner"
    conversations: int = Field(ge=1, le=20_000)
    seed: int = Field(default=0, ge=0, lt=2**31)
    chunk_size: int = Field(default=25, ge=1, le=1000)
    explore: bool = Field(default=False, description="experiment: after a conversation, try again the skills that "
                                                     "refused a call with more known values (simulation only)")


class SimulationOut(JobStateOut):
    id: int
    catalog: str
    version: int
    scenario: str
    orchestrator: str
    conversations: int
    seed: int
    status: str
    done: int
    percent: int
    error: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    success_rate: float | None = Field(description="share of conversations whose goal was reached, once done")
    summary: dict[str, Any] | None = Field(description="the run's figures, once done")
    differences: list[dict[str, Any]] = Field(description="where the scenario's truths differ from the spec")
    page: str


class ConversationOut(Schema):
    index: int
    intent: str
    outcome: str
    success: bool
    turns: int
    metrics: dict[str, Any]
    transcript: list[dict[str, Any]]
    trace: list[dict[str, Any]]
    page: str


@router.post("/{slug}/simulations", response={202: SimulationOut, 404: ErrorOut, 422: ErrorOut, 503: ErrorOut},
             summary="Start a simulation run; poll the answer's `page` or the run itself")
def simulations_create(request: HttpRequest, slug: str, payload: SimulationIn) -> Status[dict[str, Any]]:
    version = api_version(request, slug, payload.version)
    with scenario_faults():
        run = run_create(workspace=api_workspace(request), version=version, scenario=payload.scenario,
                         conversations=payload.conversations, orchestrator=payload.orchestrator, seed=payload.seed,
                         chunk_size=payload.chunk_size, user=request.auth, explore=payload.explore)
    return Status(202, _run_out(run))


@contextmanager
def scenario_faults() -> Iterator[None]:
    """A scenario's own faults, at their paths inside the request's `scenario` field."""
    try:
        yield
    except SpecError as exc:
        raise SpecError([Issue(f"scenario.{i.path}" if i.path else "scenario", i.message) for i in exc.issues]) from exc


@router.get("/{slug}/simulations", response={200: list[SimulationOut], 404: ErrorOut},
            summary="The catalog's simulation runs, newest first")
def simulations_list(request: HttpRequest, slug: str) -> list[dict[str, Any]]:
    catalog = api_version(request, slug, None).catalog
    return [_run_out(run) for run in run_list(workspace=api_workspace(request), catalog=catalog)[:100]]


@router.get("/{slug}/simulations/{run_id}", response={200: SimulationOut, 404: ErrorOut}, summary="A simulation run")
def simulations_get(request: HttpRequest, slug: str, run_id: int) -> dict[str, Any]:
    return _run_out(_run(request, slug, run_id))


@router.post("/{slug}/simulations/{run_id}/cancel", response={200: SimulationOut, 404: ErrorOut},
             summary="Cancel a run: conversations already stored are kept")
def simulations_cancel(request: HttpRequest, slug: str, run_id: int) -> dict[str, Any]:
    return _run_out(run_cancel(run=_run(request, slug, run_id), user=request.auth))  # type: ignore[attr-defined]


@router.post("/{slug}/simulations/{run_id}/requeue",
             response={202: SimulationOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 503: ErrorOut},
             summary="Start a run whose chunks' worker stopped, that no worker took, or that failed again (admins); "
                     "the conversations it stored are kept")
def simulations_requeue(request: HttpRequest, slug: str, run_id: int) -> Status[dict[str, Any]]:
    run = _run(request, slug, run_id)
    return Status(202, _run_out(requeue_answer(lambda: run_requeue(run=run, user=request.auth))))  # type: ignore[attr-defined]


@router.get("/{slug}/simulations/{run_id}/conversations/{index}", response={200: ConversationOut, 404: ErrorOut},
            summary="One simulated conversation: its masked transcript and its trace")
def simulations_conversation(request: HttpRequest, slug: str, run_id: int, index: int) -> dict[str, Any]:
    run = _run(request, slug, run_id)
    try:
        found = conversation_get(run=run, index=index)
    except UnknownName as exc:
        raise HttpError(404, f"{exc} in simulation {run_id}") from exc
    return {"index": found.index, "intent": found.intent, "outcome": found.outcome, "success": found.success,
            "turns": found.turns, "metrics": found.metrics, "transcript": found.transcript, "trace": found.trace,
            "page": reverse("orchestrator:simulated_conversation", args=[run.pk, found.index])}


SCENARIO_BODY = Body(..., description="a scenario: `users`, `skills`, `unfillable` (see the README)")


class ScenarioOut(Schema):
    name: str
    description: str
    data: dict[str, Any]
    updated_at: datetime


@router.get("/{slug}/scenarios", response={200: list[ScenarioOut], 404: ErrorOut},
            summary="The simulation scenarios stored for the catalog")
def scenarios_list(request: HttpRequest, slug: str) -> list[dict[str, Any]]:
    catalog = api_version(request, slug, None).catalog
    return [_scenario_out(s) for s in scenario_list(catalog=catalog)]


@router.put("/{slug}/scenarios/{name}", response={200: ScenarioOut, 404: ErrorOut, 422: ErrorOut},
            summary="Store a scenario (users and skill truths) under its name, checked against the latest version")
def scenarios_put(request: HttpRequest, slug: str, name: str,
                  payload: dict[str, Any] = SCENARIO_BODY) -> dict[str, Any]:
    version = api_version(request, slug, None)
    if payload.get("scenario", name) != name:
        raise ConcertoError(f"the body names scenario '{payload.get('scenario')}', the path '{name}'", path="scenario")
    return _scenario_out(scenario_save(catalog=version.catalog, data={**payload, "scenario": name}, version=version,
                                       user=request.auth))  # type: ignore[attr-defined]


class DefaultScenarioOut(Schema):
    data: dict[str, Any] = Field(description="every intent alike, values drawn per format, skills as the spec says")
    values_needed: list[str] = Field(description="askable elements whose values cannot be generated from their "
                                                 "format: give a few in users.values before storing it")


@router.get("/{slug}/scenarios-default", response={200: DefaultScenarioOut, 404: ErrorOut},
            summary="A default scenario generated from a version of the catalog (latest by default); nothing is stored")
def scenarios_default(request: HttpRequest, slug: str, version: int | None = None) -> dict[str, Any]:
    spec = version_spec(version=api_version(request, slug, version))
    return {"data": default_scenario(spec), "values_needed": values_needed(spec)}


def _scenario_out(stored: Any) -> dict[str, Any]:
    return {"name": stored.name, "description": stored.description, "data": stored.data,
            "updated_at": stored.updated_at}


def _run(request: HttpRequest, slug: str, run_id: int) -> SimulationRun:
    try:
        run = run_get(workspace=api_workspace(request), pk=run_id)
    except ConcertoError as exc:
        raise HttpError(404, str(exc)) from exc
    if run.version.catalog.slug != slug:
        raise HttpError(404, f"unknown simulation '{run_id}' of catalog '{slug}'")
    return run


def _run_out(run: SimulationRun) -> dict[str, Any]:
    summary = run.summary
    return {
        "id": run.pk, "catalog": run.version.catalog.slug, "version": run.version.number,
        "scenario": run.scenario_name, "orchestrator": run.orchestrator, "conversations": run.conversations,
        "seed": run.seed, "status": run.status, "done": run.done, "percent": run.percent, "error": run.error or None,
        "created_at": run.created_at, "started_at": run.started_at, "finished_at": run.finished_at,
        "success_rate": summary["success_rate"] if summary else None, "summary": summary,
        "differences": run.differences, "page": reverse("orchestrator:simulation", args=[run.pk]), **job_state(run),
    }
