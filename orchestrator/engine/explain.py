"""Answers to "what did you do?", "how did you get X?" and "why did you need X?" from a session."""

from __future__ import annotations

from .nlu import mentioned_element
from .replies import Reply, Wording
from .session import SessionState
from .spec import CatalogSpec


def answer(spec: CatalogSpec, state: SessionState, act: str, text: str) -> Reply:
    words = Wording(spec)
    if act == "what":
        return Reply("explanation", what(spec, state), data={"kind": "what"})
    element = mentioned_element(text, spec)
    if element is None:
        return Reply("explanation", "Which value do you mean? For example: how did you get my "
                     f"{words.element(next(iter(state.memory), spec.elements[0].name))}?")
    body = how(spec, state, element) if act == "how" else why(spec, state, element)
    return Reply("explanation", body, element=element, data={"kind": act})


def what(spec: CatalogSpec, state: SessionState) -> str:
    words = Wording(spec)
    lines = []
    for record in state.history:
        if not record.outputs:
            continue  # a call that gave nothing did nothing for the user
        got = ", ".join(words.element(x) for x in record.outputs)
        lines.append(f"I used {words.skill(record.skill)}, which gave me {got}")
    if not lines:
        return "I have not done anything for you yet."
    return "; then ".join(lines) + "."


def how(spec: CatalogSpec, state: SessionState, element: str) -> str:
    words = Wording(spec)
    item = state.memory.get(element)
    if item is None:
        return f"I do not know {words.element(element)} yet."
    if item.source != "skill" or item.step is None:
        return f"You told me {words.element(element)}."
    record = state.history[item.step]
    used = ", ".join(words.element(x) for x in record.inputs) or "nothing"
    return f"I got {words.element(element)} from {words.skill(record.skill)}, which took {used}."


def why(spec: CatalogSpec, state: SessionState, element: str) -> str:
    words = Wording(spec)
    for record in state.history:
        if element in record.inputs and record.outputs:
            return f"I needed {words.element(element)} for {words.skill(record.skill)}."
    frame = state.current
    if frame is not None and element in frame.goal.known:
        return f"Because you asked me to {words.goal(frame.intent, frame.goal)}."
    return f"I have not used {words.element(element)} for anything yet."
