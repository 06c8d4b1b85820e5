"""The life of a batch analysis: created with checked input, run once, safe to run again."""

from __future__ import annotations

import pytest

from orchestrator.engine.analysis.trajectory_io import DataError
from orchestrator.jobs.models import JobStatus
from orchestrator.validation.models import TrajectoryAnalysis
from orchestrator.validation.services import analysis_create, analysis_run

from .conftest import BANKING_SAMPLES

pytestmark = pytest.mark.django_db


@pytest.fixture
def queued(workspace, banking, analyst) -> TrajectoryAnalysis:
    return analysis_create(workspace=workspace, samples=BANKING_SAMPLES, version=banking, user=analyst,
                           name="batch", enqueue=False)


def test_a_run_writes_the_report_and_the_progress(queued):
    assert (queued.status, queued.total, queued.done) == (JobStatus.QUEUED, 3, 0)
    done = analysis_run(analysis_id=queued.pk)
    assert (done.status, done.done, done.percent, done.error) == (JobStatus.DONE, 3, 100, "")
    assert done.report["count"] == 3 and done.report["troubled"] == [1, 2]
    assert done.started_at <= done.finished_at


def test_running_again_leaves_a_finished_analysis_as_it_is(queued):
    first = analysis_run(analysis_id=queued.pk)
    again = analysis_run(analysis_id=queued.pk)
    assert again.finished_at == first.finished_at
    assert again.report == first.report


def test_a_job_redelivered_after_its_worker_died_starts_over(queued):
    TrajectoryAnalysis.objects.filter(pk=queued.pk).update(status=JobStatus.RUNNING, done=2)
    done = analysis_run(analysis_id=queued.pk)
    assert (done.status, done.done) == (JobStatus.DONE, 3)


def test_input_that_no_longer_reads_fails_the_job_with_a_message(queued):
    TrajectoryAnalysis.objects.filter(pk=queued.pk).update(samples=[{"output": "[broken"}])
    failed = analysis_run(analysis_id=queued.pk)
    assert failed.status == JobStatus.FAILED
    assert failed.error == "samples[0].output: not JSON: Expecting value" and failed.report is None


def test_an_analysis_needs_tools_and_readable_samples(workspace):
    with pytest.raises(DataError, match="brings no tools"):
        analysis_create(workspace=workspace, samples=BANKING_SAMPLES, enqueue=False)
    with pytest.raises(DataError, match="no sequences"):
        analysis_create(workspace=workspace, samples=[], tools=[{"name": "f"}], enqueue=False)
    assert not TrajectoryAnalysis.objects.exists()


def test_creating_an_analysis_hands_it_to_a_worker_once_committed(queued, workspace, banking,
                                                                   django_capture_on_commit_callbacks, monkeypatch):
    sent = []
    monkeypatch.setattr("orchestrator.validation.tasks.trajectory_analysis_run.delay", sent.append)
    with django_capture_on_commit_callbacks(execute=True):
        analysis = analysis_create(workspace=workspace, samples=BANKING_SAMPLES, version=banking)
    assert sent == [analysis.pk]
