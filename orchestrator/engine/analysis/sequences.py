"""What a recorded sequence is made of: calls, samples, and the errors a call can have.

`$label.path$` references inside argument values are `references`' business; the tools they
are checked against are `tools`'.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .tools import ToolCatalog

RESULT = "var_result"  # NESTFUL's closing call that gathers the answer: never a tool


class ErrorType(StrEnum):
    MADE_UP_TOOL = "made_up_tool"
    MADE_UP_PARAMETER = "made_up_parameter"
    MISSING_PARAMETER = "missing_parameter"
    MISSING_MEMORY = "missing_memory"  # a reference to a result or memory item that is not there
    WRONG_ASSIGNMENT = "wrong_assignment"  # a reference to a field the result it names does not have
    MALFORMED_REFERENCE = "malformed_reference"  # `$var1.artist_id` without its closing `$`
    MALFORMED_LABEL = "malformed_label"  # a call labelled `$var1` (a reference's spelling) instead of `var1`
    GOAL_NOT_MET = "goal_not_met"  # sequence level: a goal annotation the calls do not reach


@dataclass(frozen=True)
class ErrorTag:
    kind: ErrorType
    call: int  # index of the call in its sequence; -1 for the sequence as a whole
    detail: str

    def __str__(self) -> str:
        where = f"call {self.call + 1}" if self.call >= 0 else "sequence"
        return f"{where}: {self.kind.value.replace('_', ' ')}: {self.detail}"


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
