"""Validation benchmark: time per written plan, and trajectory analysis throughput.

    python -m bench --only validation [--plans-per-intent 5] [--sequences 2000]

Plans: for every intent, the planner's own plan and four edits of it (a middle step dropped,
the last step dropped, a needless question added, garbage lines mixed in), each judged for every
quality. Trajectories: a batch of call sequences made from the catalog's plans, with recorded
errors injected (misspelt tools, wrong fields, missing parameters, repeated calls).
Prints Markdown tables.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Sequence
from typing import Any

from orchestrator.engine.analysis.plan_validation import QUALITIES, validate_plan
from orchestrator.engine.analysis.trajectories import Call, Sample, analyze_batch
from orchestrator.engine.analysis.trajectory_io import tools_from_catalog
from orchestrator.engine.catalog.spec import CatalogSpec, Goal
from orchestrator.engine.catalog.spec_io import load_catalog
from orchestrator.engine.catalog.synthetic import synthetic_catalog
from orchestrator.engine.planning.planner import Plan, Planner

from .common import BANKING, p95


def written_plans(
    planner: Planner, spec: CatalogSpec, per_intent: int, rng: random.Random
) -> list[tuple[Goal, list[str]]]:
    """The planner's plans and edits of them, as an analyst or a language model might write."""
    askable = [e.name for e in spec.elements if e.askable]
    plans = []
    for intent in spec.intents:
        result = planner.plan(intent.goal)
        if not isinstance(result, Plan) or not result.steps:
            continue
        lines = result.lines
        middle = len(lines) // 2
        variants = [
            lines,
            lines[:middle] + lines[middle + 1:],  # a step missing: unsound
            lines[:-1],  # ends early: sound, not valid
            [f"ask({rng.choice(askable)})", *lines],  # a needless question: not optimal
            [lines[0], "then call the manager", *lines[1:], "map(x, y)"],  # garbage
        ]
        plans += [(intent.goal, variant) for variant in variants[:per_intent]]
    return plans


def time_validation(planner: Planner, plans: list[tuple[Goal, list[str]]]) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {q: [] for q in QUALITIES}
    for quality in QUALITIES:
        for goal, lines in plans:
            started = time.perf_counter()
            validate_plan(planner, goal, lines, quality)
            times[quality].append((time.perf_counter() - started) * 1000)
    return times


def recorded_sequences(planner: Planner, spec: CatalogSpec, count: int, rng: random.Random) -> list[Sample]:
    """Call sequences made from the catalog's plans, with recorded errors injected into most."""
    base = []
    for intent in spec.intents:
        result = planner.plan(intent.goal)
        if isinstance(result, Plan):
            calls = _calls(result)
            if calls:
                base.append(calls)
    samples = []
    for i in range(count):
        calls = list(base[i % len(base)])
        samples.append(Sample(tuple(_inject(calls, rng)), ident=str(i)))
    return samples


def _calls(plan: Plan) -> list[Call]:
    """Skill steps as calls; inputs taken from the latest earlier call that produced them."""
    made: dict[str, str] = {}
    calls = []
    for step in plan.steps:
        if step.kind != "skill":
            continue
        label = f"var{len(calls) + 1}"
        args = {x: f"${made[x]}.{x}$" if x in made else f"value of {x}" for x in step.args}
        calls.append(Call(step.skill, args, label))
        made.update({x: label for x in step.outputs})
    return calls


def _inject(calls: list[Call], rng: random.Random) -> list[Call]:
    roll = rng.random()
    k = rng.randrange(len(calls))
    call = calls[k]
    if roll < 0.2:  # a misspelt tool
        calls[k] = Call(call.name[:-1] + call.name[-1] * 2, call.arguments, call.label)
    elif roll < 0.4 and any(str(v).startswith("$") for v in call.arguments.values()):  # a wrong field
        name, value = next((n, v) for n, v in call.arguments.items() if str(v).startswith("$"))
        calls[k] = Call(call.name, {**call.arguments, name: f"{value[:-1]}_x$"}, call.label)
    elif roll < 0.5 and call.arguments:  # a required parameter left out
        calls[k] = Call(call.name, dict(list(call.arguments.items())[1:]), call.label)
    elif roll < 0.6:  # thrashing: the call made again
        calls.insert(k + 1, Call(call.name, call.arguments, f"{call.label}b"))
    return calls


def measure(name: str, spec: CatalogSpec, per_intent: int, sequences: int) -> tuple[list[Any], list[Any]]:
    rng = random.Random(len(spec.skills))
    planner = Planner.for_spec(spec)
    plans = written_plans(planner, spec, per_intent, rng)
    validate_plan(planner, *plans[0], "sound")  # warm the search binary into the page cache
    times = time_validation(planner, plans)
    plan_row = [name, len(spec.skills), len(plans)]
    plan_row += [f"{statistics.median(times[q]):.1f}" for q in QUALITIES]
    plan_row.append(f"{p95(times['optimal']):.1f}")

    batch = recorded_sequences(planner, spec, sequences, rng)
    tools = tools_from_catalog(spec)
    started = time.perf_counter()
    report = analyze_batch(batch, tools)
    seconds = time.perf_counter() - started
    traj_row = [name, len(tools), report.count, report.calls, f"{report.count / seconds:,.0f}",
                f"{report.mean_ms:.2f}", f"{100 * report.pass_rate:.0f}%", f"{100 * report.compression_rate:.1f}%"]
    return plan_row, traj_row


def _table(header: Sequence[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" if i == 0 else "---:" for i in
                                                                  range(len(header))) + " |"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--plans-per-intent", type=int, default=5, help="the planner's plan and up to 4 edits")
    parser.add_argument("--sequences", type=int, default=2000, help="recorded sequences per batch")
    parser.add_argument("--validation-sizes", default="200", help="synthetic catalog sizes besides banking")


def run(args: argparse.Namespace) -> None:
    catalogs = [("banking", load_catalog(BANKING.read_text()))]
    catalogs += [(f"synthetic-{n}", synthetic_catalog(n, seed=1)) for n in map(int, args.validation_sizes.split(","))]
    plan_rows, traj_rows = [], []
    for name, spec in catalogs:
        plan_row, traj_row = measure(name, spec, args.plans_per_intent, args.sequences)
        plan_rows.append(plan_row)
        traj_rows.append(traj_row)
    print(_table(["catalog", "skills", "plans", "sound median ms", "valid median ms", "optimal median ms",
                  "optimal p95 ms"], plan_rows))
    print()
    print(_table(["catalog", "tools", "sequences", "calls", "sequences / s", "ms per sequence", "pass rate",
                  "compression"], traj_rows), flush=True)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    run(parser.parse_args(argv))
