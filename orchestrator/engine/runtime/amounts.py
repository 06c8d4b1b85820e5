"""Amounts and counts in what people type: money ("£1,200.50", "12 grand", "1.200,50 €") and numbers ("2kg",
"twenty one"), and when there are two where one is wanted ("two or three", "between 100 and 200").
Split from nlu.py, which reads values by format."""

from __future__ import annotations

import re
from functools import lru_cache

import number_parser

MONEY = re.compile(r"(?<![\w.])\$?\s?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?\s?(k|m|thousand|grand|million)?\b", re.I)
# A number on its own or with its unit glued on ("2kg"), never a part of a date or a code ("2027-01-19",
# "CS2041").
NUMBER = re.compile(r"(?<![\w.])(?<!\d[-/])-?(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?"
                    r"(?=(?:kgs?|g|lbs?|km|cm|mm|m|ml|l)\b|(?!\w|[-/.]\d))", re.I)
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
# Continental separators: "1.200,50 €" is twelve hundred and a half.
CONTINENTAL = re.compile(r"(?<![\d.,])(\d{1,3}(?:\.\d{3})+),(\d{2})(?![\d.,])")


def _two_amounts(utterance: str) -> bool:
    return bool(TWO_AMOUNTS.search(utterance))


def _money(utterance: str, need_unit: bool) -> str | None:
    # Unasked, a bare number is not money: "123-45-6789" is no loan amount.
    if need_unit and not CURRENCY.search(utterance) and not SCALED.search(utterance):
        return None
    if COUNTED.search(utterance) and not CURRENCY.search(utterance):
        return None
    continental = CONTINENTAL.search(utterance)
    if continental:
        return f"{float(continental.group(1).replace('.', '') + '.' + continental.group(2)):.2f}"
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
