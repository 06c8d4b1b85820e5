"""`cold_start SLUG [--version N] [--scenario NAME] [--conversations N] [--seed S] [--max-rounds R]
[--first-orchestrator s3|planner] [--reference SLUG] [--sandbox --confidence X] [--continue ID] [--user U] [--json]`

Runs a cold-start campaign in this process and prints each round: the version simulated, its goal
success, the refinements proposed and the draft made. In review mode (the default) it stops after the
first round's learning: an admin decides in the review queue (`manage.py review`), then
`cold_start SLUG --continue ID` simulates the draft those decisions made. With `--sandbox --confidence X`
the proposals at or above X go into sandbox drafts the promotion gate refuses, and the rounds go on
until success reaches the promotion threshold, stops improving, or --max-rounds.

Exit status 0 when the campaign finished or waits for review, 1 when it failed, 2 on bad input.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError, CommandParser

from catalog_app.cli import ANSWER_NO, BAD_INPUT, VersionedCommand, add_version_option, resolve_version, user_errors
from catalog_app.permissions import OPERATOR, Actor
from catalog_app.services import DEFAULT_WORKSPACE
from orchestrator.cold_start.models import CampaignMode, CampaignState, ColdStartCampaign
from orchestrator.cold_start.selectors import campaign_rounds, reference_success_rate
from orchestrator.cold_start.services import campaign_continue, campaign_create, campaign_execute
from orchestrator.simulation.models import SimulationScenario


class Command(VersionedCommand):
    help = "Run a cold-start campaign: simulate, learn, review (or sandbox auto-accept), simulate the new draft."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="the catalog's slug")
        add_version_option(parser, help="the version the first round simulates (default: the latest)")
        parser.add_argument("--scenario", help="a scenario stored for the catalog (default: its first)")
        parser.add_argument("--conversations", type=int, default=200, help="conversations a round (default 200)")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--max-rounds", type=int, default=3)
        parser.add_argument("--first-orchestrator", choices=("s3", "planner"), default="s3",
                            help="the first round's orchestrator (later rounds use the planner)")
        parser.add_argument("--reference", default="", help="a hand-written catalog to compare with (e.g. banking)")
        parser.add_argument("--sandbox", action="store_true",
                            help="simulation-only sandbox: auto-accept proposals at or above --confidence")
        parser.add_argument("--confidence", type=float, default=None)
        parser.add_argument("--continue", dest="resume", type=int, default=None, metavar="ID",
                            help="continue campaign ID, which waits for review, on the newest version")
        parser.add_argument("--user", default=None, help="act as this studio user (their role is checked)")
        parser.add_argument("--json", dest="as_json", action="store_true", help="print one JSON object")
        parser.add_argument("--workspace", default=DEFAULT_WORKSPACE, help="workspace slug")

    def handle(self, *args: Any, slug: str, number: int | None, scenario: str | None, conversations: int, seed: int,
               max_rounds: int, first_orchestrator: str, reference: str, sandbox: bool, confidence: float | None,
               resume: int | None, user: str | None, as_json: bool, workspace: str, **options: Any) -> None:
        actor = _actor(user)
        try:
            version = resolve_version(slug=slug, number=number if resume is None else None, workspace=workspace)
            catalog = version.catalog
            with user_errors(slug):
                if resume is not None:
                    found = ColdStartCampaign.objects.filter(catalog=catalog, pk=resume).first()
                    if found is None:
                        raise CommandError(f"{slug}: catalog '{slug}' has no cold-start campaign {resume}")
                    chosen = resolve_version(slug=slug, number=number, workspace=workspace) if number else None
                    campaign = campaign_continue(campaign=found, user=actor, version=chosen, enqueue=False)
                else:
                    if sandbox and confidence is None:
                        raise CommandError(f"{slug}: --sandbox needs --confidence X (0 to 1)")
                    campaign = campaign_create(
                        catalog=catalog, user=actor, scenario=scenario or _first_scenario(catalog.pk, slug),
                        version=version, conversations=conversations, seed=seed, max_rounds=max_rounds,
                        mode=CampaignMode.SANDBOX if sandbox else CampaignMode.REVIEW,
                        confidence=confidence if sandbox else None, first_orchestrator=first_orchestrator,
                        reference=reference, enqueue=False)
        except CommandError as exc:
            raise CommandError(str(exc), returncode=BAD_INPUT) from None
        campaign = campaign_execute(campaign_id=campaign.pk)
        self._report(campaign, as_json)
        if campaign.state == CampaignState.FAILED:
            raise CommandError(f"{slug}: campaign {campaign.pk} failed: {campaign.stop_reason}", returncode=ANSWER_NO)

    def _report(self, campaign: ColdStartCampaign, as_json: bool) -> None:
        rounds = campaign_rounds(campaign=campaign)
        reference = campaign.reference_run
        ref_rate = reference_success_rate(campaign)
        if as_json:
            self.stdout.write(json.dumps({
                "campaign": campaign.pk, "catalog": campaign.catalog.slug, "mode": campaign.mode,
                "state": campaign.state, "stop_reason": campaign.stop_reason, "threshold": campaign.threshold,
                "reference": campaign.reference or None, "reference_success_rate": ref_rate,
                "rounds": [{"round": r.number, "version": r.version.number, "orchestrator": r.orchestrator,
                            "run": r.run_id, "success_rate": r.success_rate, "proposed": r.proposed,
                            "auto_accepted": sum(1 for x in r.refinements if x.get("auto")),
                            "draft": r.draft.number if r.draft else None, "status": r.status}
                           for r in rounds]}, indent=2))
            return
        slug = campaign.catalog.slug
        self.stdout.write(f"Cold-start campaign {campaign.pk} of '{slug}' ({campaign.get_mode_display().lower()}), "
                          f"{campaign.conversations} conversations a round, seed {campaign.seed}")
        for r in rounds:
            rate = f"{r.success_rate:.1%}" if r.success_rate is not None else "-"
            auto = sum(1 for x in r.refinements if x.get("auto"))
            line = (f"  round {r.number}: version {r.version.number} on {r.orchestrator}, run {r.run_id}: "
                    f"goal success {rate}; {r.proposed} refinement(s) proposed")
            if auto:
                line += f", {auto} auto-accepted into sandbox draft {r.draft.number if r.draft else '?'}"
            self.stdout.write(line)
        if ref_rate is not None and reference is not None:
            self.stdout.write(f"  reference '{campaign.reference}' version {reference.version.number} on planner, "
                              f"run {reference.pk}: goal success {ref_rate:.1%}")
        if campaign.state == CampaignState.REVIEW:
            self.stdout.write(f"Waiting for review: decide on the proposals at /catalogs/{slug}/review/ "
                              f"(or `manage.py review {slug}`), then run "
                              f"`manage.py cold_start {slug} --continue {campaign.pk}`.")
        else:
            self.stdout.write(f"{campaign.get_state_display()}: {campaign.stop_reason}")


def _actor(username: str | None) -> Actor:
    if username is None:
        return OPERATOR
    found = get_user_model().objects.filter(username=username).first()
    if found is None:
        raise CommandError(f"unknown user '{username}'", returncode=BAD_INPUT)
    return found


def _first_scenario(catalog_id: int, slug: str) -> str:
    name = SimulationScenario.objects.filter(catalog_id=catalog_id).values_list("name", flat=True).first()
    if name is None:
        raise CommandError(f"{slug}: no scenario is stored for the catalog: write one on its Scenarios page "
                           "(or generate the default one there)", returncode=BAD_INPUT)
    return name
