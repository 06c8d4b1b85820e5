"""A batch analysis run by a real Celery worker process against the test database.

On Redis (production) and on the filesystem broker (the embedded default `make demo` runs).
"""

from __future__ import annotations

import pytest

from orchestrator.jobs.models import JobStatus
from orchestrator.validation.models import TrajectoryAnalysis
from orchestrator.validation.services import analysis_create
from tests.conftest import celery_worker

from .conftest import BANKING_SAMPLES

REDIS = "redis://127.0.0.1:6379/14"


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)  # committed rows: the worker reads them over its own connection
@pytest.mark.parametrize("broker", [REDIS, "filesystem://"])
def test_a_worker_runs_a_batch_analysis_and_stores_its_report(workspace, banking, broker):
    samples = BANKING_SAMPLES * 40  # 120 sequences
    analysis = analysis_create(workspace=workspace, samples=samples, version=banking, enqueue=False)
    with celery_worker(broker, REDIS) as (client, queue):
        result = client.send_task("orchestrator.tasks.trajectory_analysis_run", args=[analysis.pk], queue=queue)
        assert result.get(timeout=90) == "done"
        # Delivered again (as after a lost acknowledgement): the finished report is left alone.
        finished_at = TrajectoryAnalysis.objects.get(pk=analysis.pk).finished_at
        again = client.send_task("orchestrator.tasks.trajectory_analysis_run", args=[analysis.pk], queue=queue)
        assert again.get(timeout=90) == "done"
    stored = TrajectoryAnalysis.objects.get(pk=analysis.pk)
    assert (stored.status, stored.total, stored.done) == (JobStatus.DONE, 120, 120)
    assert stored.finished_at == finished_at
    report = stored.report
    assert (report["count"], report["passed"]) == (120, 40)
    assert report["failures_per_tool"] == {"submit_credit_card": 40, "fetch_weather": 40}
    assert report["troubled"][:4] == [1, 2, 4, 5]


def test_the_task_is_acknowledged_late():
    from orchestrator.validation.tasks import trajectory_analysis_run

    assert trajectory_analysis_run.acks_late is True
