"""A plan in an analyst's words: each step as a sentence, and its cost explained.

`ask(email)` reads "Ask the user for their email"; `name, income = lookup_customer(email)` reads
"Looks up the customer (uses: email; gives: name, income)"; `authorize(credit_check)` reads
"Ask consent to share ssn with credit_check". The code form stays the reference (the validator
reads it); these sentences are for people who never wrote PDDL.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ..catalog.phrases import about_the_user, is_clause, joined, lower_first, the_thing
from ..catalog.spec import CatalogSpec
from ..planning.planner import Step
from ..planning.task import StepKind

_KIND_WORDS = {  # (one, many) for the cost explanation
    StepKind.ASK: ("question to the user", "questions to the user"),
    StepKind.AUTHORIZE: ("request for consent", "requests for consent"),
    StepKind.SKILL: ("skill call", "skill calls"),
}


def _element_words(spec: CatalogSpec, name: str) -> str:
    """How the step names the element, said of the user: its description as written for the user
    ("your full name" -> "their full name", "how you pay" -> "how they pay"), else its name given a
    determiner ("their email", "the pizza type")."""
    found = next((e for e in spec.elements if e.name == name), None)
    described = (found.label or found.description if found else "").strip().rstrip(".")
    phrase = lower_first(described) if described else name.replace("_", " ")
    return about_the_user(the_thing(phrase, owner="your"))


def _ask_sentence(spec: CatalogSpec, names: Sequence[str]) -> str:
    """ "Ask the user for their email and the pizza type", "Ask the user how they pay for the order"."""
    said = [_element_words(spec, x) for x in names]
    things = [s for s in said if not is_clause(s)]
    clauses = [s for s in said if is_clause(s)]
    parts = ([f"for {joined(things)}"] if things else []) + clauses
    return "Ask the user " + " and ".join(parts)


def step_sentence(spec: CatalogSpec, step: Step) -> str:
    """One plan step as a sentence an analyst reads without knowing the plan notation."""
    if step.kind == StepKind.ASK:
        return _ask_sentence(spec, step.args)
    if step.kind == StepKind.AUTHORIZE:
        skills = {s.name: s for s in spec.skills}
        sensitive = {e.name for e in spec.elements if e.sensitive}
        receivers = [a for a in step.args if a in skills]
        shared = [a for a in step.args if a in sensitive]
        if not shared:  # consent per skill: everything sensitive the skill takes
            shared = sorted({x for r in receivers for m in skills[r].modes for x in m.inputs if x in sensitive})
        what = ", ".join(shared) if shared else "sensitive values"
        return f"Ask consent to share {what} with {', '.join(receivers) or 'the skill'}"
    skill = next((s for s in spec.skills if s.name == step.skill), None)
    said = (skill.description.strip().rstrip(".") if skill and skill.description else "") or f"Run {step.skill}"
    parts = [f"uses: {', '.join(step.args)}" if step.args else "uses nothing",
             f"gives: {', '.join(step.outputs)}" if step.outputs else "gives nothing"]
    sentence = f"{said} ({'; '.join(parts)})"
    mode = skill.modes[int(step.mode[1:]) - 1] if skill and step.mode[1:].isdigit() else None
    if mode is not None and len(mode.outcomes) > 1:
        sentence += f", expecting it to end “{step.outcome}”"
    return sentence


def cost_words(steps: Sequence[Step]) -> str:
    """What a plan's cost is made of: `cost 17 = 3 questions to the user × 5 + 2 skill calls × 1`."""
    if not steps:
        return "cost 0: nothing to do"
    groups = Counter((step.kind, step.cost) for step in steps)
    order = [StepKind.SKILL, StepKind.ASK, StepKind.AUTHORIZE]
    terms = []
    for (kind, cost), count in sorted(groups.items(), key=lambda item: (order.index(item[0][0]), item[0][1])):
        one, many = _KIND_WORDS[kind]
        terms.append(f"{count} {one if count == 1 else many} × {cost}")
    total = sum(step.cost for step in steps)
    return (f"cost {total} = {' + '.join(terms)}. The planner picks the plan of least cost; asking the user "
            "costs more than a skill call, so it looks things up where it can.")
