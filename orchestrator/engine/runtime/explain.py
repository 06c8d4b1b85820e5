"""Explanations of a conversation (section 4 of the composition paper).

- What? The fact landmarks of the goal, from the session's original initial state with what was
  learned since (failed modes, pruned calls): the values every way to the goal had to collect,
  listed in the order they were collected. Compilation-only facts (consent, done) are hidden.
- How? Which skill gave a value and from which inputs, down to what the user said.
- Why? Regression from the goal over the executed history: calls that contributed nothing (a
  failed lookup) are skipped; the answer is the call that used the value, and the causal chain
  from it to the goal.
- Chained: a skill's own explanation (feature weights) is followed from its top feature back
  through the skills that produced it, until a value the user gave.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..catalog.ontology import Ontology
from ..catalog.spec import CatalogSpec
from ..planning.planner import Planner, Unsolvable
from ..planning.task import PlanningState
from .nlu import mentioned_element, tokens
from .replies import Reply, Wording
from .session import Execution, GoalFrame, SessionState


@dataclass
class HowItem:
    element: str
    label: str
    source: str  # "user" | "skill" | "unknown"
    skill: str | None = None
    skill_label: str | None = None
    inputs: list[HowItem] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"element": self.element, "label": self.label, "source": self.source, "skill": self.skill,
                "skill_label": self.skill_label, "inputs": [i.as_dict() for i in self.inputs]}


def how_item(spec: CatalogSpec, state: SessionState, element: str, depth: int = 8,
             seen: frozenset[str] = frozenset()) -> HowItem:
    words = Wording(spec)
    item = state.memory.get(element)
    label = words.element(element)
    if item is None:
        return HowItem(element, label, "unknown")
    if item.source != "skill" or item.step is None:
        return HowItem(element, label, "user")
    record = state.history[item.step]
    inputs = record.args or list(record.inputs)
    children = [] if depth <= 1 or element in seen else [
        how_item(spec, state, x, depth - 1, seen | {element}) for x in inputs
    ]
    return HowItem(element, label, "skill", record.skill, words.skill(record.skill), children)


def how_text(item: HowItem) -> str:
    if item.source == "user":
        return f"You told me {item.label}."
    if item.source == "unknown":
        return f"I do not know {item.label} yet."
    took = " and ".join(i.label for i in item.inputs) or "nothing"
    lines = [f"I got {item.label} from {item.skill_label}, which took {took}."]
    lines += [how_text(i) for i in item.inputs]
    return " ".join(lines)


def _goal_frame(state: SessionState) -> GoalFrame | None:
    """The goal a question is about: the one in progress, else the last one reached."""
    if state.current is not None:
        return state.current
    return state.completed[-1] if state.completed else None


# --- What? ---------------------------------------------------------------------------------------

@dataclass
class WhatSummary:
    goal: str | None
    items: list[HowItem]
    text: str

    def as_dict(self) -> dict[str, Any]:
        return {"goal": self.goal, "text": self.text, "items": [i.as_dict() for i in self.items]}


def landmark_elements(planner: Planner, state: SessionState, frame: GoalFrame) -> list[str]:
    """Elements every way to the goal must collect, with what the session learned on the way."""
    learned = PlanningState.of(cannot_establish=set(state.cannot_establish), pruned=set(state.pruned))
    found = planner.landmarks(frame.goal, learned)
    if isinstance(found, Unsolvable):  # learning closed every way from scratch: fall back to the chain
        return [x for record in _chain(planner.domain.spec, state, frame) for x in record.outputs]
    return [arg for pred, arg in found if pred == "known"]


def _calls_text(spec: CatalogSpec, records: list[Execution]) -> str:
    """ "credit check with your social security number (scored)": what each call took and how it ended."""
    words = Wording(spec)
    parts = []
    for record in records:
        took = " and ".join(words.element(x) for x in (record.args or list(record.inputs)))
        parts.append(f"{record.skill.replace('_', ' ')}{f' with {took}' if took else ''} "
                     f"({record.outcome.replace('_', ' ')})")
    return "; ".join(parts)


def what(spec: CatalogSpec, planner: Planner, state: SessionState) -> WhatSummary:
    words = Wording(spec)
    frame = _goal_frame(state)
    if not state.history and (frame is None or not state.memory):
        return WhatSummary(None, [], "I have not done anything for you yet.")
    if frame is None:  # a request that was refused, stopped or failed: the calls still happened
        return WhatSummary(None, [], f"I used {_calls_text(spec, state.history)}.")
    goal = words.goal(frame.intent, frame.goal)
    collected = [x for x in landmark_elements(planner, state, frame) if x in state.memory]
    collected.sort(key=lambda x: state.memory[x].seq)
    items = [how_item(spec, state, x, depth=2) for x in collected]
    groups: list[tuple[str, list[str]]] = []  # consecutive values from one source read as one
    for item in items:
        source = "you told me" if item.source == "user" else f"from {(item.skill or '').replace('_', ' ')}"
        if groups and groups[-1][0] == source:
            groups[-1][1].append(item.label)
        else:
            groups.append((source, [item.label]))
    parts = [f"{' and '.join(labels)} ({source})" for source, labels in groups]
    text = f"To {goal}, I collected " + ("; ".join(parts) if parts else "nothing yet") + "."
    chain = _chain(spec, state, frame)
    if chain:  # every step to the goal, in order (the values above are what they took)
        steps_text = "; ".join(f"{r.skill.replace('_', ' ')} ({r.outcome.replace('_', ' ')})" for r in chain)
        text += f" Steps taken: {steps_text}."
    steps = {record.step for record in chain}
    others = [r for r in state.history if r.step not in steps and not any(i.skill == r.skill for i in items)]
    if others:  # calls of a request that was refused or failed, or missteps: said, never hidden
        text += f" I also used {_calls_text(spec, others)}."
    return WhatSummary(frame.intent, items, text)


# --- Why? ----------------------------------------------------------------------------------------

def _chain(spec: CatalogSpec, state: SessionState, frame: GoalFrame) -> list[Execution]:
    """The calls that contributed to the goal, by regression from it: (s - outputs) | inputs.

    A goal to run a skill ("submit_credit_card.apply done") is regressed from the last call that ran
    it, as a goal to know a value is from the value."""
    onto = Ontology(spec.elements)  # a goal on `document` is met by a known `passport`
    regressed = {x for g in frame.goal.known for x in onto.subtree(g) if x in state.memory}
    wanted = [ref.partition(".") for ref in frame.goal.done]
    chain = []
    for record in reversed(state.history):
        runs = any(record.skill == skill and (not mode or record.mode == mode) for skill, _, mode in wanted)
        if runs:
            wanted = [w for w in wanted if not (record.skill == w[0] and (not w[2] or record.mode == w[2]))]
        elif not set(record.outputs) & regressed:
            continue  # a misstep, or a call for something else: no reason for anything
        chain.append(record)
        regressed = (regressed - set(record.outputs)) | set(record.args or record.inputs)
    return list(reversed(chain))


@dataclass
class WhyAnswer:
    element: str
    goal: str | None
    used_by: Execution | None
    chain: list[Execution]
    text: str
    chained: ChainedExplanation | None = None

    def as_dict(self) -> dict[str, Any]:
        def step(r: Execution) -> dict[str, Any]:
            return {"step": r.step, "skill": r.skill, "inputs": r.args or list(r.inputs), "outputs": list(r.outputs)}

        return {"element": self.element, "goal": self.goal, "text": self.text,
                "used_by": step(self.used_by) if self.used_by else None,
                "chain": [step(r) for r in self.chain],
                "chained": self.chained.as_dict() if self.chained else None}


def why(spec: CatalogSpec, state: SessionState, element: str) -> WhyAnswer:
    words = Wording(spec)
    frame = _goal_frame(state)
    label = words.element(element)
    chained = chained_explanation(spec, state, element)
    if frame is None:
        return _used_for(spec, state, element, None, chained)
    goal = words.goal(frame.intent, frame.goal)
    chain = _chain(spec, state, frame)
    for index, record in enumerate(chain):
        if element in (record.args or record.inputs):
            rest = chain[index:]
            text = f"I needed {label} for {words.skill(record.skill)}"
            for number, step in enumerate(rest):
                gave = " and ".join(words.element(x) for x in step.outputs)
                name = step.skill.replace("_", " ")
                if not gave:  # a goal to run the skill: it gave nothing to pass on
                    text += "" if number == 0 else f"; then I used {name}"
                    continue
                text += f", which gave me {gave}" if number == 0 else f"; then {name} gave me {gave}"
            text += f". That is what it took to {goal}."
            return WhyAnswer(element, frame.intent, record, rest, text, chained)
    if chained is not None:
        return WhyAnswer(element, frame.intent, None, chain, chained.text, chained)
    if element in frame.goal.known:
        return WhyAnswer(element, frame.intent, None, chain, f"Because you asked me to {goal}.")
    upcoming = next((line for line in state.plan if f"({element}" in line or f" {element}," in line
                     or f", {element})" in line), None)
    if upcoming is not None:
        return WhyAnswer(element, frame.intent, None, chain, f"I need {label} for the next steps to {goal}.")
    return _used_for(spec, state, element, frame.intent, chained)


def _used_for(spec: CatalogSpec, state: SessionState, element: str, goal: str | None,
              chained: ChainedExplanation | None) -> WhyAnswer:
    """Outside the goal's chain (a request that was refused or failed): the calls that took the value."""
    words = Wording(spec)
    label = words.element(element)
    used = [r for r in state.history if element in (r.args or list(r.inputs))]
    if not used:
        return WhyAnswer(element, goal, None, [], _asked_for(spec, state, element), chained)
    first = used[0]
    gave = " and ".join(words.element(x) for x in first.outputs)
    text = f"I needed {label} for {words.skill(first.skill)}" + (f", which gave me {gave}." if gave else ".")
    return WhyAnswer(element, goal, first, used, text, chained)


def _asked_for(spec: CatalogSpec, state: SessionState, element: str) -> str:
    """Why a value was asked for though nothing took it: what it was for, and whether a refusal to
    share it is why it was not used ("I asked for your date of birth to add a line: ...")."""
    words = Wording(spec)
    label = words.element(element)
    record = state.memory.get(element)
    intents = {i.name: i for i in spec.intents}
    needing = [s.name for s in spec.skills if any(element in m.inputs for m in s.modes)]
    if record is None or record.goal not in intents or not needing:
        return f"I have not used {label} for anything yet."
    goal = words.goal(record.goal, intents[record.goal].goal)
    refused = element in state.denied or any(name in state.denied for name in needing)
    then = ("You did not agree to share it, so I have not used it." if refused else "I have not used it yet.")
    return f"I asked for {label} to {goal}: {words.skill(needing[0])} needs it. {then}"


# --- Chained explanations ------------------------------------------------------------------------

@dataclass
class ChainedExplanation:
    decision: str  # the element a skill decided, e.g. loan_status
    value: str
    feature: str  # its highest-weighted feature
    weight: float
    trail: list[HowItem]  # from the feature back to what the user gave
    text: str

    def as_dict(self) -> dict[str, Any]:
        return {"decision": self.decision, "value": self.value, "feature": self.feature, "weight": self.weight,
                "trail": [{"element": i.element, "source": i.source, "skill": i.skill} for i in self.trail],
                "text": self.text}


def chained_explanation(spec: CatalogSpec, state: SessionState, element: str) -> ChainedExplanation | None:
    item = state.memory.get(element)
    if item is None or item.step is None:
        return None
    record = state.history[item.step]
    if not record.explanation:
        return None
    words = Wording(spec)
    used = set(record.args or record.inputs)
    weights = {f: w for f, w in record.explanation.items() if f in used} or record.explanation
    feature = max(weights, key=lambda f: weights[f])
    trail = _trail(spec, state, feature)
    text = (f"{words.element(element)[:1].upper()}{words.element(element)[1:]} is {item.value} mainly because "
            f"of {words.element(feature)}")
    for link in trail:
        if link.source == "skill" and link.inputs:
            text += f", which {link.skill_label} worked out from {link.inputs[0].label}"
        elif link.source == "user":
            text += ", which you gave me"
    return ChainedExplanation(element, item.value, feature, weights[feature], trail, text + ".")


def _trail(spec: CatalogSpec, state: SessionState, feature: str) -> list[HowItem]:
    """Follow one line of provenance: a skill's top-weighted input, else its first input."""
    trail: list[HowItem] = []
    current: str | None = feature
    seen: set[str] = set()
    while current is not None and current not in seen:
        seen.add(current)
        item = how_item(spec, state, current, depth=2)
        trail.append(item)
        if item.source != "skill" or not item.inputs:
            break
        record = state.history[state.memory[current].step or 0]
        inputs = [i.element for i in item.inputs]
        weighted = {f: w for f, w in (record.explanation or {}).items() if f in inputs}
        current = max(weighted, key=lambda f: weighted[f]) if weighted else inputs[0]
    return trail


# --- The chat's answers ----------------------------------------------------------------------------

def decision_in_question(spec: CatalogSpec, state: SessionState, text: str) -> str | None:
    """The explained decision a why-question is about: "why was my loan rejected?" -> loan_status."""
    said = set(tokens(text))
    for record in reversed(state.history):
        if not record.explanation:
            continue
        for element, value in record.outputs.items():
            if said & (set(tokens(element.replace("_", " "))) | set(tokens(value))):
                return element
    return None


def answer(spec: CatalogSpec, planner: Planner, state: SessionState, act: str, text: str) -> Reply:
    words = Wording(spec)
    if act == "what":
        summary = what(spec, planner, state)
        return Reply("explanation", summary.text, data={"kind": "what", **summary.as_dict()})
    element = mentioned_element(text, spec)
    if act == "why" and (element is None or element not in state.memory):
        element = decision_in_question(spec, state, text) or element
    if element is None:
        example = words.element(next(iter(state.memory), spec.elements[0].name))
        return Reply("explanation", f"Which value do you mean? For example: how did you get {example}?")
    if act == "how":
        item = how_item(spec, state, element)
        return Reply("explanation", how_text(item), element=element, data={"kind": "how", "item": item.as_dict()})
    reply = why(spec, state, element)
    return Reply("explanation", reply.text, element=element, data={"kind": "why", **reply.as_dict()})
