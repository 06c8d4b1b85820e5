"""The job runner with real Celery workers (Redis, the test database): a learning job whose worker is
killed mid-learning is taken over once its heartbeat is stale, and a message delivered twice at once
never starts a second learner on a live one."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid

import pytest
from celery import Celery

from orchestrator.jobs.models import JobStatus
from orchestrator.learning.models import LearningJob, Refinement
from orchestrator.learning.services import learning_job_create
from orchestrator.simulation.models import SimulationRun
from orchestrator.simulation.services import run_create, run_execute
from tests.conftest import ROOT, database_url

REDIS = "redis://127.0.0.1:6379/11"
# Seconds, not minutes: a dead worker's message comes back, and its job is stale, within the test.
QUICK = {"CELERY_VISIBILITY_TIMEOUT": "3", "CELERY_RESTORE_INTERVAL": "1", "CONCERTO_JOB_STALE_SECONDS": "3"}

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]  # workers read committed rows


def _worker(queue: str) -> subprocess.Popen:
    env = {**os.environ, "DATABASE_URL": database_url(), "CELERY_BROKER_URL": REDIS, "CELERY_RESULT_BACKEND": REDIS,
           **QUICK}
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-P", "solo", "-Q", queue, "--loglevel", "warning",
         "-n", f"{uuid.uuid4().hex[:6]}@%h"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _stop(*workers: subprocess.Popen | None) -> None:
    for worker in workers:
        if worker is not None and worker.poll() is None:
            worker.terminate()
            worker.wait(timeout=30)


def _wait_for(condition, timeout: float, what: str, every: float = 0.05) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(every)


@pytest.fixture
def big_run(workspace, banking, realistic) -> SimulationRun:
    """Enough conversations that learning from them takes a worker a while."""
    created = run_create(workspace=workspace, version=banking, scenario="realistic", conversations=600, seed=5,
                         enqueue=False)
    return run_execute(run_id=created.pk)


def _client() -> Celery:
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("the workers share the database through PostgreSQL")
    return Celery("test-client", broker=REDIS, backend=REDIS, set_as_current=False)


def test_a_learning_job_whose_worker_is_killed_is_taken_over_after_the_stale_time(banking, big_run):
    client, queue = _client(), f"test-jobs-{uuid.uuid4().hex[:8]}"
    job = learning_job_create(catalog=banking.catalog, run=big_run, enqueue=False)
    first = _worker(queue)
    second = None
    try:
        client.send_task("orchestrator.tasks.learning_job_run", args=[job.pk], queue=queue)
        _wait_for(lambda: LearningJob.objects.get(pk=job.pk).status != JobStatus.QUEUED, 120, "a worker to claim it")
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)
        stuck = LearningJob.objects.get(pk=job.pk)
        assert (stuck.status, stuck.attempts) == (JobStatus.RUNNING, 1), "the learner finished before the kill"
        assert not Refinement.objects.exists()  # nothing half-learned was queued
        second = _worker(queue)
        _wait_for(lambda: LearningJob.objects.get(pk=job.pk).finished, 240, "the second worker to finish it", 0.2)
    finally:
        _stop(first, second)
    done = LearningJob.objects.get(pk=job.pk)
    assert done.status == JobStatus.DONE, done.error
    assert done.attempts == 2 and done.holder != stuck.holder  # taken over, by a new holder
    assert done.proposed == Refinement.objects.filter(catalog=banking.catalog).count() > 0


def test_a_job_delivered_twice_at_once_runs_one_learner(banking, big_run):
    client, queue = _client(), f"test-jobs-{uuid.uuid4().hex[:8]}"
    job = learning_job_create(catalog=banking.catalog, run=big_run, enqueue=False)
    workers = [_worker(queue), _worker(queue)]
    try:
        time.sleep(3)  # both workers listening: the two messages go to one each
        for _ in range(2):
            client.send_task("orchestrator.tasks.learning_job_run", args=[job.pk], queue=queue)
        _wait_for(lambda: LearningJob.objects.get(pk=job.pk).finished, 240, "the job to finish", 0.2)
        time.sleep(5)  # the second delivery comes back once a dead worker's heartbeat would be stale, and ends
    finally:
        _stop(*workers)
    done = LearningJob.objects.get(pk=job.pk)
    assert (done.status, done.attempts) == (JobStatus.DONE, 1), done.error
    assert done.proposed == Refinement.objects.filter(catalog=banking.catalog).count() > 0
