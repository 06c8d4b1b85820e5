"""PDDL text of a compiled domain and of one planning problem, written for people to read.

A plain string emitter: deterministic (same catalog, same bytes) and fast, unlike UP's writer.
"""

from __future__ import annotations

from ..catalog.spec import Goal
from .compile import Consent, Domain, Param, SkillAction, check_goal, goal_operations
from .task import ASK, PlanningState

INDENT = "  "


def _requirements(domain: Domain, pruned: bool) -> str:
    reqs = [":strips", ":typing", ":negative-preconditions", ":disjunctive-preconditions",
            ":existential-preconditions", ":action-costs"]
    if pruned:
        reqs.insert(2, ":equality")
    return " ".join(reqs)


def _wrapped(names: list[str], suffix: str, width: int = 96) -> list[str]:
    """`a b c - type` lines, wrapped so no line runs past `width`."""
    lines: list[str] = []
    current: list[str] = []
    for name in names:
        if current and len(INDENT * 2 + " ".join([*current, name])) > width:
            lines.append(f"{INDENT*2}{' '.join(current)}")
            current = []
        current.append(name)
    lines.append(f"{INDENT*2}{' '.join(current)} - {suffix}")
    return lines


def _types(domain: Domain) -> list[str]:
    lines = [f"{INDENT*2}element skill operation - object"]
    onto = domain.ontology
    groups: dict[str, list[str]] = {}
    for name in onto.elements:
        groups.setdefault(onto.parent[name] or "element", []).append(name)
    for parent, names in groups.items():
        lines += _wrapped(names, parent)
    return lines


def _constants(domain: Domain) -> list[str]:
    lines = [f"{INDENT*2}{name} - {name}" for name in domain.ontology.elements]
    lines += _wrapped([s.name for s in domain.spec.skills], "skill")
    lines += _wrapped(list(domain.operations), "operation")
    return lines


def _predicates(domain: Domain) -> list[str]:
    consent = (
        "(authorized ?s - skill)        ; the user agreed to share sensitive values with ?s"
        if domain.per_skill
        else "(authorized ?x - element)      ; the user agreed to share ?x with any skill"
    )
    derived = ("(derived ?x - element)         ; ?x is computed from a sensitive value: consent before"
               " a world-changing skill receives it",) if domain.derived() else ()
    return [
        f"{INDENT*2}{line}"
        for line in (
            "(known ?x - element)           ; the assistant has a value for ?x",
            "(askable ?x - element)         ; the user may be asked for ?x",
            "(sensitive ?x - element)       ; ?x needs consent before a skill receives it",
            *derived,
            consent,
            "(cannot_establish ?op - operation ?x - element)  ; ?op failed to give ?x too often",
            "(done ?op - operation)         ; ?op has run",
        )
    ]


def _flagged(domain: Domain, var: str, world: bool) -> str:
    """The condition under which the value bound to `var` needs consent (see catalog/sensitivity.py)."""
    if world and domain.derived():
        return f"(or (sensitive {var}) (derived {var}))"
    return f"(sensitive {var})"


def _consent_condition(domain: Domain, action: SkillAction, param: Param, consent: Consent) -> str | None:
    who = action.skill if domain.per_skill else param.var
    needed = f"(authorized {who})"
    if consent is Consent.ALWAYS:
        return needed
    if consent is Consent.IF_SENSITIVE:
        return f"(imply {_flagged(domain, param.var, action.world)} {needed})"
    return None


def _pruned_condition(args_list: list[tuple[str, ...]], params: tuple[Param, ...]) -> list[str]:
    conditions = []
    for args in args_list:
        equalities = [f"(= {p.var} {a})" for p, a in zip(params, args, strict=True)]
        conditions.append(f"(not {equalities[0]})" if len(equalities) == 1
                          else f"(not (and {' '.join(equalities)}))")
    return conditions


def _action(domain: Domain, action: SkillAction, pruned: list[tuple[str, ...]]) -> list[str]:
    pre = [f"(known {p.var})" for p in action.params]
    for param, consent in zip(action.params, action.consent, strict=True):
        condition = _consent_condition(domain, action, param, consent)
        if condition and condition not in pre:
            pre.append(condition)
    pre += [f"(not (cannot_establish {action.operation} {x}))" for x in action.outputs]
    pre += _pruned_condition(pruned, action.params)
    effects = [f"(known {x})" for x in action.outputs]
    effects += [f"(done {action.operation})", f"(increase (total-cost) {action.cost})"]
    params = " ".join(f"{p.var} - {p.element}" for p in action.params)
    return [
        f"{INDENT}(:action {action.name}",
        f"{INDENT*2}:parameters ({params})",
        *_conjunction(":precondition", pre),
        *_conjunction(":effect", effects),
        f"{INDENT})",
    ]


def _conjunction(keyword: str, parts: list[str]) -> list[str]:
    if not parts:
        return []
    if len(parts) == 1:
        return [f"{INDENT*2}{keyword} {parts[0]}"]
    pad = INDENT * 2 + " " * (len(keyword) + 6)
    lines = [f"{INDENT*2}{keyword} (and {parts[0]}"]
    lines += [f"{pad}{part}" for part in parts[1:]]
    lines[-1] += ")"
    return lines


def _builtin_actions(domain: Domain) -> list[str]:
    costs = domain.spec.costs
    ask = [
        f"{INDENT};; Slot filling: ask the user for a value.",
        f"{INDENT}(:action ask",
        f"{INDENT*2}:parameters (?x - element)",
        *_conjunction(":precondition", ["(askable ?x)", f"(not (cannot_establish {ASK} ?x))"]),
        *_conjunction(":effect", ["(known ?x)", f"(increase (total-cost) {costs.ask})"]),
        f"{INDENT})",
    ]
    if domain.per_skill:
        comment, params, pre, effect = (
            "Consent: the user lets a skill receive their sensitive values.",
            "?s - skill", [], "(authorized ?s)")
    else:
        comment, params, pre, effect = (
            "Consent: the user lets a sensitive value go to skills.",
            "?x - element", [_flagged(domain, "?x", world=True)], "(authorized ?x)")
    authorize = [
        f"{INDENT};; {comment}",
        f"{INDENT}(:action authorize",
        f"{INDENT*2}:parameters ({params})",
        *_conjunction(":precondition", pre),
        *_conjunction(":effect", [effect, f"(increase (total-cost) {costs.authorize})"]),
        f"{INDENT})",
    ]
    return ask + [""] + authorize


def _comment(text: str) -> str:
    """`text` as one PDDL comment line: an authored line break would end the comment and let the
    rest of the text be read as PDDL, so every kind of line break (str.splitlines's) becomes a space."""
    return ";; " + " ".join(text.splitlines())


def domain_text(domain: Domain, state: PlanningState | None = None) -> str:
    """The domain; with a `state` whose `pruned` is not empty, pruned groundings are excluded."""
    pruned: dict[str, list[tuple[str, ...]]] = {}
    for name, args in sorted(state.pruned if state else ()):
        pruned.setdefault(name, []).append(args)
    spec = domain.spec
    lines = [
        _comment(f"{spec.title or spec.catalog}: generated by Concerto from catalog '{spec.catalog}'."),
        f"(define (domain {domain.name})",
        f"{INDENT}(:requirements {_requirements(domain, bool(pruned))})",
        f"{INDENT}(:types", *_types(domain), f"{INDENT})",
        f"{INDENT}(:constants", *_constants(domain), f"{INDENT})",
        f"{INDENT}(:predicates", *_predicates(domain), f"{INDENT})",
        f"{INDENT}(:functions (total-cost) - number)",
        "",
        *_builtin_actions(domain),
    ]
    descriptions = {s.name: s.description for s in spec.skills}
    current = None
    for action in domain.actions:
        if action.skill != current:
            current = action.skill
            about = f": {descriptions[current]}" if descriptions[current] else ""
            lines += ["", INDENT + _comment(f"{current}{about}")]
        lines += _action(domain, action, pruned.get(action.name, []))
    lines.append(")")
    return "\n".join(lines) + "\n"


def goal_conditions(domain: Domain, goal: Goal) -> list[str]:
    check_goal(domain, goal)
    parts = []
    for name in goal.known:
        if len(domain.ontology.subtree(name)) == 1:
            parts.append(f"(known {name})")
        else:  # a request for a `plot` is answered by a known `pie_chart`
            parts.append(f"(exists (?x - {name}) (known ?x))")
    for ref in goal.done:
        operations = goal_operations(domain, ref)
        done = [f"(done {op})" for op in operations]
        parts.append(done[0] if len(done) == 1 else f"(or {' '.join(done)})")
    return parts


def problem_text(domain: Domain, goal: Goal, state: PlanningState | None = None, name: str = "") -> str:
    state = state or PlanningState()
    init = [f"(askable {x})" for x in domain.askable()]
    init += [f"(sensitive {x})" for x in domain.sensitive()]
    init += [f"(derived {x})" for x in domain.derived()]
    init += [f"(known {x})" for x in sorted(state.known)]
    init += [f"(authorized {x})" for x in sorted(state.authorized)]
    init += [f"(done {op})" for op in sorted(state.done)]
    init += [f"(cannot_establish {op} {x})" for op, x in sorted(state.cannot_establish)]
    init.append("(= (total-cost) 0)")
    goal_parts = goal_conditions(domain, goal)
    lines = [
        f"(define (problem {name or domain.name + '-task'})",
        f"{INDENT}(:domain {domain.name})",
        f"{INDENT}(:init",
        *[f"{INDENT*2}{fact}" for fact in init],
        f"{INDENT})",
        f"{INDENT}(:goal (and {' '.join(goal_parts)}))",
        f"{INDENT}(:metric minimize (total-cost))",
        ")",
    ]
    return "\n".join(lines) + "\n"
