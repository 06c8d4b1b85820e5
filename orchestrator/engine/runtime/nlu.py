"""Understanding an utterance: which intent it asks for, which control act it is, which values it gives.

The intent classifier is pluggable (`IntentClassifier`); the default is TF-IDF over the catalog's
example utterances, pure Python, with no model to download.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Protocol

from ..catalog.spec import CatalogSpec, Element
from .acts import control_act as control_act  # control acts live in acts.py; importable from here too

STOPWORDS = frozenset(
    "a an the i i'd i'm me my to for of and or please can could would like want need some is it be do you "
    "your with on in at this that how what".split()
)
TOKEN = re.compile(r"[a-z0-9]+")


def tokens(text: str) -> list[str]:
    words = TOKEN.findall(text.lower())
    return [_stem(w) for w in words if w not in STOPWORDS]


def _stem(word: str) -> str:
    # Enough for "loans" ~ "loan", "applying" ~ "apply": examples and users differ in such endings.
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


@dataclass(frozen=True)
class IntentGuess:
    intent: str
    score: float  # 0..1


class IntentClassifier(Protocol):
    # `context`: the catalog's own words about each intent (descriptions), for classifiers that use them.
    def fit(self, examples: Mapping[str, Sequence[str]], context: Mapping[str, Sequence[str]] | None = None) -> None:
        ...

    def rank(self, utterance: str) -> list[IntentGuess]: ...


class TfidfClassifier:
    """Cosine similarity between the utterance and each intent's examples, best example wins."""

    def __init__(self) -> None:
        self.idf: dict[str, float] = {}
        self.vectors: list[tuple[str, dict[str, float]]] = []

    def fit(self, examples: Mapping[str, Sequence[str]], context: Mapping[str, Sequence[str]] | None = None) -> None:
        # Descriptions are left out: TF-IDF would match their filler words ("the", "your") too eagerly.
        docs = [(intent, Counter(tokens(text))) for intent, texts in examples.items() for text in texts]
        df = Counter(word for _, counts in docs for word in counts)
        n = len(docs)
        self.idf = {word: math.log((1 + n) / (1 + count)) + 1 for word, count in df.items()}
        self.vectors = [(intent, self._vector(counts)) for intent, counts in docs if counts]

    def _vector(self, counts: Counter[str]) -> dict[str, float]:
        weights = {w: c * self.idf.get(w, 0.0) for w, c in counts.items()}
        norm = math.sqrt(sum(v * v for v in weights.values())) or 1.0
        return {w: v / norm for w, v in weights.items() if v}

    def rank(self, utterance: str) -> list[IntentGuess]:
        query = self._vector(Counter(tokens(utterance)))
        best: dict[str, float] = {}
        for intent, vector in self.vectors:
            score = sum(weight * vector.get(word, 0.0) for word, weight in query.items())
            best[intent] = max(best.get(intent, 0.0), score)
        return sorted((IntentGuess(i, s) for i, s in best.items()), key=lambda g: -g.score)


def mentioned_element(utterance: str, spec: CatalogSpec) -> str | None:
    """The element a "how"/"why" question is about: its name or description words in the text."""
    text = utterance.lower().replace("_", " ")
    for element in sorted(spec.elements, key=lambda e: -len(e.name)):
        if element.name.replace("_", " ") in text:
            return element.name
    return None


# --- Values by format -------------------------------------------------------------------------------

EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")
MONEY = re.compile(r"(?<![\w.])\$?\s?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?\s?(k|m|thousand|million)?\b", re.I)
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")
ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
PHONE = re.compile(r"\+?\d[\d\s().-]{6,}\d")
MULTIPLIERS = {"k": 1_000, "thousand": 1_000, "m": 1_000_000, "million": 1_000_000}


def extract_value(element: Element, utterance: str, whole_answer: bool = False) -> str | None:
    """A value for `element` in `utterance`, by the element's format, or None.

    `whole_answer` is set when the utterance answers a question about this element: then a
    free-text element takes the whole answer.
    """
    fmt = element.format or "text"
    if fmt == "email":
        match = EMAIL.search(utterance)
        return match.group(0).lower() if match else None
    if fmt == "money":
        return _money(utterance, need_unit=not whole_answer)
    if fmt == "number":
        match = NUMBER.search(utterance)
        return match.group(0) if match else None
    if fmt == "date":
        return _date(utterance)
    if fmt == "phone":
        match = PHONE.search(utterance)
        return re.sub(r"[^\d+]", "", match.group(0)) if match else None
    if fmt.startswith("regex:"):
        return _regex(fmt.removeprefix("regex:"), utterance)
    if fmt.startswith("enum:"):
        options = [o.strip() for o in fmt.removeprefix("enum:").split("|") if o.strip()]
        words = set(TOKEN.findall(utterance.lower()))
        found = [o for o in options if o.lower() in words]
        return found[0] if len(found) == 1 else None
    return utterance.strip() if whole_answer and utterance.strip() else None


SCALED = re.compile(r"\d\s?(k|m|thousand|million)\b", re.I)
CURRENCY = re.compile(r"[$€£]|\b(dollars?|euros?|pounds?|usd|eur|gbp)\b", re.I)


def _money(utterance: str, need_unit: bool) -> str | None:
    # Unasked, a bare number is not money: "123-45-6789" is no loan amount.
    if need_unit and not CURRENCY.search(utterance) and not SCALED.search(utterance):
        return None
    for match in MONEY.finditer(utterance):
        whole, cents, scale = match.groups()
        amount = float(whole.replace(",", "")) + (float(f"0.{cents}") if cents else 0.0)
        amount *= MULTIPLIERS.get((scale or "").lower(), 1)
        return f"{amount:.2f}"
    return None


def _date(utterance: str) -> str | None:
    match = ISO_DATE.search(utterance)
    if not match:
        return None
    try:
        return date(*map(int, match.groups())).isoformat()
    except ValueError:
        return None


def _regex(pattern: str, utterance: str) -> str | None:
    # Patterns are written for the whole value (`^...$`); look for it inside the utterance too.
    core = pattern.removeprefix("^").removesuffix("$")
    whole = re.fullmatch(pattern, utterance.strip())
    if whole:
        return whole.group(0)
    match = re.search(rf"(?<![\w-])(?:{core})(?![\w-])", utterance)
    return match.group(0) if match else None


def valid_value(element: Element, value: str) -> bool:
    """Does `value` fit the element's format? (A value given for one thing must not break another.)"""
    return extract_value(element, value, whole_answer=True) is not None


CLAUSE = re.compile(r",(?!\d{3}\b)|[;!?]|\.\s|\band\b|\bbut\b", re.I)  # not the comma of "30,000"


def extract_values(spec: CatalogSpec, utterance: str, skip: Iterable[str] = ()) -> dict[str, str]:
    """Values the user volunteered, for elements with a format precise enough to spot in free text."""
    skipped = set(skip)
    candidates = [e for e in spec.elements
                  if e.name not in skipped and e.askable and e.format not in (None, "text", "number")]
    values: dict[str, str] = {}
    for clause in CLAUSE.split(utterance):
        found: dict[str, list[str]] = {}
        for element in candidates:
            value = extract_value(element, clause)
            if value is not None:
                found.setdefault(value, []).append(element.name)
        said = set(tokens(clause))
        for value, names in found.items():
            if len(names) > 1:
                # "$20,000" fits income and loan amount alike: the clause's words decide ("a loan of").
                names = [n for n in names if said & set(tokens(n.replace("_", " ")))]
            if len(names) == 1 and names[0] not in values:
                values[names[0]] = value
    return values
