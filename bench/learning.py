"""Learning benchmark: the learner's refinements against each scenario's answer key, after N conversations.

    python -m bench --only learning [--sizes 25,50,100,200,500] [--learning-seed 1] [--no-peer]

Scenarios: the banking demo with its `realistic` truths (planner), the thin banking catalog with
the same truths (S3: the cold start), and four generated catalogs with seeded truths (planner).
For each, N conversations are simulated once; the learner reads the first n of them for each size.
Precision and recall per kind compare proposals with `differences` (the answer key); "true plans
kept" counts the intents the true model can plan that the learned model (every proposal applied)
still plans. Thresholds are the learner's defaults, argued from SAM's assumptions (learner.py), not
fitted: they were first looked at on banking seed 99 and generated seeds 1-3; the input rule was
then changed (1 success and 2 singling rejections instead of 5 successes) after a miss on
generated-11 here, so `--generated 41,42` (seeds not looked at while changing it) is the held-out
check. Intent examples, previews and goal extensions, which the key does not list, are held against
the true model (the hand-written `banking` for the thin one): precision only
(`learning.scoring.score_others`). Then the peer comparison (`bench/peer.py`): SAM learning by the
`sam-learner` package on the same traces.

    python -m bench --only learning --generated 41,42 --no-peer   # held-out generated catalogs
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from typing import Any

from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.catalog.spec_io import load_catalog
from orchestrator.engine.errors import ConcertoError
from orchestrator.engine.learning.effects import intent_plans
from orchestrator.engine.learning.generated import generated_catalog, generated_scenario
from orchestrator.engine.learning.learner import learn
from orchestrator.engine.learning.observations import Conversation, from_trace
from orchestrator.engine.learning.refinements import Refinement, apply_refinements
from orchestrator.engine.learning.scoring import (
    KindScore,
    difference_key,
    refinement_key,
    score,
    score_others,
    truth_changes,
)
from orchestrator.engine.planning.planner import Planner
from orchestrator.engine.simulation.driver import simulate_conversation
from orchestrator.engine.simulation.scenario import Scenario, differences, load_scenario

from .common import BANKING
from .peer import sam_proposals

DEMO = BANKING.parent
GENERATED = (11, 12, 13, 14)  # the generated beds; others (--generated) are held out, never looked at while fixing
GROUPS = {"inputs": ("input_needed",), "outputs": ("output_produced", "output_missing"),
          "outcomes": ("outcome_never", "outcome_unlisted"), "retries": ("failure_rate",),
          "slots": ("unfillable",)}


@dataclass
class Bed:
    name: str
    spec: CatalogSpec
    scenario: Scenario
    orchestrator: str
    reference: CatalogSpec | None = None  # the catalog intent examples, previews and extensions are held against


def beds(generated: tuple[int, ...] = GENERATED) -> list[Bed]:
    banking = load_catalog(BANKING.read_text())
    thin = load_catalog((DEMO / "banking-thin.yaml").read_text())
    found = [Bed("banking", banking, load_scenario((DEMO / "banking-scenario.yaml").read_text(), banking), "planner"),
             Bed("banking-thin (S3)", thin, load_scenario((DEMO / "banking-thin-scenario.yaml").read_text(), thin),
                 "s3", reference=banking)]
    for seed in generated:
        spec = generated_catalog(seed)
        found.append(Bed(f"generated-{seed}", spec, generated_scenario(spec, seed), "planner"))
    return found


def observe(bed: Bed, count: int, seed: int) -> tuple[list[Conversation], list[Any]]:
    planner = Planner.for_spec(bed.spec)
    runs = [simulate_conversation(bed.spec, planner, bed.scenario, orchestrator=bed.orchestrator,  # type: ignore[arg-type]
                                  seed=seed, index=i) for i in range(count)]
    return [from_trace(f"{bed.name}#{c.index}", c.trace, c.transcript, c.state, c.intent) for c in runs], runs


def grouped(scores: dict[str, KindScore]) -> dict[str, tuple[int, int, int, int]]:
    """Group -> (proposed, correct, expected, found)."""
    return {g: tuple(sum(getattr(scores[k], f) for k in kinds)  # type: ignore[misc]
                     for f in ("proposed", "correct", "expected", "found")) for g, kinds in GROUPS.items()}


def ratio(part: int, whole: int) -> str:
    return f"{part}/{whole}" if whole else "–"


def plans_kept(bed: Bed, refinements: list[Refinement]) -> tuple[int, int]:
    """Intents the true model plans, and how many of those the learned model still plans."""
    true_spec = apply_refinements(bed.spec, truth_changes(differences(bed.scenario, bed.spec)))
    truly = {name for name, plan in intent_plans(true_spec).items() if plan.steps is not None}
    try:
        learned = apply_refinements(bed.spec, [r.change for r in refinements])
    except ConcertoError:
        return 0, len(truly)
    kept = {name for name, plan in intent_plans(learned).items() if plan.steps is not None}
    return len(truly & kept), len(truly)


def run(sizes: list[int], seed: int, peer: bool = True, generated: tuple[int, ...] = GENERATED) -> dict[str, Any]:
    print("**Learning** (precision = correct/proposed, recall = found/expected, per group of kinds; "
          f"simulation seed {seed}):\n")
    print("| scenario | orchestrator | N | proposals | inputs P | inputs R | outputs P | outputs R | outcomes P "
          "| outcomes R | retries P | retries R | slots P | slots R | examples P | previews P | extensions P "
          "| true plans kept | learn ms |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
          "| ---: | ---: | ---: | ---: |")
    totals: dict[int, dict[str, list[int]]] = {n: {g: [0, 0, 0, 0] for g in GROUPS} for n in sizes}
    peers: list[tuple[Bed, list[Conversation], list[Refinement]]] = []
    for bed in beds(generated):
        conversations, _ = observe(bed, max(sizes), seed)
        key = differences(bed.scenario, bed.spec)
        planner = Planner.for_spec(bed.spec)
        # Kinds the answer key does not list are held against the true model (or the hand-written catalog).
        reference = bed.reference or apply_refinements(bed.spec, truth_changes(key))
        for n in sizes:
            started = time.perf_counter()
            refinements = learn(bed.spec, conversations[:n], planner=planner)
            elapsed = (time.perf_counter() - started) * 1000
            groups = grouped(score(refinements, key))
            kept, truly = plans_kept(bed, refinements)
            cells = []
            for g, (proposed, correct, expected, found) in groups.items():
                cells += [ratio(correct, proposed), ratio(found, expected)]
                if bed.orchestrator == "planner":
                    totals[n][g] = [a + b for a, b in zip(totals[n][g], (proposed, correct, expected, found),
                                                          strict=True)]
            cells += [ratio(s.correct, s.proposed) for s in score_others(refinements, reference).values()]
            print(f"| {bed.name} | {bed.orchestrator} | {n} | {len(refinements)} | {' | '.join(cells)} "
                  f"| {kept}/{truly} | {elapsed:.0f} |")
        if bed.orchestrator == "planner":
            peers.append((bed, conversations, refinements))
    print("\nPlanner scenarios together (banking and the generated ones):\n")
    print("| N | " + " | ".join(f"{g} P | {g} R" for g in GROUPS) + " |")
    print("| ---: | " + " | ".join("---: | ---:" for _ in GROUPS) + " |")
    for n in sizes:
        cells = []
        for g in GROUPS:
            proposed, correct, expected, found = totals[n][g]
            cells += [_pct(correct, proposed), _pct(found, expected)]
        print(f"| {n} | {' | '.join(cells)} |")
    if peer:
        compare(peers, max(sizes))
    return totals


def compare(peers: list[tuple[Bed, list[Conversation], list[Refinement]]], n: int) -> None:
    """Ours against SAM as the `sam-learner` package implements it, on the same traces, inputs and outputs added."""
    print(f"\nPeer: SAM learning by `sam-learner` 2.1.9 on the same {n} conversations written as PDDL trajectories "
          "(inputs a mode needs, outputs an outcome gives; P = correct/proposed, R = found/expected):\n")
    print("| scenario | ours inputs P | ours inputs R | SAM inputs P | SAM inputs R | ours outputs P | ours outputs R "
          "| SAM outputs P | SAM outputs R |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for bed, conversations, refinements in peers:
        found = sam_proposals(bed.spec, conversations)
        if isinstance(found, str):
            print(f"\nSAM peer skipped: {found}")
            return
        key = {difference_key(d) for d in differences(bed.scenario, bed.spec)}
        ours = {k for k in (refinement_key(r) for r in refinements) if k is not None}
        cells = []
        for kind in ("input_needed", "output_produced"):
            expected = {k for k in key if k[0] == kind}
            for proposed in ({k for k in ours if k[0] == kind}, {k for k in found if k[0] == kind}):
                hits = len(proposed & expected)
                cells += [ratio(hits, len(proposed)), ratio(hits, len(expected))]
        print(f"| {bed.name} | {' | '.join(cells)} |")


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}% ({part}/{whole})" if whole else "–"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--sizes", default="25,50,100,200,500", help="conversation counts to learn from")
    parser.add_argument("--learning-seed", type=int, default=1, help="the simulation seed")
    parser.add_argument("--no-peer", action="store_true", help="skip the SAM peer comparison")
    parser.add_argument("--generated", default=",".join(map(str, GENERATED)),
                        help="seeds of the generated catalogs (fresh ones are held-out beds)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(parser)
    options = parser.parse_args(argv)
    sizes = sorted(int(x) for x in options.sizes.split(","))
    run(sizes, options.learning_seed, peer=not options.no_peer, generated=_seeds(options.generated))


def _seeds(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(",") if x.strip())


if __name__ == "__main__":
    main()
