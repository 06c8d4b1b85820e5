"""`validate_plan SLUG --intent NAME --plan FILE --quality sound|valid|optimal`

Exit status: 0 when the plan has the quality asked for, 1 when it has not, 2 on bad input
(unknown catalog, intent or element, unreadable file). Lines of the plan that do not parse are
warnings, never bad input.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import CommandError, CommandParser

from catalog_app.cli import (
    BAD_INPUT,
    VersionedCommand,
    add_version_arguments,
    names,
    read_input,
    resolve_version,
    user_errors,
)
from orchestrator.engine.analysis.plan_validation import QUALITIES, ValidationReport
from orchestrator.engine.catalog.spec import Goal
from orchestrator.validation.services import plan_validate

MAX_PLAN_BYTES = 1024 * 1024


class Command(VersionedCommand):
    help = "Judge a written plan for an intent: sound, valid or optimal; print the fix as a diff."

    def add_arguments(self, parser: CommandParser) -> None:
        add_version_arguments(parser)
        parser.add_argument("--intent", help="the intent whose goal the plan should reach")
        parser.add_argument("--goal-known", default="", help="or a goal of your own: elements to know, a,b")
        parser.add_argument("--goal-done", default="", help="and/or skills (skill or skill.mode) to have run")
        parser.add_argument("--plan", required=True, help="the plan, one step per line ('-' reads standard input)")
        parser.add_argument("--quality", choices=QUALITIES, default="optimal")
        parser.add_argument("--known", default="", help="elements known at the start: a,b,c")
        parser.add_argument("--json", dest="as_json", action="store_true", help="print the whole report as JSON")

    def handle(self, *args: Any, slug: str, number: int | None, workspace: str, intent: str | None,
               goal_known: str, goal_done: str, plan: str, quality: str, known: str, as_json: bool,
               **options: Any) -> None:
        try:
            if (intent is None) == (not goal_known and not goal_done):
                raise CommandError("give either --intent or a goal (--goal-known and/or --goal-done)",
                                   returncode=BAD_INPUT)
            version = resolve_version(slug=slug, number=number, workspace=workspace)
            text = _read_plan(plan)
            goal = None if intent else Goal(known=tuple(names(goal_known)), done=tuple(names(goal_done)))
            with user_errors(slug):
                report = plan_validate(version=version, plan=text, quality=quality, intent=intent, goal=goal,
                                       known=names(known))
        except CommandError as exc:
            raise CommandError(str(exc), returncode=BAD_INPUT) from None
        self.stdout.write(_as_json(report) if as_json else _as_text(report))
        if not report.determination:
            sys.exit(1)


def _read_plan(path: str) -> str:
    if path == "-":
        return sys.stdin.read(MAX_PLAN_BYTES + 1)[:MAX_PLAN_BYTES]
    return read_input(path, limit=MAX_PLAN_BYTES).decode("utf-8", errors="replace")


def _as_json(report: ValidationReport) -> str:
    return json.dumps(report.to_data(), indent=2, ensure_ascii=False)


def _as_text(report: ValidationReport) -> str:
    lines = [f"{'yes' if report.determination else 'no'}: {report.summary}"]
    lines += [f"warning: line {w.number}: {w.text!r}: {w.warning}" for w in report.parsed.warnings]
    lines += [f"cannot run: {failure}" for failure in report.failures]
    if report.unsolvable:
        lines.append(report.unsolvable)
    if report.fixed is not None and not report.determination:
        lines.append(f"fixed plan (cost {report.fixed.cost}), as a diff of the plan given:")
    if report.diff and (not report.determination or report.parsed.warnings):
        lines += [str(line) for line in report.diff]
    return "\n".join(lines)
