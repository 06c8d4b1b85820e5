"""The review queue's edit of a refinement: a few named fields per kind of change, not raw JSON.

A change is plain data (`engine.learning.refinements`): an op and the names it acts on (skill, mode,
outcome, element, intent) and a value. Each op has its fields here, labelled for an analyst; the page
draws them, and `change_from_post` reads them back over the stored change. The change as JSON stays
as an advanced fallback (a field the table does not name), read only when it was edited.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.http import QueryDict

from orchestrator.engine.learning.refinements import Op


@dataclass(frozen=True)
class ChangeField:
    key: str  # the key in the change ("element", "value", ...)
    label: str
    kind: str = "name"  # name | text | number | yesno | names (a comma-separated list)


SKILL, MODE, OUTCOME = ChangeField("skill", "Skill"), ChangeField("mode", "Mode"), ChangeField("outcome", "Outcome")
ELEMENT, INTENT = ChangeField("element", "Element"), ChangeField("intent", "Intent")

FIELDS: dict[Op, tuple[ChangeField, ...]] = {
    Op.ADD_INPUT: (SKILL, MODE, ChangeField("element", "Input to add")),
    Op.ADD_OUTPUT: (SKILL, MODE, OUTCOME, ChangeField("element", "Output to add")),
    Op.REMOVE_OUTPUT: (SKILL, MODE, OUTCOME, ChangeField("element", "Output to remove")),
    Op.ADD_OUTCOME: (SKILL, MODE, ChangeField("outcome", "New outcome"),
                     ChangeField("value", "Its outputs (comma-separated)", "names")),
    Op.REMOVE_OUTCOME: (SKILL, MODE, ChangeField("outcome", "Outcome to remove")),
    Op.SET_RETRIES: (SKILL, ChangeField("value", "Attempts at most", "number")),
    Op.SET_ASKABLE: (ELEMENT, ChangeField("value", "The user can be asked for it", "yesno")),
    Op.ADD_EXTENSION: (INTENT, ChangeField("value", "Goes on to the intent")),
    Op.ADD_EXAMPLE: (INTENT, ChangeField("value", "Example utterance", "text")),
    Op.SET_PREVIEW: (SKILL, ChangeField("value", "Preview words", "text")),
}


def _shown(value: Any, kind: str) -> str:
    if kind == "names":
        return ", ".join(str(v) for v in value or [])
    if kind == "yesno":
        return "yes" if value else "no"
    return "" if value is None else str(value)


def change_fields(change: dict[str, Any]) -> list[dict[str, str]]:
    """The fields to draw for `change`: key, label, kind and the current value as text."""
    try:
        fields = FIELDS[Op(change.get("op"))]
    except ValueError:
        return []  # an op this table does not know: the JSON fallback alone
    return [{"key": f.key, "label": f.label, "kind": f.kind, "value": _shown(change.get(f.key), f.kind)}
            for f in fields]


class ChangeInvalid(ValueError):
    """An edited field that cannot be read (a number that is not one, JSON that is not JSON)."""


def _read(text: str, kind: str) -> Any:
    text = text.strip()
    if kind == "names":
        return [name.strip() for name in text.split(",") if name.strip()]
    if kind == "yesno":
        return text == "yes"
    if kind == "number":
        try:
            return int(text)
        except ValueError:
            raise ChangeInvalid(f"'{text}' is not a whole number") from None
    return text


def change_from_post(change: dict[str, Any], post: QueryDict, pk: int) -> dict[str, Any] | None:
    """The change as edited on the page (None if left as it was).

    The JSON fallback wins when it was edited; otherwise each field of the form (`edit-<pk>-<key>`)
    is read over the stored change.
    """
    text = post.get(f"change-{pk}", "").strip()
    original = post.get(f"original-{pk}", "").strip()
    if text and text != original:
        try:
            edited = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ChangeInvalid(f"the edited change is not JSON ({exc.msg})") from None
        return edited if edited != change else None
    edited = dict(change)
    for field in change_fields(change):
        name = f"edit-{pk}-{field['key']}"
        if name in post:
            edited[field["key"]] = _read(post[name], field["kind"])
    return edited if edited != change else None
