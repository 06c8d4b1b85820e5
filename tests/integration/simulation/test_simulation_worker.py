"""Simulation runs on real Celery workers (Redis, the test database): to completion, and across a SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from io import StringIO

import pytest
from celery import Celery
from django.conf import settings
from django.core.management import call_command
from django.db import connection

from config import celery_app
from orchestrator.jobs.models import JobStatus
from orchestrator.simulation.models import SimulationRun
from orchestrator.simulation.services import run_create
from tests.conftest import ROOT, database_url

REDIS = "redis://127.0.0.1:6379/12"
pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]  # the workers read committed rows


@contextmanager
def client_and_queue() -> Iterator[tuple[Celery, str]]:
    """A client on Redis (not made Celery's current app) and a fresh queue."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("the workers share the database through PostgreSQL")
    yield (Celery("test-client", broker=REDIS, backend=REDIS, set_as_current=False),
           f"test-sim-{uuid.uuid4().hex[:8]}")


def start_worker(queue: str) -> subprocess.Popen:
    # A short visibility timeout: the chunk a killed worker held comes back to the queue in seconds.
    env = {**os.environ, "DATABASE_URL": database_url(), "CELERY_BROKER_URL": REDIS, "CELERY_RESULT_BACKEND": REDIS,
           "CELERY_VISIBILITY_TIMEOUT": "4"}
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-P", "solo", "-Q", queue, "--loglevel", "warning",
         "-n", f"{uuid.uuid4().hex[:6]}@%h"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )


def stop(worker: subprocess.Popen) -> None:
    if worker.poll() is None:
        worker.terminate()
        worker.wait(timeout=30)


def wait_for(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def indices(run: SimulationRun) -> list[int]:
    return list(run.results.order_by("index").values_list("index", flat=True))


def test_a_worker_runs_a_small_run_to_completion_and_a_redelivered_chunk_adds_nothing(workspace, banking, realistic):
    run = run_create(workspace=workspace, version=banking, scenario="realistic", conversations=24, chunk_size=6,
                     seed=9, enqueue=False)
    with client_and_queue() as (client, queue):
        worker = start_worker(queue)
        try:
            client.send_task("orchestrator.tasks.simulation_start", args=[run.pk], queue=queue)
            wait_for(lambda: SimulationRun.objects.get(pk=run.pk).finished, 180, "the run to finish")
            stored = {c.index: c.pk for c in run.results.all()}
            again = client.send_task("orchestrator.tasks.simulation_chunk", args=[run.pk, 0, 6], queue=queue)
            assert again.get(timeout=60) == 0
        finally:
            stop(worker)
    finished = SimulationRun.objects.get(pk=run.pk)
    assert (finished.status, finished.done) == (JobStatus.DONE, 24)
    assert indices(finished) == list(range(24))
    assert {c.index: c.pk for c in finished.results.all()} == stored
    assert finished.summary["conversations"] == 24


def test_a_worker_killed_mid_run_loses_nothing_and_another_finishes_it(workspace, banking, realistic):
    run = run_create(workspace=workspace, version=banking, scenario="realistic", conversations=120, chunk_size=40,
                     seed=11, enqueue=False)
    with client_and_queue() as (client, queue):
        first = start_worker(queue)
        try:
            client.send_task("orchestrator.tasks.simulation_start", args=[run.pk], queue=queue)
            wait_for(lambda: run.results.count() >= 10, 180, "the first conversations")
            os.kill(first.pid, signal.SIGKILL)
            first.wait(timeout=30)
        finally:
            stop(first)
        before = {c.index: c.pk for c in run.results.all()}
        assert 10 <= len(before) < 120  # killed mid-run, with conversations stored
        second = start_worker(queue)
        try:
            wait_for(lambda: SimulationRun.objects.get(pk=run.pk).finished, 300, "another worker to finish the run")
        finally:
            stop(second)
    finished = SimulationRun.objects.get(pk=run.pk)
    assert finished.status == JobStatus.DONE
    assert indices(finished) == list(range(120))  # every conversation, exactly once
    kept = {c.index: c.pk for c in finished.results.filter(index__in=list(before))}
    assert kept == before  # what the killed worker stored is kept as it was


def test_the_command_hands_a_run_to_the_workers_and_waits(workspace, banking, realistic):
    if connection.vendor != "postgresql":
        pytest.skip("the worker shares the database through PostgreSQL")
    # The command sends through Celery's current app: the project's, not a client another test made current.
    celery_app.set_current()
    queue = f"test-sim-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "DATABASE_URL": database_url(), "CELERY_BROKER_URL": settings.CELERY_BROKER_URL}
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-P", "solo", "-Q", queue, "--loglevel",
         "warning", "-n", f"{uuid.uuid4().hex[:6]}@%h"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    try:
        out = StringIO()
        call_command("simulate", "banking", "--conversations", "12", "--queue", "--celery-queue", queue,
                     "--timeout", "240", "--json", stdout=out)
    finally:
        stop(worker)
    data = json.loads(out.getvalue())
    assert data["status"] == "done" and data["conversations"] == 12
    assert SimulationRun.objects.get(pk=data["id"]).results.count() == 12
