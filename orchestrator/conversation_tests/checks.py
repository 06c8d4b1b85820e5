"""What a turn showed, in the terms a conversation test states, and the first place a replay differs.

Plain functions over the engine's turn log and session state (no Django): a turn is seen as its
structure (the intents it started, the elements it asked for and filled, the consent it asked, the
skills it called, the goals it reached), so a reworded reply never breaks a test.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from orchestrator.engine.runtime.session import SessionState
from orchestrator.engine.runtime.turns import TurnLog

# The expectations of a turn, in the order a difference is looked for, with what the studio calls them.
EXPECTATIONS: dict[str, str] = {
    "intents": "intent started",
    "asked": "asked for",
    "filled": "values filled",
    "consent": "consent asked for",
    "skills": "skills called",
    "goals": "goal reached",
}


@dataclass(frozen=True)
class Snapshot:
    """What a turn's observation needs of the state before it (the state is changed in place)."""

    known: frozenset[str]
    frames: Counter[str]
    completed: int


def snapshot(state: SessionState) -> Snapshot:
    return Snapshot(known=frozenset(state.memory), frames=_frames(state), completed=len(state.completed))


def _frames(state: SessionState) -> Counter[str]:
    # Goals on the stack and reached goals: a goal reached moves from one to the other, so an intent
    # started in a turn is one whose count grew, whatever became of it within the turn.
    return Counter(frame.intent or "" for frame in [*state.goals, *state.completed])


def turn_observed(before: Snapshot, state: SessionState, log: TurnLog) -> dict[str, list[str]]:
    """The structure of one turn, from the state before it, the state after it and its log."""
    grown = _frames(state) - before.frames
    return {
        "intents": sorted(name for name in grown if name),
        "asked": sorted({r.element for r in log.replies if r.kind == "question" and r.element}),
        "filled": sorted(set(state.memory) - before.known),
        "consent": sorted({r.skill for r in log.replies if r.kind == "consent" and r.skill}),
        "skills": sorted({e.skill for e in log.executions}),
        "goals": sorted({f.intent for f in state.completed[before.completed:] if f.intent}),
    }


def _said(names: list[str]) -> str:
    return ", ".join(names) if names else "none"


def first_difference(expected: dict[str, Any], observed: dict[str, list[str]]) -> str | None:
    """The first expectation of a turn the observation does not meet, in words; None when all are met.

    An expectation left out of `expected` is not checked; an empty one means "none of these".
    """
    for key, label in EXPECTATIONS.items():
        if key not in expected:
            continue
        want, got = sorted(set(expected[key])), observed.get(key, [])
        if want != got:
            return f"{label}: expected {_said(want)}, got {_said(got)}"
    return None
