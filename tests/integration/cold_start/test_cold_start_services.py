"""Cold-start campaigns as services: rounds, when they stop, review and sandbox modes, and the promotion gate
that keeps refinements no admin accepted away from anything users reach."""

from __future__ import annotations

import pytest

from catalog_app.editing import EditRefused, version_promote_checked
from catalog_app.models import VersionStatus
from catalog_app.permissions import NotAllowed
from catalog_app.selectors import version_latest, version_spec
from catalog_app.services import version_create_draft
from orchestrator.assistants.models import PromotionPolicy
from orchestrator.cold_start.models import CampaignMode, CampaignState
from orchestrator.cold_start.services import campaign_continue, campaign_create, campaign_execute
from orchestrator.engine.errors import ConcertoError
from orchestrator.learning.models import Refinement, RefinementStatus, SandboxVersion
from orchestrator.learning.services import refinements_decide
from orchestrator.modes import AssistantMode

pytestmark = pytest.mark.django_db

N = 200  # the fewest conversations of banking-thin on S3 from which the learner proposes something (seed 11)


def sandbox(thin, admin, **kwargs):
    campaign = campaign_create(catalog=thin.catalog, user=admin, scenario="realistic", conversations=N, seed=11,
                               mode=CampaignMode.SANDBOX, confidence=0.9, enqueue=False, **kwargs)
    return campaign_execute(campaign_id=campaign.pk)


def test_a_sandbox_campaign_simulates_learns_accepts_and_simulates_the_draft_on_the_planner(thin, reference, admin):
    campaign = sandbox(thin, admin, reference="banking", max_rounds=3)
    rounds = list(campaign.rounds.order_by("number"))
    assert [r.orchestrator for r in rounds][:2] == [AssistantMode.S3, AssistantMode.PLANNER]
    first, second = rounds[0], rounds[1]
    assert first.version == thin and first.status == "done" and first.run.version == thin
    assert first.proposed >= 1 and any(x["auto"] for x in first.refinements)
    assert all(x["confidence"] >= 0.9 for x in first.refinements if x["auto"])
    draft = first.draft
    assert draft is not None and draft.is_draft and second.version == draft
    assert SandboxVersion.objects.filter(version=draft, source=f"cold-start campaign {campaign.pk}").exists()
    assert second.success_rate > first.success_rate  # the planner on the learned draft beats S3 on the sketch
    # The auto-accepted refinements were not accepted by anyone: they still wait in the review queue.
    auto = [x["id"] for x in first.refinements if x["auto"]]
    assert set(Refinement.objects.filter(pk__in=auto).values_list("status", flat=True)) == {RefinementStatus.PENDING}
    assert campaign.state == CampaignState.FINISHED and campaign.stop_reason
    assert campaign.reference_run is not None and campaign.reference_run.version.catalog.slug == "banking"
    assert campaign.reference_run.orchestrator == AssistantMode.PLANNER


def test_a_sandbox_draft_and_its_copies_cannot_be_promoted_until_an_admin_accepts_its_refinements(thin, admin):
    campaign = sandbox(thin, admin, max_rounds=2)
    first = campaign.rounds.get(number=1)
    draft = first.draft
    with pytest.raises(EditRefused, match="sandbox draft of cold-start campaign"):
        version_promote_checked(version=draft, user=admin)
    copy = version_create_draft(version=draft, user=admin)  # an analyst copies it into a new draft
    with pytest.raises(EditRefused, match="no admin did"):
        version_promote_checked(version=copy, user=admin)
    assert type(copy).objects.get(pk=copy.pk).status == VersionStatus.DRAFT
    # The admin accepts the same refinements in the queue: the reviewed draft is built on the newest version
    # that is no sandbox draft, never on the sandbox's own drafts.
    auto = [x["id"] for x in first.refinements if x["auto"]]
    copy.delete()  # (a copy that holds them already could not take them again: the analyst drops it)
    decision = refinements_decide(catalog=thin.catalog, user=admin, accept=auto)
    assert not SandboxVersion.objects.filter(version=decision.draft).exists()
    # Built on version 1, the newest that is no sandbox draft: the same changes, and nothing else, as the sandbox's.
    assert decision.draft.number > draft.number and version_spec(version=decision.draft) == version_spec(version=draft)
    with pytest.raises(EditRefused, match="sandbox draft"):  # the sandbox draft itself stays a sandbox
        version_promote_checked(version=draft, user=admin)
    promoted = version_promote_checked(version=decision.draft, user=admin)
    assert promoted.status == VersionStatus.PROMOTED


def test_a_review_campaign_waits_for_the_admin_and_continues_on_the_draft_the_review_made(thin, admin, analyst):
    campaign = campaign_create(catalog=thin.catalog, user=analyst, scenario="realistic", conversations=N, seed=11,
                               enqueue=False)
    campaign = campaign_execute(campaign_id=campaign.pk)
    assert campaign.state == CampaignState.REVIEW
    first = campaign.rounds.get()
    assert first.proposed >= 1 and first.draft is None and not any(x["auto"] for x in first.refinements)
    assert version_latest(catalog=thin.catalog) == thin  # nothing applied
    assert not SandboxVersion.objects.exists()
    with pytest.raises(ConcertoError, match="accept refinements in the review queue first"):
        campaign_continue(campaign=campaign, user=analyst, enqueue=False)
    pending = list(Refinement.objects.filter(catalog=thin.catalog, status=RefinementStatus.PENDING)
                   .values_list("pk", flat=True))
    assert {x["id"] for x in first.refinements} <= set(pending)
    decision = refinements_decide(catalog=thin.catalog, user=admin, accept=[first.refinements[0]["id"]])
    campaign_continue(campaign=campaign, user=analyst, enqueue=False)
    campaign = campaign_execute(campaign_id=campaign.pk)
    second = campaign.rounds.get(number=2)
    assert second.version == decision.draft and second.orchestrator == AssistantMode.PLANNER
    assert second.success_rate is not None and second.status == "done"


def test_the_campaign_stops_at_the_catalogs_promotion_threshold(thin, admin):
    PromotionPolicy.objects.create(catalog=thin.catalog, simulation_threshold=0.0)
    campaign = campaign_create(catalog=thin.catalog, user=admin, scenario="realistic", conversations=10, seed=1,
                               mode=CampaignMode.SANDBOX, confidence=0.5, enqueue=False)
    campaign = campaign_execute(campaign_id=campaign.pk)
    assert campaign.threshold == 0.0 and campaign.state == CampaignState.FINISHED
    assert "threshold" in campaign.stop_reason and campaign.rounds.count() == 1
    assert not SandboxVersion.objects.exists() and campaign.rounds.get().proposed == 0  # nothing learned


def test_only_an_admin_chooses_the_sandbox_and_bad_input_saves_nothing(thin, analyst, admin):
    with pytest.raises(NotAllowed):
        campaign_create(catalog=thin.catalog, user=analyst, scenario="realistic", mode=CampaignMode.SANDBOX,
                        confidence=0.9, enqueue=False)
    for kwargs, path in (({"mode": CampaignMode.SANDBOX}, "confidence"), ({"confidence": 0.5}, "confidence"),
                         ({"conversations": 0}, "conversations"), ({"max_rounds": 99}, "max_rounds"),
                         ({"scenario": "nope"}, "scenario"), ({"reference": "banking-thin"}, "reference")):
        with pytest.raises(ConcertoError) as caught:
            campaign_create(**{"catalog": thin.catalog, "user": admin, "scenario": "realistic", "enqueue": False,
                               **kwargs})
        assert caught.value.issues[0].path == path
    assert not thin.catalog.cold_start_campaigns.exists()


def test_cancelling_stops_the_queued_round_and_the_campaign(thin, analyst):
    from orchestrator.cold_start.services import campaign_cancel, round_execute

    campaign = campaign_create(catalog=thin.catalog, user=analyst, scenario="realistic", conversations=5,
                               enqueue=False)
    campaign = campaign_cancel(campaign=campaign, user=analyst)
    assert campaign.state == CampaignState.CANCELLED
    rnd = campaign.rounds.get()
    assert round_execute(round_id=rnd.pk).status == "cancelled" and rnd.run is None  # a late message does nothing


def test_a_round_taken_over_after_its_worker_died_gives_up_the_half_done_run_and_simulates_again(thin, analyst):
    from datetime import timedelta

    from django.utils import timezone

    from orchestrator.cold_start.models import ColdStartRound
    from orchestrator.cold_start.services import round_execute
    from orchestrator.jobs.models import JobStatus
    from orchestrator.simulation.models import SimulationRun
    from orchestrator.simulation.services import run_create

    campaign = campaign_create(catalog=thin.catalog, user=analyst, scenario="realistic", conversations=5,
                               max_rounds=1, enqueue=False)
    rnd = campaign.rounds.get()
    half = run_create(workspace=thin.catalog.workspace, version=thin, scenario="realistic", conversations=5,
                      orchestrator="s3", enqueue=False)
    stale = timezone.now() - timedelta(hours=1)
    SimulationRun.objects.filter(pk=half.pk).update(status=JobStatus.RUNNING, started_at=stale, heartbeat_at=stale)
    ColdStartRound.objects.filter(pk=rnd.pk).update(run=half, status=JobStatus.RUNNING, started_at=stale,
                                                    heartbeat_at=stale, holder="dead-worker", attempts=1)
    finished = round_execute(round_id=rnd.pk)
    assert finished.status == JobStatus.DONE and finished.attempts == 2 and finished.run_id != half.pk
    assert SimulationRun.objects.get(pk=half.pk).status == JobStatus.CANCELLED
    assert finished.run.status == JobStatus.DONE and finished.run.conversations == 5


def test_a_campaigns_runs_experiment_and_a_plain_run_does_not(thin, admin):
    from orchestrator.simulation.services import run_create, run_execute

    campaign = sandbox(thin, admin, max_rounds=1)
    run = campaign.rounds.get(number=1).run
    assert run.explore and run.summary["experimentation"]["used"]
    assert run.summary["experimentation"]["probe_calls"] > 0  # banking-thin's loan and card skills refuse calls
    plain = run_execute(run_id=run_create(workspace=thin.catalog.workspace, version=thin, scenario="realistic",
                                          conversations=20, orchestrator=AssistantMode.S3, seed=11,
                                          enqueue=False).pk)
    assert not plain.explore and plain.summary["experimentation"] == {"used": False}
