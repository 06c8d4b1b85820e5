"""Fast Downward's SAS+ input, written directly from a grounded task.

Every fact is a binary variable (value 0: true, 1: false). This is what FD's translator would
produce for our tasks, minus the translator's start-up and analysis time on every call.
Format: https://www.fast-downward.org/TranslatorOutputFormat
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .task import Fact


@dataclass(frozen=True)
class SasOperator:
    pre: tuple[Fact, ...]
    add: tuple[Fact, ...]
    cost: int


def write_sas(
    facts: Sequence[Fact],
    init: set[Fact],
    goal: Sequence[Fact],
    operators: Sequence[SasOperator],
) -> str:
    """SAS+ text; operator i is named `o<i>` so plans map back by index."""
    var = {fact: i for i, fact in enumerate(facts)}
    out = ["begin_version", "3", "end_version", "begin_metric", "1", "end_metric", str(len(facts))]
    for i, (pred, arg) in enumerate(facts):
        out += ["begin_variable", f"v{i}", "-1", "2", f"Atom {pred}({arg})",
                f"NegatedAtom {pred}({arg})", "end_variable"]
    out += ["0", "begin_state"]
    out += ["0" if fact in init else "1" for fact in facts]
    out += ["end_state", "begin_goal", str(len(goal))]
    out += [f"{var[fact]} 0" for fact in goal]
    out += ["end_goal", str(len(operators))]
    for i, op in enumerate(operators):
        prevail = [f for f in op.pre if f not in op.add]
        out += ["begin_operator", f"o{i}", str(len(prevail))]
        out += [f"{var[f]} 0" for f in prevail]
        out.append(str(len(op.add)))
        out += [f"0 {var[f]} {0 if f in op.pre else -1} 0" for f in op.add]
        out += [str(op.cost), "end_operator"]
    out.append("0")
    return "\n".join(out) + "\n"
