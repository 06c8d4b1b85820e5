"""`promote_planner SLUG --assistant KEY --user NAME [--version N] [--threshold PCT]`: the gated switch to the planner.

Promotes the version (the latest by default) if it is a draft, through every gate: it compiles,
every intent has a plan and, when the catalog sets a simulation threshold (set or change it with
--threshold, a percentage), a finished planner run of that version reached it. Then the assistant
runs it with the planner orchestrator. Prints the figures; exit 0 when switched, 1 when a gate
refused, 2 on bad input.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError, CommandParser

from catalog_app.cli import VersionedCommand, add_version_option, resolve_version, user_errors
from catalog_app.services import DEFAULT_WORKSPACE
from orchestrator.assistants.models import Assistant
from orchestrator.assistants.promotion import assistant_promote_to_planner, policy_set, promotion_report

BAD_INPUT = 2


class Command(VersionedCommand):
    help = "Promote a catalog version through its gates and switch an assistant to the planner orchestrator."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--assistant", required=True, help="the assistant's key")
        parser.add_argument("--user", required=True, help="an admin of the workspace")
        add_version_option(parser)
        parser.add_argument("--threshold", type=float, default=None, help="goal success (%%) a planner run must reach")
        parser.add_argument("--workspace", default=DEFAULT_WORKSPACE)

    def handle(self, *args: Any, slug: str, assistant: str, user: str, number: int | None, threshold: float | None,
               workspace: str, **options: Any) -> None:
        try:
            version = resolve_version(slug=slug, number=number, workspace=workspace)
            who = get_user_model().objects.filter(username=user).first()
            if who is None:
                raise CommandError(f"unknown user '{user}'", returncode=BAD_INPUT)
            found = Assistant.objects.filter(key=assistant, catalog_version__catalog=version.catalog).first()
            if found is None:
                raise CommandError(f"no assistant '{assistant}' runs catalog '{slug}'", returncode=BAD_INPUT)
            if threshold is not None:
                with user_errors(slug):
                    policy_set(catalog=version.catalog, threshold=threshold / 100, user=who)
        except CommandError as exc:
            raise CommandError(str(exc), returncode=BAD_INPUT) from None
        report = promotion_report(version=version)
        self.stdout.write(f"{slug} v{version.number}: compiles {'yes' if report.compiles else 'no'}; "
                          f"unplannable intents: {', '.join(report.unplannable) or 'none'}")
        if report.threshold is not None:
            rate = f"{report.success_rate:.1%} (run {report.run.pk})" if report.run else "no planner run"
            self.stdout.write(f"threshold {report.threshold:.0%}; latest planner run of v{version.number}: {rate}")
        with user_errors(slug):  # a gate that refuses exits 1 (EditRefused), anything else 2
            assistant_promote_to_planner(assistant=found, version=version, user=who)
        self.stdout.write(f"assistant {assistant} now runs {slug} v{version.number} with the planner orchestrator")

