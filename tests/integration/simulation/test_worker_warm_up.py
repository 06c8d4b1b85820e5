"""A prefork Celery worker started with the NLU warm-up on runs a simulation to the end (issue 24, finding 1).

The hang: a warm-up thread in the worker's main process held the import lock of `onnxruntime` (or
`onnx`) while the pool forked; each child inherited the lock held by a thread it does not have, and
blocked for ever at its own import. The imports are made slow here (`slow_imports/sitecustomize.py`),
as they are on a busy machine, so that the fork lands inside them whenever a thread is importing them.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from celery import Celery
from django.db import connection

from orchestrator.jobs.models import JobStatus
from orchestrator.simulation.models import SimulationRun
from orchestrator.simulation.services import run_create
from tests.conftest import ROOT, database_url

REDIS = "redis://127.0.0.1:6379/10"  # no other test or bench uses this database
SLOW_IMPORTS = Path(__file__).parent / "slow_imports"
SLOW_SECONDS = 5  # per import, onnxruntime's and onnx's: each child waits for both at its start
STARTS = 3  # the hang depended on timing: a few starts
BOUND = 120  # seconds for a worker to start and run 4 conversations; a hang never ends

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]  # the worker reads committed rows


def start_prefork_worker(queue: str, log: Path, *options: str) -> subprocess.Popen:
    env = {**os.environ, "DATABASE_URL": database_url(), "CELERY_BROKER_URL": REDIS, "CELERY_RESULT_BACKEND": REDIS,
           "NLU_WARM_UP": "true", "PYTHONPATH": os.pathsep.join(filter(None, [str(SLOW_IMPORTS),
                                                                                os.environ.get("PYTHONPATH")])),
           "SLOW_IMPORTS": "onnx,onnxruntime", "SLOW_IMPORT_SECONDS": str(SLOW_SECONDS)}
    with log.open("w") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "-P", "prefork", "-c", "2", *options,
             "-Q", queue, "--loglevel", "info", "-n", f"{uuid.uuid4().hex[:6]}@%h"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


def stop(worker: subprocess.Popen) -> None:
    if worker.poll() is None:
        worker.terminate()
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:  # a hung child can keep the main process waiting for it
            os.killpg(worker.pid, 9)
            worker.wait(timeout=30)


def simulate_on_a_new_worker(workspace, banking, log: Path, *options: str, seed: int = 0) -> str:
    """Start a prefork worker, give it a run of 4 conversations in two chunks (one for each child, each
    of which loads the model) and stop it; what went wrong, or "" when the run finished."""
    run = run_create(workspace=workspace, version=banking, scenario="realistic", conversations=4, chunk_size=2,
                     seed=seed, enqueue=False)
    queue = f"test-warm-{uuid.uuid4().hex[:8]}"
    client = Celery("test-client", broker=REDIS, backend=REDIS, set_as_current=False)
    worker = start_prefork_worker(queue, log, *options)
    try:
        client.send_task("orchestrator.tasks.simulation_start", args=[run.pk], queue=queue)
        deadline = time.monotonic() + BOUND
        while not SimulationRun.objects.get(pk=run.pk).finished and time.monotonic() < deadline:
            if worker.poll() is not None:
                return f"the worker exited:\n{log.read_text()[-3000:]}"
            time.sleep(0.5)
    finally:
        stop(worker)
    finished = SimulationRun.objects.get(pk=run.pk)
    if (finished.status, finished.done) != (JobStatus.DONE, 4):
        return (f"the run is {finished.status!r} with {finished.done} of 4 after {BOUND} s:\n"
                f"{log.read_text()[-3000:]}")
    return ""


def test_a_prefork_worker_with_the_warm_up_on_finishes_a_simulation_every_time(workspace, banking, realistic,
                                                                                tmp_path):
    if connection.vendor != "postgresql":
        pytest.skip("the worker shares the database through PostgreSQL")
    for start in range(STARTS):
        problem = simulate_on_a_new_worker(workspace, banking, tmp_path / f"worker-{start}.log", seed=start)
        assert not problem, f"start {start + 1} of {STARTS}: {problem}"


def test_a_child_started_to_replace_another_loads_the_model_and_serves(workspace, banking, realistic, tmp_path):
    """One task per child: the second chunk goes to a child the pool starts mid-run, which Celery kills
    unless it reports itself up in time (worker_proc_alive_timeout), model loaded."""
    if connection.vendor != "postgresql":
        pytest.skip("the worker shares the database through PostgreSQL")
    problem = simulate_on_a_new_worker(workspace, banking, tmp_path / "worker.log", "--max-tasks-per-child", "1")
    assert not problem, problem
