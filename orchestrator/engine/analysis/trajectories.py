"""Recorded tool-call sequences: error tags, repairs, compression and batch statistics.

A sequence is a list of calls in the common function-calling form

    {"name": "TripadvisorSearchHotels", "arguments": {"geoId": "$var1.geoId$"}, "label": "var2"}

where `$label.field$` refers to a field of an earlier call's result (or of memory, the values
known at the start) and `$name$` to a whole result or a memory item. NESTFUL's closing
`var_result` call gathers the answer: its references are checked, it is never a tool.

Per sequence: each call is tagged with its errors, the sequence is repaired (closest real tool
and parameter names, references pointed at the call that really produces the field, missing
required parameters filled from memory or earlier results) and compressed (calls still broken,
exact repeats and superseded failed attempts removed). Per batch: pass rate, compression rate,
troubled indices, failures per tool, time per sequence.

This module runs the analysis and reports it; the parts live beside it: `sequences` (calls,
samples, error kinds), `tools`, `references`, `scope` (what a call can refer to), `tagging`,
`repair` (with compression), `matching` and `renames` (what a broken call meant),
`sequence_goals` (goals through the planner), `trajectory_io` (reading files).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import ConcertoError
from .line_diff import line_diff
from .repair import compress, repair
from .sequences import RESULT, Call, ErrorTag, ErrorType, Sample
from .tagging import goal_errors, tag_calls
from .tools import ToolCatalog

# The names callers import from here (the analysis' front door).
__all__ = ["RESULT", "BatchReport", "Call", "ErrorTag", "ErrorType", "Sample", "SequenceReport", "analyze_batch",
           "analyze_sequence", "compress", "goal_errors", "repair", "summarize", "tag_calls"]


@dataclass(frozen=True)
class SequenceReport:
    index: int
    ident: str
    calls: tuple[Call, ...]
    errors: tuple[ErrorTag, ...]
    passed: bool
    repaired: tuple[Call, ...]
    repaired_errors: tuple[ErrorTag, ...]  # what the repair could not fix
    repair_diff: tuple[str, ...]
    compressed: tuple[Call, ...]
    compress_diff: tuple[str, ...]
    milliseconds: float
    goals: Any = None  # a `sequence_goals.GoalReport` when goals were judged with the planner

    @property
    def tool_calls(self) -> int:
        return sum(call.name != RESULT for call in self.calls)

    @property
    def compressed_calls(self) -> int:
        return sum(call.name != RESULT for call in self.compressed)


@dataclass(frozen=True)
class BatchReport:
    sequences: tuple[SequenceReport, ...]
    count: int
    passed: int
    repaired: int  # sequences without errors once repaired (those that passed included)
    pass_rate: float
    calls: int
    compressed_calls: int
    compression_rate: float  # share of the batch's tool calls that compression removed
    troubled: tuple[int, ...]  # indices of the sequences that did not pass
    failures_per_tool: dict[str, int]  # calls with at least one error, per tool name as written
    errors_per_type: dict[str, int]
    mean_ms: float
    total_seconds: float
    warnings: tuple[str, ...] = ()  # what reading the tool specs had to guess or leave out
    goals: dict[str, int] = field(default_factory=dict)  # sound / valid / optimal counts, when judged


# --- analysis -----------------------------------------------------------------------------------


def analyze_batch(
    samples: Sequence[Sample],
    tools: ToolCatalog | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    judge: Callable[[Sample, ToolCatalog], Any] | None = None,
) -> BatchReport:
    """Analyse every sample (with its own tools if it brings them, else `tools`).

    `judge` (`sequence_goals.judge_goals`) also judges each sequence against its goals with the
    planner; it is passed in rather than imported, as it builds on this module.
    """
    started = time.perf_counter()
    reports = []
    for index, sample in enumerate(samples):
        catalog = sample.tools or tools
        if catalog is None:
            raise ConcertoError(f"sample {index + 1} has no tools to be checked against: give a catalog or tool specs")
        report = analyze_sequence(sample, catalog, index)
        if judge is not None:
            report = replace(report, goals=judge(sample, catalog))
        reports.append(report)
        if on_progress is not None:
            on_progress(index + 1, len(samples))
    catalogs = [tools, *(s.tools for s in samples)]
    warnings = dict.fromkeys(w for c in catalogs if c is not None for w in c.warnings)
    warnings.update(dict.fromkeys(_misread(samples, tools)))
    return summarize(reports, time.perf_counter() - started, tuple(warnings))


def _misread(samples: Sequence[Sample], tools: ToolCatalog | None) -> list[str]:
    """Tools that declare no parameters while calls pass them some: most likely a spec whose
    inputs sit under a key the reader does not know, which would make every argument 'made up'."""
    bare: Counter[str] = Counter()
    for sample in samples:
        catalog = sample.tools or tools
        for call in sample.calls:
            tool = catalog.get(call.name) if catalog is not None else None
            if tool is not None and not tool.params and call.arguments:
                bare[call.name] += 1
    return [f"tool '{name}' declares no parameters, yet {count} call{'s pass' if count != 1 else ' passes'} arguments: "
            "are its inputs listed under a key the reader does not know?" for name, count in bare.most_common()]


def summarize(reports: Sequence[SequenceReport], seconds: float, warnings: tuple[str, ...] = ()) -> BatchReport:
    failures: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    for report in reports:
        broken_calls = {tag.call for tag in report.errors if tag.call >= 0}
        failures.update(report.calls[i].name for i in broken_calls if report.calls[i].name != RESULT)
        kinds.update(tag.kind.value for tag in report.errors)
    calls = sum(r.tool_calls for r in reports)
    kept = sum(r.compressed_calls for r in reports)
    passed = sum(r.passed for r in reports)
    judged = [r.goals for r in reports if r.goals is not None]
    goals = {q: sum(bool(getattr(g, q)) for g in judged) for q in ("sound", "valid", "optimal")} if judged else {}
    return BatchReport(
        sequences=tuple(reports),
        count=len(reports),
        passed=passed,
        repaired=sum(not r.repaired_errors for r in reports),
        pass_rate=passed / len(reports) if reports else 0.0,
        calls=calls,
        compressed_calls=kept,
        compression_rate=(calls - kept) / calls if calls else 0.0,
        troubled=tuple(r.index for r in reports if not r.passed),
        failures_per_tool=dict(failures.most_common()),
        errors_per_type=dict(kinds.most_common()),
        mean_ms=sum(r.milliseconds for r in reports) / len(reports) if reports else 0.0,
        total_seconds=seconds,
        warnings=warnings,
        goals=goals,
    )


def analyze_sequence(sample: Sample, tools: ToolCatalog, index: int = 0) -> SequenceReport:
    started = time.perf_counter()
    calls = list(sample.calls)
    errors = tag_calls(calls, tools, sample.memory) + goal_errors(calls, tools, sample.memory, sample.goals)
    # A sequence without errors is left exactly as it is: a repair could only make it worse.
    pairs = repair(calls, tools, sample.memory, sample.request) if errors else list(enumerate(calls))
    repaired = [call for _, call in pairs]
    still = tag_calls(repaired, tools, sample.memory) + goal_errors(repaired, tools, sample.memory, sample.goals)
    still += _dropped(calls, {origin for origin, _ in pairs})
    broken = {tag.call for tag in errors if tag.call >= 0}
    compressed = compress(pairs, tools, sample.memory, broken)
    before = [c.line for c in calls]
    return SequenceReport(
        index=index,
        ident=sample.ident or str(index),
        calls=tuple(calls),
        errors=tuple(errors),
        passed=not errors,
        repaired=tuple(repaired),
        repaired_errors=tuple(still),
        repair_diff=tuple(_diff(before, [c.line for c in repaired])),
        compressed=tuple(compressed),
        compress_diff=tuple(_diff(before, [c.line for c in compressed])),
        milliseconds=(time.perf_counter() - started) * 1000,
    )


def _dropped(calls: Sequence[Call], kept: set[int]) -> list[ErrorTag]:
    """A call the repair had to remove is not fixed: what it was for is lost."""
    return [
        ErrorTag(ErrorType.MADE_UP_TOOL, -1, f"call {i + 1} ({call.name}) resembles no tool and was removed")
        for i, call in enumerate(calls)
        if i not in kept
    ]


def _diff(old: Sequence[str], new: Sequence[str]) -> list[str]:
    return [str(line) for line in line_diff(old, new)]
