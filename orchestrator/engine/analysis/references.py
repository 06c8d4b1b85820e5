"""References inside argument values: `$var1$`, `$var1.geoId$`, `$var1.results[0].id$`.

A reference names an earlier result (or a memory item) by its label, then optionally a path into
it: dotted fields, which may hold spaces (`$var2.Exchange Rate$`), and list indexes (`[0]`). A
label starts with a letter or `_`, so money written with dollar signs (`"$100-$200"`) is plain
text, never a reference. A reference whose closing `$` is missing (`"$var1.artist_id"`) is found
separately, so it can be flagged and closed instead of passing as text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

_LABEL = r"[A-Za-z_][\w-]*"
_PATH = r"(?:\.[^$.\[\]]+|\[\d+\])*"
REF = re.compile(rf"\$({_LABEL})({_PATH})\$")
# After the closed references are taken out: `$label.path` running to a space or the end.
_OPEN = re.compile(rf"\$({_LABEL})((?:\.[\w-]+|\[\d+\])*)(?=[\s,;)]|$)")
_INDEX = re.compile(r"\[\d+\]")
_LABEL_AS_REFERENCE = re.compile(rf"\$({_LABEL})\$?")
MAX_DEPTH = 10


@dataclass(frozen=True)
class Ref:
    label: str
    path: str | None  # dotted fields without indexes (`results.id`), None for the whole result
    text: str  # as written, `$var1.results[0].id$`
    closed: bool = True


def bare_label(label: str) -> str:
    """A call's label as later references name it: `$var1` or `$var1$` (written the way a reference is)
    is `var1`; any other label is itself."""
    match = _LABEL_AS_REFERENCE.fullmatch(label)
    return match.group(1) if match else label


def field_path(raw: str) -> str | None:
    """`.results[0].id` -> `results.id`: indexes say which item, not which field."""
    parts = [p for p in _INDEX.sub("", raw).split(".") if p]
    return ".".join(parts) or None


def in_text(text: str) -> Iterator[Ref]:
    """The references of one string: the closed ones, then any left without a closing `$`."""
    for match in REF.finditer(text):
        yield Ref(match[1], field_path(match[2]), match[0])
    rest = REF.sub(" ", text)
    for match in _OPEN.finditer(rest):
        yield Ref(match[1], field_path(match[2]), match[0], closed=False)


def in_value(value: Any, depth: int = 0) -> Iterator[Ref]:
    """Every reference in an argument value, looking into lists and objects."""
    if isinstance(value, str):
        yield from in_text(value)
    elif isinstance(value, Mapping) and depth < MAX_DEPTH:
        for inner in value.values():
            yield from in_value(inner, depth + 1)
    elif isinstance(value, list | tuple) and depth < MAX_DEPTH:
        for inner in value:
            yield from in_value(inner, depth + 1)


def map_strings(value: Any, change: Callable[[str], str], depth: int = 0) -> Any:
    if isinstance(value, str):
        return change(value)
    if isinstance(value, Mapping) and depth < MAX_DEPTH:
        return {k: map_strings(v, change, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple) and depth < MAX_DEPTH:
        return [map_strings(v, change, depth + 1) for v in value]
    return value


def relabel(text: str, rename: Mapping[str, str]) -> str:
    """`text` with each reference's label renamed (closed references only)."""
    return REF.sub(lambda m: f"${rename.get(m[1], m[1])}{m[2]}$", text)


def is_whole_reference(value: Any) -> bool:
    return isinstance(value, str) and REF.fullmatch(value) is not None


def close_open(text: str, known: Callable[[str], bool]) -> str:
    """`text` with the closing `$` added to each unclosed reference to a label `known` accepts."""
    out, last = [], 0
    for match in [*REF.finditer(text), None]:
        end = match.start() if match else len(text)
        gap = text[last:end]
        out.append(_OPEN.sub(lambda m: f"{m[0]}$" if known(m[1]) else m[0], gap))
        if match:
            out.append(match[0])
            last = match.end()
    return "".join(out)


def keep_indexes(suggested: str, written: str) -> str:
    """`$var1.author.id$` suggested for `$var1.author[0].idd$`: the indexes written stay where
    the same field stays (`$var1.author[0].id$`), since a fix of a name is not a fix of which item."""
    new, old = REF.fullmatch(suggested), REF.fullmatch(written)
    if new is None or old is None or new[1] != old[1] or "[" not in old[2]:
        return suggested
    indexed = {}
    for position, part in enumerate(p for p in old[2].split(".") if p):
        name, _, rest = part.partition("[")
        if rest:
            indexed[(position, name)] = "[" + rest
    parts = [p for p in new[2].split(".") if p]
    kept = [part + indexed.get((position, part), "") for position, part in enumerate(parts)]
    return f"${new[1]}.{'.'.join(kept)}$" if kept else suggested
