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
troubled indices, failures per tool, time per sequence. Reading files is `trajectory_io`'s job.
"""

from __future__ import annotations

import difflib
import json
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from ..errors import ConcertoError
from . import matching, renames
from . import references as refs
from .references import REF as _REF
from .tools import Tool, ToolCatalog
from .tools import norm as _norm

RESULT = "var_result"
_VAR = re.compile(r"var\d+")  # NESTFUL's labels
PARAM_MATCH = 0.75
FIELD_MATCH = 0.6


class ErrorType(StrEnum):
    MADE_UP_TOOL = "made_up_tool"
    MADE_UP_PARAMETER = "made_up_parameter"
    MISSING_PARAMETER = "missing_parameter"
    MISSING_MEMORY = "missing_memory"  # a reference to a result or memory item that is not there
    WRONG_ASSIGNMENT = "wrong_assignment"  # a reference to a field the result it names does not have
    MALFORMED_REFERENCE = "malformed_reference"  # `$var1.artist_id` without its closing `$`
    GOAL_NOT_MET = "goal_not_met"  # sequence level: a goal annotation the calls do not reach


@dataclass(frozen=True)
class ErrorTag:
    kind: ErrorType
    call: int  # index of the call in its sequence; -1 for the sequence as a whole
    detail: str

    def __str__(self) -> str:
        where = f"call {self.call + 1}" if self.call >= 0 else "sequence"
        return f"{where}: {self.kind.value.replace('_', ' ')}: {self.detail}"


# --- sequences ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    label: str = ""

    @property
    def line(self) -> str:
        args = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False, default=str)}" for k, v in self.arguments.items())
        call = f"{self.name}({args})"
        return f"{self.label} = {call}" if self.label else call


@dataclass(frozen=True)
class Sample:
    """One recorded sequence with what was known at its start and, optionally, its goals."""

    calls: tuple[Call, ...]
    memory: Mapping[str, Any] = field(default_factory=dict)
    goals: tuple[str, ...] = ()  # tool names that must be called, or fields that must be obtained
    ident: str = ""
    tools: ToolCatalog | None = None  # the sample's own tools, when it brings them
    request: str = ""  # what the user asked (NESTFUL's `input`): where literal values come from


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


# --- memory -------------------------------------------------------------------------------------


class _Scope:
    """What a call can refer to: results of earlier calls (by label) and memory."""

    def __init__(self, memory: Mapping[str, Any]):
        self.fields: dict[str, tuple[str, ...] | None] = {}  # label -> its fields (None: shape unknown)
        self.items: set[str] = set()  # memory values referred to as `$name$`
        self.order: list[str] = []  # labels, most recent last
        self.dead: set[str] = set()  # labels of calls to tools that do not exist: they produced nothing
        for key, value in memory.items():
            if isinstance(value, Mapping):
                self._add(key, tuple(_flatten(value)))
            else:
                self.items.add(key)

    def define(self, label: str, tool: Tool | None, name: str) -> None:
        if not label:
            return
        if tool is None and name != RESULT:
            self.dead.add(label)
            self.fields.pop(label, None)
            return
        self.dead.discard(label)
        # A tool that declares no outputs (or var_result) has a result of unknown shape.
        self._add(label, tool.outputs if tool is not None and tool.outputs else None)

    def _add(self, label: str, fields: tuple[str, ...] | None) -> None:
        self.fields[label] = fields
        if label in self.order:
            self.order.remove(label)
        self.order.append(label)

    def knows(self, label: str) -> bool:
        return label in self.fields or label in self.items or label in self.dead or _VAR.fullmatch(label) is not None

    def check(self, label: str, path: str | None) -> ErrorType | None:
        if label in self.fields:
            known = self.fields[label]
            if path is None or known is None or _has_field(known, path):
                return None
            return ErrorType.WRONG_ASSIGNMENT
        if label in self.items and path is None:
            return None
        return ErrorType.WRONG_ASSIGNMENT if label in self.items else ErrorType.MISSING_MEMORY

    def producers(self) -> Iterator[tuple[str, tuple[str, ...]]]:
        """(label, fields) of results with a known shape, the most recent first."""
        for label in reversed(self.order):
            known = self.fields[label]
            if known:
                yield label, known

    def suggest(self, label: str, path: str | None, param: str) -> str | None:
        """The reference most likely meant where `$label.path$` resolves to nothing.

        The result it names is trusted first (the label is rarely the mistake): a field one level
        down, a misspelling, or the field that best fits the parameter being filled (`$var2.id$`
        for `destinationEntityId` -> `$var2.entityId$`). Only then another result or memory.
        """
        wanted = [_norm(path)] if path else []
        if label in self.fields and self.fields[label] and path:
            known = self.fields[label] or ()
            # `locationId` for `location.locationId`: the field is there, one level down.
            nested = [f for f in known if f.endswith(f".{path}")]
            if len(nested) == 1:
                return f"${label}.{nested[0]}$"
            named = _fitting_field(param, known, cutoff=1.0)  # a field named as the parameter
            if named:
                return f"${label}.{named}$"
            # A specific field name (`short_name`, not `id`) that another result has exactly:
            # the label is the slip, not the field.
            if len(matching.words(path)) > 1 or len(path) >= 5:
                for other, fields in self.producers():
                    hit = next((f for f in fields if _norm(f) == _norm(path)), None)
                    if other != label and hit:
                        return f"${other}.{hit}$"
            close = _closest(path, known, FIELD_MATCH) or _fitting_field(param, known)
            if close:
                return f"${label}.{close}$"
        for key in (*wanted, _norm(param)):
            for other, fields in self.producers():
                hit = next((f for f in fields if _norm(f) == key), None)
                if hit:
                    return f"${other}.{hit}$"
            item = next((i for i in self.items if _norm(i) == key), None)
            if item:
                return f"${item}$"
        return None

    def source_for(self, param: str, arguments: Mapping[str, Any]) -> str | None:
        """A reference to fill a missing required parameter with, if memory or a result has it."""
        key = _norm(param)
        item = next((i for i in self.items if _norm(i) == key), None)
        if item:
            return f"${item}$"
        for label, fields in self.producers():
            hit = next((f for f in fields if _norm(f) == key), None)
            if hit:
                return f"${label}.{hit}$"
        # `originEntityId` from an `entityId`: of the results that have one, prefer the result its
        # siblings (`originSkyId`, same prefix) already come from.
        partial = [(label, f) for label, fields in self.producers() for f in fields
                   if len(_norm(f)) > 1 and key.endswith(_norm(f)) and key != _norm(f)]
        if not partial:
            return None
        for label, found in partial:
            prefix = key[: -len(_norm(found))]
            siblings = [v for k, v in arguments.items() if _norm(k).startswith(prefix) and isinstance(v, str)]
            if any(ref[0] == label for value in siblings for ref in _REF.findall(value)):
                return f"${label}.{found}$"
        label, found = partial[0]
        return f"${label}.{found}$"


def _fitting_field(param: str, fields: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The field whose last name best fits the parameter it would fill (`entityId` for `destinationEntityId`)."""
    scored = sorted(((matching.name_similarity(param, f.rsplit(".", 1)[-1]), -f.count("."), f) for f in fields),
                    reverse=True)
    if not scored or scored[0][0] < cutoff or (len(scored) > 1 and scored[1][:2] == scored[0][:2]):
        return None  # nothing close, or a tie the names cannot break
    return scored[0][2]


def _flatten(value: Mapping[str, Any], prefix: str = "", depth: int = 0) -> Iterator[str]:
    for key, inner in value.items():
        name = f"{prefix}{key}"
        yield name
        if isinstance(inner, Mapping) and depth < 5:
            yield from _flatten(inner, f"{name}.", depth + 1)


def _has_field(fields: tuple[str, ...], path: str) -> bool:
    """`path` is a field, a parent of fields, or lies inside a field whose inner shape is unknown."""
    if path in fields or any(f.startswith(f"{path}.") for f in fields):
        return True
    parts = path.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        parent = ".".join(parts[:cut])
        if parent in fields:
            # A parent whose children the spec spells out must have this one among them.
            return not any(f.startswith(f"{parent}.") for f in fields)
    return False


def _closest(name: str, choices: Iterable[str], cutoff: float) -> str | None:
    by_norm = {_norm(c): c for c in choices}
    key = _norm(name)
    if key in by_norm:
        return by_norm[key]
    close = difflib.get_close_matches(key, list(by_norm), n=1, cutoff=cutoff)
    return by_norm[close[0]] if close else None


def _references(value: Any) -> Iterator[tuple[str, str | None, str]]:
    """(label, field path or None, reference text) of every closed reference in a value."""
    return ((r.label, r.path, r.text) for r in refs.in_value(value) if r.closed)


_map_strings = refs.map_strings


# --- tagging ------------------------------------------------------------------------------------


def tag_calls(calls: Sequence[Call], tools: ToolCatalog, memory: Mapping[str, Any]) -> list[ErrorTag]:
    """Every error of every call, in order."""
    scope = _Scope(memory)
    tags: list[ErrorTag] = []
    for i, call in enumerate(calls):
        tool = tools.get(call.name)
        if tool is None and call.name != RESULT:
            tags.append(ErrorTag(ErrorType.MADE_UP_TOOL, i, call.name))
        if tool is not None:
            tags += [ErrorTag(ErrorType.MADE_UP_PARAMETER, i, f"{call.name} has no parameter '{arg}'")
                     for arg in call.arguments if tool.param_for(arg) is None]
            tags += [ErrorTag(ErrorType.MISSING_PARAMETER, i, f"{call.name} needs '{p}'")
                     for p in tool.missing(call.arguments)]
        for arg, value in call.arguments.items():
            for ref in refs.in_value(value):
                if not ref.closed:
                    if scope.knows(ref.label):  # `$AMOUNT` in free text is not a reference
                        tags.append(ErrorTag(ErrorType.MALFORMED_REFERENCE, i, f"{arg}={ref.text} lacks its closing $"))
                    continue
                kind = scope.check(ref.label, ref.path)
                if kind is not None:
                    tags.append(ErrorTag(kind, i, f"{arg}={ref.text}"))
        scope.define(call.label, tool, call.name)
    return tags


def goal_errors(
    calls: Sequence[Call], tools: ToolCatalog, memory: Mapping[str, Any], goals: Sequence[str]
) -> list[ErrorTag]:
    called = {c.name for c in calls if tools.get(c.name) is not None}
    obtained = set(memory) | {f for c in calls if (t := tools.get(c.name)) for f in t.outputs}
    for value in memory.values():
        if isinstance(value, Mapping):
            obtained.update(_flatten(value))
    return [
        ErrorTag(ErrorType.GOAL_NOT_MET, -1, f"{goal} is never {'called' if goal in tools.tools else 'obtained'}")
        for goal in goals
        if goal not in called and goal not in obtained
    ]


# --- repair -------------------------------------------------------------------------------------


def repair(
    calls: Sequence[Call], tools: ToolCatalog, memory: Mapping[str, Any], request: str = ""
) -> list[tuple[int, Call]]:
    """The repaired calls, each with the index of the recorded call it comes from.

    A made-up tool is taken for the real one its name, description, arguments and the fields
    later calls read from it point to (`renames.tool_for`); one that points to none is dropped,
    and references to its result are then pointed elsewhere where another result has the field.
    Required parameters left out are filled from earlier results, memory, or a value the user's
    `request` states plainly.
    """
    calls = _relabel_reused(calls, memory)
    scope = _Scope(memory)
    out: list[tuple[int, Call]] = []
    for i, call in enumerate(calls):
        tool = tools.get(call.name)
        name = call.name
        if tool is None and name != RESULT:
            tool = renames.tool_for(name, call.arguments, _fields_read(calls[i + 1:], call.label), tools)
            if tool is None:
                continue
            name = tool.name
        arguments = dict(call.arguments)
        if tool is not None:
            arguments = _fix_parameters(arguments, tool)
        # The answer's argument names are free labels, not parameters: no evidence of what is meant.
        arguments = {k: _fix_references(v, k if tool is not None else "", scope) for k, v in arguments.items()}
        if tool is not None:
            for param in tool.missing(arguments):
                source = scope.source_for(param, arguments)
                if source is None:
                    spec = next(p for p in tool.params if p.name == param)
                    source = renames.value_from_request(spec, request, _literals(calls))
                if source is not None:
                    arguments[param] = source
        out.append((i, Call(name, arguments, call.label)))
        scope.define(call.label, tool, name)
    return out


def _relabel_reused(calls: Sequence[Call], memory: Mapping[str, Any]) -> Sequence[Call]:
    """A label written twice (`var2`, `var2`) while a later call refers to one nothing defines
    (`$var3$`): the second was meant to be that one. Only when there is one of each, and the
    missing label is read after the second definition only."""
    defined = [(i, c.label) for i, c in enumerate(calls) if c.label and c.name != RESULT]
    seen: set[str] = set()
    reused = []
    for i, label in defined:
        if label in seen:
            reused.append(i)
        seen.add(label)
    reads = [(i, r.label) for i, c in enumerate(calls) for r in refs.in_value(dict(c.arguments)) if r.closed]
    missing = {label for _, label in reads if label not in seen and label not in memory}
    if len(reused) != 1 or len(missing) != 1:
        return calls
    again, (lost,) = reused[0], missing
    if any(i <= again for i, label in reads if label == lost):
        return calls
    return [replace(c, label=lost) if i == again else c for i, c in enumerate(calls)]


def _fields_read(later: Sequence[Call], label: str) -> list[str]:
    if not label:
        return []
    return [ref.path for call in later for ref in refs.in_value(dict(call.arguments))
            if ref.label == label and ref.path]


def _literals(calls: Sequence[Call]) -> list[Any]:
    """The plain values the calls already pass: a value left out is not one of these."""
    return [v for call in calls for v in call.arguments.values() if not isinstance(v, dict | list)]


def _fix_parameters(arguments: dict[str, Any], tool: Tool) -> dict[str, Any]:
    """Made-up parameters renamed to the free real one they most likely meant, else dropped; order kept."""
    names = renames.parameter_names(arguments, tool)
    return {(names.get(arg, arg)): value for arg, value in arguments.items()
            if tool.param_for(arg) is not None or arg in names}


def _fix_references(value: Any, param: str, scope: _Scope) -> Any:
    def fix(text: str) -> str:
        def swap(match: re.Match[str]) -> str:
            path = refs.field_path(match[2])
            if scope.check(match[1], path) is None:
                return match[0]
            return scope.suggest(match[1], path, param) or match[0]

        return _REF.sub(swap, refs.close_open(text, scope.knows))

    return _map_strings(value, fix)


# --- compression --------------------------------------------------------------------------------


def compress(
    pairs: Sequence[tuple[int, Call]], tools: ToolCatalog, memory: Mapping[str, Any], broken: set[int]
) -> list[Call]:
    """The repaired sequence without what it does not need.

    Removed: calls the repair could not fix (and, in turn, calls that needed them), exact repeats
    of an earlier call (references to a repeat move to the original), and recorded failures that
    a later call to the same tool superseded when nothing uses their result.
    """
    kept = list(pairs)
    while True:
        tags = tag_calls([c for _, c in kept], tools, memory)
        bad = {t.call for t in tags if t.call >= 0 and kept[t.call][1].name != RESULT}
        if not bad:
            break
        kept = [pair for k, pair in enumerate(kept) if k not in bad]
    kept = _drop_repeats(kept)
    kept = _drop_superseded(kept, broken)
    return [call for _, call in _answers_kept(kept, tools, memory)]


def _answers_kept(pairs: list[tuple[int, Call]], tools: ToolCatalog, memory: Mapping[str, Any]
                  ) -> list[tuple[int, Call]]:
    """`var_result` keeps only the answers whose references still resolve: a reference to a
    removed call would promise a result the compressed sequence never produces."""
    calls = [c for _, c in pairs]
    dangling: dict[int, set[str]] = {}
    for tag in tag_calls(calls, tools, memory):
        if tag.call >= 0 and calls[tag.call].name == RESULT:
            dangling.setdefault(tag.call, set()).add(tag.detail.split("=", 1)[0])
    out = []
    for k, (origin, call) in enumerate(pairs):
        if k in dangling:
            call = replace(call, arguments={a: v for a, v in call.arguments.items() if a not in dangling[k]})
        out.append((origin, call))
    return out


def _drop_repeats(pairs: list[tuple[int, Call]]) -> list[tuple[int, Call]]:
    rename: dict[str, str] = {}
    seen: dict[tuple[str, str], str] = {}
    out = []

    def relabel(text: str) -> str:
        return refs.relabel(text, rename)

    for origin, call in pairs:
        arguments = _map_strings(dict(call.arguments), relabel)
        key = (call.name, json.dumps(arguments, sort_keys=True, default=str))
        # A repeat is dropped, unless its result is referred to and the original has no label.
        if call.name != RESULT and key in seen and (seen[key] or not call.label):
            if call.label:
                rename[call.label] = seen[key]
            continue
        if call.label:
            rename.pop(call.label, None)  # a label used again names this new result from here on
        seen[key] = call.label
        out.append((origin, Call(call.name, arguments, call.label)))
    return out


def _drop_superseded(pairs: list[tuple[int, Call]], broken: set[int]) -> list[tuple[int, Call]]:
    out = []
    for k, (origin, call) in enumerate(pairs):
        later = [c for _, c in pairs[k + 1:]]
        retried = any(c.name == call.name for c in later)
        used = call.label and any(ref[0] == call.label for c in later for ref in _references(dict(c.arguments)))
        if origin in broken and retried and not used and call.name != RESULT:
            continue
        out.append((origin, call))
    return out


def _diff(old: Sequence[str], new: Sequence[str]) -> list[str]:
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=list(old), b=list(new), autojunk=False).get_opcodes():
        if tag == "equal":
            out += [f"  {line}" for line in old[i1:i2]]
        else:
            out += [f"- {line}" for line in old[i1:i2]] + [f"+ {line}" for line in new[j1:j2]]
    return out
