from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser

from catalog_app.cli import ANSWER_NO, VersionedCommand, add_version_arguments, names, resolve_version, user_errors
from catalog_app.planning import cannot_operations, intent_plan, parse_cannot
from orchestrator.engine.planning.task import PlanningState


class Command(VersionedCommand):
    help = "Print the optimal plan of an intent, as readable lines, and its cost."

    def add_arguments(self, parser: CommandParser) -> None:
        add_version_arguments(parser)
        parser.add_argument("--intent", required=True)
        parser.add_argument("--known", default="", help="elements already known: a,b,c")
        parser.add_argument("--cannot", default="",
                            help="what cannot be established: ask:email,lookup_customer-m1:name "
                                 "(or credit_check:credit_score for a skill with one mode)")

    def handle(self, *args: Any, slug: str, number: int | None, workspace: str, intent: str, known: str,
               cannot: str, **options: Any) -> None:
        version = resolve_version(slug=slug, number=number, workspace=workspace)
        with user_errors(slug):
            cannot_establish = cannot_operations(version=version, pairs=parse_cannot(names(cannot)))
            state = PlanningState.of(known=names(known), cannot_establish=cannot_establish)
            result = intent_plan(version=version, intent=intent, state=state)
        if not result.solved:
            raise CommandError(f"{slug}: intent {intent}: {result.message}", returncode=ANSWER_NO)
        for number_, line in enumerate(result.lines, start=1):
            self.stdout.write(f"{number_:>3}. {line}")
        self.stdout.write(f"cost: {result.cost}")
