"""The catalog API under /api/v1/catalogs: list, import, export, PDDL and plans.

Every endpoint works in the caller's workspace; a catalog of another workspace does not exist
for them (404). Errors the caller can fix come back as {"detail", "errors": [{"path", "message"}]}
through the handlers in `config.api`.
"""

from __future__ import annotations

from typing import Literal

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from ninja import Query, Router, Schema, Status
from ninja.errors import HttpError
from pydantic import ConfigDict, Field, model_validator

from catalog_app.planning import (
    cannot_operations,
    goal_plan,
    goal_problem_pddl,
    intent_plan,
    parse_cannot,
    version_domain_pddl,
    version_planner,
)
from orchestrator.engine.catalog.spec import Goal
from orchestrator.engine.catalog.spec_io import MEDIA_TYPES, Format
from orchestrator.engine.errors import UnknownName
from orchestrator.engine.planning.compile import intent_goal
from orchestrator.engine.planning.planner import PlanResult, Unsolvable
from orchestrator.engine.planning.task import PlanningState

from .access import api_version, api_workspace
from .api_base import ErrorOut, GoalIn, at_field, check_known, studio_auth
from .catalog_files import catalog_file_dump, catalog_file_import, catalog_file_load
from .models import Catalog, CatalogVersion
from .selectors import (
    catalog_list,
    version_latest,
    version_live,
)

_TEXT = {"schema": {"type": "string"}}


router = Router(tags=["catalogs"], auth=studio_auth())


# --- schemas ------------------------------------------------------------------------------------


class CatalogOut(Schema):
    slug: str
    title: str
    latest_version: int | None
    latest_status: str | None
    live_version: int | None


class ImportOut(Schema):
    slug: str
    version: int
    status: str


class PddlOut(Schema):
    domain: str
    problem: str | None


class PlanIn(Schema):
    model_config = ConfigDict(extra="forbid")

    intent: str | None = None
    goal: GoalIn | None = None
    known: list[str] = Field(default=[], description="elements whose values are already known")
    cannot: list[str] = Field(default=[], description="OPERATION:ELEMENT, e.g. ask:email or lookup_customer-m1:name")
    version: int | None = Field(default=None, description="version number; the latest when left out")

    @model_validator(mode="after")
    def _one_target(self) -> PlanIn:
        if (self.intent is None) == (self.goal is None):
            raise ValueError("give exactly one of 'intent' and 'goal'")
        return self


class StepOut(Schema):
    kind: str
    line: str
    skill: str
    args: list[str]
    outputs: list[str]
    cost: int


class BlockerOut(Schema):
    element: str
    reason: str


class PlanOut(Schema):
    solved: bool
    cost: int | None
    steps: list[StepOut]
    message: str | None
    blockers: list[BlockerOut]


# --- endpoints ----------------------------------------------------------------------------------


@router.get("/", response=list[CatalogOut], summary="List the catalogs of your workspace")
def catalogs_list(request: HttpRequest) -> list[CatalogOut]:
    catalogs = catalog_list(workspace=api_workspace(request))
    return [_catalog_out(catalog) for catalog in catalogs]


@router.post(
    "/import",
    response={201: ImportOut, 413: ErrorOut, 422: ErrorOut},
    summary="Import a catalog spec as a new draft version",
    openapi_extra={
        "requestBody": {
            "required": True,
            "description": "The catalog spec: JSON with Content-Type application/json, YAML otherwise.",
            "content": {"application/yaml": _TEXT, "application/json": {"schema": {"type": "object"}}},
        }
    },
)
def catalogs_import(request: HttpRequest) -> Status[ImportOut]:
    # Refused on the declared size before the body is read into memory.
    declared, limit = int(request.META.get("CONTENT_LENGTH") or 0), settings.CATALOG_MAX_BYTES
    if declared > limit:
        raise HttpError(413, f"the catalog is {declared:,} bytes; the limit is {limit:,} bytes (CATALOG_MAX_BYTES)")
    fmt: Format = "json" if request.content_type.endswith("json") else "yaml"
    file = catalog_file_load(request.body, fmt, max_bytes=limit)
    version = catalog_file_import(workspace=api_workspace(request), file=file, user=request.auth)
    return Status(201, ImportOut(slug=version.catalog.slug, version=version.number, status=version.status))


@router.get(
    "/{slug}/export",
    response={200: str, 404: ErrorOut},
    summary="Export a version as YAML or JSON",
    openapi_extra={"responses": {200: {"content": {t: _TEXT for t in MEDIA_TYPES.values()}}}},
)
def catalogs_export(
    request: HttpRequest,
    slug: str,
    fmt: Literal["yaml", "json"] = Query("yaml", alias="format"),
    version: int | None = None,
) -> HttpResponse:
    found = api_version(request, slug, version)
    response = HttpResponse(catalog_file_dump(version=found, fmt=fmt), content_type=MEDIA_TYPES[fmt])
    response["Content-Disposition"] = f'inline; filename="{slug}-v{found.number}.{fmt}"'
    return response


@router.get("/{slug}/pddl", response={200: PddlOut, 404: ErrorOut, 422: ErrorOut}, summary="PDDL of a version")
def catalogs_pddl(
    request: HttpRequest,
    slug: str,
    version: int | None = None,
    intent: str | None = None,
    known: str = Query("", description="comma-separated elements already known"),
) -> PddlOut:
    found = api_version(request, slug, version)
    problem = None
    if intent:
        with at_field("intent"):
            goal = intent_goal(version_planner(version=found).domain.spec, intent)
        names = [name.strip() for name in known.split(",") if name.strip()]
        check_known(found, names, "known")
        state = PlanningState.of(known=names)
        problem = goal_problem_pddl(version=found, goal=goal, state=state, name=intent)
    return PddlOut(domain=version_domain_pddl(version=found), problem=problem)


@router.post("/{slug}/plan", response={200: PlanOut, 404: ErrorOut, 422: ErrorOut}, summary="Plan for a goal")
def catalogs_plan(request: HttpRequest, slug: str, payload: PlanIn) -> PlanOut:
    found = api_version(request, slug, payload.version)
    check_known(found, payload.known, "known")
    with at_field("cannot"):
        cannot = cannot_operations(version=found, pairs=parse_cannot(payload.cannot))
        state = PlanningState.of(known=payload.known, cannot_establish=cannot)
        _check_cannot(found, state)
    if payload.goal is None:  # the schema lets through exactly one of intent and goal
        with at_field("intent"):
            result = intent_plan(version=found, intent=payload.intent or "", state=state)
    else:
        with at_field("goal"):
            goal = Goal(known=tuple(payload.goal.known), done=tuple(payload.goal.done))
            result = goal_plan(version=found, goal=goal, state=state)
    return _plan_out(result)


# --- helpers ------------------------------------------------------------------------------------


def _check_cannot(version: CatalogVersion, state: PlanningState) -> None:
    domain = version_planner(version=version).domain
    for operation, name in state.cannot_establish:
        if operation not in domain.operations:
            raise UnknownName("operation", operation, list(domain.operations))
        domain.ontology.check_elements([name])


def _catalog_out(catalog: Catalog) -> CatalogOut:
    latest, live = version_latest(catalog=catalog), version_live(catalog=catalog)
    return CatalogOut(
        slug=catalog.slug,
        title=catalog.title,
        latest_version=latest.number if latest else None,
        latest_status=latest.status if latest else None,
        live_version=live.number if live else None,
    )


def _plan_out(result: PlanResult) -> PlanOut:
    if isinstance(result, Unsolvable):
        blockers = [BlockerOut(element=b.element, reason=b.reason) for b in result.blockers]
        return PlanOut(solved=False, cost=None, steps=[], message=result.message, blockers=blockers)
    steps = [
        StepOut(kind=s.kind, line=s.line, skill=s.skill or s.name, args=list(s.args), outputs=list(s.outputs),
                cost=s.cost)
        for s in result.steps
    ]
    return PlanOut(solved=True, cost=result.cost, steps=steps, message=None, blockers=[])
