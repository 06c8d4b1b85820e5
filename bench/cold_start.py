"""Cold-start benchmark: from a thin sketch on S3 to the planner, in rounds (issue 23).

    python -m bench --only cold-start [--cold-start-n 500] [--cold-start-rounds 3] [--cold-start-seeds 5101,5102,5103]

Beds: the demo's `banking-thin` (its scenario's truths; the hand-written `banking` catalog on the same
scenario is the full reference), and generated thin catalogs: a full "true" catalog from a seed
(`learning.generated.generated_catalog`), a scenario whose truths are that catalog, and a thin sketch
derived from it by removing inputs, outcomes and intent examples. Each round, in process (engine
only): simulate N conversations on the current version (S3 in round 0, the planner after) with
experimentation on (simulation only), learn from every conversation so far, accept every proposal
(the bench acts as the admin), and go on with the new draft. Per round: success rate, proposals,
precision (correct/proposed, every kind: the scenario's answer key for inputs, outputs, outcomes,
retries and slots; the full catalog for intent examples, previews and extensions), recall of the
answer key so far, the ratio to the full catalog's planner success on the same scenario and seed
(and, for comparison, the sketch's own success on the planner with nothing learned), and the
intents the true model plans that the learned one still plans. A round that accepts
nothing is a fixed point: the next would simulate the same version with the same seed.

Targets (issue 23): within 3 rounds, ratio >= 90% on every bed, precision 100%, every true plan kept.
Seeds: 5101-5103 (the default) were fixed before any run, then looked at: two precision fixes in the
learner (a rejection explained by a declared input singles nothing out; previews read plans from the
learned model) followed wrong proposals on generated-5102 at N=100. 6201-6203 were first run after
the last change and never tuned on: `--cold-start-seeds 6201,6202,6203` is the held-out check.
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import dataclass
from typing import Any

from orchestrator.engine.catalog.spec import CatalogSpec, Intent, Mode, Outcome, Simulation
from orchestrator.engine.catalog.spec_io import load_catalog
from orchestrator.engine.errors import ConcertoError
from orchestrator.engine.learning.effects import intent_plans
from orchestrator.engine.learning.generated import generated_catalog
from orchestrator.engine.learning.learner import learn
from orchestrator.engine.learning.observations import Conversation, from_trace
from orchestrator.engine.learning.refinements import Refinement, apply_refinements
from orchestrator.engine.learning.scoring import difference_key, refinement_key, score_others, truth_changes
from orchestrator.engine.planning.planner import Planner
from orchestrator.engine.simulation.driver import simulate_conversation
from orchestrator.engine.simulation.scenario import Scenario, differences, load_scenario, parse_scenario

from .common import BANKING

SEEDS = (5101, 5102, 5103)  # looked at once (see above); 6201-6203 held out
SIMULATION_SEED = 11  # the issue's


@dataclass
class Bed:
    name: str
    thin: CatalogSpec
    scenario: Scenario  # against the thin sketch
    full: CatalogSpec
    full_scenario: Scenario  # the same truths against the full catalog


def banking_bed() -> Bed:
    demo = BANKING.parent
    thin = load_catalog((demo / "banking-thin.yaml").read_text())
    full = load_catalog(BANKING.read_text())
    text = (demo / "banking-thin-scenario.yaml").read_text()
    return Bed("banking-thin", thin, load_scenario(text, thin), full,
               load_scenario(text.replace("catalog: banking-thin", f"catalog: {full.catalog}"), full))


def generated_bed(seed: int) -> Bed:
    """A full catalog from `seed`, truths that are that catalog, and a thin sketch of it."""
    full = generated_catalog(seed)
    rng = random.Random(f"thin:{seed}")
    truths: dict[str, Any] = {}
    skills = []
    for number, skill in enumerate(full.skills):
        mode = skill.modes[0]
        inputs = list(mode.inputs)
        if inputs and rng.random() < 0.6:  # the sketch forgets one input
            inputs.remove(rng.choice(inputs))
        outcomes = mode.outcomes
        if len(outcomes) > 1 and rng.random() < 0.5:  # and the failure outcome
            outcomes = outcomes[:1]
        truth: dict[str, Any] = {"inputs": list(mode.inputs), "outcomes": {
            o.name: {"outputs": list(o.outputs), "weight": (skill.simulation.weights if skill.simulation else {}
                                                            ).get(o.name, 1.0)} for o in mode.outcomes}}
        truths[skill.name] = {"modes": {"m1": truth}, **({"failure_rate": 0.05} if number == 0 else {})}
        weights = {o.name: w for o, w in ((o, (skill.simulation.weights if skill.simulation else {}).get(o.name))
                                          for o in outcomes) if w is not None}
        skills.append(skill.model_copy(update={
            "modes": (Mode(inputs=tuple(inputs), outcomes=tuple(Outcome(name=o.name, outputs=o.outputs)
                                                                for o in outcomes)),),
            "simulation": Simulation(weights=weights)}))
    intents = tuple(Intent(name=i.name, description=i.description, examples=i.examples[:1], goal=i.goal,
                           extensions=i.extensions) for i in full.intents)
    thin = full.model_copy(update={"catalog": f"{full.catalog}-thin", "title": f"{full.title} (thin)",
                                   "skills": tuple(skills), "intents": intents})
    thin = load_catalog_like(thin)
    askable = [e.name for e in full.elements if e.askable]
    data = {"scenario": f"coldstart-{seed}", "users": {"phrasing": {"volunteer": 0.5},
                                                       "cannot": dict.fromkeys(askable[1:], 0.1), "max_turns": 30},
            "skills": truths}
    return Bed(f"generated-{seed}", thin, parse_scenario({**data, "catalog": thin.catalog}, thin), full,
               parse_scenario({**data, "catalog": full.catalog}, full))


def load_catalog_like(spec: CatalogSpec) -> CatalogSpec:
    """The spec checked as a catalog is when loaded (apply no change)."""
    return apply_refinements(spec, [])


def simulate(spec: CatalogSpec, scenario: Scenario, orchestrator: str, n: int, explore: bool) -> list[Any]:
    planner = Planner.for_spec(spec)
    return [simulate_conversation(spec, planner, scenario, orchestrator=orchestrator,  # type: ignore[arg-type]
                                  seed=SIMULATION_SEED, index=i, explore=explore) for i in range(n)]


def plans_kept(bed: Bed, learned: CatalogSpec) -> tuple[int, int]:
    true_spec = apply_refinements(bed.thin, truth_changes(differences(bed.scenario, bed.thin)))
    truly = {name for name, plan in intent_plans(true_spec).items() if plan.steps is not None}
    kept = {name for name, plan in intent_plans(learned).items() if plan.steps is not None}
    return len(truly & kept), len(truly)


def judge(refinements: list[Refinement], key: set[tuple[Any, ...]], full: CatalogSpec) -> tuple[int, int, list[str]]:
    """(proposed, correct, the wrong ones' keys) over every kind."""
    wrong = []
    correct = 0
    others = score_others(refinements, full)
    for refinement in refinements:
        scored = refinement_key(refinement)
        if scored is not None:
            if scored in key:
                correct += 1
            else:
                wrong.append(refinement.key)
    correct += sum(s.correct for s in others.values())
    kept = {r.key for r in refinements if refinement_key(r) is None}
    wrong += [r.key for r in refinements if r.key in kept and not _other_ok(r, full)]
    return len(refinements), correct, wrong


def _other_ok(refinement: Refinement, full: CatalogSpec) -> bool:
    return score_others([refinement], full)[refinement.kind.value].correct == 1


def run_bed(bed: Bed, n: int, rounds: int) -> list[dict[str, Any]]:
    started = time.perf_counter()
    full_runs = simulate(bed.full, bed.full_scenario, "planner", n, explore=False)
    full_rate = sum(r.success for r in full_runs) / n
    # The sketch on the planner with nothing learned: what the rounds are worth.
    sketch_rate = sum(r.success for r in simulate(bed.thin, bed.scenario, "planner", n, explore=False)) / n
    key = {difference_key(d) for d in differences(bed.scenario, bed.thin)}
    spec = bed.thin
    seen: list[Conversation] = []
    found: set[tuple[Any, ...]] = set()
    rows = []
    last: dict[str, Any] | None = None
    for number in range(rounds + 1):
        orchestrator = "s3" if number == 0 else "planner"
        if last is not None and last["proposed"] == 0 and last["orchestrator"] == orchestrator:
            rows.append({**last, "round": number, "fixed": True})  # same version, same seed: the same round
            continue
        runs = simulate(spec, bed.scenario, orchestrator, n, explore=True)
        rate = sum(r.success for r in runs) / n
        seen += [from_trace(f"{number}#{r.index}", r.trace, r.transcript, r.state, r.intent) for r in runs]
        row: dict[str, Any] = {"bed": bed.name, "round": number, "orchestrator": orchestrator, "rate": rate,
                               "full": full_rate, "sketch": sketch_rate,
                               "probes": sum(r.metrics.get("probes", 0) for r in runs)}
        row["kept"], row["truly"] = plans_kept(bed, spec)
        if number < rounds:
            refinements = learn(spec, seen, planner=Planner.for_spec(spec))
            proposed, correct, wrong = judge(refinements, key, bed.full)
            found |= {k for k in (refinement_key(r) for r in refinements) if k is not None} & key
            try:
                spec = apply_refinements(spec, [r.change for r in refinements])
            except ConcertoError as exc:
                wrong.append(f"does not apply: {exc}")
            row.update(proposed=proposed, correct=correct, wrong=wrong)
        else:
            row.update(proposed=0, correct=0, wrong=[])
        row["recall"] = (len(found), len(key))
        rows.append(row)
        last = row
    rows[-1]["seconds"] = time.perf_counter() - started
    return rows


def run(n: int, rounds: int, seeds: tuple[int, ...]) -> list[dict[str, Any]]:
    print(f"**Cold start** ({n} conversations a round, simulation seed {SIMULATION_SEED}, experimentation on; "
          f"generated seeds {', '.join(map(str, seeds))}). Round 0 on S3, then "
          "the planner; every proposal accepted after each round:\n")
    print("| catalog | round | orchestrator | success | sketch on planner | full (planner) | ratio | probes "
          "| proposals | precision | recall (key, so far) | true plans kept |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    every = []
    for bed in [banking_bed(), *(generated_bed(s) for s in seeds)]:
        rows = run_bed(bed, n, rounds)
        for row in rows:
            ratio = row["rate"] / row["full"] if row["full"] else 0.0
            proposals = "–" if row["round"] == rounds else str(row["proposed"])
            precision = (f"{row['correct']}/{row['proposed']}" if row["proposed"] else "–")
            fixed = " (fixed point)" if row.get("fixed") else ""
            print(f"| {row['bed']} | {row['round']}{fixed} | {row['orchestrator']} | {row['rate']:.1%} "
                  f"| {row['sketch']:.1%} | {row['full']:.1%} | {ratio:.0%} | {row['probes']} | {proposals} "
                  f"| {precision} "
                  f"| {row['recall'][0]}/{row['recall'][1]} | {row['kept']}/{row['truly']} |")
        for row in rows:
            for wrong in row["wrong"]:
                print(f"  wrong in {row['bed']} round {row['round']}: {wrong}")
        every.append(rows)
    print()
    for rows in every:
        final = rows[-1]
        ratio = final["rate"] / final["full"] if final["full"] else 0.0
        wrong = sum(len(r["wrong"]) for r in rows)
        met = ratio >= 0.9 and wrong == 0 and final["kept"] == final["truly"]
        print(f"- {final['bed']}: after {rounds} rounds {final['rate']:.1%} vs {final['full']:.1%} full "
              f"({ratio:.0%}), {wrong} wrong proposals, true plans kept {final['kept']}/{final['truly']}: "
              f"{'target met' if met else 'TARGET MISSED'} ({final['seconds']:.0f} s)")
    return every


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cold-start-n", type=int, default=500, help="conversations a round (issue 23: 500)")
    parser.add_argument("--cold-start-rounds", type=int, default=3, help="learn-and-accept rounds after round 0")
    parser.add_argument("--cold-start-seeds", default=",".join(map(str, SEEDS)),
                        help="seeds of the generated thin catalogs")


def main(chosen: argparse.Namespace) -> None:
    seeds = tuple(int(x) for x in chosen.cold_start_seeds.split(",") if x.strip())
    run(chosen.cold_start_n, chosen.cold_start_rounds, seeds)


if __name__ == "__main__":
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(options)
    main(options.parse_args())
