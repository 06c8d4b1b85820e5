"""A learning job on a real Celery worker (Redis, the test database): learned, its proposals queued for review."""

from __future__ import annotations

import pytest

from orchestrator.jobs.models import JobStatus
from orchestrator.learning.models import LearningJob, Refinement
from orchestrator.learning.services import learning_job_create
from tests.integration.simulation.test_simulation_worker import client_and_queue, start_worker, stop, wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]  # the worker reads committed rows


def test_a_worker_learns_a_job_and_the_refinements_wait_for_review(banking, run):
    job = learning_job_create(catalog=banking.catalog, run=run, enqueue=False)
    with client_and_queue() as (client, queue):
        worker = start_worker(queue)
        try:
            client.send_task("orchestrator.tasks.learning_job_run", args=[job.pk], queue=queue)
            wait_for(lambda: LearningJob.objects.get(pk=job.pk).finished, 180, "the learning job to finish")
            done = LearningJob.objects.get(pk=job.pk)
            assert done.status == JobStatus.DONE, done.error
            assert done.proposed == Refinement.objects.filter(catalog=banking.catalog, status="pending").count() > 0
            assert done.started_at and done.finished_at
            # A second delivery of the same job (a redelivered message) leaves it and its proposals as they are.
            client.send_task("orchestrator.tasks.learning_job_run", args=[job.pk], queue=queue)
            again = learning_job_create(catalog=banking.catalog, run=run, enqueue=False)
            client.send_task("orchestrator.tasks.learning_job_run", args=[again.pk], queue=queue)
            wait_for(lambda: LearningJob.objects.get(pk=again.pk).finished, 180, "the second job to finish")
            assert Refinement.objects.filter(catalog=banking.catalog).count() == done.proposed
            assert LearningJob.objects.get(pk=job.pk).finished_at == done.finished_at
        finally:
            stop(worker)
