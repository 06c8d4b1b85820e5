"""The job queue (Redis) is down: starting a job answers 503 with Retry-After and leaves no row "queued"
for ever; re-queueing leaves the job failed, with the reason and its re-queue button.

The requests run for real against an unreachable broker URL: publishing is refused by the network,
not by a stub. Committed transactions (transaction=True), so the publication happens where it does in
production, once the job's row is committed, inside the request.
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from orchestrator.jobs.models import JobStatus
from orchestrator.jobs.runner import QUEUE_DOWN
from orchestrator.learning.models import LearningJob
from orchestrator.simulation.models import SimulationRun
from orchestrator.simulation.services import run_create, run_execute
from orchestrator.validation.models import TrajectoryAnalysis
from orchestrator.validation.services import analysis_create
from tests.integration.validation.conftest import BANKING_SAMPLES

pytestmark = pytest.mark.django_db(transaction=True)


def _post(path: str, body: dict, auth: dict) -> object:
    return Client().post(path, json.dumps(body), content_type="application/json", **auth)


def _unavailable(answer) -> None:
    assert answer.status_code == 503, answer.content
    assert int(answer["Retry-After"]) > 0
    assert "job queue cannot be reached" in answer.json()["detail"]


def test_starting_a_simulation_answers_503_and_keeps_no_run(banking, realistic, basic_auth, queue_down):
    answer = _post("/api/v1/catalogs/banking/simulations", {"scenario": "realistic", "conversations": 5}, basic_auth)
    _unavailable(answer)
    assert not SimulationRun.objects.exists()


def test_starting_a_learning_job_answers_503_and_keeps_no_job(workspace, banking, realistic, basic_auth, queue_down):
    run = run_execute(run_id=run_create(workspace=workspace, version=banking, scenario="realistic",
                                        conversations=4, enqueue=False).pk)
    answer = _post("/api/v1/catalogs/banking/refinements/jobs", {"run": run.pk}, basic_auth)
    _unavailable(answer)
    assert not LearningJob.objects.exists()


def test_starting_an_analysis_answers_503_and_keeps_no_analysis(banking, basic_auth, queue_down):
    answer = _post("/api/v1/validation/analyses", {"samples": BANKING_SAMPLES, "catalog": "banking"}, basic_auth)
    _unavailable(answer)
    assert not TrajectoryAnalysis.objects.exists()


def test_the_simulation_page_says_nothing_was_started(banking, realistic, logged_in, queue_down):
    answer = logged_in.post("/catalogs/banking/simulations/start/",
                            {"version": banking.number, "scenario": "realistic", "orchestrator": "planner",
                             "conversations": 5, "seed": 0})
    assert answer.status_code == 503 and int(answer["Retry-After"]) > 0
    assert "nothing was started" in answer.content.decode()
    assert not SimulationRun.objects.exists()


def test_the_review_page_says_the_learning_job_was_not_started(workspace, banking, realistic, logged_in, queue_down):
    run = run_execute(run_id=run_create(workspace=workspace, version=banking, scenario="realistic",
                                        conversations=4, enqueue=False).pk)
    answer = logged_in.post("/catalogs/banking/review/learn/", {"run": run.pk}, follow=True)
    assert "nothing was started" in answer.content.decode()
    assert not LearningJob.objects.exists()


def test_a_requeue_the_queue_refuses_leaves_the_job_failed_with_its_reason_and_button(
        workspace, banking, admin, admin_auth, queue_down, settings):
    settings.CONCERTO_JOB_STALE_SECONDS = 60
    analysis = analysis_create(workspace=workspace, samples=BANKING_SAMPLES, version=banking, enqueue=False)
    gone = timezone.now() - timedelta(seconds=300)
    TrajectoryAnalysis.objects.filter(pk=analysis.pk).update(status=JobStatus.RUNNING, started_at=gone,
                                                             heartbeat_at=gone)
    answer = Client().post(f"/api/v1/validation/analyses/{analysis.pk}/requeue", **admin_auth)
    _unavailable(answer)
    failed = TrajectoryAnalysis.objects.get(pk=analysis.pk)
    assert (failed.status, failed.error) == (JobStatus.FAILED, QUEUE_DOWN)
    page = Client()
    page.force_login(admin)
    shown = page.get(f"/validation/analyses/{analysis.pk}/").content.decode()
    assert "job queue cannot be reached" in shown and "Re-queue this analysis" in shown


def test_the_simulate_command_says_the_queue_is_down_and_keeps_no_run(banking, realistic, queue_down):
    from io import StringIO

    from django.core.management import CommandError, call_command

    with pytest.raises(CommandError, match="job queue cannot be reached"):
        call_command("simulate", "banking", "--scenario", "realistic", "--conversations", "3", "--queue",
                     stdout=StringIO())
    assert not SimulationRun.objects.exists()
