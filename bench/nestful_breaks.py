"""Sequences broken on purpose from NESTFUL's gold ones, by undoing the fixes people make.

Four kinds, each applied once to one call of a gold sequence (seeded, so every run breaks the
same way):

- `rename_parameter`: an argument's name rewritten as a model might write it: snake or camel
  case swapped, shortened (`date` -> `dt`, `query` -> `q`), or a common synonym (`word` ->
  `text`, `location` -> `city`); never to a name the tool already has;
- `drop_argument`: a required argument left out (its value is lost with it);
- `break_reference`: a reference pointed at the wrong result, or at a field the result lacks
  (`$var1.geoId$` -> `$var1.geo_id$` / `$var1.id$`), or left without its closing `$`;
- `swap_tool`: the tool's name rewritten as a made-up near name (a word swapped for a synonym,
  a word dropped, separators changed: `create_todo` -> `create_task`).

A break that leaves the sequence sound (every name and reference still resolves) is drawn
again: it is a different sequence, not an error a check of the calls can see.

The rewrite tables below are generic English and naming habits, written before looking at what
the analyser gets wrong, and not drawn from the repair code: the repair does not import them.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from orchestrator.engine.analysis.references import REF
from orchestrator.engine.analysis.tools import ToolCatalog
from orchestrator.engine.analysis.trajectories import RESULT, Call, Sample, tag_calls

KINDS = ("rename_parameter", "drop_argument", "break_reference", "swap_tool")

SHORT = {"date": "dt", "query": "q", "number": "num", "identifier": "id", "location": "loc", "message": "msg",
         "amount": "amt", "quantity": "qty", "description": "desc", "information": "info", "address": "addr",
         "category": "cat", "temperature": "temp", "maximum": "max", "minimum": "min", "language": "lang",
         "password": "pwd", "count": "cnt", "time": "tm", "name": "nm", "keyword": "kw", "country": "ctry"}
SYNONYMS = {"word": "term", "text": "content", "location": "place", "city": "town", "title": "name",
            "query": "search", "keyword": "term", "message": "text", "amount": "value", "price": "cost",
            "create": "make", "get": "fetch", "search": "find", "find": "search", "todo": "task",
            "task": "todo", "calculate": "compute", "send": "post", "book": "reserve", "check": "verify",
            "generate": "make", "list": "show", "convert": "transform", "delete": "remove", "add": "insert",
            "details": "info", "start": "begin", "end": "finish", "email": "mail", "user": "person",
            "recipient": "to", "symbol": "ticker", "movie": "film", "restaurant": "eatery", "date": "day"}


@dataclass(frozen=True)
class Broken:
    kind: str
    gold: Sample
    sample: Sample


def _words(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [w.lower() for w in re.split(r"[^A-Za-z0-9]+", spaced) if w]


def _camel(words: Sequence[str]) -> str:
    return words[0] + "".join(w.title() for w in words[1:])


def _variants(name: str, synonyms: dict[str, str]) -> list[str]:
    words = _words(name)
    camel = "_" not in name and any(c.isupper() for c in name)
    join = _camel if camel else "_".join
    found = []
    for i, word in enumerate(words):
        for table in (SHORT, synonyms):
            if word in table:
                found.append(join([*words[:i], table[word], *words[i + 1:]]))
    if len(words) > 1:
        found.append("_".join(words) if camel else _camel(words))  # the other naming style
        found.append(join(words[1:]))  # a word dropped: `get_word_definition` -> `word_definition`
    return [f for f in dict.fromkeys(found) if f and f != name]


def _rename_parameter(calls: list[Call], tools: ToolCatalog, rng: random.Random) -> list[Call] | None:
    options = []
    for k, call in enumerate(calls):
        tool = tools.get(call.name)
        if tool is None:
            continue
        names = {p.name for p in tool.params}
        for arg in call.arguments:
            options += [(k, arg, new) for new in _variants(arg, SYNONYMS) if new not in names]
    if not options:
        return None
    k, arg, new = rng.choice(options)
    call = calls[k]
    calls[k] = replace(call, arguments={(new if a == arg else a): v for a, v in call.arguments.items()})
    return calls


def _drop_argument(calls: list[Call], tools: ToolCatalog, rng: random.Random) -> list[Call] | None:
    options = []
    for k, call in enumerate(calls):
        tool = tools.get(call.name)
        if tool is not None:
            options += [(k, p.name) for p in tool.params if p.required and p.name in call.arguments]
    if not options:
        return None
    k, arg = rng.choice(options)
    calls[k] = replace(calls[k], arguments={a: v for a, v in calls[k].arguments.items() if a != arg})
    return calls


def _break_reference(calls: list[Call], tools: ToolCatalog, rng: random.Random) -> list[Call] | None:
    options = [(k, arg) for k, call in enumerate(calls) for arg, value in call.arguments.items()
               if isinstance(value, str) and REF.fullmatch(value) and "." in value]
    if not options:
        return None
    k, arg = rng.choice(options)
    value = calls[k].arguments[arg]
    match = REF.fullmatch(value)
    assert match is not None
    label, path = match[1], match[2].lstrip(".")
    labels = [c.label for c in calls[:k] if c.label and c.label != label]
    way = rng.choice(["label", "field", "generic", "unclosed"] if labels else ["field", "generic", "unclosed"])
    if way == "label":
        broken = f"${rng.choice(labels)}.{path}$"
    elif way == "field":
        broken = f"${label}.{_variants(path, {})[0] if _variants(path, {}) else path + 's'}$"
    elif way == "generic":  # the field a model reaches for when it does not know the right one
        broken = f"${label}.{'id' if path != 'id' else 'result'}$"
    else:
        broken = value[:-1]
    calls[k] = replace(calls[k], arguments={**calls[k].arguments, arg: broken})
    return calls


def _swap_tool(calls: list[Call], tools: ToolCatalog, rng: random.Random) -> list[Call] | None:
    options = [(k, new) for k, call in enumerate(calls) if call.name != RESULT
               for new in _variants(call.name, SYNONYMS) if tools.get(new) is None]
    if not options:
        return None
    k, new = rng.choice(options)
    calls[k] = replace(calls[k], name=new)
    return calls


BREAKERS = {"rename_parameter": _rename_parameter, "drop_argument": _drop_argument,
            "break_reference": _break_reference, "swap_tool": _swap_tool}


def break_all(golds: Sequence[Sample], tools: ToolCatalog, seed: int = 16) -> tuple[list[Broken], int]:
    """One broken copy of every gold sequence per kind, where that kind applies; and the count of
    attempts dropped because they left a sequence that is still sound (`$var2.name$` for
    `$var1.name$` when both results have a `name`): no check of the calls alone can see those,
    so they are retried (up to 5 times) rather than counted as misses or as catches.
    """
    rng = random.Random(seed)
    out, sound = [], 0
    for gold in golds:
        for kind in KINDS:
            for _ in range(5):
                calls = BREAKERS[kind](list(gold.calls), tools, rng)
                if calls is None:
                    break
                if tuple(calls) == gold.calls:
                    continue
                if not tag_calls(calls, tools, gold.memory):
                    sound += 1
                    continue
                out.append(Broken(kind, gold, replace(gold, calls=tuple(calls))))
                break
    return out, sound
