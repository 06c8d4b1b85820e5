"""A batch analysis run by a real Celery worker process, on Redis, against the test database."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import pytest
from celery import Celery
from django.db import connection

from orchestrator.models import AnalysisStatus, TrajectoryAnalysis
from orchestrator.validation_services import analysis_create
from tests.conftest import ROOT, database_url

from .conftest import BANKING_SAMPLES

REDIS = "redis://127.0.0.1:6379/14"


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)  # committed rows: the worker reads them over its own connection
def test_a_worker_runs_a_batch_analysis_and_stores_its_report(workspace, banking):
    if connection.vendor != "postgresql":
        pytest.skip("the worker shares the database through PostgreSQL")
    samples = BANKING_SAMPLES * 40  # 120 sequences
    analysis = analysis_create(workspace=workspace, samples=samples, version=banking, enqueue=False)
    queue = f"test-validation-{uuid.uuid4().hex[:8]}"  # nothing of an earlier run is picked up
    env = {**os.environ, "DATABASE_URL": database_url(), "CELERY_BROKER_URL": REDIS, "CELERY_RESULT_BACKEND": REDIS}
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-P", "solo", "-Q", queue, "--loglevel", "warning"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    try:
        client = Celery("test-client", broker=REDIS, backend=REDIS)
        result = client.send_task("orchestrator.tasks.trajectory_analysis_run", args=[analysis.pk], queue=queue)
        assert result.get(timeout=90) == "done"
        # Delivered again (as after a lost acknowledgement): the finished report is left alone.
        finished_at = TrajectoryAnalysis.objects.get(pk=analysis.pk).finished_at
        again = client.send_task("orchestrator.tasks.trajectory_analysis_run", args=[analysis.pk], queue=queue)
        assert again.get(timeout=90) == "done"
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    stored = TrajectoryAnalysis.objects.get(pk=analysis.pk)
    assert (stored.status, stored.total, stored.done) == (AnalysisStatus.DONE, 120, 120)
    assert stored.finished_at == finished_at
    report = stored.report
    assert (report["count"], report["passed"]) == (120, 40)
    assert report["failures_per_tool"] == {"submit_credit_card": 40, "fetch_weather": 40}
    assert report["troubled"][:4] == [1, 2, 4, 5]


def test_the_task_is_acknowledged_late():
    from orchestrator.tasks import trajectory_analysis_run

    assert trajectory_analysis_run.acks_late is True
