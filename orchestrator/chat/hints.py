"""What a chat widget needs beside a reply's text, added on the Django side where absent.

A question gets the element's wording (`label`), a format hint (`hint`) and, for an enum, the
values to offer as buttons (`options`); a consent prompt gets the skill's wording (`skill_label`)
and the elements' (`element_labels`). The engine may give these itself (then they are kept):
only missing fields are filled, so the widget renders whatever the runtime says.
"""

from __future__ import annotations

from typing import Any

from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.runtime.replies import Wording

FORMAT_HINTS = {
    "email": "an email address, e.g. name@example.com",
    "number": "a number",
    "money": "an amount, e.g. $20,000",
    "date": "a date, e.g. 2025-03-31",
    "phone": "a phone number, e.g. +1 555 010 0100",
}


def enum_options(fmt: str | None) -> list[str]:
    if not fmt or not fmt.startswith("enum:"):
        return []
    return [option.strip() for option in fmt.removeprefix("enum:").split("|") if option.strip()]


def format_hint(fmt: str | None) -> str | None:
    if not fmt:
        return None
    if fmt.startswith("enum:"):
        return "one of: " + ", ".join(enum_options(fmt))
    return FORMAT_HINTS.get(fmt)


def reply_with_hints(spec: CatalogSpec, reply: dict[str, Any]) -> dict[str, Any]:
    """`reply` (as the API gives it) with the widget's fields filled in where the engine left them out."""
    words = Wording(spec)
    names = {e.name for e in spec.elements}
    if reply.get("kind") == "question" and reply.get("element") in names:
        element = spec.element(reply["element"])
        reply.setdefault("label", words.element(element.name))
        hint = format_hint(element.format)
        if hint:
            reply.setdefault("hint", hint)
        options = enum_options(element.format)
        if options:
            reply.setdefault("options", options)
    elif reply.get("kind") == "consent":
        if reply.get("skill") in {s.name for s in spec.skills}:
            reply.setdefault("skill_label", words.skill(reply["skill"]))
        reply.setdefault("element_labels", [words.element(x) for x in reply.get("elements", []) if x in names])
    return reply
