"""An element's format, read once: a kind (email, number, money, date, phone, text), a regular
expression (`regex:<pattern>`) or a list of options (`enum:<a>|<b>|...`).

A date, an amount or a number may say what it accepts: `date:future` (today or later), `date:past`
(today or earlier), `money:1000..50000`, `money:..500`, `number:1..9` (bounds included, either may be
left out). A value outside is read, then refused with what is wrong and what is accepted
(`Format.problem`), before any skill is called with it.

The spec keeps the format as the analyst wrote it; everything that needs its parts (the checks, the
value parsers, the questions and their hints, the simulated skills and users, masking) asks
`parse_format` instead of splitting the string itself, so `enum:|gold|silver` means the same everywhere:
the options gold and silver (it was once accepted by the checks and then sampled as '' by a simulated
skill, which split the string its own way).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from functools import lru_cache

KINDS = ("email", "number", "money", "date", "phone", "text")
REGEX, ENUM = "regex", "enum"

# What an answer looks like, as the widget shows it under a question and the assistant says it again.
HINTS = {
    "email": "an email address, e.g. name@example.com",
    "number": "a number",
    "money": "an amount, e.g. $20,000",
    "date": "a date, e.g. 2025-03-31",
    "phone": "a phone number, e.g. +1 555 010 0100",
}


BOUNDED = ("money", "number")
WHEN = ("future", "past")
FREE = ("", "text")  # no format, or plain text: any words are an answer


@dataclass(frozen=True)
class Format:
    kind: str  # one of KINDS, "regex", "enum", "" when the element has no format, or what was written
    pattern: str = ""  # of a regex
    options: tuple[str, ...] = ()  # of an enum, stripped, empty ones left out
    lower: float | None = None  # of a bounded amount or number, included
    upper: float | None = None
    when: str = ""  # of a date: "future" or "past"
    bad: str = ""  # what was written after the kind when it could not be read (the checks report it)

    @property
    def is_enum(self) -> bool:
        return self.kind == ENUM

    @property
    def is_regex(self) -> bool:
        return self.kind == REGEX

    @property
    def is_free(self) -> bool:
        """Free text: no format or `text`, so any words answer it and no value can be spotted in it."""
        return self.kind in FREE

    @property
    def hint(self) -> str | None:
        """What an answer looks like, or None when the format says nothing a person could use."""
        if self.is_enum:
            return "one of: " + ", ".join(self.options) if self.options else None
        if self.when:
            return f"a date {'today or later' if self.when == 'future' else 'today or earlier'}"
        if self.lower is not None or self.upper is not None:
            return f"{'an amount' if self.kind == 'money' else 'a number'} {self._range()}"
        return HINTS.get(self.kind)

    def _range(self) -> str:
        low, high = (_said(self.kind, b) if b is not None else "" for b in (self.lower, self.upper))
        if low and high:
            return f"from {low} to {high}"
        return f"of at least {low}" if low else f"of at most {high}"

    def problem(self, value: str, today: date | None = None) -> str | None:
        """What is wrong with a value read in this format ("that date is in the past"), or None."""
        if self.when:
            now = (today or date.today()).isoformat()
            if self.when == "future" and value < now:
                return "that date is in the past"
            if self.when == "past" and value > now:
                return "that date is still to come"
            return None
        try:
            number = float(value.replace(",", ""))
        except ValueError:
            return None
        if self.lower is not None and number < self.lower:
            return f"{_said(self.kind, number)} is less than {_said(self.kind, self.lower)}"
        if self.upper is not None and number > self.upper:
            return f"{_said(self.kind, number)} is more than {_said(self.kind, self.upper)}"
        return None


def _said(kind: str, number: float) -> str:
    text = f"{number:,.2f}".removesuffix(".00") if kind == "money" else f"{number:g}"
    return f"${text}" if kind == "money" else text


def _bounds(text: str) -> tuple[float | None, float | None] | None:
    low, sep, high = text.partition("..")
    try:
        bounds = tuple(float(b.replace(",", "")) if b.strip() else None for b in (low, high))
    except ValueError:
        return None
    return (bounds[0], bounds[1]) if sep and bounds != (None, None) else None


def kind_of(text: str | None) -> str:
    """The kind of a format as written ("date" for `date:future`, "" for none)."""
    return parse_format(text).kind


def is_free_text(text: str | None) -> bool:
    """Whether a format as written takes free text (`Format.is_free`)."""
    return parse_format(text).is_free


@lru_cache(maxsize=4096)
def parse_format(text: str | None) -> Format:
    if not text:
        return Format("")
    if text.startswith("regex:"):
        return Format(REGEX, pattern=text.removeprefix("regex:"))
    if text.startswith("enum:"):
        options = (option.strip() for option in text.removeprefix("enum:").split("|"))
        return Format(ENUM, options=tuple(option for option in options if option))
    kind, colon, rest = text.partition(":")
    if colon and kind == "date":
        return Format(kind, when=rest) if rest in WHEN else Format(kind, bad=rest)
    if colon and kind in BOUNDED:
        bounds = _bounds(rest)
        return Format(kind, lower=bounds[0], upper=bounds[1]) if bounds else Format(kind, bad=rest)
    return Format(text)
