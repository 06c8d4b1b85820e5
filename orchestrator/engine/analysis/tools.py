"""The tools a recorded sequence is checked against: parameters, outputs, ways to call them.

Built from tool specs or a catalog's skills by `trajectory_io`; kept apart from the analysis so
the matching of made-up names (`renames`) can use them without importing the analysis.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass

from ..catalog.suggest import squashed as norm

TOOL_MATCH = 0.85  # how alike a made-up tool name must be to a real one, by spelling alone


@dataclass(frozen=True)
class ParamRule:
    """What a call to a tool may name a parameter, and whether it must (the checker's view of a `ToolParam`)."""

    name: str
    required: bool = False
    aliases: tuple[str, ...] = ()  # other argument names it accepts (subtypes of a catalog element)
    description: str = ""
    type: str = ""
    enum: tuple[str, ...] = ()


@dataclass(frozen=True)
class Tool:
    name: str
    params: tuple[ParamRule, ...] = ()
    outputs: tuple[str, ...] = ()  # dotted for nested fields; empty: the result's shape is unknown
    # Alternative sets of required parameters (a catalog skill's modes); empty: the `required` flags.
    signatures: tuple[tuple[str, ...], ...] = ()
    description: str = ""

    def param_for(self, argument: str) -> str | None:
        for param in self.params:
            if argument == param.name or argument in param.aliases:
                return param.name
        return None

    def missing(self, arguments: Iterable[str]) -> list[str]:
        """Required parameters absent from `arguments`, for the signature that lacks the fewest."""
        given = {self.param_for(a) for a in arguments}
        signatures = self.signatures or (tuple(p.name for p in self.params if p.required),)
        lacking = [[p for p in signature if p not in given] for signature in signatures]
        return min(lacking, key=len)


class ToolCatalog:
    def __init__(self, tools: Iterable[Tool], warnings: Iterable[str] = ()):
        self.tools = {tool.name: tool for tool in tools}
        self.warnings = tuple(warnings)  # what reading the specs had to guess or leave out
        self._by_norm = {norm(name): tool for name, tool in self.tools.items()}

    def __len__(self) -> int:
        return len(self.tools)

    def get(self, name: str) -> Tool | None:
        return self.tools.get(name)

    def closest(self, name: str) -> Tool | None:
        """The real tool a made-up name most likely meant (`Tripadvisor_Search_Hotels`), if any."""
        key = norm(name)
        if key in self._by_norm:
            return self._by_norm[key]
        close = difflib.get_close_matches(key, list(self._by_norm), n=1, cutoff=TOOL_MATCH)
        return self._by_norm[close[0]] if close else None
