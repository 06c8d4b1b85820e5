"""Writes of simulations: scenarios stored by name, runs recorded, fanned out in chunks and finished.

A run is split into chunks of conversation indices, each a Celery task (`orchestrator.tasks`)
acknowledged late. A chunk computes only the conversations its run does not have yet and stores
them in small batches under a unique (run, index) constraint, so a redelivered chunk, or one
taken over after its worker was killed, adds each conversation exactly once and loses none that
was stored. The last chunk to store a conversation writes the run's figures.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models.functions import Greatest
from django.utils import timezone

from catalog_app.models import Catalog, CatalogVersion, Workspace
from catalog_app.permissions import Action, Actor, check_allowed
from catalog_app.planning import version_planner
from catalog_app.selectors import version_latest, version_spec
from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.errors import ConcertoError, Issue, SpecError
from orchestrator.engine.simulation.driver import Conversation, simulate_conversation
from orchestrator.engine.simulation.scenario import Scenario, differences, parse_scenario, scenario_to_data
from orchestrator.engine.simulation.summary import summarize
from orchestrator.jobs.models import JobStatus
from orchestrator.jobs.runner import enqueue_on_commit, job_cancel, job_claim, job_requeue
from orchestrator.modes import AssistantMode
from orchestrator.simulation.models import ScenarioRevision, SimulatedConversation, SimulationRun, SimulationScenario

logger = logging.getLogger(__name__)

MAX_CONVERSATIONS = 20_000
WRITE_EVERY = 10  # conversations stored together: a killed worker loses at most this many computed ones


# --- scenarios -------------------------------------------------------------------------------------


@transaction.atomic
def scenario_save(*, catalog: Catalog, data: Any, version: CatalogVersion | None = None,
                  user: Actor | None = None) -> SimulationScenario:
    """Store (or replace) a scenario under its name, checked against `version` (the latest by default).

    Every save adds a revision that names the catalog version it was checked against: scenarios
    are versioned with their catalog. A scenario with any fault saves nothing (SpecError, each at its path).
    """
    if user is not None:
        check_allowed(user, catalog.workspace, Action.SCENARIO_SAVE)
    version = version or version_latest(catalog=catalog)
    if version is None:
        raise ConcertoError(f"catalog '{catalog.slug}' has no versions")
    scenario = parse_scenario(data, version_spec(version=version))
    stored = SimulationScenario.objects.filter(catalog=catalog, name=scenario.scenario).first()
    stored = stored or SimulationScenario(catalog=catalog, name=scenario.scenario)
    stored.description = scenario.description
    stored.data = scenario_to_data(scenario)
    try:
        stored.full_clean(exclude=["catalog"])
    except Exception as exc:  # a name that is no slug
        raise SpecError([Issue("scenario", str(exc))]) from None
    stored.save()
    last = stored.revisions.order_by("-number").values_list("number", flat=True).first() or 0
    ScenarioRevision.objects.create(scenario=stored, number=last + 1, version=version, data=stored.data,
                                    created_by=user if getattr(user, "is_authenticated", False) else None)
    return stored


# --- runs ------------------------------------------------------------------------------------------


@transaction.atomic
def run_create(*, workspace: Workspace, version: CatalogVersion, scenario: Any, conversations: int,
               orchestrator: str = AssistantMode.PLANNER, seed: int = 0, user: AbstractBaseUser | None = None,
               chunk_size: int = 25, enqueue: bool = True, explore: bool = False) -> SimulationRun:
    """Record a run; `scenario` is a stored one (by object or name) or scenario data read from a file.

    Everything is checked before anything is saved. With `enqueue`, once the row is committed a
    worker fans the run out in chunks.
    """
    if version.catalog.workspace_id != workspace.pk:
        raise ConcertoError(f"catalog '{version.catalog.slug}' is not in workspace '{workspace.slug}'")
    if orchestrator not in AssistantMode.values:
        raise ConcertoError(f"unknown orchestrator '{orchestrator}' (planner or s3)", path="orchestrator")
    if not 1 <= conversations <= MAX_CONVERSATIONS:
        raise ConcertoError(f"between 1 and {MAX_CONVERSATIONS:,} conversations", path="conversations")
    if not 0 <= seed < 2**31:
        raise ConcertoError("the seed is a number from 0 to 2147483647", path="seed")
    if not 1 <= chunk_size <= 1000:
        raise ConcertoError("a chunk holds 1 to 1,000 conversations", path="chunk_size")
    spec = version_spec(version=version)
    stored, checked = scenario_checked(version, spec, scenario)
    run = SimulationRun(
        workspace=workspace, version=version, scenario=stored, scenario_name=checked.scenario,
        scenario_data=scenario_to_data(checked), differences=differences(checked, spec), orchestrator=orchestrator,
        conversations=conversations, seed=seed, chunk_size=chunk_size, explore=explore, created_by=user,
    )
    run.full_clean(exclude=["workspace", "version", "scenario", "created_by"])
    run.save()
    if enqueue:
        from orchestrator.simulation.tasks import simulation_start  # the task module imports this one

        enqueue_on_commit(run, simulation_start)
    return run


def scenario_checked(version: CatalogVersion, spec: CatalogSpec,
                     scenario: Any) -> tuple[SimulationScenario | None, Scenario]:
    """`scenario` (a stored one's name, a stored one, or its data) checked against `version`'s `spec`, with
    the stored row it came from; ConcertoError at `scenario` naming the stored ones for an unknown name."""
    if isinstance(scenario, str):
        stored = SimulationScenario.objects.filter(catalog=version.catalog, name=scenario).first()
        if stored is None:
            names = list(SimulationScenario.objects.filter(catalog=version.catalog).values_list("name", flat=True))
            known = f" (stored: {', '.join(names)})" if names else " (none is stored: write one on the Scenarios page)"
            raise ConcertoError(f"unknown scenario '{scenario}'{known}", path="scenario")
        return stored, parse_scenario(stored.data, spec)
    if isinstance(scenario, SimulationScenario):
        return scenario, parse_scenario(scenario.data, spec)
    return None, parse_scenario(scenario, spec)


def run_chunks(run: SimulationRun) -> list[tuple[int, int]]:
    size = run.chunk_size
    return [(start, min(start + size, run.conversations)) for start in range(0, run.conversations, size)]


def run_dispatch(*, run_id: int, send: Callable[[int, int, int], None]) -> str:
    """Claim the run (queued, or running with no chunk storing anything for CONCERTO_JOB_STALE_SECONDS)
    and hand each unfinished chunk to `send(run_id, start, stop)`.

    Safe to deliver again: a start task redelivered after its worker died mid-dispatch sends the
    chunks that are not complete once more (a chunk sent twice does its work once).
    """
    job_claim(SimulationRun, run_id)
    run = SimulationRun.objects.only("pk", "status", "conversations", "chunk_size").get(pk=run_id)
    if run.status == JobStatus.RUNNING:
        have = set(run.results.values_list("index", flat=True))
        for start, stop in run_chunks(run):
            if any(i not in have for i in range(start, stop)):
                send(run_id, start, stop)
    return run.status


def run_chunk(*, run_id: int, start: int, stop: int) -> int:
    """Compute and store the conversations [start, stop) the run lacks; how many were added."""
    run = SimulationRun.objects.select_related("version").defer("scenario_data").get(pk=run_id)
    if run.status != JobStatus.RUNNING:
        return 0  # cancelled, failed or finished: a late or redelivered chunk does nothing
    _beat(run_id)  # a chunk that starts is a sign of life of its run
    have = set(run.results.filter(index__gte=start, index__lt=stop).values_list("index", flat=True))
    missing = [i for i in range(start, stop) if i not in have]
    added = 0
    try:
        spec = version_spec(version=run.version)
        planner = version_planner(version=run.version)
        scenario = parse_scenario(run.scenario_data, spec)  # read once per chunk
        batch: list[Conversation] = []
        for index in missing:
            batch.append(simulate_conversation(spec, planner, scenario, orchestrator=run.orchestrator,  # type: ignore[arg-type]
                                               seed=run.seed, index=index, explore=run.explore))
            if len(batch) >= WRITE_EVERY or index == missing[-1]:
                added += _store(run, batch)
                batch = []
                if _cancelled(run_id):
                    return added
    except ConcertoError as exc:  # the version no longer fits the scenario
        _fail(run_id, str(exc))
        return added
    except Exception as exc:
        logger.exception("simulation %s chunk %s-%s failed", run_id, start, stop)
        _fail(run_id, f"the simulation failed: {type(exc).__name__}: {exc}")
        raise
    _finish_if_complete(run_id)
    return added


def _store(run: SimulationRun, batch: list[Conversation]) -> int:
    rows = [SimulatedConversation(run=run, index=c.index, intent=c.intent, outcome=c.outcome, success=c.success,
                                  turns=c.metrics["turns"], metrics=c.metrics, transcript=c.transcript,
                                  trace=c.trace, state=c.state) for c in batch]
    with transaction.atomic():
        # ignore_conflicts: a conversation another delivery of this chunk stored first is kept as it is
        SimulatedConversation.objects.bulk_create(rows, ignore_conflicts=True)
        count = run.results.count()
        # The stored conversations are the run's progress and its heartbeat.
        SimulationRun.objects.filter(pk=run.pk).update(done=Greatest("done", count), heartbeat_at=timezone.now())
    return len(rows)


def _beat(run_id: int) -> None:
    SimulationRun.objects.filter(pk=run_id, status=JobStatus.RUNNING).update(heartbeat_at=timezone.now())


def _cancelled(run_id: int) -> bool:
    return SimulationRun.objects.filter(pk=run_id, status=JobStatus.CANCELLED).exists()


def _fail(run_id: int, error: str) -> None:
    SimulationRun.objects.filter(pk=run_id, status=JobStatus.RUNNING).update(
        status=JobStatus.FAILED, error=error, finished_at=timezone.now())


def _finish_if_complete(run_id: int) -> None:
    run = SimulationRun.objects.only("pk", "status", "conversations").get(pk=run_id)
    if run.status != JobStatus.RUNNING or run.results.count() < run.conversations:
        return
    summary = summarize(list(run.results.order_by("index").values_list("metrics", flat=True)))
    now = timezone.now()
    SimulationRun.objects.filter(pk=run_id, status=JobStatus.RUNNING).update(
        status=JobStatus.DONE, summary=summary, done=run.conversations, finished_at=now, heartbeat_at=now)


def run_execute(*, run_id: int) -> SimulationRun:
    """Run every chunk in this process (the command line without --queue, tests)."""
    run_dispatch(run_id=run_id, send=lambda r, start, stop: None)
    run = SimulationRun.objects.get(pk=run_id)
    for start, stop in run_chunks(run):
        run_chunk(run_id=run_id, start=start, stop=stop)
        if SimulationRun.objects.get(pk=run_id).finished:
            break
    return SimulationRun.objects.get(pk=run_id)


def run_cancel(*, run: SimulationRun, user: Actor) -> SimulationRun:
    """Stop a run: chunks not started do nothing, running ones stop after their current batch."""
    check_allowed(user, run.workspace, Action.SIMULATION_RUN)
    job_cancel(run)
    run.refresh_from_db(fields=["status", "finished_at", "done"])
    return run


def run_requeue(*, run: SimulationRun, user: AbstractBaseUser) -> SimulationRun:
    """Start a stalled, unclaimed or failed run again (admins): its start task sends every chunk that is
    not complete; the conversations already stored are kept."""
    from orchestrator.simulation.tasks import simulation_start  # the task module imports this one

    job_requeue(job=run, user=user, workspace=run.workspace, task=simulation_start, noun="simulation")
    run.refresh_from_db(fields=["status", "queued_at", "heartbeat_at", "finished_at", "error", "holder"])
    return run
