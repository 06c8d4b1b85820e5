"""Plans written as readable lines, parsed against a compiled domain.

A line reads the way the planner prints a step (`planner.Step.line`):

    name, income = lookup_customer(email)
    ask(email)
    authorize(credit_check)

A skill call is matched to the mode whose inputs its arguments fit (a subtype fits its type; the
order of the arguments does not matter) and to the outcome whose outputs are the ones written,
or else the smallest outcome that covers them. A line that does not parse becomes a warning
naming the line and the reason; it never stops the parse, whatever the text.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..errors import ConcertoError
from ..planning.compile import Domain, SkillAction
from ..planning.planner import Step
from ..planning.task import ASK, StepKind

MAX_LINES = 1000
MAX_LINE_CHARS = 2000

# `outputs = name(arguments)`; the pieces are checked one by one afterwards so that the warning
# can say which piece is wrong.
_CALL = re.compile(r"^(?:(?P<outputs>[^=()]*?)\s*=\s*)?(?P<name>[^\s=(),]+)\s*\((?P<args>[^()]*)\)\s*;?$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")
# Numbering and bullets that people and language models put before steps: `3.`, `3)`, `*`, `-`.
_PREFIX = re.compile(r"^(?:\d+[.)]|[*\u2022-])\s+")


@dataclass(frozen=True)
class PlanLine:
    """One line of a written plan: its step when it parsed, else the reason it did not."""

    number: int  # 1-based, in the text as given
    text: str
    step: Step | None = None
    warning: str = ""

    @property
    def rendered(self) -> str:
        """The step in the planner's own spelling, or the text as written when it did not parse."""
        return self.step.line if self.step else self.text


@dataclass(frozen=True)
class ParsedPlan:
    lines: tuple[PlanLine, ...]

    @property
    def steps(self) -> list[Step]:
        return [line.step for line in self.lines if line.step is not None]

    @property
    def warnings(self) -> list[PlanLine]:
        return [line for line in self.lines if line.step is None]


class _Unparsable(Exception):
    """Why one line is not a step (becomes that line's warning)."""


def split_lines(text: str | Sequence[str]) -> list[str]:
    lines = text.splitlines() if isinstance(text, str) else [str(line) for line in text]
    if len(lines) > MAX_LINES:
        raise ConcertoError(f"the plan has {len(lines):,} lines; the limit is {MAX_LINES:,}")
    return lines


def parse_plan(domain: Domain, text: str | Sequence[str]) -> ParsedPlan:
    """Every meaningful line of `text` (blank lines and `#` comments are skipped) as a PlanLine."""
    index = _skill_index(domain)
    parsed = []
    for number, raw in enumerate(split_lines(text), start=1):
        line = _clean(raw)
        if not line:
            continue
        try:
            parsed.append(PlanLine(number, line, step=_parse_line(domain, index, line)))
        except _Unparsable as exc:
            parsed.append(PlanLine(number, line, warning=str(exc)))
    return ParsedPlan(tuple(parsed))


def _clean(raw: str) -> str:
    line = raw.split("#", 1)[0].strip()
    return _PREFIX.sub("", line).strip()


def _skill_index(domain: Domain) -> dict[str, list[SkillAction]]:
    index: dict[str, list[SkillAction]] = {}
    for action in domain.actions:
        index.setdefault(action.skill, []).append(action)
    return index


def _parse_line(domain: Domain, index: dict[str, list[SkillAction]], line: str) -> Step:
    if len(line) > MAX_LINE_CHARS:
        raise _Unparsable(f"the line is longer than {MAX_LINE_CHARS} characters")
    match = _CALL.match(line)
    if match is None:
        raise _Unparsable("not a step: write `outputs = skill(inputs)`, `ask(element)` or `authorize(target)`")
    name = match["name"]
    outputs = _names(match["outputs"] or "", "output")
    args = _names(match["args"], "argument")
    if name == ASK:
        return _ask(domain, args, outputs)
    if name == "authorize":
        return _authorize(domain, args, outputs)
    if name not in index:
        raise _Unparsable(f"unknown skill '{name}'{_suggest(name, [*index, ASK, 'authorize'])}")
    return _skill_call(domain, name, index[name], args, outputs)


def _names(text: str, what: str) -> tuple[str, ...]:
    names = tuple(part.strip() for part in text.split(",")) if text.strip() else ()
    for name in names:
        if not _NAME.match(name):
            raise _Unparsable(f"'{name}' is not a valid {what} name" if name else f"an empty {what}")
    return names


def _suggest(name: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(choices), n=1, cutoff=0.7)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _element(domain: Domain, name: str) -> str:
    if name not in domain.ontology.elements:
        raise _Unparsable(f"unknown element '{name}'{_suggest(name, domain.ontology.elements)}")
    return name


def _ask(domain: Domain, args: tuple[str, ...], outputs: tuple[str, ...]) -> Step:
    if len(args) != 1:
        raise _Unparsable(f"ask takes one element, not {len(args)}")
    element = _element(domain, args[0])
    if outputs not in ((), (element,)):
        raise _Unparsable(f"ask({element}) gives only {element}, not {', '.join(outputs)}")
    # A question for an element the user cannot give still parses: the validator then reports
    # it as a step that cannot run, as the domain's `askable` precondition would.
    return Step(kind=StepKind.ASK, name=ASK, args=(element,), cost=domain.spec.costs.ask, outputs=(element,))


def _authorize(domain: Domain, args: tuple[str, ...], outputs: tuple[str, ...]) -> Step:
    if len(args) != 1:
        raise _Unparsable(f"authorize takes one {'skill' if domain.per_skill else 'element'}, not {len(args)}")
    if outputs:
        raise _Unparsable("authorize gives no outputs")
    target = args[0]
    if domain.per_skill and target not in {s.name for s in domain.spec.skills}:
        hint = _suggest(target, [s.name for s in domain.spec.skills])
        raise _Unparsable(f"authorize names a skill under this catalog's privacy model; '{target}' is not one{hint}")
    if not domain.per_skill:
        _element(domain, target)
    return Step(kind=StepKind.AUTHORIZE, name="authorize", args=(target,), cost=domain.spec.costs.authorize)


def _skill_call(
    domain: Domain, skill: str, actions: list[SkillAction], args: tuple[str, ...], outputs: tuple[str, ...]
) -> Step:
    for name in (*args, *outputs):
        _element(domain, name)
    fitting = [(a, bound) for a in actions if (bound := _bind(domain, a, args)) is not None]
    if not fitting:
        raise _Unparsable(_no_mode_message(skill, actions, args))
    wanted = set(outputs)
    exact = [(a, bound) for a, bound in fitting if set(a.outputs) == wanted]
    covering = sorted(((a, bound) for a, bound in fitting if wanted <= set(a.outputs)),
                      key=lambda pair: len(pair[0].outputs))
    chosen = (exact or covering or [None])[0]
    if chosen is None:
        gives = " or ".join(sorted({f"({', '.join(a.outputs)})" if a.outputs else "nothing" for a, _ in fitting}))
        raise _Unparsable(f"{skill}({', '.join(args)}) gives {gives}, not ({', '.join(outputs)})")
    action, bound = chosen
    return Step(kind=StepKind.SKILL, name=action.name, args=bound, cost=action.cost, skill=skill, mode=action.mode,
                outcome=action.outcome, outputs=action.outputs)


def _bind(domain: Domain, action: SkillAction, args: tuple[str, ...]) -> tuple[str, ...] | None:
    """The arguments in the order of the mode's inputs, each fitting its input's type; else None."""
    inputs = [p.element for p in action.params]
    if len(inputs) != len(args):
        return None
    subtree = domain.ontology.subtree
    slots: list[str | None] = [None] * len(inputs)

    def place(k: int) -> bool:  # backtracking: a mode has a handful of inputs at most
        if k == len(args):
            return True
        for i, element in enumerate(inputs):
            if slots[i] is None and args[k] in subtree(element):
                slots[i] = args[k]
                if place(k + 1):
                    return True
                slots[i] = None
        return False

    return tuple(s for s in slots if s is not None) if place(0) else None


def _no_mode_message(skill: str, actions: list[SkillAction], args: tuple[str, ...]) -> str:
    signatures = list(dict.fromkeys(tuple(p.element for p in a.params) for a in actions))
    takes = " or ".join(f"({', '.join(s)})" for s in signatures)
    if all(len(s) != len(args) for s in signatures):
        counts = sorted({len(s) for s in signatures})
        numbers = " or ".join(str(n) for n in counts)
        return f"{skill} takes {numbers} input{'s' if counts != [1] else ''} {takes}, not {len(args)}"
    return f"no mode of {skill} takes ({', '.join(args)}): it takes {takes}"
