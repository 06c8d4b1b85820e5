"""Values fitting a catalog's pattern (RE2, linear time), phone numbers (libphonenumber) and enum
options in either number. Split from nlu.py, which reads values by format."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import phonenumbers
import re2
from rapidfuzz import fuzz

from .dates import DATE_IN_FIGURES
from .text import TOKEN, singular

DEFAULT_REGION = "US"  # for numbers written without a country code
MAX_PHONE_DIGITS = 15
PHONE = re.compile(r"(?<![A-Za-z0-9])\+?\d[\d\s().-]{6,}\d(?![A-Za-z0-9])")  # not inside "AC12345678"
@lru_cache(maxsize=512)
def _linear(pattern: str) -> tuple[Any, Any]:
    """A catalog pattern compiled by RE2, whose matching time is linear in the text: an analyst's
    `^(a+)+$` cannot hang a turn on a crafted message. RE2 has no look-around, so the "not inside a
    longer word" guard is a plain group around the value."""
    core = pattern.removeprefix("^").removesuffix("$")
    return re2.compile(pattern), re2.compile(rf"(?:^|[^\w-])({core})(?:$|[^\w-])")


def _regex(pattern: str, utterance: str) -> str | None:
    """The value in `utterance` that fits `pattern`, written as the pattern writes it.

    People separate digit groups their own way ("123 45 6789", "123.45.6789"): when the text as
    typed does not fit, it is tried again with the separators between digits replaced by each one
    the pattern uses, so the value is stored in the catalog's form.
    """
    found = _regex_as_typed(pattern, utterance)
    if found is not None:
        return found
    for separator in SEPARATORS:
        if separator in pattern:
            respelt = DIGIT_SEPARATOR.sub(separator, utterance)
            if respelt != utterance and (found := _regex_as_typed(pattern, respelt)) is not None:
                return found
    if " " not in pattern:  # digits typed in groups of a number with none: "4111 1111 1111 1111"
        respelt = DIGIT_GROUPS.sub("", utterance)  # (never a full stop: "25000.00" is no account number)
        if respelt != utterance and (found := _regex_as_typed(pattern, respelt)) is not None:
            return found
    return None


SEPARATORS = ("-", ".", "/", " ")
DIGIT_GROUPS = re.compile(r"(?<=\d) (?=\d)")
DIGIT_SEPARATOR = re.compile(r"(?<=\d)(?:\s*[.\-/]\s*|\s+)(?=\d)")


def _regex_as_typed(pattern: str, utterance: str) -> str | None:
    # Patterns are written for the whole value (`^...$`); look for it inside the utterance too.
    try:
        whole_pattern, inside = _linear(pattern)
    except re2.error:  # checked when the catalog is saved; an old one may hold a pattern RE2 rejects
        return None
    whole = whole_pattern.fullmatch(utterance.strip()) or whole_pattern.fullmatch(utterance.strip(" .!?,;:"))
    if whole:  # the whole answer, give or take the full stop after it
        return whole.group(0)
    # Inside a sentence, only a fit that looks like a code is a value: "it's worth about 12 grand" holds
    # no postcode, though "s worth" fits ^[A-Za-z0-9 ]{5,8}$. (An answer that is all value is taken above.)
    matches = [m for m in _matches(inside, utterance) if _looks_like_code(m.group(1))]
    if not matches:
        return None
    match = matches[0]
    start, end = match.span(1)
    # A number the pattern cuts short ("+44 20 7946| 0958" under a 12-character limit) is no value:
    # storing the piece would be worse than asking again.
    if CONTINUES.match(utterance, end) and match.group(1)[-1:].isdigit():
        return None
    if start >= 2 and CONTINUED.fullmatch(utterance, start - 2, start) and match.group(1)[:1].isdigit():
        return None
    return match.group(1)


def _matches(inside: Any, utterance: str) -> list[Any]:
    """Every place the pattern fits, each starting after the previous one starts (the guard groups
    around a value consume a character either side, so a plain scan would skip neighbours)."""
    found, at = [], 0
    while (match := inside.search(utterance, at)) is not None:
        found.append(match)
        at = match.start(1) + 1
    return found


CONTINUES = re.compile(r"[\s.\-/]\d")
CONTINUED = re.compile(r"\d[\s.\-/]")


def _phone(utterance: str) -> str | None:
    """The first phone number in the text, in E.164 (`+442079460958`), read by libphonenumber."""
    utterance = INTERNATIONAL_00.sub("+", utterance)  # "0044 161 ..." is "+44 161 ..."
    for match in phonenumbers.PhoneNumberMatcher(utterance, DEFAULT_REGION, leniency=phonenumbers.Leniency.POSSIBLE):
        if DATE_IN_FIGURES.fullmatch(match.raw_string.strip()):
            continue  # "born 13.04.1988" gives no phone number
        return phonenumbers.format_number(match.number, phonenumbers.PhoneNumberFormat.E164)
    match = PHONE.search(utterance)
    if match and DATE_IN_FIGURES.fullmatch(match.group(0).strip()):
        return None
    digits = re.sub(r"[^\d+]", "", match.group(0)) if match else None
    if digits and digits.startswith("+") and not dialable(digits):
        return None  # "+1 646 832 44101": a digit too many for its country
    # E.164 numbers have at most 15 digits: "4111 1111 1111 1111" is a card number, not a phone
    return digits if digits and len(digits.lstrip("+")) <= MAX_PHONE_DIGITS else None


def dialable(value: str) -> bool:
    """A number in E.164 of a length its country dials (libphonenumber; fictional ranges included)."""
    try:
        return value.startswith("+") and phonenumbers.is_possible_number(phonenumbers.parse(value))
    except phonenumbers.NumberParseException:
        return False


INTERNATIONAL_00 = re.compile(r"(?<![\d+])00(?=[1-9]\d)")
# "+44 ..." or "0044 ...": a number written with its country's prefix
WRITTEN_INTERNATIONALLY = re.compile(r"(?<![\w+])(?:\+|00)[1-9]")


def _looks_like_code(value: str) -> bool:
    """Every part with a digit or in capitals only ("SW1A 1AA", "LIS"): not "I need" or "the 3rd"."""
    parts = value.split()
    return bool(parts) and all(any(c.isdigit() for c in p) or (p.isupper() and len(p) > 1) for p in parts)


# --- enum options --------------------------------------------------------------------------------------

ENUM_CLOSENESS = 80  # rapidfuzz ratio: "platnum" and "platinium" are platinum, "good" is not "gold"
VOLUNTEERED_CLOSENESS = 88  # unasked, closer still: "hygenist" is hygienist


def _enum(options: list[str], utterance: str, close: bool) -> str | None:
    """The one option named; in an answer to the question, a close spelling counts ("platnum")."""
    words = TOKEN.findall(utterance.lower())
    said = f" {_singular_words(utterance)} "
    # "first aid" names the option first_aid: options are compared as the words they are made of, in
    # either number ("two blenders" names blender, "an antihistamine" names antihistamines)
    lowered = utterance.lower()
    found = [o for o in options if f" {_singular_words(spoken_option(o))} " in said
             and not _ruled_out(spoken_option(o), lowered)]
    if not found and close:
        found = list(dict.fromkeys(
            o for o in options for w in words
            if len(w) >= 3 and fuzz.ratio(w, o.lower()) >= ENUM_CLOSENESS and not _english(w)
        ))
    if not found:  # volunteered: only a misspelling of a long option ("hygenist"), never a real word
        found = list(dict.fromkeys(o for o in options for w in words if _misspelt(w, o)))
    return found[0] if len(found) == 1 else None


def _ruled_out(option: str, lowered: str) -> bool:
    """ "anything but window": the option is named to exclude it. A one- or two-letter option ("am",
    "m") said as a word of "I am" or "I'm" is no answer either."""
    name = re.escape(option.lower())
    if re.search(rf"\b(?:not|but|except|without)\s+(?:the\s+|a\s+|an\s+)?{name}\b", lowered):
        return True
    return len(option) <= 2 and not re.search(rf"(?<!\bi )(?<!\bi')(?<![\w']){name}(?![\w'])", lowered)


def _misspelt(word: str, option: str) -> bool:
    return len(word) >= 6 and fuzz.ratio(word, option.lower()) >= VOLUNTEERED_CLOSENESS and not _english(word)


def _english(word: str) -> bool:
    """A real word is said on purpose ("barge", "old", "rental"), never a misspelt option."""
    from .spelling import english_words  # the word list, loaded once per process (warm-up)

    return word in english_words()


def _singular_words(text: str) -> str:
    return " ".join(singular(w) for w in TOKEN.findall(text.lower()))


def spoken_option(option: str) -> str:
    """An enum option as people write it: "first_aid" is "first aid"."""
    return " ".join(option.replace("_", " ").split()) or option
