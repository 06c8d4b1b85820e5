"""Hiding the values of sensitive elements in what is stored for people to read.

The session state keeps the real values (the runtime must send them to skills once consent is
given); transcripts, traces and debugging views get these helpers' masked copies instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

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


def mask_text(text: str, sensitive_values: Iterable[str]) -> str:
    """`text` with each sensitive value that appears in it replaced by MASK."""
    pattern = _pattern(sensitive_values)
    return pattern.sub(MASK, text) if pattern else text


def mask_data(data: Any, sensitive_values: Iterable[str]) -> Any:
    """A copy of JSON-like data (dicts, lists, strings) with sensitive values masked in every string."""
    pattern = _pattern(sensitive_values)
    if pattern is None:
        return data
    return _mask(data, pattern)


def _mask(data: Any, pattern: re.Pattern[str]) -> Any:
    if isinstance(data, str):
        return pattern.sub(MASK, data)
    if isinstance(data, dict):
        return {key: _mask(value, pattern) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [_mask(value, pattern) for value in data]
    return data
