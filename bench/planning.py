"""Planning benchmark: compile time and plan time per catalog size, fast path vs UP's path.

    python -m bench [--calls 20] [--naive-calls 10] [--naive-max-skills 200] [--driver-calls 3]

Each call plans a random intent from a varied initial state (some values known, some slots
unfillable), as turns of a conversation would. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
import warnings
from dataclasses import dataclass

from orchestrator.engine.catalog.spec import CatalogSpec, Goal
from orchestrator.engine.catalog.spec_io import load_catalog
from orchestrator.engine.catalog.synthetic import synthetic_catalog
from orchestrator.engine.planning.downward import run_driver
from orchestrator.engine.planning.pddl import domain_text, problem_text
from orchestrator.engine.planning.planner import Planner
from orchestrator.engine.planning.task import ASK, PlanningState

from .common import BANKING, p95


@dataclass
class Row:
    name: str
    skills: int
    actions: int
    compile_ms: float
    plan_median_ms: float
    plan_p95_ms: float
    naive_median_ms: float | None
    driver_median_ms: float | None
    same_cost: str


def _turns(spec: CatalogSpec, count: int, seed: int) -> list[tuple[Goal, PlanningState]]:
    rng = random.Random(seed)
    askable = [e.name for e in spec.elements if e.askable]
    turns = []
    for _ in range(count):
        intent = rng.choice(spec.intents)
        known = rng.sample(askable, k=min(len(askable), rng.randint(0, 4)))
        refused = rng.sample(askable, k=min(len(askable), rng.randint(0, 2)))
        state = PlanningState.of(known=known, cannot_establish={(ASK, x) for x in refused if x not in known})
        turns.append((intent.goal, state))
    return turns


def _reference(turns, costs, calls: int, solve) -> tuple[float | None, int, int]:
    """Median time of a reference path over the first turns, and how many costs agree."""
    times, agree = [], 0
    for (goal, state), cost in list(zip(turns, costs, strict=True))[:calls]:
        started = time.perf_counter()
        agree += solve(goal, state) == cost
        times.append((time.perf_counter() - started) * 1000)
    return (statistics.median(times) if times else None), agree, len(times)


def measure(name: str, spec: CatalogSpec, calls: int, naive_calls: int, driver_calls: int) -> Row:
    started = time.perf_counter()
    planner = Planner.for_spec(spec, cache_size=0)  # every call searches: this table times Fast Downward
    compile_ms = (time.perf_counter() - started) * 1000
    turns = _turns(spec, calls, seed=len(spec.skills))
    planner.plan(*turns[0])  # warm the search binary into the page cache
    times, costs = [], []
    for goal, state in turns:
        started = time.perf_counter()
        result = planner.plan(goal, state)
        times.append((time.perf_counter() - started) * 1000)
        costs.append(result.cost if result.solved else None)
    from orchestrator.engine.planning.up_bridge import oneshot_plan_cost

    domain = planner.domain
    naive_median, naive_agree, naive_n = _reference(
        turns, costs, naive_calls, lambda g, s: oneshot_plan_cost(domain, g, s))
    driver_median, driver_agree, driver_n = _reference(
        turns, costs, driver_calls,
        lambda g, s: run_driver(domain_text(domain, s), problem_text(domain, g, s)))
    same = f"{naive_agree + driver_agree}/{naive_n + driver_n}"
    return Row(name, len(spec.skills), len(planner.task.actions), compile_ms,
               statistics.median(times), p95(times), naive_median, driver_median, same)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--naive-calls", type=int, default=10)
    parser.add_argument("--naive-max-skills", type=int, default=200,
                        help="skip UP's path above this size (it takes minutes at 1000 skills)")
    parser.add_argument("--driver-calls", type=int, default=3,
                        help="plans through FD's full driver (translator + search) on our PDDL text")
    parser.add_argument("--sizes", default="10,50,200,1000")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    catalogs = [("banking", load_catalog(BANKING.read_text()))]
    catalogs += [(f"synthetic-{n}", synthetic_catalog(n, seed=1)) for n in map(int, args.sizes.split(","))]
    print("| catalog | skills | grounded actions | compile ms | plan median ms | plan p95 ms "
          "| UP OneshotPlanner median ms | FD driver on PDDL text median ms | same cost as references |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | :---: |")
    for name, spec in catalogs:
        naive = args.naive_calls if len(spec.skills) <= args.naive_max_skills else 0
        row = measure(name, spec, args.calls, naive, args.driver_calls)
        print(f"| {row.name} | {row.skills} | {row.actions} | {row.compile_ms:.0f} | {row.plan_median_ms:.1f} "
              f"| {row.plan_p95_ms:.1f} | {_ms(row.naive_median_ms)} | {_ms(row.driver_median_ms)} "
              f"| {row.same_cost} |", flush=True)


def _ms(value: float | None) -> str:
    return "skipped" if value is None else f"{value:.0f}"
