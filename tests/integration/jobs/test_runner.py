"""The one job runner: a claim is taken once, a stalled job is taken over and its first worker writes
nothing more, a cancelled job stops, a learner keeps its heartbeat from a thread, admins re-queue from
the page and the API, and a job that is not moving says why."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from orchestrator.jobs.models import JobStatus
from orchestrator.jobs.runner import JobLost, job_beat, job_cancel, job_claim, job_finish, job_run
from orchestrator.learning.models import LearningJob
from orchestrator.simulation.models import SimulationRun
from orchestrator.simulation.services import run_chunk, run_create, run_dispatch
from orchestrator.validation.models import TrajectoryAnalysis
from orchestrator.validation.services import analysis_create, analysis_run
from tests.integration.validation.conftest import BANKING_SAMPLES

pytestmark = pytest.mark.django_db


@pytest.fixture
def analysis(workspace, banking) -> TrajectoryAnalysis:
    return analysis_create(workspace=workspace, samples=BANKING_SAMPLES, version=banking, enqueue=False)


def _silent(model, pk: int, seconds: int) -> None:
    """As a worker that died `seconds` ago leaves its job."""
    gone = timezone.now() - timedelta(seconds=seconds)
    model.objects.filter(pk=pk).update(status=JobStatus.RUNNING, started_at=gone, heartbeat_at=gone)


def test_two_deliveries_claim_a_job_once(analysis):
    first = job_claim(TrajectoryAnalysis, analysis.pk)
    assert first is not None and job_claim(TrajectoryAnalysis, analysis.pk) is None
    claimed = TrajectoryAnalysis.objects.get(pk=analysis.pk)
    assert (claimed.status, claimed.holder, claimed.attempts) == (JobStatus.RUNNING, first, 1)


def test_a_stalled_job_is_taken_over_and_its_first_worker_writes_nothing_more(analysis, settings):
    settings.CONCERTO_JOB_STALE_SECONDS = 60
    first = job_claim(TrajectoryAnalysis, analysis.pk)
    _silent(TrajectoryAnalysis, analysis.pk, 120)
    second = job_claim(TrajectoryAnalysis, analysis.pk)
    assert second not in (None, first)
    with pytest.raises(JobLost):
        job_beat(TrajectoryAnalysis, analysis.pk, first, done=2)
    assert not job_finish(TrajectoryAnalysis, analysis.pk, first, JobStatus.DONE)
    taken = TrajectoryAnalysis.objects.get(pk=analysis.pk)
    assert (taken.status, taken.holder, taken.attempts) == (JobStatus.RUNNING, second, 2)


def test_a_cancelled_job_stops_at_its_next_progress_and_writes_no_result(analysis):
    def work(job, beat):
        job_cancel(job)
        beat(1, 3)
        return {"report": {"count": 3}}

    stopped = job_run(TrajectoryAnalysis, analysis.pk, work)
    assert (stopped.status, stopped.report, stopped.finished_at is not None) == (JobStatus.CANCELLED, None, True)
    assert analysis_run(analysis_id=analysis.pk).status == JobStatus.CANCELLED  # a late delivery leaves it


def test_a_failure_is_the_jobs_state_and_an_unexpected_one_reaches_celery(analysis):
    def broken(job, beat):
        raise KeyError("samples")

    with pytest.raises(KeyError):
        job_run(TrajectoryAnalysis, analysis.pk, broken, failure="the analysis failed")
    failed = TrajectoryAnalysis.objects.get(pk=analysis.pk)
    assert failed.status == JobStatus.FAILED and failed.error == "the analysis failed: KeyError: 'samples'"
    assert failed.requeueable


@pytest.mark.django_db(transaction=True)  # the heartbeat thread writes over its own connection
def test_work_without_progress_keeps_its_heartbeat_from_a_thread(banking):
    job = LearningJob.objects.create(catalog=banking.catalog, sessions=True)
    beats = []

    def slow(job, beat):
        started = LearningJob.objects.get(pk=job.pk).heartbeat_at
        time.sleep(1.6)
        beats.append((started, LearningJob.objects.get(pk=job.pk).heartbeat_at))
        return {"proposed": 0}

    done = job_run(LearningJob, job.pk, slow, beat_every=0.3)
    (started, later), = beats
    assert later > started and done.status == JobStatus.DONE


def test_list_and_poll_reads_never_load_a_report_or_an_upload(analysis, workspace, banking, basic_auth, logged_in):
    """A report of 10,000 sequences is megabytes: every list call read each one (10-25 s)."""
    analysis_run(analysis_id=analysis.pk)
    running = analysis_create(workspace=workspace, samples=BANKING_SAMPLES, version=banking, enqueue=False)
    job_claim(TrajectoryAnalysis, running.pk)
    with CaptureQueriesContext(connection) as listed:
        answer = Client().get("/api/v1/validation/analyses", **basic_auth)
        logged_in.get("/validation/")
        Client().get(f"/api/v1/validation/analyses/{analysis.pk}", **basic_auth)
        polled = logged_in.get(f"/validation/analyses/{running.pk}/", HTTP_HX_REQUEST="true")
    assert polled.status_code == 200 and "Running: 0 of 3 sequences" in polled.content.decode()
    figures = {a["id"]: a["figures"] for a in answer.json()}
    assert figures[analysis.pk]["count"] == 3 and figures[running.pk] is None
    sql = " ".join(q["sql"] for q in listed.captured_queries)
    assert '"report"' not in sql and '"samples"' not in sql


def test_an_admin_requeues_a_failed_learning_job_from_the_api_and_an_analyst_may_not(banking, basic_auth, admin_auth):
    job = LearningJob.objects.create(catalog=banking.catalog, sessions=True, status=JobStatus.FAILED,
                                     error="the learner failed: boom")
    path = f"/api/v1/catalogs/banking/refinements/jobs/{job.pk}/requeue"
    refused = Client().post(path, **basic_auth)
    assert refused.status_code == 403 and "admin" in refused.json()["detail"]
    answer = Client().post(path, **admin_auth)
    assert answer.status_code == 202 and answer.json()["status"] == "queued" and answer.json()["error"] == ""
    again = Client().post(path, **admin_auth)  # queued a moment ago: nothing to re-queue
    assert again.status_code == 409


def test_a_live_job_is_not_requeued(banking, admin_auth):
    job = LearningJob.objects.create(catalog=banking.catalog, sessions=True)
    job_claim(LearningJob, job.pk)
    answer = Client().post(f"/api/v1/catalogs/banking/refinements/jobs/{job.pk}/requeue", **admin_auth)
    assert answer.status_code == 409 and "worker is alive" in answer.json()["detail"]


def test_a_job_no_worker_took_says_so(banking, logged_in, settings, basic_auth):
    settings.CONCERTO_JOB_STALE_SECONDS = 60
    job = LearningJob.objects.create(catalog=banking.catalog, sessions=True)
    LearningJob.objects.filter(pk=job.pk).update(queued_at=timezone.now() - timedelta(seconds=200))
    polled = logged_in.get(f"/catalogs/banking/review/jobs/{job.pk}/").content.decode()
    assert "Waiting for a worker: queued 200 seconds ago" in polled
    assert "an admin of the workspace can re-queue it now" in polled
    answer = Client().get(f"/api/v1/catalogs/banking/refinements/jobs/{job.pk}", **basic_auth).json()
    assert answer["waiting"].startswith("Waiting for a worker") and answer["requeueable"]


def test_a_run_whose_chunks_stopped_storing_says_it_waits_for_redelivery_and_an_admin_requeues_it(
        workspace, banking, realistic, admin, settings, monkeypatch, django_capture_on_commit_callbacks):
    settings.CONCERTO_JOB_STALE_SECONDS = 60
    run = run_create(workspace=workspace, version=banking, scenario="realistic", conversations=6, chunk_size=3,
                     enqueue=False)
    run_dispatch(run_id=run.pk, send=lambda *chunk: None)
    run_chunk(run_id=run.pk, start=0, stop=3)
    SimulationRun.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=900))
    page = Client()
    page.force_login(admin)
    shown = page.get(f"/simulations/{run.pk}/").content.decode()
    assert "Running: 3 of 6 conversations" in shown
    assert "No conversation stored for 900 seconds: its chunks wait in the queue behind other work" in shown
    assert "after its visibility timeout" in shown
    assert "Re-queue this simulation" in shown
    sent: list[int] = []
    monkeypatch.setattr("orchestrator.simulation.tasks.simulation_start.delay", sent.append)
    with django_capture_on_commit_callbacks(execute=True):
        answer = page.post(f"/simulations/{run.pk}/requeue/")
    assert answer.status_code == 302 and sent == [run.pk]
    requeued = SimulationRun.objects.get(pk=run.pk)
    assert (requeued.status, requeued.done) == (JobStatus.QUEUED, 3)  # the stored conversations are kept
    chunks: list[tuple[int, int]] = []
    run_dispatch(run_id=run.pk, send=lambda run_id, start, stop: chunks.append((start, stop)))
    assert chunks == [(3, 6)]


def test_an_analysis_is_cancelled_from_its_page_and_its_worker_writes_no_report(analysis, logged_in):
    holder = job_claim(TrajectoryAnalysis, analysis.pk)
    page = logged_in.get(f"/validation/analyses/{analysis.pk}/").content.decode()
    assert f"/validation/analyses/{analysis.pk}/cancel/" in page
    assert logged_in.post(f"/validation/analyses/{analysis.pk}/cancel/").status_code == 302
    with pytest.raises(JobLost):
        job_beat(TrajectoryAnalysis, analysis.pk, holder, done=1)
    assert not job_finish(TrajectoryAnalysis, analysis.pk, holder, JobStatus.DONE, report={"count": 3})
    shown = logged_in.get(f"/validation/analyses/{analysis.pk}/").content.decode()
    assert "Cancelled after 0 of 3 sequences" in shown
    assert TrajectoryAnalysis.objects.get(pk=analysis.pk).report is None
