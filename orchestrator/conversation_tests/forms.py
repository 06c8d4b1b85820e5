"""The edit form of a conversation test: one row per turn, an expectation as comma-separated names.

`*` in an expectation means "not checked"; an empty one means "none"; a row whose message is empty
is dropped, and one blank row at the end adds a turn.
"""

from __future__ import annotations

from typing import Any

from django.http import QueryDict

from .checks import EXPECTATIONS

ANY = "*"


def turn_rows(turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The form's rows for `turns`, and a blank one to add a turn."""
    rows = []
    for turn in [*turns, {"user": "", "expect": {}}]:
        expect = turn.get("expect", {})
        blank = not turn["user"]
        rows.append({"user": turn["user"], "fields": [
            (key, label, "" if blank else (", ".join(expect[key]) if key in expect else ANY))
            for key, label in EXPECTATIONS.items()]})
    return rows


def turns_from_post(data: QueryDict) -> list[dict[str, Any]]:
    """The turns the form posted, in the shape `services.turns_checked` checks."""
    turns = []
    for index in range(int(data.get("rows", "0") or 0)):
        text = data.get(f"turn-{index}-user", "").strip()
        if not text:
            continue
        expect = {}
        for key in EXPECTATIONS:
            value = data.get(f"turn-{index}-{key}", "").strip()
            if value != ANY:
                expect[key] = [name.strip() for name in value.split(",") if name.strip()]
        turns.append({"user": text, "expect": expect})
    return turns
