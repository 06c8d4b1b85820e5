"""Writes of cold-start campaigns (issue 23): rounds of simulate -> learn -> review (or sandbox auto-accept) -> draft.

A round is a job (`ColdStartRound`, run by `orchestrator.jobs.runner`): it simulates its version under
the campaign's scenario (the first round with the campaign's first orchestrator, S3 by default, every
later one with the planner), stops the campaign when the success reaches the catalog's promotion
threshold, stops improving or the last round is run, and otherwise learns from the run:

- in review mode (the default) every proposal waits in the review queue; the campaign waits too, and
  continues on the draft an admin's decisions made (`campaign_continue`);
- in sandbox mode (an admin's choice) the proposals at or above the confidence are applied to a new
  draft, marked `SandboxVersion`, and the next round simulates it at once. No admin accepted those
  refinements, so `learning.sandbox.sandbox_gate` refuses to promote that draft, or any version that
  carries one of its changes until an admin accepts it in the queue.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction

from catalog_app.models import Catalog, CatalogVersion
from catalog_app.permissions import Action, Actor, check_allowed
from catalog_app.selectors import catalog_get, version_latest, version_newest_promoted, version_spec
from orchestrator.assistants.promotion import latest_planner_run, policy_threshold
from orchestrator.cold_start.models import (
    CampaignMode,
    CampaignState,
    ColdStartCampaign,
    ColdStartRound,
)
from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.errors import ConcertoError
from orchestrator.engine.learning.retarget import scenario_retargeted
from orchestrator.engine.simulation.scenario import parse_scenario, scenario_to_data
from orchestrator.jobs.models import JobStatus
from orchestrator.jobs.runner import Beat, enqueue_on_commit, heartbeat_interval, job_cancel, job_run
from orchestrator.learning.models import Refinement, SandboxVersion
from orchestrator.learning.sandbox import sandbox_mark, version_latest_reviewed
from orchestrator.learning.services import refinements_draft, refinements_propose
from orchestrator.modes import AssistantMode
from orchestrator.simulation.models import SimulationRun, SimulationScenario
from orchestrator.simulation.services import MAX_CONVERSATIONS, run_create, run_execute, scenario_checked

logger = logging.getLogger(__name__)

MAX_ROUNDS = 10
MAX_CAMPAIGN_CONVERSATIONS = 5000  # per round: a campaign runs its rounds one after another


def _user(actor: Actor) -> Any:
    return actor if getattr(actor, "is_authenticated", False) else None


# --- starting -----------------------------------------------------------------------------------------


@transaction.atomic
def campaign_create(*, catalog: Catalog, user: Actor, scenario: str | dict[str, Any],
                    version: CatalogVersion | None = None, conversations: int = 200, seed: int = 0,
                    max_rounds: int = 3, mode: str = CampaignMode.REVIEW, confidence: float | None = None,
                    first_orchestrator: str = AssistantMode.S3, reference: str = "",
                    enqueue: bool = True) -> ColdStartCampaign:
    """Check everything, record the campaign and its first round; with `enqueue`, a worker runs it once committed."""
    check_allowed(user, catalog.workspace, Action.COLD_START_RUN)
    if mode not in CampaignMode.values:
        raise ConcertoError(f"unknown mode '{mode}' (review or sandbox)", path="mode")
    if mode == CampaignMode.SANDBOX:
        check_allowed(user, catalog.workspace, Action.COLD_START_SANDBOX)
        if confidence is None or not 0.0 <= confidence <= 1.0:
            raise ConcertoError("a sandbox campaign auto-accepts proposals at or above a confidence from 0 to 1",
                                path="confidence")
    elif confidence is not None:
        raise ConcertoError("a confidence is for a sandbox campaign only: in review mode an admin decides",
                            path="confidence")
    if first_orchestrator not in AssistantMode.values:
        raise ConcertoError(f"unknown orchestrator '{first_orchestrator}' (planner or s3)", path="first_orchestrator")
    if not 1 <= conversations <= min(MAX_CONVERSATIONS, MAX_CAMPAIGN_CONVERSATIONS):
        raise ConcertoError(f"between 1 and {MAX_CAMPAIGN_CONVERSATIONS:,} conversations a round",
                            path="conversations")
    if not 1 <= max_rounds <= MAX_ROUNDS:
        raise ConcertoError(f"between 1 and {MAX_ROUNDS} rounds", path="max_rounds")
    if not 0 <= seed < 2**31:
        raise ConcertoError("the seed is a number from 0 to 2147483647", path="seed")
    version = version or version_latest(catalog=catalog)
    if version is None or version.catalog_id != catalog.pk:
        raise ConcertoError(f"catalog '{catalog.slug}' has no such version", path="version")
    reference = reference.strip()
    if reference:
        if reference == catalog.slug:
            raise ConcertoError("the reference is another, hand-written catalog", path="reference")
        found = catalog_get(workspace=catalog.workspace, slug=reference)  # UnknownName lists the catalogs
        if version_latest(catalog=found) is None:
            raise ConcertoError(f"catalog '{reference}' has no version", path="reference")
    _, checked = scenario_checked(version, version_spec(version=version), scenario)
    name, data = checked.scenario, scenario_to_data(checked)
    campaign = ColdStartCampaign(
        catalog=catalog, start_version=version, scenario_name=name, scenario_data=data, mode=mode,
        confidence=confidence, first_orchestrator=first_orchestrator, conversations=conversations, seed=seed,
        max_rounds=max_rounds, threshold=policy_threshold(catalog=catalog), reference=reference,
        created_by=_user(user))
    campaign.full_clean(exclude=["catalog", "start_version", "reference_run", "created_by"])
    campaign.save()
    _round_create(campaign, 1, version, first_orchestrator, enqueue=enqueue)
    return campaign


def _round_create(campaign: ColdStartCampaign, number: int, version: CatalogVersion, orchestrator: str, *,
                  enqueue: bool) -> ColdStartRound:
    found = ColdStartRound.objects.create(campaign=campaign, number=number, version=version, orchestrator=orchestrator,
                                          created_by=campaign.created_by)
    if enqueue:
        from orchestrator.cold_start.tasks import cold_start_round  # the task module imports this one

        enqueue_on_commit(found, cold_start_round)
    return found


# --- a round ------------------------------------------------------------------------------------------


def round_execute(*, round_id: int, enqueue_next: bool = True, queue: str | None = None) -> ColdStartRound:
    """Run one round (a job: claimed once, beating while it simulates and learns); then queue the next one.

    Idempotent as every job is: a finished round is left as it is, a live one to its worker.
    """
    following: list[int] = []

    def work(rnd: ColdStartRound, beat: Beat) -> dict[str, Any]:
        campaign = ColdStartCampaign.objects.select_related("catalog__workspace").get(pk=rnd.campaign_id)
        if campaign.state != CampaignState.RUNNING:
            raise ConcertoError(f"campaign {campaign.pk} is {campaign.state}")
        run = _round_run(campaign, rnd)
        beat.check()
        rate = float((run.summary or {}).get("success_rate", 0.0))
        ColdStartRound.objects.filter(pk=rnd.pk).update(run=run, success_rate=rate)
        if rnd.number == 1 and campaign.reference:
            _reference(campaign)
        stop = _stop_reason(campaign, rnd, rate)
        rows: list[Refinement] = []
        if stop is None or "threshold" not in stop:  # what the run teaches is worth reviewing in any case
            rows = refinements_propose(catalog=campaign.catalog, run=run)
        beat.check()
        chosen = _chosen(campaign, rows) if stop is None else []
        ColdStartRound.objects.filter(pk=rnd.pk).update(proposed=len(rows), refinements=[
            {"id": r.pk, "key": r.key, "kind": r.kind, "confidence": r.confidence, "summary": r.summary,
             "auto": r in chosen} for r in rows])
        if stop is None and not rows:
            stop = "the learner proposed nothing more"
        if stop is None and campaign.mode == CampaignMode.SANDBOX and not chosen:
            stop = f"no proposal reached the confidence {campaign.confidence:.2f} to be accepted in the sandbox"
        if stop is not None:
            _campaign_set(campaign, CampaignState.FINISHED, stop)
        elif campaign.mode == CampaignMode.REVIEW:
            _campaign_set(campaign, CampaignState.REVIEW, "")
        else:
            with transaction.atomic():
                draft = _sandbox_draft(campaign, rnd.version, chosen)
                ColdStartRound.objects.filter(pk=rnd.pk).update(draft=draft)
                following.append(_round_create(campaign, rnd.number + 1, draft, AssistantMode.PLANNER,
                                               enqueue=False).pk)
        return {"done": campaign.conversations}

    finished = job_run(ColdStartRound, round_id, work, failure="the cold-start round failed",
                       beat_every=heartbeat_interval())
    if finished.status == JobStatus.FAILED:
        campaign = ColdStartCampaign.objects.get(pk=finished.campaign_id)
        if campaign.state == CampaignState.RUNNING:
            _campaign_set(campaign, CampaignState.FAILED, f"round {finished.number} failed: {finished.error}")
    if following and enqueue_next:
        from orchestrator.cold_start.tasks import cold_start_round  # the task module imports this one

        enqueue_on_commit(ColdStartRound.objects.get(pk=following[0]), cold_start_round, queue=queue)
    return finished


def _round_run(campaign: ColdStartCampaign, rnd: ColdStartRound) -> SimulationRun:
    """The round's simulation, computed in this process (the round's job is the unit a worker holds)."""
    if rnd.run is not None and rnd.run.status == JobStatus.DONE:  # a redelivered round keeps its finished run
        return rnd.run
    if rnd.run is not None:  # the worker that computed it died: that run is given up, a new one starts
        SimulationRun.objects.filter(pk=rnd.run_id, status__in=[JobStatus.QUEUED, JobStatus.RUNNING]).update(
            status=JobStatus.CANCELLED, error=f"its cold-start round {rnd.number} was taken over")
    spec = version_spec(version=rnd.version)
    run = run_create(workspace=campaign.catalog.workspace, version=rnd.version,
                     scenario=_scenario_for(campaign, spec, rnd.version), conversations=campaign.conversations,
                     orchestrator=rnd.orchestrator, seed=campaign.seed, user=campaign.created_by, enqueue=False,
                     explore=True)  # a campaign learns by experimentation: it is simulation only
    ColdStartRound.objects.filter(pk=rnd.pk).update(run=run)
    run = run_execute(run_id=run.pk)
    if run.status != JobStatus.DONE:
        raise ConcertoError(f"simulation {run.pk} is {run.status}: {run.error}")
    return run


def _scenario_for(campaign: ColdStartCampaign, spec: CatalogSpec, version: CatalogVersion) -> dict[str, Any]:
    """The campaign's scenario, retargeted when a draft removed an outcome it names (as review drafts do)."""
    try:
        parse_scenario(campaign.scenario_data, spec)
        return campaign.scenario_data
    except ConcertoError:
        return scenario_retargeted(campaign.scenario_data, spec, f"{campaign.scenario_name}-v{version.number}")


def _reference(campaign: ColdStartCampaign) -> None:
    """The hand-written catalog's planner success under the scenario of the same name (a finished run of at least
    as many conversations is reused)."""
    catalog = Catalog.objects.filter(workspace=campaign.catalog.workspace, slug=campaign.reference).first()
    # The reference as users have it (its newest promoted version), else its latest.
    version = (version_newest_promoted(catalog=catalog) or version_latest(catalog=catalog)) if catalog else None
    if version is None:
        return
    run = latest_planner_run(version=version)
    if run is None or run.scenario_name != campaign.scenario_name or run.conversations < campaign.conversations:
        stored = SimulationScenario.objects.filter(catalog=catalog, name=campaign.scenario_name).first()
        if stored is None:
            return  # nothing to compare with: the page says so
        run = run_execute(run_id=run_create(
            workspace=catalog.workspace, version=version, scenario=stored, conversations=campaign.conversations,
            orchestrator=AssistantMode.PLANNER, seed=campaign.seed, user=campaign.created_by, enqueue=False).pk)
    ColdStartCampaign.objects.filter(pk=campaign.pk).update(reference_run=run)


def _stop_reason(campaign: ColdStartCampaign, rnd: ColdStartRound, rate: float) -> str | None:
    if campaign.threshold is not None and rate >= campaign.threshold:
        return f"round {rnd.number} reached the catalog's promotion threshold ({campaign.threshold:.0%})"
    before = (ColdStartRound.objects.filter(campaign=campaign, number=rnd.number - 1, success_rate__isnull=False)
              .values_list("success_rate", "orchestrator").first())
    if before is not None and before[1] == rnd.orchestrator and rate <= before[0]:
        # Compared on the same orchestrator only: an S3 first round is the baseline the planner starts from.
        return (f"success stopped improving ({before[0]:.1%} in round {rnd.number - 1}, "
                f"{rate:.1%} in round {rnd.number})")
    if rnd.number >= campaign.max_rounds:
        return f"{campaign.max_rounds} round{'s' if campaign.max_rounds != 1 else ''} run, the most asked"
    return None


def _chosen(campaign: ColdStartCampaign, rows: list[Refinement]) -> list[Refinement]:
    """Sandbox: the proposals at or above the confidence that leave every intent a plan."""
    if campaign.mode != CampaignMode.SANDBOX or campaign.confidence is None:
        return []
    return [r for r in rows if r.confidence >= campaign.confidence and not r.breaks]


def _sandbox_draft(campaign: ColdStartCampaign, base: CatalogVersion, chosen: list[Refinement]) -> CatalogVersion:
    """A new draft of `base` with the chosen changes, marked sandbox; the refinements stay pending in the queue."""
    keys = ", ".join(r.key for r in chosen)
    draft, _, _ = refinements_draft(
        version=base, refinements=chosen, user=campaign.created_by,
        note=(f"sandbox of cold-start campaign {campaign.pk}: refinements auto-accepted at confidence "
              f"{campaign.confidence:.2f} or more, which no admin reviewed ({keys})"))
    sandbox_mark(version=draft, source=f"cold-start campaign {campaign.pk}",
                 changes=[{"key": r.key, "change": r.change} for r in chosen])
    return draft


def _campaign_set(campaign: ColdStartCampaign, state: str, reason: str) -> None:
    ColdStartCampaign.objects.filter(pk=campaign.pk).update(state=state, stop_reason=reason[:2000])


def campaign_execute(*, campaign_id: int) -> ColdStartCampaign:
    """Run the campaign's rounds in this process until it stops or waits for review (the command, tests)."""
    while True:
        pending = ColdStartRound.objects.filter(campaign_id=campaign_id, status=JobStatus.QUEUED).order_by("number")
        rnd = pending.first()
        if rnd is None:
            break
        round_execute(round_id=rnd.pk, enqueue_next=False)
    return ColdStartCampaign.objects.get(pk=campaign_id)


# --- deciding what comes next -------------------------------------------------------------------------


@transaction.atomic
def campaign_continue(*, campaign: ColdStartCampaign, user: Actor, version: CatalogVersion | None = None,
                      enqueue: bool = True) -> ColdStartCampaign:
    """After an admin's review: the next round simulates the draft their decisions made (the newest version)."""
    check_allowed(user, campaign.catalog.workspace, Action.COLD_START_RUN)
    campaign = ColdStartCampaign.objects.select_for_update().select_related("catalog").get(pk=campaign.pk)
    if campaign.state != CampaignState.REVIEW:
        raise ConcertoError(f"campaign {campaign.pk} is {campaign.get_state_display().lower()}: "
                            "only a campaign waiting for review continues")
    last = campaign.rounds.order_by("-number").first()
    assert last is not None  # a campaign waits for review only after a round
    version = version or version_latest_reviewed(catalog=campaign.catalog)
    if version is None or version.catalog_id != campaign.catalog_id or version.number <= last.version.number:
        raise ConcertoError(f"no version newer than {last.version.number} to simulate: accept refinements in the "
                            "review queue first (that makes a new draft)", path="version")
    if SandboxVersion.objects.filter(version=version).exists():
        raise ConcertoError(f"version {version.number} is a sandbox draft: continue on a reviewed one", path="version")
    campaign.state, campaign.stop_reason = CampaignState.RUNNING, ""
    campaign.save(update_fields=["state", "stop_reason"])
    _round_create(campaign, last.number + 1, version, AssistantMode.PLANNER, enqueue=enqueue)
    return campaign


@transaction.atomic
def campaign_cancel(*, campaign: ColdStartCampaign, user: Actor) -> ColdStartCampaign:
    """Stop a campaign: its queued or running round stops at its next heartbeat, writing nothing more."""
    check_allowed(user, campaign.catalog.workspace, Action.COLD_START_RUN)
    for rnd in campaign.rounds.filter(status__in=[JobStatus.QUEUED, JobStatus.RUNNING]):
        job_cancel(rnd)
    if campaign.state in (CampaignState.RUNNING, CampaignState.REVIEW):
        _campaign_set(campaign, CampaignState.CANCELLED, "cancelled")
    campaign.refresh_from_db()
    return campaign
