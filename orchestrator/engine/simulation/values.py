"""Values simulated users give: drawn per format when a scenario lists none, and written other ways.

Generated values always fit the element's format; `other_format` writes one differently, as people
do ("$40,000" or "40k" for 40000.00, an SSN without its dashes), which an assistant may or may not read.
"""

from __future__ import annotations

import math
import random
import re
from datetime import date, timedelta

from ..catalog.formats import Format, kind_of, parse_format
from ..catalog.spec import Element

FIRST = ("ada", "grace", "alan", "katherine", "edsger", "barbara", "donald", "margaret", "linus", "frances")
LAST = ("lovelace", "hopper", "turing", "johnson", "dijkstra", "liskov", "knuth", "hamilton", "torvalds", "allen")
STREETS = ("High Street", "Station Road", "Church Lane", "Mill Road", "Park Avenue")

# The regular expressions a value can be generated from: literals, \d, classes and {n} / {a,b}.
_ATOM = re.compile(r"\\d|\[[^\]]+\]|\\.|[^\\\[\]{}()|*+?.^$]")
_QUANTITY = re.compile(r"\{(\d+)(?:,(\d+))?\}")


def _regex_parts(pattern: str) -> list[tuple[str, int, int]] | None:
    """(atom, least, most) triples, or None when the pattern uses more than this generator knows."""
    body = pattern.removeprefix("^").removesuffix("$")
    parts, at = [], 0
    while at < len(body):
        atom = _ATOM.match(body, at)
        if atom is None:
            return None
        at = atom.end()
        quantity = _QUANTITY.match(body, at)
        least = most = 1
        if quantity:
            least = int(quantity.group(1))
            most = int(quantity.group(2) or least)
            at = quantity.end()
        parts.append((atom.group(0), least, most))
    return parts


def _class_chars(atom: str) -> str:
    if atom == "\\d":
        return "0123456789"
    if atom.startswith("\\"):
        return atom[1]
    if not atom.startswith("["):
        return atom
    chars, inner, i = "", atom[1:-1], 0
    while i < len(inner):
        if i + 2 < len(inner) and inner[i + 1] == "-":
            chars += "".join(chr(c) for c in range(ord(inner[i]), ord(inner[i + 2]) + 1))
            i += 3
        else:
            chars += inner[i]
            i += 1
    return chars


def can_generate(element: Element) -> bool:
    fmt = parse_format(element.format)
    return not fmt.is_regex or _regex_parts(fmt.pattern) is not None


def _bounded(parsed: Format, rng: random.Random) -> str:
    """An amount or a number inside the format's bounds (`money:1000..50000`)."""
    low = parsed.lower if parsed.lower is not None else 0.0
    high = parsed.upper if parsed.upper is not None else low + 100_000
    if parsed.kind == "number":
        return str(rng.randint(math.ceil(low), max(math.ceil(low), math.floor(high))))
    return f"{rng.uniform(low, high):.2f}"


def generate(element: Element, rng: random.Random) -> str:
    """A value of the element's format (the caller checked `can_generate`)."""
    parsed = parse_format(element.format)
    fmt = parsed.kind or "text"
    if fmt == "email":
        return f"{rng.choice(FIRST)}.{rng.choice(LAST)}{rng.randint(1, 99)}@example.com"
    if fmt in ("money", "number") and (parsed.lower is not None or parsed.upper is not None):
        return _bounded(parsed, rng)
    if fmt == "money":
        return f"{rng.randint(2, 200) * 500}.00"
    if fmt == "number":
        return str(rng.randint(1, 999))
    if fmt == "date":
        if parsed.when == "future":
            return (date.today() + timedelta(days=rng.randint(1, 90))).isoformat()
        return f"{rng.randint(1950, 2005)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    if fmt == "phone":
        return f"+1 555 01{rng.randint(10, 99)}"
    if parsed.is_enum:
        return rng.choice(parsed.options)
    if parsed.is_regex:
        parts = _regex_parts(parsed.pattern) or []
        return "".join(rng.choice(_class_chars(atom)) for atom, least, most in parts
                       for _ in range(rng.randint(least, most)))
    if element.name == "name":
        return f"{rng.choice(FIRST).title()} {rng.choice(LAST).title()}"
    if element.name == "address":
        return f"{rng.randint(1, 99)} {rng.choice(STREETS)}, London"
    return f"{element.name.replace('_', ' ')} {rng.randint(1, 999)}"


MONEY = re.compile(r"^(\d+)\.00$")
SSN = re.compile(r"^(\d{3})-(\d{2})-(\d{4})$")


def other_format(element: Element, value: str, rng: random.Random) -> str | None:
    """The value written another way, or None when there is no other usual way for it."""
    money = MONEY.match(value)
    if money:
        amount = int(money.group(1))
        choices = [f"${amount:,}", f"{amount:,} dollars"]
        if amount % 1000 == 0:
            choices.append(f"{amount // 1000}k")
        return rng.choice(choices)
    ssn = SSN.match(value)
    if ssn:
        return " ".join(ssn.groups())  # no dashes: a format the assistant may not read
    if kind_of(element.format) == "email":
        return value.upper()
    if parse_format(element.format).is_enum:
        return f"the {value} one"
    return None


def typo(text: str, rng: random.Random, keep: str = "") -> str:
    """`text` with two neighbouring letters of one word swapped; the value `keep` is left alone."""
    words = text.split(" ")
    candidates = [i for i, w in enumerate(words) if len(w) >= 4 and w.isalpha() and w not in keep]
    if not candidates:
        return text
    i = rng.choice(candidates)
    word = words[i]
    at = rng.randrange(len(word) - 1)
    words[i] = word[:at] + word[at + 1] + word[at] + word[at + 2:]
    return " ".join(words)
