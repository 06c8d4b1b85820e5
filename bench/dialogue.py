"""`python -m bench --only dialogue`: whole conversations on catalogs unlike banking, turn by turn.

Each case in bench/data/dialogues/{dev,heldout,heldout2,...,heldout6}/*.yaml is one conversation: per
turn the user's words and the commands they should be understood as (`describe` in engine/runtime/
dialogue/commands.py), optionally what the assistant should ask or say; per case the outcome (which
skills ran with which values, which never ran, what is held). The held-out sets were written apart
from the rules and are not tuned on (heldout2: two more catalogs, written blind and run once;
heldout3: two more, written blind, run once, then tuned on; heldout4: two more, courier and
university, written blind, run once, then tuned on; heldout5: two more, dentist and removals, written
blind, run once, then tuned on; heldout6: two more, solar and hotel, written blind and run once
after every other fix, then tuned on).
Reported per catalog: the share of held-out turns whose commands are right, wrong values sent to
skills (target 0), consent violations (a consent granted in a turn whose expected commands hold no
Affirm; target 0), and the turn's p95 in milliseconds; banking's loan conversation is timed too, for
the 20 ms budget.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.catalog.spec_io import load_catalog
from orchestrator.engine.planning.planner import Planner
from orchestrator.engine.runtime.dialogue.commands import describe
from orchestrator.engine.runtime.session import SessionState
from orchestrator.engine.runtime.skills import SimulatedSkills
from orchestrator.engine.runtime.turns import PlannerOrchestrator

from .common import BANKING, p95

DATA = Path(__file__).resolve().parent / "data" / "dialogues"
SETS = ("dev", "heldout", "heldout2", "heldout3", "heldout4", "heldout5", "heldout6")
_PLANNERS: dict[str, tuple[CatalogSpec, Planner]] = {}


def catalog(name: str) -> tuple[CatalogSpec, Planner]:
    if name not in _PLANNERS:
        path = BANKING if name == "banking" else DATA / "catalogs" / f"{name}.yaml"
        spec = load_catalog(path.read_text(), filename=path.name)
        _PLANNERS[name] = (spec, Planner.for_spec(spec))
    return _PLANNERS[name]


def cases(which: str) -> list[dict[str, Any]]:
    """Every case of a set, each with its catalog's name."""
    found = []
    for path in sorted((DATA / which).glob("*.yaml")):
        document = yaml.safe_load(path.read_text())
        found += [{**case, "catalog": document["catalog"], "file": path.name} for case in document["cases"]]
    return found


@dataclass
class CaseResult:
    name: str
    catalog: str
    turns: int = 0
    right: int = 0  # turns whose commands are the expected ones
    wrong_values: int = 0
    consent_violations: int = 0
    times: list[float] = field(default_factory=list)  # ms per turn
    problems: list[str] = field(default_factory=list)


def run_case(case: dict[str, Any]) -> CaseResult:
    spec, planner = catalog(case["catalog"])
    skills = SimulatedSkills(spec, seed=case.get("seed", 1))
    bot = PlannerOrchestrator(spec, planner, skills)
    state = SessionState()
    result = CaseResult(case["name"], case["catalog"])
    for number, turn in enumerate(case["turns"], start=1):
        before = set(state.authorized)
        start = time.perf_counter()
        log = bot.turn(state, turn["user"])
        result.times.append((time.perf_counter() - start) * 1000)
        result.turns += 1
        got = [describe(c) for c in log.commands]
        expected = turn.get("commands")
        if expected is None or Counter(got) == Counter(expected):
            result.right += 1
        else:
            result.problems.append(f"turn {number} {turn['user']!r}: commands {got}, expected {expected}")
        if set(state.authorized) - before and not any(c.startswith("Affirm") for c in expected or ["Affirm"]):
            result.consent_violations += 1
            result.problems.append(f"turn {number} {turn['user']!r}: consent granted without a yes")
        result.problems += _turn_checks(number, turn, log.replies)
    result.wrong_values, problems = _outcome(case.get("outcome", {}), skills.calls, state)
    result.problems += problems
    return result


def _turn_checks(number: int, turn: dict[str, Any], replies: list) -> list[str]:
    problems = []
    last = replies[-1] if replies else None
    if "asks" in turn and (last is None or last.element != turn["asks"]):
        problems.append(f"turn {number}: asked {last.element if last else None}, expected {turn['asks']}")
    if "reply" in turn and (last is None or last.kind != turn["reply"]):
        problems.append(f"turn {number}: last reply {last.kind if last else None}, expected {turn['reply']}")
    text = " ".join(r.text for r in replies)
    if "says" in turn and turn["says"].lower() not in text.lower():
        problems.append(f"turn {number}: {text!r} does not say {turn['says']!r}")
    return problems


def _outcome(outcome: dict[str, Any], calls: list, state: SessionState) -> tuple[int, list[str]]:
    """Wrong values sent (a call of a skill with an input other than expected, or a call that should
    never have happened) and every problem found."""
    wrong, problems = 0, []
    for skill, expected in (outcome.get("called") or {}).items():
        made = [inputs for name, _, inputs in calls if name == skill]
        if not made:
            problems.append(f"{skill} was not called")
            continue
        for key, value in (expected or {}).items():
            if made[-1].get(key) != str(value):
                wrong += 1
                problems.append(f"{skill} got {key}={made[-1].get(key)!r}, expected {value!r}")
    for skill in outcome.get("not_called") or []:
        if any(name == skill for name, _, _ in calls):
            wrong += 1
            problems.append(f"{skill} was called")
    for key, value in (outcome.get("memory") or {}).items():
        held = state.value(key)
        if (held is None) != (value is None) or (value is not None and held != str(value)):
            problems.append(f"memory {key}={held!r}, expected {value!r}")
    return wrong, problems


def banking_p95() -> float:
    """The loan conversation on the demo catalog, timed per turn (the 20 ms budget)."""
    spec, planner = catalog("banking")
    times = []
    for _ in range(10):
        bot = PlannerOrchestrator(spec, planner, SimulatedSkills(spec, seed=1))
        state = SessionState()
        for text in ("I'd like to apply for a loan", "ada@example.com", "123-45-6789", "who will see it?", "yes",
                     "20k", "wait, actually make it 12 grand instead", "yes", "what did you do?"):
            start = time.perf_counter()
            bot.turn(state, text)
            times.append((time.perf_counter() - start) * 1000)
    return p95(times)


def warm_up(names: set[str]) -> None:
    """Planners built and the intent model loaded before anything is timed."""
    for name in names:
        spec, planner = catalog(name)
        bot = PlannerOrchestrator(spec, planner, SimulatedSkills(spec, seed=1))
        bot.turn(SessionState(), spec.intents[0].examples[0])


def main() -> None:
    warm_up({"banking"} | {case["catalog"] for which in SETS for case in cases(which)})
    print("| set | catalog | cases | turns with the right commands | wrong values sent | consent violations "
          "| turn p95 (ms) |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    failures = []
    for which in SETS:
        results: dict[str, list[CaseResult]] = {}
        for case in cases(which):
            results.setdefault(case["catalog"], []).append(run_case(case))
        for name, found in sorted(results.items()):
            turns = sum(r.turns for r in found)
            right = sum(r.right for r in found)
            print(f"| {which} | {name} | {len(found)} | {right}/{turns} ({100 * right / turns:.0f}%) "
                  f"| {sum(r.wrong_values for r in found)} | {sum(r.consent_violations for r in found)} "
                  f"| {p95([t for r in found for t in r.times]):.1f} |")
            failures += [f"{which}/{r.catalog}/{r.name}: {p}" for r in found for p in r.problems]
    print(f"| - | banking (loan conversation, 10 runs) | - | - | - | - | {banking_p95():.1f} |")
    if failures:
        print("\nProblems:")
        for line in failures:
            print(f"- {line}")


if __name__ == "__main__":
    main()
