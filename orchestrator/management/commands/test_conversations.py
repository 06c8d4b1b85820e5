"""`test_conversations SLUG [--version N] [--workspace W] [--json]`

Runs every conversation test of a catalog on a version (the latest by default), stores the run and
prints one line per test. Exit status 0 when all pass, 1 when one fails, 2 on bad input (an unknown
catalog, version or workspace): for CI.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import CommandError, CommandParser

from catalog_app.cli import ANSWER_NO, VersionedCommand, add_version_arguments, resolve_version
from catalog_app.permissions import OPERATOR
from orchestrator.conversation_tests.models import ConversationTestRun
from orchestrator.conversation_tests.services import conversation_tests_run


class Command(VersionedCommand):
    help = "Run a catalog's conversation tests on a version; exit 1 when one fails."

    def add_arguments(self, parser: CommandParser) -> None:
        add_version_arguments(parser)
        parser.add_argument("--json", dest="as_json", action="store_true", help="print the run as one JSON object")

    def handle(self, *args: Any, slug: str, number: int | None, workspace: str, as_json: bool,
               **options: Any) -> None:
        version = resolve_version(slug=slug, number=number, workspace=workspace)
        run = conversation_tests_run(version=version, user=OPERATOR)  # the server's operator
        self.stdout.write(json.dumps(_as_data(run), indent=2) if as_json else _as_text(run))
        if not run.ok:
            raise CommandError(f"{run.failed} of {run.passed + run.failed} conversation tests failed",
                               returncode=ANSWER_NO)


def _as_data(run: ConversationTestRun) -> dict[str, Any]:
    return {"catalog": run.version.catalog.slug, "version": run.version.number, "passed": run.passed,
            "failed": run.failed, "results": run.results}


def _as_text(run: ConversationTestRun) -> str:
    lines = [f"{run.version.catalog.slug} v{run.version.number}: {run.passed} passed, {run.failed} failed"]
    if not run.results:
        lines.append("  (the catalog has no conversation tests)")
    for result in run.results:
        if result["passed"]:
            lines.append(f"  pass  {result['name']}")
        else:
            where = f" turn {result['turn']} ({result['user']!r}):" if result.get("turn") else ""
            lines.append(f"  FAIL  {result['name']}:{where} {result['difference']}")
    return "\n".join(lines)
