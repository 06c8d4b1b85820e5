"""Understanding an utterance: which intent it asks for, which control act it is, which values it gives.

The intent classifier is pluggable (`IntentClassifier`); the default is TF-IDF over the catalog's
example utterances, pure Python, with no model to download.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import Protocol

from ..catalog.formats import is_free_text, kind_of, parse_format
from ..catalog.spec import CatalogSpec, Element
from .acts import control_act as control_act  # control acts live in acts.py; importable from here too
from .amounts import MULTIPLIERS as MULTIPLIERS  # amounts live in amounts.py; importable from here too
from .amounts import _count, _in_digits, _money, _two_amounts
from .dates import _date as _date  # dates and patterns live in their own modules; importable from here too
from .dates import ambiguous_date as ambiguous_date
from .patterns import WRITTEN_INTERNATIONALLY, _enum, _looks_like_code, _phone, _regex, dialable
from .patterns import _linear as _linear
from .patterns import spoken_option as spoken_option
from .text import STOPWORDS as STOPWORDS  # words live in text.py; importable from here too
from .text import TOKEN, _tokens
from .text import tokens as tokens


@dataclass(frozen=True)
class IntentGuess:
    intent: str
    score: float  # 0..1, what intents are ranked by
    # The closest single example or phrase (0..1) when the classifier pools several into `score`:
    # whether anything fits at all is judged on it, on the same scale for every catalog.
    best: float | None = None


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
    """The element a "how"/"why" question is about: the one whose name, label or description is said
    at greatest length ("my email address" is the e-mail, not the postal address)."""
    text = f" {' '.join(TOKEN.findall(utterance.lower().replace('_', ' ')))} "
    best: tuple[int, str] | None = None
    for element in spec.elements:
        for phrase in _phrases(element):
            if f" {phrase} " in text and (best is None or len(phrase) > best[0]):
                best = (len(phrase), element.name)
    if best is None:  # "which plan did I choose": a description's last word, when no other element ends so
        heads = [(e.name, _phrases(e)[-1].split()[-1]) for e in spec.elements if _phrases(e)]
        said = [name for name, head in heads if len(head) > 2 and f" {head} " in text
                and sum(h == head for _, h in heads) == 1]
        return said[0] if len(said) == 1 else None
    return best[1]


DETERMINER = re.compile(r"^(?:your|the|a|an|my|our|their)\s+")


def _phrases(element: Element) -> list[str]:
    return list(_phrases_of(element.name, element.label, element.description))


@lru_cache(maxsize=4096)
def _phrases_of(name: str, label: str | None, description: str) -> tuple[str, ...]:
    names = [name.replace("_", " "), label or "", description]
    phrases = []
    for name in names:
        words = " ".join(TOKEN.findall(name.lower()))
        if words:
            phrases += [words, DETERMINER.sub("", words)]
    return tuple(p for p in dict.fromkeys(phrases) if p)


# --- Values by format -------------------------------------------------------------------------------

EMAIL = re.compile(r"[A-Za-z0-9._%+-]+(?:'[A-Za-z0-9._%+-]+)*@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")  # o'brien@...


def extract_value(element: Element, utterance: str, whole_answer: bool = False) -> str | None:
    """A value for `element` in `utterance`, by the element's format, or None.

    `whole_answer` is set when the utterance answers a question about this element: then a
    free-text element takes the whole answer.
    """
    parsed = parse_format(element.format)
    fmt = parsed.kind or "text"
    if fmt == "email":
        found = {m.lower() for m in EMAIL.findall(utterance)}
        return found.pop() if len(found) == 1 else None  # two addresses: which one is asked again
    if fmt in ("money", "number") and (_two_amounts(utterance) or _two_amounts(_in_digits(utterance))):
        return None  # "two or three", "between 100 and 200": which one is not ours to choose; asked again
    if fmt == "money":
        return _money(utterance, need_unit=not whole_answer) or _money(_in_digits(utterance),
                                                                       need_unit=not whole_answer)
    if fmt == "number":
        return _count(utterance)
    if fmt == "date":
        return _date(utterance, past=_happened(element) or parsed.when == "past", ahead=parsed.when == "future")
    if fmt == "phone":
        return _phone(utterance)
    if parsed.is_regex:
        return _regex(parsed.pattern, utterance)
    if parsed.is_enum:
        return _enum(list(parsed.options), utterance, close=whole_answer)
    return _free_text(element, utterance) if whole_answer and utterance.strip() else None


# Which way a place-like element points, by the words of its description or question: the answer
# "from London" to "where do you want to go?" names the wrong end of the trip, and "to Lisbon" means
# "Lisbon".
TOWARDS = frozenset("destination go going heading arrive arriving arrival".split())
AWAY = frozenset("origin leaving leave depart departing departure".split())
LEADING_DIRECTION = re.compile(r"^(to|towards|into|from|out of)\s+(?=\S)", re.I)


def _direction(element: Element) -> str | None:
    """"towards" for a destination, "away" for an origin, None for an element that is no place."""
    return _direction_of(element.name, element.description, element.question)


@lru_cache(maxsize=4096)
def _direction_of(name: str, description: str, question: str | None) -> str | None:
    said = [name.replace("_", " "), description, question or ""]
    words = set(TOKEN.findall(" ".join(said).lower()))
    # "where you are flying from" points away; "the code from your app" is no place at all
    away = words & AWAY or any(t.lower().rstrip(" ?.").endswith(" from") for t in said)
    return "away" if away else "towards" if words & TOWARDS else None


def _way(preposition: str) -> str:
    return "away" if preposition.lower() in ("from", "out of") else "towards"


def _free_text(element: Element, utterance: str) -> str | None:
    answer = utterance.strip()
    match = LEADING_DIRECTION.match(answer)
    pointing = _direction(element) if match else None
    if match is None or pointing is None:
        return answer
    return answer[match.end():] if _way(match.group(1)) == pointing else None


# A place named in a request: capitalised words after "to" or "from" ("fly to Rio de Janeiro on
# Friday"), not a day or a month ("move it to Friday").
PLACE = re.compile(r"\b(to|from)\s+((?:[A-Z][\w'-]*)(?:\s+(?:(?:de|do|da|del|la|le|upon|am|sur)\s+)?[A-Z][\w'-]*)*)")
NOT_PLACES = frozenset("i monday tuesday wednesday thursday friday saturday sunday january february march april may "
                       "june july august september october november december today tomorrow".split())


def _place(element: Element, clause: str) -> str | None:
    """The place a request names for a destination or origin element ("get to Lisbon next Friday")."""
    pointing = _direction(element)
    for match in PLACE.finditer(clause) if pointing else ():
        if _way(match.group(1)) == pointing and match.group(2).split()[0].lower() not in NOT_PLACES:
            return match.group(2)
    return None


# An element about something that has happened: its date without a year is the last one.
PAST = frozenset("birth born happened was were issued occurred received sent paid bought unwell started".split())


def valid_value(element: Element, value: str) -> bool:
    """Does `value` fit the element's format? (A value given for one thing must not break another.)"""
    return extract_value(element, value, whole_answer=True) is not None


# Not the comma of "30,000", nor the "and" of "six hundred and fifty".
CLAUSE = re.compile(r",(?!\d{3}\b)|[;!?]|\.\s|(?<!hundred )(?<!thousand )\band\b|\bbut\b", re.I)


def element_words(element: Element) -> set[str]:
    """The words that name an element in a sentence: its name's parts, its label and description."""
    return set(_element_words(element.name, element.label, element.description))


@lru_cache(maxsize=4096)
def _element_words(name: str, label: str | None, description: str) -> frozenset[str]:
    text = " ".join((name.replace("_", " "), label or "", description))
    return frozenset(_tokens(text)) - {"your", "the", "a"}


# "yearly income" is named by "70 grand a year", "monthly amount" by "40 a month"; "spread 6k over two
# years" names no yearly amount.
RATE = re.compile(r"\b(?:a|an|per|each|every)\s+(year|month|week|day|hour)\b", re.I)


def said_words(clause: str) -> set[str]:
    """The words of a clause that may name an element, a rate said as "a year" included as "yearly"."""
    rates = {unit.lower() for unit in RATE.findall(clause)}
    return set(tokens(clause)) | {"daily" if unit == "day" else f"{unit}ly" for unit in rates}


def extract_values(spec: CatalogSpec, utterance: str, skip: Iterable[str] = (), asked: str | None = None,
                   asked_value: str | None = None,
                   needed: Callable[[], Collection[str]] | None = None) -> dict[str, str]:
    """Values the user volunteered, each bound to the element its clause names.

    A value fitting several elements ("$20,000": income or loan amount) goes to the one its clause
    names ("my income is ..."), else to the one element still missing that it fits, or failing that to
    the one of them the request needs (`needed`, asked only then: "moving on the 3rd of January" gives
    the move date, not the date on a bill). The element
    `asked` about keeps `asked_value` and nothing else takes that value: answering "What is your
    income?" with "92,000 dollars" fills the income, never the loan amount too.
    """
    skipped = set(skip) | ({asked} if asked else set())
    open_ = [e for e in spec.elements if e.name not in skipped and e.askable]
    candidates = [e for e in open_ if not is_free_text(e.format)]
    places = [e for e in open_ if is_free_text(e.format)]
    dates = [e for e in candidates if kind_of(e.format) == "date"]
    values: dict[str, str] = _date_range(spec, utterance, dates, needed)
    unnamed: list[tuple[str, list[str]]] = []
    clauses = CLAUSE.split(utterance)
    for clause in clauses:
        found: dict[str, list[str]] = {}
        for element in candidates:
            value = extract_value(element, clause)
            if value is not None and value != asked_value:
                found.setdefault(value, []).append(element.name)
        said = said_words(clause)
        for value, names in found.items():
            named = [n for n in names if said & element_words(spec.element(n))]
            if len(named) == 1 and named[0] not in values:
                values[named[0]] = value
            elif len(named) != 1:  # none named, or several ("a table" names the day and the new day)
                unnamed.append((value, named or names))
    for element in places:
        found_place = next((p for c in clauses if (p := _place(element, c))), None)
        if found_place is not None and found_place != asked_value:
            values[element.name] = found_place
    for value, names in unnamed:  # after the named ones: "income is X, and I want Y" gives Y to the other
        if value in values.values():
            continue
        free = [n for n in names if n not in values and _plausible(spec.element(n), value)]
        if len(free) > 1 and needed is not None:
            wanted = set(needed())
            free = [n for n in free if n in wanted]
        if len(free) == 1 and _may_guess(spec.element(free[0]), value, utterance):
            values[free[0]] = value
    return values


# "from 22 December to 2 January": the first date to an element that starts something, the second to
# one that ends it ("the first day of leave", "the last day of leave").
DATE_RANGE = re.compile(r"\b(?:from|between)\s+(?P<start>.+?)\s+(?:to|until|till|through|and)\s+(?P<end>.+)", re.I)
# The words in their inflections ("the day the rental starts"), and the name's words too (pickup_date).
STARTS = frozenset("first start starts started starting begin begins began beginning commence commences from "
                   "pickup collect collection".split())
ENDS = frozenset("last end ends ended ending until finish finishes finished return returns returned dropoff".split())


def date_span(spec: CatalogSpec, utterance: str, asked: str, skip: Collection[str] = ()) -> dict[str, str]:
    """ "from 1 April to 30 September" answering the first (or the last) day: both days, when the range
    has the day asked as one of its ends; else nothing."""
    dates = [e for e in spec.elements if e.askable and kind_of(e.format) == "date"
             and (e.name == asked or e.name not in skip)]
    found = _date_range(spec, utterance, dates, None)
    return found if asked in found else {}


def _date_range(spec: CatalogSpec, utterance: str, dates: list[Element],
                needed: Callable[[], Collection[str]] | None) -> dict[str, str]:
    match = DATE_RANGE.search(utterance)
    if match is None or len(dates) < 2:
        return {}
    start, end = _date(match.group("start")), _date(match.group("end"))
    if start is None or end is None:
        return {}
    wanted = set(needed()) if needed is not None else None

    def one(words: frozenset[str]) -> str | None:
        fits = {e.name: len(_description_words(e) & words) for e in dates if _description_words(e) & words}
        if len(fits) > 1 and wanted is not None:
            fits = {n: k for n, k in fits.items() if n in wanted}
        # the one most said to start (end): "the day your break from studies ends" starts nothing
        best = sorted(fits.values(), reverse=True)
        if not best or (len(best) > 1 and best[0] == best[1]):
            return None
        return next(n for n, k in fits.items() if k == best[0])

    first, last = one(STARTS), one(ENDS)
    return {first: start, last: end} if first and last and first != last else {}


def _plausible(element: Element, value: str) -> bool:
    """Could `value` be the element's at all? A date after today is no date of something that happened,
    and today is no date of birth ("can't come in today" gives the first day of the sickness)."""
    if kind_of(element.format) != "date" or not _happened(element):
        return True
    born = {"birth", "born"} & _description_words(element)
    return value < date.today().isoformat() if born else value <= date.today().isoformat()


def _happened(element: Element) -> bool:
    return bool(_description_words(element) & PAST)


def _description_words(element: Element) -> set[str]:
    return set(TOKEN.findall(f"{element.description} {element.name.replace('_', ' ')}".lower()))


def _may_guess(element: Element, value: str, said: str = "") -> bool:
    """May an unnamed value go to `element` because it fits nothing else? Not a loose pattern's fit
    that does not look like a code (a postcode's pattern fits "I need"), nor a sensitive value that
    is not a code ("dropping since Monday" is no date of birth)."""
    pattern = parse_format(element.format).is_regex
    if kind_of(element.format) == "number":  # a bare number says nothing of what it counts: "add 2 bags" names it
        return False
    if kind_of(element.format) == "phone":  # "+44 7700 900456" is one; "my order reference is 6468324410" is not
        return dialable(value) and bool(WRITTEN_INTERNATIONALLY.search(said))
    if element.sensitive and not pattern:  # a date, an amount: too plain to be taken as a birth date
        return False
    return not pattern or _looks_like_code(value)


def answer_value(spec: CatalogSpec, element: Element, utterance: str) -> str | None:
    """The value of an answer to a question about `element`: from the clause that names it, else from
    the first clause that names no other element ("my income is X and I want Y" answers the amount with Y)."""
    clauses = CLAUSE.split(utterance)
    if len(clauses) > 1 and not is_free_text(element.format):  # free text: the whole answer
        own = element_words(element)
        kind = kind_of(element.format)
        others = [element_words(e) for e in spec.elements if e.name != element.name and kind_of(e.format) == kind]
        fitting = [(c, extract_value(element, c, whole_answer=True)) for c in clauses]
        fitting = [(c, v) for c, v in fitting if v is not None]
        for clause, value in fitting:
            if said_words(clause) & own:
                return value
        for clause, value in fitting:
            said = said_words(clause)
            if not any(said & words for words in others):
                return value
    return extract_value(element, utterance, whole_answer=True)
