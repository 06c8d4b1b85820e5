"""What one turn produced: replies, shares (the audit log), plans, skill calls and the commands read."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..replies import Reply
from ..session import Execution


@dataclass(frozen=True)
class Share:
    """A sensitive value that went to a skill, and the consent that allowed it (the audit log)."""

    element: str
    skill: str
    consent: str  # the authorized skill (per skill) or element (per element)
    step: int

    def event(self) -> dict[str, Any]:
        """As a session's trace stores it, live or simulated."""
        return {"element": self.element, "skill": self.skill, "consent": self.consent, "step": self.step}


@dataclass(frozen=True)
class PlanRecord:
    goal: str
    lines: tuple[str, ...]
    cost: int | None
    reason: str  # why this plan was made: a new goal, an answer, an outcome that differed...
    discarded: tuple[str, ...] = ()  # the previous plan's remaining lines, if it was given up
    unsolvable: str | None = None

    def event(self) -> dict[str, Any]:
        """As a session's trace stores it, live or simulated."""
        return {"goal": self.goal, "lines": list(self.lines), "cost": self.cost, "reason": self.reason,
                "discarded": list(self.discarded), "unsolvable": self.unsolvable}


@dataclass
class TurnLog:
    replies: list[Reply] = field(default_factory=list)
    shares: list[Share] = field(default_factory=list)
    plans: list[PlanRecord] = field(default_factory=list)
    executions: list[Execution] = field(default_factory=list)
    commands: list[Any] = field(default_factory=list)  # what the message was understood as (commands.py)

    def say(self, reply: Reply) -> None:
        self.replies.append(reply)
