"""Migration 0010 (the job runner) on a database holding jobs of the 0009 schema: every row keeps its data.

The orchestrator app is migrated back to 0009, rows are written with the models of that schema, and it
is migrated forward again; the rows read through today's models say what they said before.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from orchestrator.jobs.models import JobStatus
from orchestrator.learning.models import LearningJob
from orchestrator.simulation.models import SimulationRun
from orchestrator.validation.models import TrajectoryAnalysis

pytestmark = pytest.mark.django_db(transaction=True)  # migrations run outside a test transaction

BEFORE = ("orchestrator", "0011_analytics_indexes")
AFTER = ("orchestrator", "0012_job_runner")
REPORT = {"count": 2, "passed": 1, "failures_per_tool": {"fetch_weather": 1}, "sequences": [{"id": "a"}, {"id": "b"}]}


def _latest() -> tuple[str, str]:
    """The orchestrator's newest migration: today's models read the rows, and later tests find every table."""
    (leaf,) = [node for node in MigrationExecutor(connection).loader.graph.leaf_nodes() if node[0] == "orchestrator"]
    return leaf


def _migrate(target: tuple[str, str]):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([target])
    return executor.loader.project_state([target]).apps


def test_jobs_written_under_0009_keep_their_data_after_0010(workspace, banking, analyst):
    old = _migrate(BEFORE)
    try:
        created = timezone.now() - timedelta(days=2)
        analysis_model = old.get_model("orchestrator", "TrajectoryAnalysis")
        run_model = old.get_model("orchestrator", "SimulationRun")
        job_model = old.get_model("orchestrator", "LearningJob")
        done = analysis_model.objects.create(
            workspace_id=workspace.pk, version_id=banking.pk, name="old batch", samples=[{"output": []}], total=2,
            done=2, status="done", report=REPORT, started_at=created, finished_at=created, heartbeat_at=created,
            created_by_id=analyst.pk)
        running = analysis_model.objects.create(workspace_id=workspace.pk, samples=[], total=5, done=1,
                                                status="running", started_at=created, heartbeat_at=created)
        run = run_model.objects.create(
            workspace_id=workspace.pk, version_id=banking.pk, scenario_name="realistic", scenario_data={"x": 1},
            conversations=10, done=10, status="done", summary={"success_rate": 0.5}, started_at=created,
            finished_at=created, error="")
        failed = job_model.objects.create(catalog_id=banking.catalog_id, run_id=run.pk, sessions=True,
                                          trajectories=[{"output": []}], trajectories_name="calls.json",
                                          status="failed", error="the learner failed: boom", proposed=0)
        queued = job_model.objects.create(catalog_id=banking.catalog_id, status="queued")
        for model, pk in ((analysis_model, done.pk), (analysis_model, running.pk), (run_model, run.pk),
                          (job_model, failed.pk), (job_model, queued.pk)):
            model.objects.filter(pk=pk).update(created_at=created)
    finally:
        _migrate(AFTER)
        _migrate(_latest())  # past the job runner, to the migrations that came after it

    stored = TrajectoryAnalysis.objects.get(pk=done.pk)
    assert (stored.status, stored.name, stored.total, stored.done, stored.report) == ("done", "old batch", 2, 2, REPORT)
    assert stored.figures == {k: v for k, v in REPORT.items() if k != "sequences"}
    assert stored.created_by_id == analyst.pk and stored.finished_at is not None
    assert (stored.queued_at, stored.attempts, stored.holder) == (stored.created_at, 1, "")
    assert TrajectoryAnalysis.objects.get(pk=running.pk).status == JobStatus.RUNNING

    stored_run = SimulationRun.objects.get(pk=run.pk)
    assert (stored_run.status, stored_run.done, stored_run.summary, stored_run.scenario_data) == (
        "done", 10, {"success_rate": 0.5}, {"x": 1})
    assert stored_run.heartbeat_at is None and stored_run.queued_at == stored_run.created_at

    stored_failed = LearningJob.objects.get(pk=failed.pk)
    assert (stored_failed.status, stored_failed.error, stored_failed.trajectories_name, stored_failed.sessions) == (
        JobStatus.FAILED, "the learner failed: boom", "calls.json", True)
    assert stored_failed.trajectories == [{"output": []}] and stored_failed.requeueable
    stored_queued = LearningJob.objects.get(pk=queued.pk)
    assert (stored_queued.status, stored_queued.attempts, stored_queued.done) == (JobStatus.QUEUED, 0, 0)
    # Queued two days ago by its own clock: the page says no worker has taken it.
    assert stored_queued.unclaimed and "no worker has taken it" in stored_queued.waiting
