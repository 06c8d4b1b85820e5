"""Line diffs as the studio shows them: lines kept, removed (`-`) and added (`+`)."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class DiffLine:
    op: Literal[" ", "+", "-"]
    text: str

    def __str__(self) -> str:
        return f"{self.op} {self.text}"


def line_diff(old: Sequence[str], new: Sequence[str]) -> list[DiffLine]:
    """Lines kept, removed (`-`) and added (`+`) to turn `old` into `new`."""
    out: list[DiffLine] = []
    matcher = difflib.SequenceMatcher(a=list(old), b=list(new), autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out += [DiffLine(" ", text) for text in old[i1:i2]]
            continue
        out += [DiffLine("-", text) for text in old[i1:i2]]
        out += [DiffLine("+", text) for text in new[j1:j2]]
    return out
