"""Tagging a sequence: every error of every call, in order, and goals the calls do not reach."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from . import references as refs
from .scope import Scope, flatten
from .sequences import RESULT, Call, ErrorTag, ErrorType
from .tools import ToolCatalog


def tag_calls(calls: Sequence[Call], tools: ToolCatalog, memory: Mapping[str, Any]) -> list[ErrorTag]:
    """Every error of every call, in order."""
    scope = Scope(memory)
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
        label = refs.bare_label(call.label)
        if label != call.label:  # the label is the mistake: references to it are fine, not missing memory
            tags.append(ErrorTag(ErrorType.MALFORMED_LABEL, i, f"labelled '{call.label}'; a label is '{label}'"))
        scope.define(label, tool, call.name)
    return tags


def goal_errors(
    calls: Sequence[Call], tools: ToolCatalog, memory: Mapping[str, Any], goals: Sequence[str]
) -> list[ErrorTag]:
    called = {c.name for c in calls if tools.get(c.name) is not None}
    obtained = set(memory) | {f for c in calls if (t := tools.get(c.name)) for f in t.outputs}
    for value in memory.values():
        if isinstance(value, Mapping):
            obtained.update(flatten(value))
    return [
        ErrorTag(ErrorType.GOAL_NOT_MET, -1, f"{goal} is never {'called' if goal in tools.tools else 'obtained'}")
        for goal in goals
        if goal not in called and goal not in obtained
    ]
