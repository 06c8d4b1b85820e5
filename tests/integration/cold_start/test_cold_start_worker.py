"""A sandbox campaign on a real Celery worker (Redis, the test database): each round's job queues the next."""

from __future__ import annotations

import pytest

from orchestrator.cold_start.models import CampaignMode, CampaignState, ColdStartCampaign
from orchestrator.cold_start.services import campaign_create
from orchestrator.modes import AssistantMode
from tests.integration.simulation.test_simulation_worker import client_and_queue, start_worker, stop, wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]  # the worker reads committed rows


def test_a_worker_runs_the_rounds_of_a_sandbox_campaign_to_its_end(thin, admin):
    campaign = campaign_create(catalog=thin.catalog, user=admin, scenario="realistic", conversations=200, seed=11,
                               max_rounds=2, mode=CampaignMode.SANDBOX, confidence=0.9, enqueue=False)
    first = campaign.rounds.get()
    with client_and_queue() as (client, queue):
        worker = start_worker(queue)
        try:  # round 1 goes to the worker's queue; its job queues round 2 on the same queue
            client.send_task("orchestrator.tasks.cold_start_round", args=[first.pk], queue=queue)
            wait_for(lambda: ColdStartCampaign.objects.get(pk=campaign.pk).state != CampaignState.RUNNING, 300,
                     "the campaign to finish")
        finally:
            stop(worker)
    finished = ColdStartCampaign.objects.get(pk=campaign.pk)
    assert finished.state == CampaignState.FINISHED, finished.stop_reason
    rounds = list(finished.rounds.order_by("number"))
    assert [(r.status, r.orchestrator) for r in rounds] == [("done", AssistantMode.S3), ("done", AssistantMode.PLANNER)]
    assert rounds[1].version == rounds[0].draft and rounds[1].attempts == 1
