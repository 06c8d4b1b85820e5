"""An analysis whose worker died is seen as such, taken up again, and can be re-queued by an admin."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from django.test import Client
from django.utils import timezone

from catalog_app.models import Role
from catalog_app.services import membership_set, user_create
from orchestrator.jobs.models import JobStatus
from orchestrator.validation import analysis_jobs as analysis_job_services
from orchestrator.validation.models import TrajectoryAnalysis
from orchestrator.validation.services import analysis_create, analysis_run

from .conftest import BANKING_SAMPLES

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def queued(workspace, banking, analyst) -> TrajectoryAnalysis:
    return analysis_create(workspace=workspace, samples=BANKING_SAMPLES, version=banking, user=analyst,
                           name="batch", enqueue=False)


def _running(analysis: TrajectoryAnalysis, silent_for: int) -> TrajectoryAnalysis:
    """As a worker leaves it: running at 1 of 3, its last heartbeat `silent_for` seconds ago."""
    beat = timezone.now() - timedelta(seconds=silent_for)
    TrajectoryAnalysis.objects.filter(pk=analysis.pk).update(status=JobStatus.RUNNING, done=1, started_at=beat,
                                                             heartbeat_at=beat)
    return TrajectoryAnalysis.objects.get(pk=analysis.pk)


@pytest.fixture
def admin(workspace):
    user = user_create(username="ada", password="ada-pass-long-1")
    membership_set(workspace=workspace, user=user, role=Role.ADMIN)
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def enqueued(monkeypatch) -> list[int]:
    sent: list[int] = []
    monkeypatch.setattr("orchestrator.validation.tasks.trajectory_analysis_run.delay", sent.append)
    return sent


def test_a_job_with_a_recent_heartbeat_is_alive(queued, settings):
    settings.CONCERTO_JOB_STALE_SECONDS = 60
    assert not _running(queued, silent_for=5).stalled


def test_a_job_silent_for_longer_than_the_limit_is_stalled(queued, settings):
    settings.CONCERTO_JOB_STALE_SECONDS = 60
    analysis = _running(queued, silent_for=120)
    assert analysis.stalled and analysis.silent_seconds >= 120


def test_a_message_for_a_job_whose_worker_still_beats_comes_back_once_it_would_be_stale(queued, settings,
                                                                                     monkeypatch):
    """A redelivery may arrive a moment after the worker died, before its heartbeat is stale: the
    message must not be dropped (the job would stay "running" for ever), but come back later."""
    from orchestrator.validation.tasks import trajectory_analysis_run

    settings.CONCERTO_JOB_STALE_SECONDS = 60
    _running(queued, silent_for=1)
    later: list[dict] = []

    def retry(**options):
        later.append(options)
        return RuntimeError("retried")

    monkeypatch.setattr(trajectory_analysis_run, "retry", retry)
    with pytest.raises(RuntimeError, match="retried"):
        trajectory_analysis_run.run(queued.pk)
    assert later == [{"countdown": 61, "max_retries": None}]
    assert TrajectoryAnalysis.objects.get(pk=queued.pk).done == 1  # the live worker's job is left alone


def test_a_redelivered_message_takes_over_a_stalled_job(queued, settings):
    settings.CONCERTO_JOB_STALE_SECONDS = 60
    _running(queued, silent_for=120)
    done = analysis_run(analysis_id=queued.pk)
    assert (done.status, done.done) == (JobStatus.DONE, 3)


def test_a_message_delivered_twice_leaves_a_live_job_to_its_worker(queued, settings):
    settings.CONCERTO_JOB_STALE_SECONDS = 60
    _running(queued, silent_for=5)
    again = analysis_run(analysis_id=queued.pk)
    assert (again.status, again.done, again.report) == (JobStatus.RUNNING, 1, None)


def test_the_worker_writes_a_heartbeat_with_its_progress(queued):
    done = analysis_run(analysis_id=queued.pk)
    assert done.heartbeat_at is not None and done.started_at <= done.heartbeat_at <= done.finished_at


def test_the_page_says_a_job_has_stalled_and_an_admin_requeues_it(queued, admin, enqueued, settings,
                                                                   django_capture_on_commit_callbacks):
    settings.CONCERTO_JOB_STALE_SECONDS = 60
    _running(queued, silent_for=300)
    page = admin.get(f"/validation/analyses/{queued.pk}/").content.decode()
    assert "No sign of life from its worker for 30" in page and "Re-queue this analysis" in page
    with django_capture_on_commit_callbacks(execute=True):
        response = admin.post(f"/validation/analyses/{queued.pk}/requeue/")
    assert response.status_code == 302
    queued.refresh_from_db()
    assert (queued.status, queued.done, queued.heartbeat_at) == (JobStatus.QUEUED, 0, None)
    assert enqueued == [queued.pk]


def test_an_analyst_sees_the_stall_but_cannot_requeue(queued, logged_in, enqueued, settings):
    settings.CONCERTO_JOB_STALE_SECONDS = 60
    _running(queued, silent_for=300)
    page = logged_in.get(f"/validation/analyses/{queued.pk}/").content.decode()
    assert "No sign of life" in page and "an admin of the workspace can re-queue it" in page
    assert "Re-queue this analysis" not in page
    assert logged_in.post(f"/validation/analyses/{queued.pk}/requeue/").status_code == 403
    assert enqueued == []


def test_a_live_job_is_not_requeued(queued, admin, enqueued, settings, workspace):
    settings.CONCERTO_JOB_STALE_SECONDS = 60
    membership_set(workspace=workspace, user=queued.created_by, role=Role.ADMIN)
    _running(queued, silent_for=5)
    admin.post(f"/validation/analyses/{queued.pk}/requeue/")
    queued.refresh_from_db()
    assert queued.status == JobStatus.RUNNING and enqueued == []
    with pytest.raises(analysis_job_services.NotStalled):
        analysis_job_services.analysis_check_requeue(analysis=queued, user=queued.created_by)


def test_the_redis_broker_gives_messages_of_dead_workers_back_within_minutes():
    code = ("import django; django.setup(); from django.conf import settings; "
            "print(settings.CELERY_BROKER_TRANSPORT_OPTIONS['visibility_timeout'])")
    env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp"),
           "DJANGO_SETTINGS_MODULE": "config.settings", "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0"}
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert 0 < int(result.stdout) < 3600  # kombu's default, an hour, left a dead worker's job stuck


def _worker(queue: str, broker: str, **env: str) -> subprocess.Popen:
    from tests.conftest import database_url

    environ = {**os.environ, "DATABASE_URL": database_url(), "CELERY_BROKER_URL": broker,
               "CELERY_RESULT_BACKEND": broker, **env}
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-P", "solo", "-Q", queue, "--loglevel", "warning"],
        cwd=ROOT, env=environ, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )


def _wait_for(condition, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "gave up waiting"
        time.sleep(0.2)


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)  # committed rows: the workers read them over their own connections
def test_a_job_whose_whole_worker_was_killed_is_finished_by_the_next_worker(workspace, banking):
    """The worker process itself is killed (SIGKILL) mid-job; a new worker takes the job over and finishes it."""
    from celery import Celery

    broker = "redis://127.0.0.1:6379/13"
    queue = f"test-{uuid.uuid4().hex[:8]}"
    quick = {"CELERY_VISIBILITY_TIMEOUT": "3", "CELERY_RESTORE_INTERVAL": "1", "CONCERTO_JOB_STALE_SECONDS": "3"}
    analysis = analysis_create(workspace=workspace, samples=BANKING_SAMPLES * 2000, version=banking, enqueue=False)
    first = _worker(queue, broker, **quick)
    second = None
    try:
        client = Celery("test-client", broker=broker, backend=broker, set_as_current=False)
        client.send_task("orchestrator.tasks.trajectory_analysis_run", args=[analysis.pk], queue=queue)
        _wait_for(lambda: TrajectoryAnalysis.objects.filter(pk=analysis.pk, done__gt=0).exists())
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)
        stuck = TrajectoryAnalysis.objects.get(pk=analysis.pk)
        assert stuck.status == JobStatus.RUNNING and stuck.done < stuck.total
        second = _worker(queue, broker, **quick)
        _wait_for(lambda: TrajectoryAnalysis.objects.get(pk=analysis.pk).status == JobStatus.DONE, timeout=180)
    finally:
        for worker in (first, second):
            if worker is not None and worker.poll() is None:
                worker.terminate()
                worker.wait(timeout=30)
    done = TrajectoryAnalysis.objects.get(pk=analysis.pk)
    assert (done.done, done.report["count"]) == (6000, 6000)
