from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser

from catalog_app.cli import BAD_INPUT, VersionedCommand, add_version_arguments, resolve_version, user_errors
from catalog_app.planning import goal_problem_pddl, version_domain_pddl
from catalog_app.selectors import version_spec
from orchestrator.engine.planning.compile import intent_goal


class Command(VersionedCommand):
    help = "Write a catalog version's PDDL domain (and an intent's problem) into a folder."

    def add_arguments(self, parser: CommandParser) -> None:
        add_version_arguments(parser)
        parser.add_argument("--intent", help="also write problem.pddl for this intent")
        parser.add_argument("--out", required=True, help="folder for domain.pddl and problem.pddl")

    def handle(self, *args: Any, slug: str, number: int | None, workspace: str, intent: str | None,
               out: str, **options: Any) -> None:
        version = resolve_version(slug=slug, number=number, workspace=workspace)
        folder = Path(out)
        with user_errors(slug):
            domain = version_domain_pddl(version=version)
            problem = None
            if intent:
                goal = intent_goal(version_spec(version=version), intent)
                problem = goal_problem_pddl(version=version, goal=goal, name=f"{slug}-{intent}")
        try:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "domain.pddl").write_text(domain)
            written = [folder / "domain.pddl"]
            if problem is not None:
                (folder / "problem.pddl").write_text(problem)
                written.append(folder / "problem.pddl")
        except OSError as exc:
            raise CommandError(f"cannot write to {folder}: {exc.strerror}", returncode=BAD_INPUT) from None
        for path in written:
            self.stdout.write(f"wrote {path}")
