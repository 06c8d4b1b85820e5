"""Hiding the values of sensitive elements in what is stored for people to read.

The session state keeps the real values (the runtime must send them to skills once consent is
given); transcripts, traces and debugging views get masked copies instead, from one masker,
`Scrubber`. It always hides the known values; its guessing layers (digit spellings of those
values, text fitting a sensitive element's format, personal-data shapes in free text) can be
switched off where every value is known, as in a simulation, whose values the simulator made.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any

from ..catalog.formats import parse_format
from ..catalog.spec import CatalogSpec
from .session import SessionState

MASK = "•••• (hidden)"
MONEY_VALUE = re.compile(r"^(\d+)\.(\d{2})$")


def sensitive_values(spec: CatalogSpec, state: SessionState) -> list[str]:
    """The values of sensitive elements the session knows or has sent to skills.

    The history counts too: a value the runtime forgot (a document that failed, an unfeasible
    amount) was still said in the conversation and must stay hidden.
    """
    sensitive = {e.name for e in spec.elements if e.sensitive}
    found = [item.value for name, item in state.memory.items() if name in sensitive]
    for record in state.history:
        found += [value for arg, value in zip(record.args, record.inputs.values(), strict=False) if arg in sensitive]
        found += [value for name, value in record.outputs.items() if name in sensitive]
    return list(dict.fromkeys(v for v in found if v.strip()))


def _spellings(value: str) -> list[str]:
    """Ways the same value is written: the runtime stores `85000.00` for "$85,000"."""
    spellings = [value]
    money = MONEY_VALUE.match(value)
    if money:
        whole, cents = money.groups()
        grouped = f"{int(whole):,}"
        spellings += [f"{grouped}.{cents}", grouped, whole] if cents == "00" else [f"{grouped}.{cents}"]
    return spellings


def _pattern(values: Iterable[str]) -> re.Pattern[str] | None:
    spellings = {s for value in values for s in _spellings(value.strip()) if s}
    if not spellings:
        return None
    # Longest first, so "85,000.00" is hidden whole rather than leaving ".00" behind; not inside a
    # longer word or number, so a score of 712 does not eat part of 17120.
    alternatives = "|".join(re.escape(s) for s in sorted(spellings, key=len, reverse=True))
    return re.compile(rf"(?<![\w])(?:{alternatives})(?![\w])", re.IGNORECASE)


# --- Scrubbing: sensitive values in any spelling, and personal data in free text ---------------------
#
# A small scrubber of our own rather than Presidio (spaCy models to download) or scrubadub (pulls in
# scikit-learn and textblob for detectors we would not use): the detectors needed here are a handful
# of patterns, a Luhn check and libphonenumber, which is already a dependency.

SEPARATOR = r"[\s./-]?"
SSN_LIKE = re.compile(r"(?<!\d)\d{3}[\s-]?\d{2}[\s-]?\d{4}(?!\d)")
CARD_LIKE = re.compile(r"(?<!\d)(?:\d[\s-]?){12,18}\d(?!\d)")
IBAN_LIKE = re.compile(r"\b[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){2,7}(?:\s?[A-Z0-9]{1,4})?\b")
EMAIL_LIKE = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")


def _luhn(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char) * (2 if index % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def _digit_spelling(value: str) -> re.Pattern[str] | None:
    """ "123-45-6789" as any run of the same digits with or without separators ("123456789", "123 45 6789")."""
    digits = re.sub(r"\D", "", value)
    if len(digits) < 4 or len(digits) < 0.6 * len(value.strip()):
        return None
    return re.compile(r"(?<!\d)" + SEPARATOR.join(digits) + r"(?!\d)")


class Scrubber:
    """Hides what must not be stored: the session's sensitive values as written and, with the
    guessing layers on, in any digit spelling (`digits`), any text that fits a sensitive element's
    format (`formats`, which needs `spec`), and e-mail addresses, phone numbers, card, IBAN and
    SSN-like numbers in free text (`shapes`). `allowed` values (those of elements the catalog does
    not mark sensitive, such as the e-mail address a lookup needed) stay readable."""

    def __init__(self, spec: CatalogSpec | None, values: Iterable[str] = (), allowed: Iterable[str] = (), *,
                 digits: bool = True, formats: bool = True, shapes: bool = True):
        values = [v for v in values if v.strip()]
        self.known = _pattern(values)
        self.digits = [p for p in (_digit_spelling(v) for v in values) if p is not None] if digits else []
        patterns = [fmt.pattern for e in spec.elements if e.sensitive
                    for fmt in [parse_format(e.format)] if fmt.is_regex] if formats and spec else []
        self.formats = [inside for inside in map(_inside, patterns) if inside is not None]
        self.shapes = shapes
        self.allowed = {a.strip().lower() for a in allowed if a.strip()}
        self.allowed_phones = {re.sub(r"[^\d+]", "", a) for a in self.allowed}
        # A turn stores the same strings many times over (a skill's name in every plan step, a reply's
        # text in its message and its data): each is scrubbed once per scrubber, that is per turn.
        self._done: dict[str, str] = {}

    @classmethod
    def known_only(cls, values: Iterable[str]) -> Scrubber:
        """Only the values given, as written (money in its usual spellings): no guessing, for text
        whose every sensitive value is known, and for checking that none is left."""
        return cls(None, values, digits=False, formats=False, shapes=False)

    @property
    def hides_nothing(self) -> bool:
        return self.known is None and not self.digits and not self.formats and not self.shapes

    def text(self, text: str) -> str:
        if not text:
            return text
        done = self._done.get(text)
        if done is None:
            done = self._done[text] = self._scrub(text)
        return done

    def _scrub(self, text: str) -> str:
        if self.known is not None:
            text = self.known.sub(MASK, text)
        for pattern in self.digits:
            text = pattern.sub(MASK, text)
        for fmt in self.formats:
            text = self._format(fmt, text)
        if not self.shapes or (_ANY_DIGIT.search(text) is None and "@" not in text):
            return text  # every shape below has an @ or a digit (\d: any script's digits)
        text = EMAIL_LIKE.sub(lambda m: m.group(0) if m.group(0).lower() in self.allowed else MASK, text)
        text = CARD_LIKE.sub(lambda m: MASK if _luhn(re.sub(r"\D", "", m.group(0))) else m.group(0), text)
        text = SSN_LIKE.sub(MASK, text)
        text = IBAN_LIKE.sub(MASK, text)
        return self._phones(text)

    # Fields of a reply written from the catalog's formats, never from what a user typed: their
    # examples (`name@example.com`, `+1 555 010 0100`) are no one's data, and a stored reply must
    # read as it was sent (a resent message answers with the stored replies).
    AUTHORED = frozenset({"hint"})

    def data(self, data: Any) -> Any:
        """A copy of JSON-like data (dicts, lists, strings) with every string masked but the authored
        fields of replies; `data` itself when this masker hides nothing."""
        if self.hides_nothing:
            return data
        if self.known is not None and not (self.digits or self.formats or self.shapes):
            # Known values only (a simulation's trace and state, every string of them): one regex
            # substitution per string, without the guessing layers' calls.
            return _walk(data, partial(self.known.sub, MASK), self.AUTHORED)
        return _walk(data, self.text, self.AUTHORED)

    @staticmethod
    def _format(inside: Any, text: str) -> str:
        while True:
            match = inside.search(text)
            if match is None or MASK in match.group(1):
                return text
            text = text[: match.start(1)] + MASK + text[match.end(1):]

    def _phones(self, text: str) -> str:
        if len(_ANY_DIGIT.findall(text)) < MIN_PHONE_DIGITS:
            return text  # too few digits for any valid number: skip the matcher's setup per string
        import phonenumbers

        spans = [(m.start, m.end) for m in phonenumbers.PhoneNumberMatcher(text, "US")
                 if phonenumbers.format_number(m.number, phonenumbers.PhoneNumberFormat.E164) not in self.allowed_phones
                 and re.sub(r"[^\d+]", "", m.raw_string) not in self.allowed_phones]
        for start, end in reversed(spans):
            text = text[:start] + MASK + text[end:]
        return text


_ANY_DIGIT = re.compile(r"\d")


def _inside(pattern: str) -> Any:
    """A sensitive format's pattern as RE2 finds it inside text (a catalog's pattern must not hang the
    scrubber either); None for an unusable one, which hides nothing (the checks reject it at authoring)."""
    from .patterns import _linear

    try:
        return _linear(pattern)[1]
    except Exception:  # noqa: BLE001 - RE2 raises its own error types
        return None


# The shortest valid numbers anywhere have 6 digits with their country code (libphonenumber's metadata:
# some of Austria's, +43 and 4 national digits); 5 leaves a margin.
MIN_PHONE_DIGITS = 5


def _walk(data: Any, text: Callable[[str], str], authored: frozenset[str]) -> Any:
    if isinstance(data, str):
        return text(data) if data else data
    if isinstance(data, dict):
        return {key: value if key in authored else _walk(value, text, authored) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [_walk(value, text, authored) for value in data]
    return data


def scrubber_for(spec: CatalogSpec, state: SessionState, extra: Iterable[str] = ()) -> Scrubber:
    """The scrubber of one session: its sensitive values hidden, its non-sensitive ones readable."""
    sensitive = {e.name for e in spec.elements if e.sensitive}
    allowed = [item.value for name, item in state.memory.items()
               if name not in sensitive and spec_format(spec, name) not in (None, "text")]
    return Scrubber(spec, [*sensitive_values(spec, state), *extra], allowed)


def spec_format(spec: CatalogSpec, name: str) -> str | None:
    element = next((e for e in spec.elements if e.name == name), None)
    return element.format if element else None
