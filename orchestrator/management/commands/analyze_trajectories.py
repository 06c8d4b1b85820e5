"""`analyze_trajectories SLUG FILE.json` or `analyze_trajectories FILE.json --tools SPECS.json`

Tags, repairs and compresses every recorded sequence of FILE (NESTFUL samples, JSON Lines, or
one list of calls) against a catalog's skills or against tool specs, and prints the batch
figures. Exit status 0 when the analysis ran, 2 on bad input.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils import timezone

from catalog_app.cli import BAD_INPUT, VersionedCommand, add_version_option, read_input, resolve_version, user_errors
from catalog_app.services import DEFAULT_WORKSPACE
from orchestrator.engine.analysis.trajectories import BatchReport
from orchestrator.engine.analysis.trajectory_io import decode_json, report_to_data
from orchestrator.validation.reports import report_html
from orchestrator.validation.services import trajectories_analyze

MAX_FILE_BYTES = 50 * 1024 * 1024


class Command(VersionedCommand):
    help = "Analyse recorded tool-call sequences: error tags, repairs, compression, batch figures."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", metavar="[SLUG] FILE",
                            help="the catalog whose skills are the tools (unless --tools), then the sequences file")
        parser.add_argument("--tools", help="tool specs (OpenAPI 3, NESTFUL or OpenAI function specs) instead: "
                                             "a file, or a directory of them (one OpenAPI file per tool)")
        add_version_option(parser)
        parser.add_argument("--workspace", default=DEFAULT_WORKSPACE, help="workspace slug")
        parser.add_argument("--goals", action="store_true",
                            help="also judge each sequence sound / valid / optimal with the planner (slower)")
        parser.add_argument("--show", type=int, default=3, help="print the diffs of this many troubled sequences")
        parser.add_argument("--json", dest="as_json", action="store_true", help="print the whole report as JSON")
        parser.add_argument("--out", help="also write the report as JSON to this file")
        parser.add_argument("--html", help="also write the report as a standalone HTML page to this file")

    def handle(self, *args: Any, paths: list[str], tools: str | None, number: int | None, workspace: str,
               show: int, as_json: bool, out: str | None, html: str | None, goals: bool = False,
               **options: Any) -> None:
        try:
            report, source = self._analyse(paths, tools, number, workspace, goals)
        except CommandError as exc:
            raise CommandError(str(exc), returncode=BAD_INPUT) from None
        data = report_to_data(report)
        if out:
            Path(out).write_text(json.dumps(data, indent=2, ensure_ascii=False))
        if html:
            title = f"Trajectory analysis: {Path(paths[-1]).name}"
            Path(html).write_text(report_html(report=data, title=title, source=source, finished_at=timezone.now()))
        self.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) if as_json else _as_text(report, show))

    def _analyse(self, paths: list[str], tools: str | None, number: int | None,
                 workspace: str, goals: bool) -> tuple[BatchReport, str]:
        if len(paths) > 2:
            raise CommandError("give at most a catalog slug and one sequences file", returncode=BAD_INPUT)
        slug, file = (paths[0], paths[1]) if len(paths) == 2 else (None, paths[0])
        if slug and tools:
            raise CommandError("give a catalog slug or --tools, not both", returncode=BAD_INPUT)
        version = resolve_version(slug=slug, number=number, workspace=workspace) if slug else None
        with user_errors(file):
            samples = decode_json(_read(file), "the sequences file")
            specs = _specs(tools) if tools else None
            report = trajectories_analyze(samples=samples, version=version, tools=specs, goals=goals)
        source = f"catalog {slug} v{version.number}" if version else (tools or "the samples' own tools")
        return report, source


def _specs(path: str) -> Any:
    """One file's specs, or every `.json` file of a directory as a list (NESTFUL's `open_api_specs/`)."""
    folder = Path(path)
    if not folder.is_dir():
        return decode_json(_read(path), "the tool specs file")
    files = sorted(folder.glob("*.json"))
    if not files:
        raise CommandError(f"{path}: the directory holds no .json tool specs", returncode=BAD_INPUT)
    documents = []
    for file in files:
        with user_errors(str(file)):
            documents.append(decode_json(_read(str(file)), file.name))
    # Function-spec files hold lists: one flat list; OpenAPI documents stay one item each.
    return [spec for doc in documents for spec in (doc if isinstance(doc, list) else [doc])]


def _read(path: str) -> bytes:
    return read_input(path, limit=MAX_FILE_BYTES)


def _as_text(report: BatchReport, show: int) -> str:
    removed = report.calls - report.compressed_calls
    lines = [
        f"sequences: {report.count}",
        f"passed: {report.passed} ({100 * report.pass_rate:.1f}%)",
        f"error-free once repaired: {report.repaired}",
        f"compression rate: {100 * report.compression_rate:.1f}% ({removed} of {report.calls} calls removed)",
        f"troubled indices: {', '.join(map(str, report.troubled)) or 'none'}",
        f"average time per sequence: {report.mean_ms:.2f} ms",
    ]
    lines += [f"warning: {warning}" for warning in report.warnings]
    if report.goals:
        lines.append("against their goals: " + ", ".join(f"{k} {v}/{report.count}" for k, v in report.goals.items()))
    if report.failures_per_tool:
        width = max(len(name) for name in report.failures_per_tool)
        lines.append("failures per tool:")
        lines += [f"  {name:<{width}}  {count}" for name, count in report.failures_per_tool.items()]
    if report.errors_per_type:
        lines.append("errors by kind: " + ", ".join(f"{k} {v}" for k, v in report.errors_per_type.items()))
    # Troubled sequences, then those that pass but that the planner finds not valid or not optimal.
    off_goal = [s.index for s in report.sequences if s.passed and s.goals is not None and not s.goals.optimal]
    for index in [*report.troubled, *off_goal][:max(0, show)]:
        sequence = report.sequences[index]
        lines += ["", f"sequence {index} ({sequence.ident}):"]
        lines += [f"  {tag}" for tag in sequence.errors]
        lines += ["  repaired:", *(f"    {line}" for line in sequence.repair_diff)]
        lines += ["  compressed:", *(f"    {line}" for line in sequence.compress_diff)]
        if sequence.goals is not None:
            lines += [f"  goals: {sequence.goals.summary}", *(f"    {line}" for line in sequence.goals.diff)]
    return "\n".join(lines)
