"""The scenario form of the studio: one field per thing a scenario says, named by its path in the scenario.

A field's name is the path `engine.simulation.scenario.parse_scenario` reports a fault at
(`users.goals.apply_loan`, `skills.submit_loan.modes.m1.inputs`), so every fault the engine finds
lands on the field that holds it; the form itself only reads numbers and lists. A blank field means
"as the default" (a rate) or "as the spec says" (a mode's inputs, an outcome's outputs).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.errors import SpecError
from orchestrator.engine.simulation.scenario import Behaviour, Phrasing, parse_scenario, scenario_to_data

EXTRA = "extra_outcomes"  # per mode: outcomes the spec lacks, one a line: "name: output, output @ weight"
_EXTRA_LINE = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*:\s*([^@]*?)\s*(?:@\s*(\S+))?\s*$")


@dataclass
class Field:
    name: str
    label: str
    kind: str  # number | text | textarea | checkbox
    value: Any = ""
    help: str = ""
    errors: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return "f-" + re.sub(r"[^\w-]", "-", self.name)


@dataclass
class Section:
    title: str
    help: str
    fields: list[Field]
    key: str = ""


def _fields(spec: CatalogSpec) -> list[Section]:
    """Every field of the form for `spec`, empty."""
    sections = [Section("Scenario", "its name (a slug) and what it is for", [
        Field("scenario", "Name", "text", help="letters, digits and dashes"),
        Field("description", "Description", "text"),
        Field("users.max_turns", "Most user messages a conversation", "number", help="default 30"),
    ], key="meta")]
    sections.append(Section("Who the users are: goals", "how often users ask each intent (relative weights; "
                            "all blank: every intent alike)",
                            [Field(f"users.goals.{i.name}", i.name, "number") for i in spec.intents], key="goals"))
    element_fields = []
    for e in spec.elements:
        element_fields += [
            Field(f"users.values.{e.name}", f"{e.name}: values users give", "textarea",
                  help=f"one a line; blank: generated from its format ({e.format or 'text'})"),
            Field(f"users.cannot.{e.name}", f"{e.name}: share who cannot give it", "number", help="0 to 1"),
            Field(f"users.refuse.{e.name}", f"{e.name}: share who will not give it", "number", help="0 to 1"),
            Field(f"unfillable.{e.name}", f"{e.name}: no user can give it", "checkbox"),
        ]
    sections.append(Section("What users know and give", "per element of the catalog", element_fields, key="values"))
    sections.append(Section("How users phrase things", "rates from 0 to 1 (blank: the default)", [
        Field(f"users.phrasing.{k}", k.replace("_", " "), "number", help=f"default {v.default}")
        for k, v in Phrasing.model_fields.items()], key="phrasing"))
    sections.append(Section("How users behave", "rates from 0 to 1 (blank: the default)", [
        Field(f"users.behaviour.{k}", k.replace("_", " "), "number", help=f"default {v.default}")
        for k, v in Behaviour.model_fields.items()], key="behaviour"))
    for skill in spec.skills:
        fields = [Field(f"skills.{skill.name}.failure_rate", "failure rate of every call", "number",
                        help="0 to 1: calls that time out or fail")]
        for name in skill.mode_names():
            mode = skill.mode(name)
            base = f"skills.{skill.name}.modes.{name}"
            fields.append(Field(f"{base}.failure_rate", f"{name}: failure rate", "number"))
            fields.append(Field(f"{base}.inputs", f"{name}: inputs it really needs", "text",
                                help=f"comma-separated; blank: as the spec ({', '.join(mode.inputs) or 'none'})"))
            for outcome in mode.outcomes:
                fields.append(Field(f"{base}.outcomes.{outcome.name}.weight", f"{name} → {outcome.name}: weight",
                                    "number", help="relative frequency; 0: never happens; blank: 1"))
                fields.append(Field(f"{base}.outcomes.{outcome.name}.outputs", f"{name} → {outcome.name}: outputs "
                                    "it really gives", "text", help="comma-separated; blank: as the spec "
                                    f"({', '.join(outcome.outputs) or 'none'})"))
            fields.append(Field(f"{base}.{EXTRA}", f"{name}: outcomes the spec lacks", "textarea",
                                help="one a line: name: output, output @ weight"))
        sections.append(Section(f"How skill {skill.name} really behaves", skill.description or "", fields,
                                key=f"skill-{skill.name}"))
    return sections


def _rate_text(value: Any) -> str:
    return "" if value is None else (f"{value:g}" if isinstance(value, float) else str(value))


def form_sections(spec: CatalogSpec, data: dict[str, Any] | None = None, post: Any = None,
                  errors: dict[str, list[str]] | None = None) -> list[Section]:
    """The form's sections with values from a scenario's `data`, or from a posted form, and any errors."""
    sections = _fields(spec)
    values = _values_from_data(spec, data or {}) if post is None else {
        f.name: (f.name in post if f.kind == "checkbox" else post.get(f.name, "")) for s in sections for f in s.fields}
    for section in sections:
        for one in section.fields:
            one.value = values.get(one.name, False if one.kind == "checkbox" else "")
            one.errors = (errors or {}).get(one.name, [])
    return sections


def _values_from_data(spec: CatalogSpec, data: dict[str, Any]) -> dict[str, Any]:
    users = data.get("users") or {}
    found: dict[str, Any] = {"scenario": data.get("scenario", ""), "description": data.get("description", ""),
                             "users.max_turns": _rate_text(users.get("max_turns"))}
    for part in ("goals", "cannot", "refuse"):
        for name, value in (users.get(part) or {}).items():
            found[f"users.{part}.{name}"] = _rate_text(value)
    for name, pool in (users.get("values") or {}).items():
        found[f"users.values.{name}"] = "\n".join(pool)
    for part in ("phrasing", "behaviour"):
        for name, value in (users.get(part) or {}).items():
            found[f"users.{part}.{name}"] = _rate_text(value)
    for name in data.get("unfillable") or ():
        found[f"unfillable.{name}"] = True
    skills = {s.name: s for s in spec.skills}
    for name, truth in (data.get("skills") or {}).items():
        found[f"skills.{name}.failure_rate"] = _rate_text(truth.get("failure_rate"))
        declared_modes = skills.get(name)
        for mode_name, mode_truth in (truth.get("modes") or {}).items():
            base = f"skills.{name}.modes.{mode_name}"
            found[f"{base}.failure_rate"] = _rate_text(mode_truth.get("failure_rate"))
            if mode_truth.get("inputs") is not None:
                found[f"{base}.inputs"] = ", ".join(mode_truth["inputs"])
            declared = set()
            if declared_modes is not None and mode_name in declared_modes.mode_names():
                declared = {o.name for o in declared_modes.mode(mode_name).outcomes}
            extra = []
            for outcome, o in (mode_truth.get("outcomes") or {}).items():
                if outcome in declared:
                    found[f"{base}.outcomes.{outcome}.weight"] = _rate_text(o.get("weight"))
                    if o.get("outputs") is not None:
                        found[f"{base}.outcomes.{outcome}.outputs"] = ", ".join(o["outputs"])
                else:
                    weight = o.get("weight")
                    extra.append(f"{outcome}: {', '.join(o.get('outputs') or ())}"
                                 + (f" @ {_rate_text(weight)}" if weight is not None else ""))
            found[f"{base}.{EXTRA}"] = "\n".join(extra)
    return found


def _names(text: str) -> list[str]:
    return [x.strip() for x in text.replace("\n", ",").split(",") if x.strip()]


def scenario_from_post(spec: CatalogSpec, post: Any) -> tuple[dict[str, Any] | None, dict[str, list[str]]]:
    """The scenario a posted form describes, checked by the engine; (None, errors by field name) when it has faults."""
    errors: dict[str, list[str]] = {}
    sections = _fields(spec)
    names = {f.name for s in sections for f in s.fields}

    def number(name: str) -> float | None:
        text = str(post.get(name, "")).strip()
        if not text:
            return None
        try:
            return float(text)
        except ValueError:
            errors.setdefault(name, []).append(f"'{text}' is not a number")
            return None

    data: dict[str, Any] = {"scenario": str(post.get("scenario", "")).strip(), "catalog": spec.catalog}
    description = str(post.get("description", "")).strip()
    if description:
        data["description"] = description
    users: dict[str, Any] = {}
    turns = number("users.max_turns")
    if turns is not None:
        if turns.is_integer():
            users["max_turns"] = int(turns)
        else:
            errors.setdefault("users.max_turns", []).append("a whole number")
    for part, items in (("goals", [i.name for i in spec.intents]), ("cannot", [e.name for e in spec.elements]),
                        ("refuse", [e.name for e in spec.elements])):
        found = {name: v for name in items if (v := number(f"users.{part}.{name}")) is not None}
        if found:
            users[part] = found
    pools = {e.name: lines for e in spec.elements
             if (lines := [x.strip() for x in str(post.get(f"users.values.{e.name}", "")).splitlines() if x.strip()])}
    if pools:
        users["values"] = pools
    for part, model in (("phrasing", Phrasing), ("behaviour", Behaviour)):
        found = {k: v for k in model.model_fields if (v := number(f"users.{part}.{k}")) is not None}
        if found:
            users[part] = found
    if users:
        data["users"] = users
    unfillable = [e.name for e in spec.elements if f"unfillable.{e.name}" in post]
    if unfillable:
        data["unfillable"] = unfillable
    skills: dict[str, Any] = {}
    for skill in spec.skills:
        truth: dict[str, Any] = {}
        rate = number(f"skills.{skill.name}.failure_rate")
        if rate is not None:
            truth["failure_rate"] = rate
        modes: dict[str, Any] = {}
        for name in skill.mode_names():
            base = f"skills.{skill.name}.modes.{name}"
            mode_truth: dict[str, Any] = {}
            rate = number(f"{base}.failure_rate")
            if rate is not None:
                mode_truth["failure_rate"] = rate
            inputs = str(post.get(f"{base}.inputs", "")).strip()
            if inputs:
                mode_truth["inputs"] = _names(inputs)
            outcomes: dict[str, Any] = {}
            for outcome in skill.mode(name).outcomes:
                o: dict[str, Any] = {}
                weight = number(f"{base}.outcomes.{outcome.name}.weight")
                if weight is not None:
                    o["weight"] = weight
                outputs = str(post.get(f"{base}.outcomes.{outcome.name}.outputs", "")).strip()
                if outputs:
                    o["outputs"] = _names(outputs)
                if o:
                    outcomes[outcome.name] = o
            for line in str(post.get(f"{base}.{EXTRA}", "")).splitlines():
                if not line.strip():
                    continue
                match = _EXTRA_LINE.match(line)
                if match is None:
                    errors.setdefault(f"{base}.{EXTRA}", []).append(
                        f"'{line.strip()}': write it as name: output, output @ weight")
                    continue
                o = {"outputs": _names(match.group(2))}
                if match.group(3):
                    try:
                        o["weight"] = float(match.group(3))
                    except ValueError:
                        errors.setdefault(f"{base}.{EXTRA}", []).append(f"'{match.group(3)}' is not a number")
                outcomes[match.group(1)] = o
            if outcomes:
                mode_truth["outcomes"] = outcomes
            if mode_truth:
                modes[name] = mode_truth
        if modes:
            truth["modes"] = modes
        if truth:
            skills[skill.name] = truth
    if skills:
        data["skills"] = skills
    if errors:
        return None, errors
    try:
        return scenario_to_data(parse_scenario(data, spec)), {}
    except SpecError as exc:
        for issue in exc.issues:
            errors.setdefault(_field_of(issue.path, names, spec), []).append(issue.message)
        return None, errors


def _field_of(path: str, names: set[str], spec: CatalogSpec) -> str:
    """The form field a fault's path falls in; "" (the whole form) when none holds it."""
    path = re.sub(r"\[\d+\]", "", path)
    parts = path.split(".")
    if len(parts) >= 6 and parts[0] == "skills" and parts[4] == "outcomes":
        base = ".".join(parts[:4])
        if f"{base}.outcomes.{parts[5]}.weight" not in names:
            return f"{base}.{EXTRA}"  # an outcome the spec lacks lives in the mode's extra outcomes
    if parts[:2] == ["users", "values"] and len(parts) == 3 and path not in names:
        return ""
    if parts[0] == "unfillable":
        return ""
    while parts:
        candidate = ".".join(parts)
        if candidate in names:
            return candidate
        if candidate + ".weight" in names:
            return candidate + ".weight"
        parts.pop()
    return ""
