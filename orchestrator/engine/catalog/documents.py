"""Reading documents from strangers (catalogs, tool specs, recorded calls, request bodies) safely.

The parsers of the standard library and PyYAML recurse once per nesting level and turn digits into
integers without bound, so a document of brackets or of one 5,000-digit number breaks them with
an error that is not theirs to report (RecursionError, ValueError). Here every such document is an
`Unreadable` with a message for the user, and what was read is held to a nesting depth that the
rest of the engine handles. A NUL character or a lone surrogate cannot be stored (PostgreSQL
refuses both), so `text_faults` finds them, with their path, before anything is saved.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import yaml

MAX_DEPTH = 64


class Unreadable(ValueError):
    """A document that cannot be read; `where` is a line and column, or a path, when known."""

    def __init__(self, message: str, where: str = ""):
        super().__init__(message)
        self.where = where


def load_json(text: str) -> Any:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise Unreadable(f"malformed JSON: {exc.msg}", f"line {exc.lineno}, column {exc.colno}") from None
    except RecursionError:
        raise Unreadable(f"the document nests deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # an integer longer than Python converts (4,300 digits)
        raise Unreadable(f"a number is too long: {exc}") from None
    return within_depth(data)


# libyaml's C loader reads a large catalog several times faster than the pure-Python one, but it
# recurses on the C stack with no limit: a document of 100,000 brackets crashes the process. It
# reads only documents that cannot nest deeper than this; the rest go to the Python loader, whose
# recursion ends in a RecursionError reported as too deep.
_C_LOADER = getattr(yaml, "CSafeLoader", None)
_C_LOADER_MAX_NESTING = 1_000


_FLOW_BRACKETS = re.compile(r"[\[\]{}]")


def nesting_bound(text: str) -> int:
    """An upper bound on how deep a YAML document nests, from its text alone.

    A node one level deeper sits on a line indented further, or follows an indicator on the same
    line (`- `, `key:`, `? `), or opens a flow collection (`[`, `{`) that may span lines; so the
    indentation plus the indicators of any line, plus the flow brackets still open, bound it.
    """
    deepest = 0
    for line in text.splitlines():
        content = line.lstrip(" ")
        indicators = content.count("-") + content.count(":") + content.count("?")
        deepest = max(deepest, len(line) - len(content) + indicators)
    flow, flow_max = 0, 0
    for bracket in _FLOW_BRACKETS.findall(text):
        flow += 1 if bracket in "[{" else -1
        flow_max = max(flow_max, flow)
    return deepest + flow_max + 1


def load_yaml(text: str) -> Any:
    loader = _C_LOADER if _C_LOADER and nesting_bound(text) <= _C_LOADER_MAX_NESTING else yaml.SafeLoader
    try:
        data = yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader, C or Python
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise Unreadable(f"malformed YAML: {problem}", where) from None
    except RecursionError:
        raise Unreadable(f"the document nests deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:
        raise Unreadable(f"a value cannot be read: {exc}") from None
    return within_depth(data)


def within_depth(data: Any, limit: int = MAX_DEPTH) -> Any:
    """`data` itself; Unreadable if its lists and mappings nest deeper than `limit` (walked without recursion)."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    seen: set[int] = set()  # YAML anchors make shared (even cyclic) nodes; each is walked once
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list | tuple):
            if depth > limit:
                raise Unreadable(f"the document nests deeper than {limit} levels")
            if id(node) in seen:
                continue
            seen.add(id(node))
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, depth + 1) for child in children)
    return data


def text_faults(data: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """(path, message) for every string, key or value, holding a NUL character or a lone surrogate."""
    # Looked for first without paths: building one for every node of a large catalog, to use
    # none of them, was most of the checks' time on each save.
    if not any(_text_fault(text) for text in _texts(data)):
        return
    stack: list[tuple[Any, str]] = [(data, path)]
    while stack:
        node, at = stack.pop()
        if isinstance(node, str):
            fault = _text_fault(node)
            if fault:
                yield at, fault
        elif isinstance(node, dict):
            for key, value in reversed(node.items()):  # reversed on the stack: reported in document order
                child = f"{at}.{key}" if at else str(key)
                if isinstance(key, str) and _text_fault(key):
                    yield child, f"the key {_text_fault(key)}"
                stack.append((value, child))
        elif isinstance(node, list | tuple):
            stack.extend((item, f"{at}[{i}]") for i, item in reversed(list(enumerate(node))))


def _texts(data: Any) -> Iterator[str]:
    """Every string in `data`, keys and values, in no particular order."""
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            yield node
        elif isinstance(node, dict):
            yield from (key for key in node if isinstance(key, str))
            stack.extend(node.values())
        elif isinstance(node, list | tuple):
            stack.extend(node)


def _text_fault(text: str) -> str | None:
    if "\x00" in text:
        return "contains a NUL character"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "contains a lone surrogate (text that is not Unicode)"
    return None
