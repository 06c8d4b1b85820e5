"""Which real name a made-up one meant: names, abbreviations, descriptions and types together.

Spelling alone cannot tell that `dt` is `date`, that `lang` is `language` and not `lng`
(longitude), or that `search` is the `query` parameter ("Search query for location"). Here a
written name is compared with each candidate through its words:

- name words: equal, one abbreviating the other (`dt`/`date`, `qty`/`quantity`, `lang`/`language`:
  same first letter, the short word's letters in order in the long one), or close in spelling
  (character trigrams);
- description words: the written name's words found in what the candidate is said to do;
- type: a number given to a string-only parameter (or the reverse) counts against it.

Pure Python, no model: fast enough to run on every call (microseconds), and every score can be
explained by the words it came from. `score` compares one pair, `best` picks among candidates.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

NUMBER_TYPES = {"integer", "number", "int", "float", "double"}
STOP = {"the", "a", "an", "of", "to", "for", "in", "on", "by", "and", "or", "is", "be", "with", "from", "e", "g",
        "eg", "this", "that", "it", "its", "as", "at", "which", "can", "will", "are", "was", "if", "optional"}


@dataclass(frozen=True)
class Candidate:
    name: str
    description: str = ""
    type: str = ""
    enum: tuple[str, ...] = ()


@lru_cache(maxsize=8192)
def words(text: str) -> tuple[str, ...]:
    """`originSkyId` -> (origin, sky, id); `max_results` -> (max, results); digits kept apart."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    spaced = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", spaced)
    return tuple(w.lower() for w in re.split(r"[^A-Za-z0-9]+", spaced) if w)


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    for suffix in ("ies", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def abbreviation(short: str, long: str) -> float:
    """0.9 for a prefix (`q`/`query`, `lang`/`language`), 0.8 for a skeleton (`dt`/`date`,
    `ctry`/`country`: the short word's letters in order in the long one), else 0."""
    if len(short) >= len(long) or not short or short[0] != long[0]:
        return 0.0
    if long.startswith(short):
        return 0.9
    rest = iter(long[1:])
    return 0.8 if len(short) >= 2 and all(c in rest for c in short[1:]) else 0.0


def abbreviates(short: str, long: str) -> bool:
    return abbreviation(short, long) > 0


@lru_cache(maxsize=65536)
def _trigrams(word: str) -> frozenset[str]:
    padded = f"  {word} "
    return frozenset(padded[i:i + 3] for i in range(len(padded) - 2))


@lru_cache(maxsize=65536)
def word_similarity(a: str, b: str) -> float:
    if a == b or _stem(a) == _stem(b):
        return 1.0
    short = max(abbreviation(a, b), abbreviation(b, a))
    if short:
        return short
    x, y = _trigrams(a), _trigrams(b)
    return len(x & y) / len(x | y)


@lru_cache(maxsize=65536)
def name_similarity(a: str, b: str) -> float:
    """Words of each name matched to their best counterpart in the other, both ways, averaged."""
    wa, wb = words(a), words(b)
    if not wa or not wb:
        return 0.0
    if "".join(wa) == "".join(wb):
        return 1.0
    whole = max(abbreviation("".join(wa), "".join(wb)), abbreviation("".join(wb), "".join(wa)))
    if whole:
        return whole
    forward = sum(max(word_similarity(x, y) for y in wb) for x in wa) / len(wa)
    backward = sum(max(word_similarity(y, x) for x in wa) for y in wb) / len(wb)
    return (forward + backward) / 2


@lru_cache(maxsize=65536)
def description_similarity(name: str, description: str) -> float:
    """The share of the name's words that the description uses (or abbreviates)."""
    wanted = [w for w in words(name) if w not in STOP]
    said = _said(description)
    if not wanted or not said:
        return 0.0
    hits = sum(1.0 if _stem(w) in said else 0.7 if any(abbreviates(w, s) for s in said) else 0.0 for w in wanted)
    return hits / len(wanted)


@lru_cache(maxsize=4096)
def _said(description: str) -> frozenset[str]:
    return frozenset(_stem(w) for w in words(description) if w not in STOP)


def type_fits(value: Any, kind: str) -> bool:
    """Whether a literal value suits a declared type; references and unknown types always do."""
    kind = kind.lower()
    if not kind or value is None or (isinstance(value, str) and "$" in value):
        return True
    if kind in NUMBER_TYPES:
        return isinstance(value, int | float) and not isinstance(value, bool) or _numeric(value)
    if kind == "boolean":
        return isinstance(value, bool) or str(value).lower() in ("true", "false")
    if kind == "array":
        return isinstance(value, list | tuple)
    if kind == "object":
        return isinstance(value, dict)
    if kind == "string":
        return not isinstance(value, list | tuple | dict)
    return True


def _numeric(value: Any) -> bool:
    try:
        float(str(value))
    except ValueError:
        return False
    return True


def score(written: str, candidate: Candidate, value: Any = None) -> float:
    """How likely `written` meant `candidate`, in [0, 1]: the better of name and description evidence."""
    by_name = name_similarity(written, candidate.name)
    by_description = 0.8 * description_similarity(written, candidate.description)
    # Either kind of evidence can carry a match; both together break ties (`lang`: `language`
    # over `lng`, whose description says longitude).
    result = max(by_name, by_description) + 0.15 * min(by_name, by_description)
    if not type_fits(value, candidate.type):
        result -= 0.4
    if candidate.enum and value is not None and not isinstance(value, list | dict) and str(value) in candidate.enum:
        result += 0.2  # the value is one the parameter takes
    return max(0.0, min(1.0, result))


def best(written: str, candidates: Iterable[Candidate], value: Any = None, cutoff: float = 0.5
         ) -> tuple[Candidate, float] | None:
    """The candidate `written` most likely meant, if it scores at least `cutoff`."""
    ranked = sorted(((score(written, c, value), i, c) for i, c in enumerate(candidates)), key=lambda t: (-t[0], t[1]))
    if not ranked or ranked[0][0] < cutoff:
        return None
    return ranked[0][2], ranked[0][0]


def assign(pairs: Sequence[tuple[str, str, float]]) -> dict[str, str]:
    """Written name -> candidate, greedily from the best-scoring pair, each used once."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    for written, target, _ in sorted(pairs, key=lambda p: -p[2]):
        if written not in out and target not in taken:
            out[written] = target
            taken.add(target)
    return out
