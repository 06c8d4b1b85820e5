"""Keeping the vocabulary shared: "did you mean `email`?" and search over the ontology.

Analysts type names; a near miss of an existing element (`emial`, `e_mail`, `Email`) almost
always means that element, and a second element for the same thing splits the catalog's memory
in two. These helpers find the likely one; the studio offers it, the analyst decides.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

from .spec import Element

# Close enough to be worth asking about, not so loose that `name` suggests `loan_amount`.
CUTOFF = 0.75


def normalize(name: str) -> str:
    """A candidate element name for free text: `Customer Email` and `customerEmail` -> `customer_email`."""
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name.strip())
    text = re.sub(r"[^0-9a-zA-Z]+", "_", text).strip("_").lower()
    if text and text[0].isdigit():
        text = f"n_{text}"
    return text


def squashed(name: str) -> str:
    """A name as a reader compares it: `e_mail`, `E-mail` and `email` are the same word."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


def did_you_mean(name: str, known: Iterable[str], limit: int = 3) -> list[str]:
    """Existing names close to `name` (best first); empty when `name` itself is known."""
    names = list(dict.fromkeys(known))
    if name in names or not name:
        return []
    by_squash: dict[str, list[str]] = {}
    for candidate in names:
        by_squash.setdefault(squashed(candidate), []).append(candidate)
    exact = by_squash.get(squashed(name), [])
    close = difflib.get_close_matches(name.lower(), names, n=limit, cutoff=CUTOFF)
    near = difflib.get_close_matches(squashed(name), list(by_squash), n=limit, cutoff=CUTOFF)
    ranked = exact + close + [c for key in near for c in by_squash[key]]
    return list(dict.fromkeys(ranked))[:limit]


def search_elements(query: str, elements: Iterable[Element], limit: int = 8) -> list[Element]:
    """Elements matching what an analyst is typing, best first.

    Order: exact name, name prefix, a word of the name starting with the query, the name
    containing it, the description containing it, then near misses of the name.
    """
    pool = list(elements)
    text = query.strip().lower()
    if not text:
        return pool[:limit]

    def rank(element: Element) -> int | None:
        name = element.name
        if name == text:
            return 0
        if name.startswith(text):
            return 1
        if any(word.startswith(text) for word in name.split("_")):
            return 2
        if text in name or squashed(text) in squashed(name):
            return 3
        if text in element.description.lower():
            return 4
        return None

    scored = [(r, i, e) for i, e in enumerate(pool) if (r := rank(e)) is not None]
    scored.sort(key=lambda item: (item[0], item[1]))
    found = [e for _, _, e in scored]
    if len(found) < limit:
        names = {e.name: e for e in pool}
        found += [names[n] for n in did_you_mean(normalize(query), names, limit) if names[n] not in found]
    return found[:limit]
