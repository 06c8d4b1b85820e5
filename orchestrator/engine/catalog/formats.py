"""An element's format, read once: a kind (email, number, money, date, phone, text), a regular
expression (`regex:<pattern>`) or a list of options (`enum:<a>|<b>|...`).

The spec keeps the format as the analyst wrote it; everything that needs its parts (the checks, the
value parsers, the questions and their hints, the simulated skills and users, masking) asks
`parse_format` instead of splitting the string itself, so `enum:|gold|silver` means the same everywhere:
the options gold and silver (it was once accepted by the checks and then sampled as '' by a simulated
skill, which split the string its own way).
"""

from __future__ import annotations

from dataclasses import dataclass
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


@dataclass(frozen=True)
class Format:
    kind: str  # one of KINDS, "regex", "enum", "" when the element has no format, or what was written
    pattern: str = ""  # of a regex
    options: tuple[str, ...] = ()  # of an enum, stripped, empty ones left out

    @property
    def is_enum(self) -> bool:
        return self.kind == ENUM

    @property
    def is_regex(self) -> bool:
        return self.kind == REGEX

    @property
    def hint(self) -> str | None:
        """What an answer looks like, or None when the format says nothing a person could use."""
        if self.is_enum:
            return "one of: " + ", ".join(self.options) if self.options else None
        return HINTS.get(self.kind)


@lru_cache(maxsize=4096)
def parse_format(text: str | None) -> Format:
    if not text:
        return Format("")
    if text.startswith("regex:"):
        return Format(REGEX, pattern=text.removeprefix("regex:"))
    if text.startswith("enum:"):
        options = (option.strip() for option in text.removeprefix("enum:").split("|"))
        return Format(ENUM, options=tuple(option for option in options if option))
    return Format(text)
