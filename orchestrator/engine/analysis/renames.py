"""Choosing what a broken call meant: the tool behind a made-up name, the parameter behind a
made-up argument, and a value for a required parameter left out.

Each choice weighs several kinds of evidence through `matching`: names and their abbreviations,
the specs' descriptions, types, the arguments the call gives, the fields later calls read from
its result, and the words of the user's request. A choice is made only when the evidence
clears a cutoff; otherwise the repair drops the made-up argument, removes the call to a made-up
tool (reported as not fixed), or leaves the required parameter missing (still flagged).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from . import matching
from . import references as refs
from .tools import ParamRule, Tool, ToolCatalog
from .tools import norm as tools_norm

PARAM_CUTOFF = 0.5
TOOL_CUTOFF = 0.55
TOOL_SHORTLIST = 5
REQUIRED_BONUS = 0.15  # a required parameter the call leaves empty is the likeliest home for a stray argument


def _candidate(param: ParamRule) -> matching.Candidate:
    return matching.Candidate(param.name, param.description, param.type, param.enum)


def parameter_names(arguments: Mapping[str, Any], tool: Tool) -> dict[str, str]:
    """Made-up argument -> the free parameter of `tool` it most likely meant."""
    given = {tool.param_for(a) for a in arguments} - {None}
    strays = [a for a in arguments if tool.param_for(a) is None]
    free = [p for p in tool.params if p.name not in given]
    if not strays or not free:
        return {}
    missing = set(tool.missing(arguments))
    pairs = []
    for arg in strays:
        value = arguments[arg]
        field = _referenced_field(value)
        for param in free:
            score = matching.score(arg, _candidate(param), value)
            if field:  # `id="$var1.business_id$"`: the field read says what the argument is
                score = max(score, 0.9 * matching.name_similarity(field, param.name))
            if param.name in missing:
                score += REQUIRED_BONUS
            if score >= PARAM_CUTOFF:
                pairs.append((arg, param.name, score))
    names = matching.assign(pairs)
    # One stray and one required parameter left empty, of a fitting type: nothing else fits better.
    left = [a for a in strays if a not in names]
    empty = [p for p in free if p.name in missing and p.name not in names.values()]
    if len(left) == 1 and len(empty) == 1 and matching.type_fits(arguments[left[0]], empty[0].type):
        names[left[0]] = empty[0].name
    return names


def _referenced_field(value: Any) -> str | None:
    if not refs.is_whole_reference(value):
        return None
    ref = next(refs.in_text(value))
    return ref.path.rsplit(".", 1)[-1] if ref.path else None


def tool_for(name: str, arguments: Mapping[str, Any], fields_read: Iterable[str], tools: ToolCatalog) -> Tool | None:
    """The real tool a call to the made-up `name` meant, judged by name, description, the
    arguments it was given and the fields later calls read from its result."""
    exact = tools.closest(name)
    if exact is not None:
        return exact
    args = list(arguments)
    read = list(dict.fromkeys(fields_read))
    # A cheap pass (names compared exactly) picks a few contenders; only they get the fuzzy one.
    rough = sorted(tools.tools.values(), key=lambda t: -_tool_score(name, args, read, t, fuzzy=False))[:TOOL_SHORTLIST]
    scored = [(_tool_score(name, args, read, tool, fuzzy=True), -i, tool) for i, tool in enumerate(rough)]
    if not scored:
        return None
    score, _, tool = max(scored, key=lambda s: s[:2])
    return tool if score >= TOOL_CUTOFF else None


def _tool_score(name: str, args: Sequence[str], read: Sequence[str], tool: Tool, fuzzy: bool) -> float:
    if fuzzy:
        by_name = max(matching.name_similarity(name, tool.name),
                      0.8 * matching.description_similarity(name, tool.description))
    else:  # words in common with the tool's name or description, exactly
        written = set(matching.words(name))
        by_name = len(written & _vocabulary(tool.name, tool.description)) / max(len(written), 1)
    evidence = [by_name]
    if args:
        evidence.append(_share(args, [p.name for p in tool.params], fuzzy))
    if read and tool.outputs:  # outputs are many (dozens of nested fields): by exact leaf name only
        leaves = _leaves(tool.outputs)
        evidence.append(sum(tools_norm(r.rsplit(".", 1)[-1]) in leaves for r in read) / len(read))
    return sum(evidence) / len(evidence)


@lru_cache(maxsize=4096)
def _vocabulary(name: str, description: str) -> frozenset[str]:
    return frozenset(matching.words(name)) | frozenset(matching.words(description))


@lru_cache(maxsize=4096)
def _leaves(outputs: tuple[str, ...]) -> frozenset[str]:
    return frozenset(tools_norm(o.rsplit(".", 1)[-1]) for o in outputs)


def _share(wanted: Sequence[str], have: Sequence[str], fuzzy: bool = True) -> float:
    """How many of `wanted` names `have` holds (exactly, or by name similarity), as a share."""
    exact = set(have)
    return sum(w in exact or fuzzy and any(matching.name_similarity(w, h) >= 0.8 for h in have)
               for w in wanted) / len(wanted)


_QUOTED = re.compile(r"""['"“‘]([^'"”’]{1,80})['"”’]""")
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")


_CONSTANT = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")  # CURRENCY_EXCHANGE_RATE


def value_from_request(param: ParamRule, request: str, used: Iterable[Any]) -> Any | None:
    """A literal for a required parameter left out, when the spec or the user's request states
    it plainly: the one constant the description spells out (`(In this case
    CURRENCY_EXCHANGE_RATE)`), the one allowed value, one of the allowed values the request
    names, or the one date, number or quoted phrase of the request that no other argument
    already uses. None when it is not that clear."""
    constants = list(dict.fromkeys(_CONSTANT.findall(param.description)))
    if len(constants) == 1:
        return constants[0]
    if len(param.enum) == 1:
        return param.enum[0]
    if not request:
        return None
    taken = {str(v) for v in used}
    lowered = request.lower()
    named = [v for v in param.enum if v.lower() in lowered and v not in taken]
    if len(named) == 1:
        return named[0]
    kind = param.type.lower()
    about = f"{param.name} {param.description}".lower()
    if "date" in about:
        found = [d for d in dict.fromkeys(_DATE.findall(request)) if d not in taken]
    elif kind in matching.NUMBER_TYPES:
        found = [n for n in dict.fromkeys(_NUMBER.findall(request)) if n not in taken]
        found = [float(n) if "." in n else int(n) for n in found]
    else:
        found = [q for q in dict.fromkeys(_QUOTED.findall(request)) if q not in taken]
    return found[0] if len(found) == 1 else None
