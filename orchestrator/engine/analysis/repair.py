"""Repairing a tagged sequence, then compressing it.

Repair: made-up tools and parameters taken for what they most likely meant (`renames`),
references pointed at the result that has the field, reused labels told apart, required values
filled from earlier results, memory or the user's request. Compression: what the repaired
sequence does not need, removed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from . import references as refs
from . import renames
from .references import REF
from .scope import Scope, closed_references
from .sequences import RESULT, Call
from .tagging import tag_calls
from .tools import Tool, ToolCatalog

_map_strings = refs.map_strings


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
    calls = _relabel_reused([replace(c, label=refs.bare_label(c.label)) for c in calls], memory)
    scope = Scope(memory)
    precedent = _precedents(calls)
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
                source = precedent.get((name, param))
                if source is None or any(scope.check(r.label, r.path) for r in refs.in_text(source)):
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


def _precedents(calls: Sequence[Call]) -> dict[tuple[str, str], str]:
    """(tool, parameter) -> the one reference the sequence passes it elsewhere: when a call of
    the same tool leaves that parameter out, the sequence's own choice is the likeliest fill
    (`product_id` from the search that gave the details' `product_id`, not from the details)."""
    seen: dict[tuple[str, str], set[str]] = {}
    for call in calls:
        for arg, value in call.arguments.items():
            if refs.is_whole_reference(value):
                seen.setdefault((call.name, arg), set()).add(value)
    return {key: next(iter(values)) for key, values in seen.items() if len(values) == 1}


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


def _fix_references(value: Any, param: str, scope: Scope) -> Any:
    def fix(text: str) -> str:
        def swap(match: re.Match[str]) -> str:
            path = refs.field_path(match[2])
            if scope.check(match[1], path) is None:
                return match[0]
            suggested = scope.suggest(match[1], path, param)
            return refs.keep_indexes(suggested, match[0]) if suggested else match[0]

        return REF.sub(swap, refs.close_open(text, scope.knows))

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
        used = call.label and any(ref[0] == call.label
                                  for c in later for ref in closed_references(dict(c.arguments)))
        if origin in broken and retried and not used and call.name != RESULT:
            continue
        out.append((origin, call))
    return out
