"""Delete-free reachability over a grounded task.

Facts are only ever added in our tasks, so relaxed reachability is exact: a fact is reachable
iff some plan reaches it. That lets us (1) answer "no plan" without calling the planner, with
the reason (which elements nothing can establish), and (2) hand the planner only the actions
that can matter for the goal.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .ground import GroundAction
from .task import ASK, Fact, StepKind


def reachable(
    actions: Sequence[GroundAction], enabled: Iterable[int], init: set[Fact]
) -> tuple[set[Fact], list[int]]:
    """Facts reachable from `init` and the enabled actions whose preconditions all are."""
    waiting: dict[int, int] = {}
    users: dict[Fact, list[int]] = {}
    queue: deque[Fact] = deque(init)
    facts = set(init)
    fired: list[int] = []

    def fire(i: int) -> None:
        fired.append(i)
        for fact in actions[i].add:
            if fact not in facts:
                facts.add(fact)
                queue.append(fact)

    for i in enabled:
        missing = {f for f in actions[i].pre if f not in init}
        if missing:
            waiting[i] = len(missing)
            for fact in missing:
                users.setdefault(fact, []).append(i)
        else:
            fire(i)
    while queue:
        for i in users.get(queue.popleft(), ()):
            waiting[i] -= 1
            if waiting[i] == 0:
                fire(i)
    return facts, fired


def relevant(
    actions: Sequence[GroundAction], candidates: Iterable[int], goal: set[Fact], init: set[Fact]
) -> tuple[set[Fact], list[int]]:
    """Backward from the goal: actions that add a fact some relevant fact needs."""
    producers: dict[Fact, list[int]] = {}
    for i in candidates:
        for fact in actions[i].add:
            if fact not in init:
                producers.setdefault(fact, []).append(i)
    needed = {f for f in goal if f not in init}
    queue = deque(needed)
    chosen: set[int] = set()
    while queue:
        for i in producers.get(queue.popleft(), ()):
            if i in chosen:
                continue
            chosen.add(i)
            for fact in actions[i].pre:
                if fact not in init and fact not in needed:
                    needed.add(fact)
                    queue.append(fact)
    return needed, sorted(chosen)


@dataclass(frozen=True)
class Blocker:
    """An element nothing can establish, and why."""

    element: str
    reason: str


def blockers(
    actions: Sequence[GroundAction],
    enabled: set[int],
    facts: set[Fact],
    missing: Iterable[Fact],
    askable: set[str],
    cannot_establish: set[tuple[str, str]],
) -> tuple[list[Blocker], list[str]]:
    """Root causes of unreachable facts: elements that have no usable producer at all.

    Returns the blockers and every unreachable element met on the way (for the message).
    """
    producers: dict[Fact, list[int]] = {}
    for i, action in enumerate(actions):
        for fact in action.add:
            producers.setdefault(fact, []).append(i)
    roots: list[Blocker] = []
    chain: list[str] = []
    seen: set[Fact] = set()
    queue = deque(missing)
    while queue:
        fact = queue.popleft()
        if fact in seen or fact in facts:
            continue
        seen.add(fact)
        if fact[0] == "known":
            chain.append(fact[1])
        usable = [i for i in producers.get(fact, ()) if i in enabled and actions[i].kind != "ask"]
        if usable:  # producers exist but need something unreachable: follow that
            queue.extend(f for i in usable for f in actions[i].pre if f not in facts)
        elif fact[0] == "known":
            roots.append(Blocker(fact[1], _reason(fact[1], actions, producers, enabled, askable, cannot_establish)))
    if not roots:
        # Every path loops (email needs the account number, which needs the email): the causes
        # are the elements on the loop that the user could not, or may not, be asked for.
        could_not = "the user could not give it"
        roots = [
            Blocker(x, could_not if (ASK, x) in cannot_establish else "the user cannot be asked for it")
            for x in chain
            if (ASK, x) in cannot_establish or (x not in askable and any(
                actions[i].kind == StepKind.SKILL for i in producers.get(("known", x), ())))
        ]
    return roots, chain


def _reason(
    element: str,
    actions: Sequence[GroundAction],
    producers: dict[Fact, list[int]],
    enabled: set[int],
    askable: set[str],
    cannot_establish: set[tuple[str, str]],
) -> str:
    skills = [actions[i] for i in producers.get(("known", element), ()) if actions[i].kind == StepKind.SKILL]
    if not skills:
        why = "no skill outputs it"
    else:
        names = ", ".join(dict.fromkeys(a.skill for a in skills))
        why = f"{names} can no longer be used for it (failed too often or rejected)"
    if element not in askable:
        return f"{why}, and the user cannot be asked for it"
    if (ASK, element) in cannot_establish:
        return f"{why}, and the user could not give it"
    return why
