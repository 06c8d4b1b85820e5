"""Plan validation and trajectory analysis for stored catalogs: the Django side of
`orchestrator.engine.analysis.plan_validation` and `orchestrator.engine.analysis.trajectories`.

Thin functions: look up what the engine needs, call it, store what must outlive the request.
A batch analysis is a `TrajectoryAnalysis` row run by a Celery job (`orchestrator.tasks`); its
input is checked when the row is created, so a job never starts on data it cannot read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import QuerySet

from catalog_app.models import CatalogVersion, Workspace
from catalog_app.planning import version_planner
from catalog_app.selectors import version_spec
from orchestrator.engine.analysis.plan_validation import Quality, ValidationReport, validate_plan
from orchestrator.engine.analysis.sequence_goals import judge_goals
from orchestrator.engine.analysis.tools import ToolCatalog
from orchestrator.engine.analysis.trajectories import BatchReport, Sample, analyze_batch
from orchestrator.engine.analysis.trajectory_io import (
    DataError,
    load_samples,
    report_to_data,
    tool_catalog,
    tools_from_catalog,
)
from orchestrator.engine.catalog.spec import Goal
from orchestrator.engine.errors import ConcertoError, UnknownName
from orchestrator.engine.planning.compile import intent_goal
from orchestrator.engine.planning.task import PlanningState
from orchestrator.jobs.runner import Beat, enqueue_on_commit, job_run
from orchestrator.validation.models import TrajectoryAnalysis

# Bigger batches go through a job (the API's synchronous endpoint refuses them).
SYNC_SEQUENCES = 1000


# --- plan validation ----------------------------------------------------------------------------


def plan_validate(
    *,
    version: CatalogVersion,
    plan: str | Sequence[str],
    quality: Quality = "optimal",
    intent: str | None = None,
    goal: Goal | None = None,
    known: Sequence[str] = (),
) -> ValidationReport:
    """Judge a written plan for an intent (or an explicit goal) of `version`."""
    planner = version_planner(version=version)
    if intent is not None:
        goal = intent_goal(planner.domain.spec, intent)
    if goal is None:
        raise ConcertoError("give an intent or a goal")
    planner.domain.ontology.check_elements(known)
    return validate_plan(planner, goal, plan, quality, PlanningState.of(known=known))


# --- trajectory analysis ------------------------------------------------------------------------


def trajectory_samples(
    *, samples: Any, version: CatalogVersion | None = None, tools: Any = None
) -> tuple[list[Sample], ToolCatalog | None]:
    """The samples and the tools they are checked against; DataError for anything unreadable."""
    if version is not None and tools is not None:
        raise DataError("tools", "give a catalog or tool specs, not both")
    catalog = tools_from_catalog(version_spec(version=version)) if version is not None else None
    if tools is not None:
        catalog = tool_catalog(tools)
    read = load_samples(samples)
    if not read:
        raise DataError("samples", "there are no sequences to analyse")
    if catalog is None:
        lacking = next((i for i, s in enumerate(read) if s.tools is None), None)
        if lacking is not None:
            raise DataError(f"samples[{lacking}]", "this sample brings no tools: give a catalog or tool specs")
    return read, catalog


def trajectories_analyze(
    *, samples: Any, version: CatalogVersion | None = None, tools: Any = None, goals: bool = False
) -> BatchReport:
    """Analyse a batch in the caller's process (the command line, small API requests).

    With `goals`, each sequence is also judged sound / valid / optimal by the planner, with the
    optimal alternative as a diff (tens of milliseconds a sequence: a planning task each).
    """
    read, catalog = trajectory_samples(samples=samples, version=version, tools=tools)
    return analyze_batch(read, catalog, judge=judge_goals if goals else None)


@transaction.atomic
def analysis_create(
    *,
    workspace: Workspace,
    samples: Any,
    name: str = "",
    version: CatalogVersion | None = None,
    tools: Any = None,
    user: AbstractBaseUser | None = None,
    enqueue: bool = True,
) -> TrajectoryAnalysis:
    """Store a batch for analysis and, once the row is committed, hand it to a worker."""
    if version is not None and version.catalog.workspace_id != workspace.pk:
        raise UnknownName("catalog version", str(version.pk))
    read, _ = trajectory_samples(samples=samples, version=version, tools=tools)
    analysis = TrajectoryAnalysis(
        workspace=workspace, version=version, name=name[:200], created_by=user, samples=samples, tools=tools,
        total=len(read),
    )
    analysis.full_clean()
    analysis.save()
    if enqueue:
        from orchestrator.validation.tasks import trajectory_analysis_run  # the task module imports this one

        enqueue_on_commit(analysis, trajectory_analysis_run)
    return analysis


def analysis_run(*, analysis_id: int) -> TrajectoryAnalysis:
    """Run a stored batch; safe to call again (a finished one, or one whose worker is alive, is left be).

    A job redelivered after its worker died (no heartbeat for CONCERTO_JOB_STALE_SECONDS) starts
    over: the analysis is a pure function of the stored input, and the report is only written, in
    one update, when it is complete. The progress is the heartbeat.
    """

    def work(analysis: TrajectoryAnalysis, beat: Beat) -> dict[str, Any]:
        read, catalog = trajectory_samples(samples=analysis.samples, version=analysis.version, tools=analysis.tools)
        report = report_to_data(analyze_batch(read, catalog, on_progress=beat))
        return {"report": report, "figures": report_figures(report), "done": len(read)}

    return job_run(TrajectoryAnalysis, analysis_id, work, failure="the analysis failed", reset={"done": 0})


def report_figures(report: dict[str, Any]) -> dict[str, Any]:
    """A report without its per-sequence part: what lists and progress polls show."""
    return {key: value for key, value in report.items() if key != "sequences"}


# --- reads --------------------------------------------------------------------------------------


def analysis_list(*, workspace: Workspace) -> QuerySet[TrajectoryAnalysis]:
    # The uploaded batch and the report can be megabytes each: lists and the progress poll read
    # neither (the figures are kept apart); a page that shows the report loads it on access.
    return (TrajectoryAnalysis.objects.filter(workspace=workspace).select_related("version__catalog")
            .defer(*TrajectoryAnalysis.heavy_fields))


def analysis_get(*, workspace: Workspace, pk: int) -> TrajectoryAnalysis:
    """The workspace's analysis `pk`; UnknownName when it has none of that number."""
    analysis = analysis_list(workspace=workspace).filter(pk=pk).first()
    if analysis is None:
        raise UnknownName("analysis", str(pk))
    return analysis
