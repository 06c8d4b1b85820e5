"""Judging a recorded sequence against goals with the planner: sound, valid, optimal.

The tool specs become a catalog and go through the same compiler and planner as any catalog;
the sequence becomes a written plan for the plan validator. What ties them together is the
data flow: a reference `originSkyId="$var1.skyId$"` says that `skyId` and `originSkyId` carry
the same value, so both name one element (names are merged with a union-find over every
reference the sequence makes, and over equal names). Values written literally came from the
user: they are known from the start. Goals are the sample's own (`goals`: tool names to call or
fields to obtain), else what its closing `var_result` gathers (`$var3$`: var3's tool must run;
`$var3.price$`: the price must be known), else every tool it calls.

The planning model reasons about which kinds of values are known, not how many: two airport
searches (origin and destination) are one `skyId` to it, so the second one reads as not
needed. `optimal` is therefore a statement about kinds of values; `valid` is exact.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..catalog.spec import CatalogSpec, Costs, Element, Goal, Mode, Outcome, Skill
from ..catalog.toolspec import element_name
from ..errors import ConcertoError
from ..planning.planner import Planner
from ..planning.task import PlanningState
from . import references as refs
from .plan_validation import validate_plan
from .sequences import RESULT, Call, Sample
from .tools import ParamRule, Tool, ToolCatalog


@dataclass(frozen=True)
class GoalReport:
    goal_known: tuple[str, ...]  # elements the goal asks to know
    goal_done: tuple[str, ...]  # skills the goal asks to have run
    sound: bool
    valid: bool
    optimal: bool
    summary: str
    cost: int
    optimal_cost: int | None
    lines: tuple[str, ...]  # the sequence as plan lines
    optimal_lines: tuple[str, ...]  # the planner's alternative (empty when the goal is out of reach)
    diff: tuple[str, ...]  # `+`/`-` lines from the sequence to the alternative
    judged: bool = True  # False when the planner could not judge (see `summary`)


class _Names:
    """Union-find over parameter and field names: one element per group of names that carry one value."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, name: str) -> str:
        self.parent.setdefault(name, name)
        while self.parent[name] != name:
            self.parent[name] = self.parent[self.parent[name]]
            name = self.parent[name]
        return name

    def join(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


class _Flow:
    """The sequence's data flow over the tools, with repeated tools told apart.

    A tool called twice (an airport search for the origin, another for the destination) gives
    one skill per call, its names qualified by the call's label (`skyId@var1`), so that the
    planner sees two values where the sequence has two, not one it could reuse.
    """

    def __init__(self, calls: Sequence[Call], tools: ToolCatalog):
        self.tools = tools
        self.calls = [c for c in calls if c.name != RESULT]
        counts = Counter(c.name for c in self.calls)
        self.by_label = {c.label: c for c in self.calls if c.label}
        self.qualify = {id(c): f"@{c.label}" if counts[c.name] > 1 and c.label else "" for c in self.calls}
        self.names = _Names()
        for tool in tools.tools.values():
            for name in (*(p.name for p in tool.params), *tool.outputs):
                self.names.find(name)
        for call in self.calls:
            for arg, value in call.arguments.items():
                self.names.find(self.param(call, arg))
                for ref in refs.in_value(value):
                    if ref.closed and ref.path and (read := self.field(ref.label, ref.path)):
                        self.names.join(self.param(call, arg), read)

    def tool(self, call: Call) -> Tool:
        tool = self.tools.get(call.name)
        assert tool is not None  # calls to unknown tools are left out before
        return tool

    def param(self, call: Call, name: str) -> str:
        return f"{name}{self.qualify[id(call)]}"

    def output(self, call: Call, name: str) -> str:
        return f"{name}{self.qualify[id(call)]}"

    def field(self, label: str, path: str) -> str | None:
        """The (qualified) output a reference reads: the listed path, else its first part."""
        call = self.by_label.get(label)
        if call is None:
            return None
        tool = self.tool(call)
        return self.output(call, path if path in tool.outputs else path.split(".", 1)[0])

    def element(self, name: str) -> str:
        return element_name(self.names.find(name))


def judge_goals(sample: Sample, tools: ToolCatalog) -> GoalReport:
    """Sound / valid / optimal for the sample's calls and goals, with the planner's alternative."""
    calls = [c for c in sample.calls if c.name == RESULT or tools.get(c.name) is not None]
    flow = _Flow(calls, tools)
    goal_fields, goal_runs = _goal_parts(sample, calls, flow)
    # Outputs that matter: those some tool takes as input, and those the goal asks for. The rest
    # (dozens per NESTFUL tool) would only make the task and the plan lines longer.
    fed = _fed(flow)
    wanted = {flow.names.find(p.name) for t in tools.tools.values() for p in t.params if _needed(p, t, fed)}
    wanted |= {flow.names.find(flow.param(c, p.name)) for c in flow.calls for p in flow.tool(c).params
               if _needed(p, flow.tool(c), fed)}
    wanted |= {flow.names.find(n) for n in goal_fields}
    spec, skill_of = _catalog(flow, wanted)
    known = {flow.element(flow.param(call, arg)) for call in flow.calls for arg, value in call.arguments.items()
             if not any(r.closed for r in refs.in_value(value))}
    goal = Goal(known=tuple(dict.fromkeys(flow.element(n) for n in goal_fields)),
                done=tuple(dict.fromkeys(skill_of[k] for k in goal_runs if k in skill_of)))
    lines = [_line(call, flow, wanted, skill_of) for call in flow.calls]
    if not goal.known and not goal.done:
        return _not_judged(goal, lines, "no goal: the sequence calls no known tool and gathers nothing")
    try:
        planner = Planner.for_spec(spec)
        report = validate_plan(planner, goal, lines, "optimal", PlanningState.of(known=known))
    except ConcertoError as exc:  # tool specs the compiler refuses: say so, never stop the batch
        return _not_judged(goal, lines, f"not judged: {exc}")
    fixed = tuple(report.fixed.lines) if report.fixed is not None else ()
    return GoalReport(goal.known, goal.done, report.sound, report.valid, report.optimal, report.summary, report.cost,
                      report.optimal_cost, tuple(lines), fixed, tuple(str(d) for d in report.diff))


def _not_judged(goal: Goal, lines: list[str], why: str) -> GoalReport:
    return GoalReport(goal.known, goal.done, False, False, False, why, 0, None, tuple(lines), (), (), judged=False)


def _key(call: Call) -> str:
    return f"{call.name}@{call.label}"


def _goal_parts(sample: Sample, calls: Sequence[Call], flow: _Flow) -> tuple[list[str], list[str]]:
    """Fields to know and skills to have run (by `_key` of a call, or a tool's name): the
    sample's goals, else what its answer gathers, else every call."""
    fields: list[str] = []
    if sample.goals:  # a tool named as a goal: its first call, or the tool itself when never called
        first = {c.name: _key(c) for c in reversed(flow.calls)}
        fields = [g for g in sample.goals if flow.tools.get(g) is None]
        return fields, [first.get(g, g) for g in dict.fromkeys(sample.goals) if flow.tools.get(g) is not None]
    runs: list[str] = []
    answers = [r for c in calls if c.name == RESULT for r in refs.in_value(dict(c.arguments)) if r.closed]
    for ref in answers:
        call = flow.by_label.get(ref.label)
        if call is None:
            continue
        # The answer names the call (`$var3.shareUrl$` is var3's, not any shareUrl): it must run,
        # and the field it reads must be known.
        runs.append(_key(call))
        read = flow.field(ref.label, ref.path) if ref.path else None
        if read is not None and read.split("@")[0] in flow.tool(call).outputs:
            fields.append(read)
    return fields, (runs if answers else [_key(c) for c in flow.calls])


def _catalog(flow: _Flow, wanted: set[str]) -> tuple[CatalogSpec, dict[str, str]]:
    """One skill per tool, and one per call of a tool the sequence calls more than once."""
    fed = _fed(flow)
    variants: list[tuple[str, Tool, Call | None]] = []
    repeated = {c.name for c in flow.calls if flow.qualify[id(c)]}
    for tool in flow.tools.tools.values():
        if tool.name in repeated:
            variants += [(_key(c), tool, c) for c in flow.calls if c.name == tool.name]
        else:
            variants.append((tool.name, tool, None))
    elements: dict[str, Element] = {}
    skills, skill_of, taken = [], {}, set()
    for key, tool, call in variants:
        inputs = _unique(flow.element(flow.param(call, p.name) if call else p.name) for p in tool.params
                         if _needed(p, tool, fed))
        outputs = _unique(flow.element(name) for o in tool.outputs
                          if flow.names.find(name := flow.output(call, o) if call else o) in wanted)
        for name in (*inputs, *outputs):
            elements.setdefault(name, Element(name=name))
        skill = element_name(tool.name + (f"_{call.label}" if call else ""))
        while skill in taken or skill in elements:
            skill = f"{skill}_tool"
        taken.add(skill)
        skill_of[key] = skill
        skills.append(Skill(name=skill, modes=(Mode(inputs=tuple(inputs),
                                                    outcomes=(Outcome(name="ok", outputs=tuple(outputs)),)),)))
    for call in flow.calls:  # `_key(call)` names the skill of every call, repeated or not
        if _key(call) not in skill_of:
            skill_of[_key(call)] = skill_of[call.name]
    spec = CatalogSpec(catalog="tools", costs=Costs(skill=1, ask=5), elements=tuple(elements.values()),
                       skills=tuple(skills))
    return spec, skill_of


def _line(call: Call, flow: _Flow, wanted: set[str], skill_of: Mapping[str, str]) -> str:
    tool = flow.tool(call)
    fed = _fed(flow)
    inputs = _unique(flow.element(flow.param(call, p.name)) for p in tool.params
                     if _needed(p, tool, fed) and p.name in call.arguments)
    outputs = _unique(flow.element(flow.output(call, o)) for o in tool.outputs
                      if flow.names.find(flow.output(call, o)) in wanted)
    text = f"{skill_of[_key(call)]}({', '.join(inputs)})"
    return f"{', '.join(outputs)} = {text}" if outputs else text


def _fed(flow: _Flow) -> set[tuple[str, str]]:
    """(tool, parameter) pairs the sequence passes a reference to."""
    return {(c.name, arg) for c in flow.calls for arg, value in c.arguments.items()
            if any(r.closed for r in refs.in_value(value))}


def _needed(param: ParamRule, tool: Tool, fed: set[tuple[str, str]]) -> bool:
    """An input of the skill: required, or optional but fed by a reference somewhere in the
    sequence (the sequence relies on that value reaching the tool)."""
    return param.required or (tool.name, param.name) in fed


def _unique(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(values))
