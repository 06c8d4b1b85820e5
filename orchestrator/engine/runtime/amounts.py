"""Amounts and counts in what people type: money ("£1,200.50", "12 grand", "1.200,50 €") and numbers ("2kg",
"twenty one"), and when there are two where one is wanted ("two or three", "between 100 and 200").
Split from nlu.py, which reads values by format."""

from __future__ import annotations

import re
from functools import lru_cache

import number_parser

from .dates import DATE_SAID

MONEY = re.compile(r"(?<![\w.])\$?\s?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?\s?(k|m|thousand|grand|million)?\b", re.I)
# A number on its own or with its unit glued on ("2kg"), never a part of a date or a code ("2027-01-19",
# "CS2041").
NUMBER = re.compile(r"(?<![\w.])(?<!\d[-/])-?(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?"
                    r"(?=(?:kgs?|g|lbs?|km|cm|mm|m|ml|l)\b|(?!\w|[-/.]\d))", re.I)
CURRENCY_MARK = re.compile(r"[$€£]")


MULTIPLIERS = {"k": 1_000, "thousand": 1_000, "grand": 1_000, "m": 1_000_000, "million": 1_000_000}

SCALED = re.compile(r"\d\s?(k|m|thousand|grand|million)\b", re.I)
CURRENCY = re.compile(r"[$€£]|\b(dollars?|bucks|euros?|pounds?|quid|usd|eur|gbp)\b", re.I)


# Two amounts where one is wanted: alternatives, a range, a fraction left over ("2 and a half").
TWO_AMOUNTS = re.compile(r"\bbetween\s+[$€£]?\d|[$€£]?\d[\d,.]*\s*(?:k|m|grand|thousand)?\s*(?:or|to|–)\s*[$€£]?\d"
                         r"|\b\d[\d,.]*\s?-\s?\d[\d,.]*$|\d\s+and\s+a\s+(?:half|quarter)\b", re.I)
# A number that counts something else is no amount of money: "2 years", "3 payments".
COUNTED = re.compile(r"\d\s*(?:years?|months?|weeks?|days?|hours?|minutes?|payments?|instalments?|installments?"
                     r"|times|people|persons|kids|children|adults|items|nights|rooms|bedrooms|boxes|copies|percent|%)",
                     re.I)
# Continental separators: "1.200,50 €" and "1 234,50 €" are amounts in the thousands.
CONTINENTAL = re.compile(r"(?<![\d.,])(\d{1,3}(?:[ .\u202f\u00a0]\d{3})+),(\d{2})(?![\d.,])")
AMBIGUOUS_THOUSANDS = re.compile(r"(?<![\d.,])\d{1,3}\.\d{3}(?![\d.,])")
# An answer that is an amount alone: hedges and politeness around one number, a scale word after it.
BARE_AMOUNT = re.compile(r"(?:(?:it'?s|it is|about|around|roughly|approx(?:imately)?|maybe|say|like|just|only|"
                         r"under|over|exactly|the amount is|amount)\s+)*[$€£]?\s?\d[\d,. ]*"
                         r"(?:\s?(?:k|m|grand|thousand|million))?(?:\s+(?:please|thanks|thank you|ta))?[.!]?", re.I)


def _two_amounts(utterance: str) -> bool:
    return bool(TWO_AMOUNTS.search(DATE_SAID.sub(" ", utterance)))  # "from 14/05/2027 to 17/05/2027" is days


def _money(utterance: str, need_unit: bool) -> str | None:
    # Unasked, a bare number is not money: "123-45-6789" is no loan amount.
    currency = bool(CURRENCY.search(utterance))
    said_currency = currency or bool(SCALED.search(utterance))
    if need_unit and not said_currency:
        return None
    if COUNTED.search(utterance) and not currency:
        return None
    # Without a currency, only an answer that is an amount and nothing else: "10 kg", "12/03/2027",
    # "call 212 736 9100", "flat 4, 22 Baker Street" hold numbers that are no money.
    if not said_currency and not BARE_AMOUNT.fullmatch(utterance.strip()):
        return None
    if AMBIGUOUS_THOUSANDS.search(utterance) and not currency:
        return None  # "19.999": nineteen thousand or nineteen and a bit; asked again
    continental = CONTINENTAL.search(utterance)
    if continental:
        whole = re.sub(r"[ .\u202f\u00a0]", "", continental.group(1))
        return f"{float(whole + '.' + continental.group(2)):.2f}"
    for match in MONEY.finditer(utterance):
        whole, cents, scale = match.groups()
        amount = float(whole.replace(",", "")) + (float(f"0.{cents}") if cents else 0.0)
        amount *= MULTIPLIERS.get((scale or "").lower(), 1)
        return f"{amount:.2f}"
    return None


NUMBER_WORD = re.compile(r"\b(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen"
                         r"|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty"
                         r"|sixty|seventy|eighty|ninety|hundred)\b", re.I)


@lru_cache(maxsize=4096)  # each clause is read for every money and number element of the catalog
def _in_digits(utterance: str) -> str:
    """ "twenty thousand dollars" -> "20000 dollars" (number-parser), when words spell a number.

    Its output for fractions ("one point five") is not a number we can read, so those are left alone."""
    if not NUMBER_WORD.search(utterance) or re.search(r"\bpoint\b", utterance, re.I):
        return utterance
    return number_parser.parse(utterance)


def _count(utterance: str) -> str | None:
    """The one number of `utterance`, a date's numbers left out ("5 Jan" holds none). None when it holds
    two ("three adults and two children": which one is asked again), an amount of money ("£40") or only
    a code's digits ("AB-123456")."""
    if CURRENCY_MARK.search(utterance):
        return None
    utterance = DATE_SAID.sub(" ", utterance)  # "a 2 bedroom flat on 19 March 2027": the 2
    for text in (utterance, _in_digits(utterance)):
        found = [m.group(0).replace(",", "") for m in NUMBER.finditer(text)
                 if not re.search(r"[A-Za-z]-$", text[:m.start()])]  # "AB-123456": a code's digits
        if found:
            return found[0] if len(set(found)) == 1 else None
    return None
