"""What a planning call is asked: the state learned so far and the goal to reach."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

# A fact of the compiled task: ("known", "email"), ("authorized", "credit_check"),
# ("done", "credit_check-m1"), ("goal", "0") for a satisfied disjunctive goal.
Fact = tuple[str, str]

ASK = "ask"


class StepKind(StrEnum):
    """What a plan step does: run a skill, ask the user for a value, or ask for consent.

    A `StrEnum`, so a kind reads and serialises as its plain word ("skill") wherever one is stored.
    """

    SKILL = "skill"
    ASK = "ask"
    AUTHORIZE = "authorize"


@dataclass(frozen=True)
class PlanningState:
    """The initial state of one planning call, built by the execution manager from a session.

    `authorized` holds skills under the per-skill privacy model and elements under the
    per-element one. `cannot_establish` holds (operation, element) pairs, the operation being a
    skill mode (`lookup_customer-m1`) or `ask` for the slot filler. `pruned` holds grounded
    actions found invalid at run time, as (action name, arguments).
    """

    known: frozenset[str] = frozenset()
    authorized: frozenset[str] = frozenset()
    cannot_establish: frozenset[tuple[str, str]] = frozenset()
    pruned: frozenset[tuple[str, tuple[str, ...]]] = frozenset()
    done: frozenset[str] = frozenset()

    def facts(self) -> set[Fact]:
        """The dynamic facts true in this state (the static ones only filter actions)."""
        return ({("known", x) for x in self.known} | {("authorized", x) for x in self.authorized}
                | {("done", op) for op in self.done})

    @classmethod
    def of(
        cls,
        known: set[str] | frozenset[str] | tuple[str, ...] = (),
        authorized: set[str] | frozenset[str] | tuple[str, ...] = (),
        cannot_establish: set[tuple[str, str]] | frozenset[tuple[str, str]] = frozenset(),
        pruned: set[tuple[str, tuple[str, ...]]] | frozenset[tuple[str, tuple[str, ...]]] = frozenset(),
        done: set[str] | frozenset[str] | tuple[str, ...] = (),
    ) -> PlanningState:
        return cls(frozenset(known), frozenset(authorized), frozenset(cannot_establish),
                   frozenset(pruned), frozenset(done))
