"""Judging a written plan (sound, valid, optimal) and the fewest edits that make it so.

- **sound**: every step can run where it stands (its inputs known, consent given as the privacy
  model asks, the user askable for what it is asked);
- **valid**: sound, and the goal holds at the end;
- **optimal**: valid, and no valid plan costs less.

Facts are only ever added in our tasks, so simulating a plan over the grounded task is a set
union per step: no PDDL round trip, no external validator. The planner is called only to know
the least cost and to fill gaps. Plans are compared by cost and by what they reach, never by
their exact lines, so interchangeable skills (same signature, same cost) are all accepted.

Repairs keep the analyst's steps wherever possible:
- sound: each step that cannot run gets a cheapest bridge (planned from the state just before it)
  to the facts it lacks; a step nothing can make runnable is removed;
- valid: that sound repair, completed by a plan from where it ends;
- optimal: the analyst's steps are kept, in order, as long as what they spent still extends to
  an optimal plan; then the planner completes it.
Each repair is set against the planner's own plan and the one with the shorter line diff wins.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, get_args

from ..catalog.spec import Goal
from ..errors import ConcertoError
from ..planning.compile import goal_operations
from ..planning.downward import run_search
from ..planning.ground import GroundAction
from ..planning.planner import Plan, Planner, PlanResult, Step, just_in_time
from ..planning.reachability import reachable, relevant
from ..planning.sas import SasOperator, write_sas
from ..planning.task import ASK, Fact, PlanningState, StepKind
from .line_diff import DiffLine, line_diff
from .plan_text import ParsedPlan, parse_plan

Quality = Literal["sound", "valid", "optimal"]
QUALITIES: tuple[Quality, ...] = get_args(Quality)

# Preconditions a planner can establish; any other unmet one means the step can never run here.
_ESTABLISHABLE = ("known", "authorized")


@dataclass(frozen=True)
class StepFailure:
    """A written step that cannot run where it stands, and why."""

    line: int
    step: Step
    reasons: tuple[str, ...]

    def __str__(self) -> str:
        return f"line {self.line}: {self.step.line} cannot run: {'; '.join(self.reasons)}"


@dataclass(frozen=True)
class ValidationReport:
    quality: Quality
    determination: bool  # the judgement asked for
    sound: bool
    valid: bool
    optimal: bool
    cost: int  # of the steps that parsed
    optimal_cost: int | None  # None when no plan reaches the goal
    parsed: ParsedPlan
    failures: tuple[StepFailure, ...]
    unreached: tuple[str, ...]  # goal parts the written plan leaves unreached
    fixed: Plan | None  # None only when the quality asked for is out of reach
    diff: tuple[DiffLine, ...]
    unsolvable: str = ""  # why no plan reaches the goal, when none does

    @property
    def empty(self) -> bool:
        """No line read as a step: there is no plan to call sound, whatever the goal."""
        return not self.parsed.steps

    @property
    def edits(self) -> int:
        return sum(line.op != " " for line in self.diff)

    @property
    def summary(self) -> str:
        if self.empty:
            total = len(self.parsed.lines)
            if not total:
                return "no plan to judge: the text is empty"
            first = self.parsed.warnings[0]
            return (f"no plan to judge: none of the {total} line{'s' if total != 1 else ''} is a step "
                    f"(line {first.number}: {first.warning})")
        if not self.sound:
            first = self.failures[0]
            count = len(self.failures)
            verdict = (f"not sound: {count} step{'s' if count != 1 else ''} cannot run "
                       f"(line {first.line}, {first.step.line}: {first.reasons[0]})")
        elif not self.valid:
            verdict = f"sound but not valid: at the end, {_missing_phrase(self.unreached)}"
        elif not self.optimal:
            verdict = f"valid but not optimal: it costs {self.cost}; the least possible is {self.optimal_cost}"
        else:
            verdict = f"optimal: it costs {self.cost}, the least possible"
        ignored = len(self.parsed.warnings)
        if ignored:
            verdict += f"; {ignored} line{'s' if ignored != 1 else ''} ignored"
        return verdict

    def to_data(self) -> dict[str, Any]:
        """The report as JSON-ready data (the API's and the command line's `--json` shape)."""
        return {
            "quality": self.quality,
            "determination": self.determination,
            "empty": self.empty,
            "sound": self.sound,
            "valid": self.valid,
            "optimal": self.optimal,
            "summary": self.summary,
            "cost": self.cost,
            "optimal_cost": self.optimal_cost,
            "parsed": [
                {"number": line.number, "text": line.text, "step": line.step.line if line.step else None,
                 "warning": line.warning or None}
                for line in self.parsed.lines
            ],
            "warnings": [{"line": w.number, "text": w.text, "message": w.warning} for w in self.parsed.warnings],
            "failures": [{"line": f.line, "step": f.step.line, "reasons": list(f.reasons)} for f in self.failures],
            "unreached": list(self.unreached),
            "fixed": None if self.fixed is None else {"cost": self.fixed.cost, "lines": self.fixed.lines},
            "diff": [{"op": line.op, "text": line.text} for line in self.diff],
            "unsolvable": self.unsolvable or None,
        }


def _missing_phrase(unreached: tuple[str, ...]) -> str:
    return f"the goal still lacks {', '.join(unreached)}"


def validate_plan(
    planner: Planner,
    goal: Goal,
    text: str | Sequence[str],
    quality: Quality = "optimal",
    state: PlanningState | None = None,
) -> ValidationReport:
    """Judge the plan written in `text` for `goal` from `state`; never raises on the plan's text."""
    if quality not in QUALITIES:
        raise ConcertoError(f"unknown plan quality '{quality}' (one of {', '.join(QUALITIES)})")
    judge = _Judge(planner, goal, state or PlanningState())
    parsed = parse_plan(planner.domain, text)
    return judge.report(parsed, quality)


def _cost(actions: Iterable[GroundAction]) -> int:
    return sum(a.cost for a in actions)


class _Judge:
    """One validation: the planner, the goal and the start, with planning calls memoised."""

    def __init__(self, planner: Planner, goal: Goal, state: PlanningState):
        self.planner = planner
        self.task = planner.task
        self.goal = goal
        self.state = state
        self.best = planner.plan(goal, state)  # also rejects a goal naming unknown things
        self.init: frozenset[Fact] = frozenset(state.facts())
        self.blocked = self._blocked()
        self.enabled = [i for i in range(len(self.task.actions)) if i not in self.blocked]
        self._plans: dict[frozenset[Fact], PlanResult] = {self.init: self.best}
        self._bridges: dict[tuple[frozenset[Fact], frozenset[Fact]], list[GroundAction] | None] = {}

    # --- the judgement ------------------------------------------------------------------------

    def report(self, parsed: ParsedPlan, quality: Quality) -> ValidationReport:
        numbered = [(line.number, self.ground(line.step)) for line in parsed.lines if line.step is not None]
        actions = [action for _, action in numbered]
        facts, failed = self.simulate(actions)
        failures = tuple(
            StepFailure(numbered[i][0], Step.of(actions[i]), self.reasons(unmet))
            for i, unmet in failed
        )
        cost = _cost(actions)
        # An empty or wholly unreadable plan is its own verdict: it is not "sound" by having no step.
        sound = bool(actions) and not failures
        unreached = tuple(self.unreached(facts))
        valid = sound and not unreached
        optimal = valid and self.best.solved and cost <= self.best.cost
        determination = {"sound": sound, "valid": valid, "optimal": optimal}[quality]
        given = [line.rendered for line in parsed.lines]
        fixed = actions if determination else self.repair(actions, quality, given)
        plan = None if fixed is None else Plan(steps=tuple(Step.of(a) for a in fixed))
        return ValidationReport(
            quality=quality, determination=determination, sound=sound, valid=valid, optimal=optimal, cost=cost,
            optimal_cost=self.best.cost if self.best.solved else None, parsed=parsed, failures=failures,
            unreached=unreached, fixed=plan, diff=tuple(line_diff(given, plan.lines)) if plan else (),
            unsolvable="" if self.best.solved else self.best.message,
        )

    def simulate(self, actions: Sequence[GroundAction]) -> tuple[set[Fact], list[tuple[int, list[Fact]]]]:
        """The facts at the end, and each step that could not run with what it lacked.

        A step that cannot run adds nothing, so the steps after it are judged on what really
        happened before them.
        """
        facts = set(self.init)
        failed = []
        for i, action in enumerate(actions):
            unmet = [f for f in action.pre if f not in facts]
            if unmet:
                failed.append((i, unmet))
            else:
                facts.update(action.add)
        return facts, failed

    def unreached(self, facts: set[Fact]) -> list[str]:
        onto = self.planner.domain.ontology
        missing = [x for x in self.goal.known if not any(("known", y) in facts for y in onto.subtree(x))]
        missing += [
            ref for ref in self.goal.done
            if not any(("done", op) in facts for op in goal_operations(self.planner.domain, ref))
        ]
        return missing

    # --- repairs ------------------------------------------------------------------------------

    def repair(self, actions: list[GroundAction], quality: Quality, given: list[str]) -> list[GroundAction] | None:
        if quality == "sound":
            repaired = self.sound_repair(actions)
            if repaired or not self.best.solved:
                return repaired
            # Nothing of the plan runs: a plan of no steps is no plan, so the planner's own is the fix.
            return [self.ground(step) for step in self.best.steps]
        if not self.best.solved:
            return None
        ours = self.valid_repair(actions) if quality == "valid" else self.optimal_repair(actions)
        theirs = [self.ground(step) for step in self.best.steps]
        candidates = [c for c in (ours, theirs) if c is not None]
        # Fewest edits wins; on a tie the repair built from the analyst's own steps.
        return min(candidates, key=lambda c: _edits(given, [Step.of(a).line for a in c]))

    def sound_repair(self, actions: list[GroundAction]) -> list[GroundAction]:
        out: list[GroundAction] = []
        facts = set(self.init)
        for action in actions:
            bridge = self.make_runnable(action, facts)
            if bridge is None:
                continue  # nothing can make it run here: removed
            for step in (*bridge, action):
                out.append(step)
                facts.update(step.add)
        return out

    def valid_repair(self, actions: list[GroundAction]) -> list[GroundAction] | None:
        repaired = self.sound_repair(actions)
        facts = set(self.init).union(*(a.add for a in repaired))
        rest = self.plan_from(facts)
        return repaired + self.ground_plan(rest) if isinstance(rest, Plan) else None

    def optimal_repair(self, actions: list[GroundAction]) -> list[GroundAction] | None:
        best = self.best.cost if isinstance(self.best, Plan) else None
        if best is None:
            return None
        kept: list[GroundAction] = []
        facts = set(self.init)
        spent = 0
        for action in actions:
            trial = self._optimal_extension(action, facts, spent, best)
            if trial is not None:
                kept += trial
                facts.update(*(a.add for a in trial))
                spent += _cost(trial)
        rest = self.plan_from(facts)
        return kept + self.ground_plan(rest) if isinstance(rest, Plan) else None

    def _optimal_extension(
        self, action: GroundAction, facts: set[Fact], spent: int, best: int
    ) -> list[GroundAction] | None:
        """`action` (with a bridge if it needs one) if taking it still allows an optimal plan."""
        if action.cost > 0 and all(f in facts for f in action.add):
            return None  # adds nothing: it can only cost
        bridge = self.make_runnable(action, facts)
        if bridge is None:
            return None
        trial = [*bridge, action]
        total = spent + _cost(trial)
        if total > best:
            return None
        rest = self.plan_from(facts.union(*(a.add for a in trial)))
        return trial if isinstance(rest, Plan) and total + rest.cost <= best else None

    def make_runnable(self, action: GroundAction, facts: set[Fact]) -> list[GroundAction] | None:
        """The steps that would let `action` run from `facts` ([] if it can), else None."""
        unmet = [f for f in action.pre if f not in facts]
        if not unmet:
            return []
        if any(f[0] not in _ESTABLISHABLE for f in unmet):
            return None
        return self.bridge(facts, unmet)

    # --- planning -----------------------------------------------------------------------------

    def plan_from(self, facts: Iterable[Fact]) -> PlanResult:
        key = frozenset(facts)
        if key not in self._plans:
            self._plans[key] = self.planner.plan(self.goal, self.state_of(key))
        return self._plans[key]

    def bridge(self, facts: Iterable[Fact], wanted: Iterable[Fact]) -> list[GroundAction] | None:
        """A cheapest sequence of steps from `facts` to every fact in `wanted`, or None."""
        init, goal = frozenset(facts), frozenset(wanted)
        if (init, goal) not in self._bridges:
            self._bridges[(init, goal)] = self._search_bridge(set(init), goal)
        return self._bridges[(init, goal)]

    def _search_bridge(self, init: set[Fact], goal: frozenset[Fact]) -> list[GroundAction] | None:
        # The planner's own pipeline, for plain facts (consent included) rather than an intent's
        # goal: reachability, relevance, SAS+, Fast Downward.
        actions = self.task.actions
        facts, fired = reachable(actions, self.enabled, init)
        if not goal <= facts:
            return None
        needed, chosen = relevant(actions, fired, set(goal), init)
        operators = [
            SasOperator(pre=actions[i].pre, add=tuple(f for f in actions[i].add if f in needed), cost=actions[i].cost)
            for i in chosen
        ]
        found = run_search(write_sas(sorted(needed | init), init, sorted(goal), operators), self.planner.search)
        if found is None:
            return None
        return just_in_time([actions[chosen[i]] for i in found])

    def state_of(self, facts: frozenset[Fact]) -> PlanningState:
        def having(predicate: str) -> frozenset[str]:
            return frozenset(x for p, x in facts if p == predicate)

        return replace(self.state, known=having("known"), authorized=having("authorized"), done=having("done"))

    # --- grounding written steps --------------------------------------------------------------

    def ground(self, step: Step) -> GroundAction:
        """The grounded action a parsed step stands for, with every precondition that applies.

        A step the grounder never produced (a question for an element the user cannot give,
        consent for something that needs none) gets a precondition that never holds, as the
        PDDL domain's `askable` / `sensitive` preconditions would have it.
        """
        index = self.task.by_grounding.get((step.name, step.args))
        if index is not None:
            action = self.task.actions[index]
            if index in self.blocked:
                action = replace(action, pre=(*action.pre, ("blocked", action.name)))
            return action
        (target,) = step.args
        if step.kind == StepKind.ASK:
            return GroundAction(kind=StepKind.ASK, name=ASK, args=step.args, pre=(("askable", target),),
                                add=(("known", target),), cost=step.cost, outputs=step.args)
        if self.planner.domain.per_skill:  # consent for a skill that receives nothing sensitive: harmless
            return GroundAction(kind=StepKind.AUTHORIZE, name="authorize", args=step.args, pre=(),
                                add=(("authorized", target),), cost=step.cost)
        return GroundAction(kind=StepKind.AUTHORIZE, name="authorize", args=step.args, pre=(("sensitive", target),),
                            add=(("authorized", target),), cost=step.cost)

    def ground_plan(self, plan: Plan) -> list[GroundAction]:
        return [self.task.actions[self.task.by_grounding[(s.name, s.args)]] for s in plan.steps]

    def _blocked(self) -> set[int]:
        blocked: set[int] = set()
        for guard in self.state.cannot_establish:
            blocked.update(self.task.by_guard.get(guard, ()))
        for grounding in self.state.pruned:
            if grounding in self.task.by_grounding:
                blocked.add(self.task.by_grounding[grounding])
        return blocked

    def reasons(self, unmet: Iterable[Fact]) -> tuple[str, ...]:
        per_skill = self.planner.domain.per_skill
        texts = []
        for predicate, arg in unmet:
            if predicate == "known":
                texts.append(f"{arg} is not known yet")
            elif predicate == "authorized":
                texts.append(f"the user has not agreed to share sensitive values with {arg}" if per_skill
                             else f"the user has not agreed to share {arg}")
            elif predicate == "askable":
                texts.append(f"the user cannot be asked for {arg}")
            elif predicate == "sensitive":
                texts.append(f"{arg} is not sensitive, so there is nothing to authorize")
            else:
                texts.append(f"{arg} may no longer be used here (it failed too often or was rejected)")
        return tuple(texts)


def _edits(old: Sequence[str], new: Sequence[str]) -> int:
    return sum(line.op != " " for line in line_diff(old, new))
