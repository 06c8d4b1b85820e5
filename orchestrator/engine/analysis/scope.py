"""What a call can refer to at its place in a sequence: earlier results (by label) and memory,
and which reference was most likely meant when one resolves to nothing.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from . import matching
from . import references as refs
from .references import REF
from .sequences import RESULT, ErrorType
from .tools import Tool
from .tools import norm as _norm

_VAR = re.compile(r"var\d+")  # NESTFUL's labels
FIELD_MATCH = 0.6  # how alike (by spelling) a written field must be to a real one to be taken for it


class Scope:
    """What a call can refer to: results of earlier calls (by label) and memory."""

    def __init__(self, memory: Mapping[str, Any]):
        self.fields: dict[str, tuple[str, ...] | None] = {}  # label -> its fields (None: shape unknown)
        self.items: set[str] = set()  # memory values referred to as `$name$`
        self.order: list[str] = []  # labels, most recent last
        self.dead: set[str] = set()  # labels of calls to tools that do not exist: they produced nothing
        for key, value in memory.items():
            if isinstance(value, Mapping):
                self._add(key, tuple(flatten(value)))
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
            if path is None or known is None or has_field(known, path):
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
            named = fitting_field(param, known, cutoff=1.0)  # a field named as the parameter
            if named:
                return f"${label}.{named}$"
            # A specific field name (`short_name`, not `id`) that another result has exactly:
            # the label is the slip, not the field.
            if len(matching.words(path)) > 1 or len(path) >= 5:
                for other, fields in self.producers():
                    hit = next((f for f in fields if _norm(f) == _norm(path)), None)
                    if other != label and hit:
                        return f"${other}.{hit}$"
            close = closest(path, known, FIELD_MATCH) or fitting_field(param, known)
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
        for label, fields in self.producers():  # `cik` from `company.cik`: a field one level down
            nested = [f for f in fields if "." in f and _norm(f.rsplit(".", 1)[-1]) == key]
            if len(nested) == 1:
                return f"${label}.{nested[0]}$"
        # `originEntityId` from an `entityId`: of the results that have one, prefer the result its
        # siblings (`originSkyId`, same prefix) already come from.
        partial = [(label, f) for label, fields in self.producers() for f in fields
                   if len(_norm(f)) > 1 and key.endswith(_norm(f)) and key != _norm(f)]
        if not partial:
            return None
        for label, found in partial:
            prefix = key[: -len(_norm(found))]
            siblings = [v for k, v in arguments.items() if _norm(k).startswith(prefix) and isinstance(v, str)]
            if any(ref[0] == label for value in siblings for ref in REF.findall(value)):
                return f"${label}.{found}$"
        label, found = partial[0]
        return f"${label}.{found}$"


def fitting_field(param: str, fields: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The field whose last name best fits the parameter it would fill (`entityId` for `destinationEntityId`)."""
    scored = sorted(((matching.name_similarity(param, f.rsplit(".", 1)[-1]), -f.count("."), f) for f in fields),
                    reverse=True)
    if not scored or scored[0][0] < cutoff or (len(scored) > 1 and scored[1][:2] == scored[0][:2]):
        return None  # nothing close, or a tie the names cannot break
    return scored[0][2]


def flatten(value: Mapping[str, Any], prefix: str = "", depth: int = 0) -> Iterator[str]:
    for key, inner in value.items():
        name = f"{prefix}{key}"
        yield name
        if isinstance(inner, Mapping) and depth < 5:
            yield from flatten(inner, f"{name}.", depth + 1)


def has_field(fields: tuple[str, ...], path: str) -> bool:
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


def closest(name: str, choices: Iterable[str], cutoff: float) -> str | None:
    by_norm = {_norm(c): c for c in choices}
    key = _norm(name)
    if key in by_norm:
        return by_norm[key]
    close = difflib.get_close_matches(key, list(by_norm), n=1, cutoff=cutoff)
    return by_norm[close[0]] if close else None


def closed_references(value: Any) -> Iterator[tuple[str, str | None, str]]:
    """(label, field path or None, reference text) of every closed reference in a value."""
    return ((r.label, r.path, r.text) for r in refs.in_value(value) if r.closed)


_map_strings = refs.map_strings
