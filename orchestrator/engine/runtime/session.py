"""The state of one conversation, as the execution manager keeps it between turns.

Plain pydantic models: the Django side stores `model_dump(mode="json")` and reads it back with
`SessionState.model_validate`, so a session survives restarts and moves between workers.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, field_validator

from ..catalog.spec import Goal
from ..planning.task import PlanningState
from .dialogue.frames import Frame, read_pending

Source = Literal["user", "skill", "document"]


class Remembered(BaseModel):
    """A value in the shared memory and where it came from."""

    value: str
    source: Source
    skill: str | None = None  # the skill that gave it, when source is "skill"
    step: int | None = None  # its step in the history, when source is "skill"
    seq: int = 0  # when it was collected, counted across the session: "what" lists in this order
    goal: str | None = None  # the intent being pursued when it was collected (None: no request yet)


class Execution(BaseModel):
    """One skill call: `<inputs, skill, mode, outcome, outputs>`, and what had been planned."""

    step: int
    skill: str
    mode: str
    outcome: str
    planned_outcome: str
    inputs: dict[str, str]  # declared input -> value
    outputs: dict[str, str]
    args: list[str] = Field(default_factory=list)  # the elements whose values went in (a passport for a document)
    explanation: dict[str, float] | None = None  # feature weights, if the skill explained itself
    # why a call gave no outcome (timeout, refused host, a rejection's body naming the inputs at fault):
    # for the trace and the learner, not the user
    message: str = ""


class GoalFrame(BaseModel):
    intent: str | None  # None for a goal given explicitly
    goal: Goal
    # Operations of world-changing skills the user agreed to for this goal: those of the first plan
    # (what the request named), and any the user confirmed later.
    agreed: list[str] = Field(default_factory=list)
    planned: bool = False  # has a plan been made for this goal yet
    # Words of the request that pick one way of running a skill over another ("add my son as a
    # driver": the add_driver mode, not change_address); their stems only, never the values said.
    said: list[str] = Field(default_factory=list)
    # Ground actions of a way the request did not name, kept out of this goal's plans while another
    # way reaches it.
    avoided: list[tuple[str, tuple[str, ...]]] = Field(default_factory=list)
    # Skills whose values were read back to the user and agreed (a consent prompt reads them back too):
    # a world-changing call is made only after that.
    read_back: list[str] = Field(default_factory=list)


class SessionState(BaseModel):
    memory: dict[str, Remembered] = Field(default_factory=dict)
    goals: list[GoalFrame] = Field(default_factory=list)  # a stack: the last is the current goal
    completed: list[GoalFrame] = Field(default_factory=list)  # reached goals, oldest first
    history: list[Execution] = Field(default_factory=list)
    failures: dict[str, int] = Field(default_factory=dict)  # "operation element" -> failed attempts
    cannot_establish: list[tuple[str, str]] = Field(default_factory=list)
    pruned: list[tuple[str, tuple[str, ...]]] = Field(default_factory=list)
    authorized: list[str] = Field(default_factory=list)
    done: list[str] = Field(default_factory=list)  # operations that have run
    done_for: list[tuple[str, str | None]] = Field(default_factory=list)  # (operation, the goal it ran for)
    denied: list[str] = Field(default_factory=list)  # consent the user refused (skills or elements)
    # The request just given up for want of a refused consent: a "yes, go ahead" next reopens it.
    refused_goal: str | None = None
    plan: list[str] = Field(default_factory=list)  # the current plan, as readable lines
    pending: Frame | None = None  # what the assistant waits for (dialogue/frames.py)
    clock: int = 0  # values collected so far
    # Values derived from each user-given value (element -> skill outputs computed from it): a
    # correction of the value clears them, so the planner computes them again.
    derived: dict[str, list[str]] = Field(default_factory=dict)

    @field_validator("pending", mode="before")
    @classmethod
    def _old_pending(cls, stored: object) -> object:
        # Sessions stored before the typed frames hold the old seven-field record.
        return read_pending(stored)

    # --- memory --------------------------------------------------------------------------------
    def remember(self, element: str, value: str, source: Source, skill: str | None = None,
                 step: int | None = None, goal: str | None = None) -> None:
        self.clock += 1
        self.memory[element] = Remembered(value=value, source=source, skill=skill, step=step, seq=self.clock,
                                          goal=goal)

    def forget(self, element: str) -> None:
        self.memory.pop(element, None)

    def value(self, element: str) -> str | None:
        item = self.memory.get(element)
        return item.value if item else None

    # --- goals ---------------------------------------------------------------------------------
    @property
    def current(self) -> GoalFrame | None:
        return self.goals[-1] if self.goals else None

    def push(self, frame: GoalFrame) -> None:
        self.goals.append(frame)

    def pop(self) -> GoalFrame | None:
        return self.goals.pop() if self.goals else None

    # --- learning ------------------------------------------------------------------------------
    def fail(self, operation: str, element: str, limit: int) -> bool:
        """Count a failure of `operation` to establish `element`; True when it reaches `limit`.

        A skill's `max_retries` is the most unsuccessful calls a session may make: with 1, a
        credit bureau that failed once is not pinged again.
        """
        key = f"{operation} {element}"
        self.failures[key] = self.failures.get(key, 0) + 1
        if self.failures[key] >= max(1, limit) and (operation, element) not in self.cannot_establish:
            self.cannot_establish.append((operation, element))
            return True
        return False

    def prune(self, action: str, args: tuple[str, ...]) -> None:
        if (action, args) not in self.pruned:
            self.pruned.append((action, args))

    def authorize(self, target: str) -> None:
        if target not in self.authorized:
            self.authorized.append(target)

    def planning_state(self, frame: GoalFrame | None = None, hidden: set[str] | None = None) -> PlanningState:
        """The initial state of the next planning call for `frame`.

        What a goal asks for is its own: `hidden` values (see `PlannerOrchestrator._foreign`), and
        operations run for another goal, do not count for it (a sales chart published during a
        digression is not the salary report asked for).
        """
        return PlanningState.of(
            known=set(self.memory) - (hidden or set()),
            authorized=set(self.authorized),
            cannot_establish=set(self.cannot_establish),
            pruned=set(self.pruned) | {(a, tuple(args)) for a, args in (frame.avoided if frame else ())},
            done=self.done_by(frame),
        )

    def done_by(self, frame: GoalFrame | None) -> set[str]:
        if frame is None or not self.done_for:
            return set(self.done)
        recorded = {op for op, _ in self.done_for}
        mine = {op for op, goal in self.done_for if goal == frame.intent}
        return mine | (set(self.done) - recorded)  # sessions saved before provenance: as they were

    def mark_done(self, operation: str, goal: str | None) -> None:
        if operation not in self.done:
            self.done.append(operation)
        if (operation, goal) not in self.done_for:
            self.done_for.append((operation, goal))
