"""What a chat widget needs beside a reply's text, added on the Django side where absent.

A question gets the element's wording (`label`), a format hint (`hint`) and, for an enum, the
values to offer as buttons (`options`); a consent prompt gets the skill's wording (`skill_label`)
and the elements' (`element_labels`). The engine may give these itself (then they are kept):
only missing fields are filled, so the widget renders whatever the runtime says.
"""

from __future__ import annotations

from typing import Any

from orchestrator.engine.catalog.formats import parse_format
from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.runtime.replies import Wording


def reply_with_hints(spec: CatalogSpec, reply: dict[str, Any]) -> dict[str, Any]:
    """`reply` (as the API gives it) with the widget's fields filled in where the engine left them out."""
    words = Wording(spec)
    names = {e.name for e in spec.elements}
    if reply.get("kind") == "question" and reply.get("element") in names:
        element = spec.element(reply["element"])
        reply.setdefault("label", words.element(element.name))
        fmt = parse_format(element.format)
        if fmt.hint:
            reply.setdefault("hint", fmt.hint)
        if fmt.options:
            reply.setdefault("options", list(fmt.options))
    elif reply.get("kind") == "consent":
        if reply.get("skill") in {s.name for s in spec.skills}:
            reply.setdefault("skill_label", words.skill(reply["skill"]))
        reply.setdefault("element_labels", [words.element(x) for x in reply.get("elements", []) if x in names])
    return reply
