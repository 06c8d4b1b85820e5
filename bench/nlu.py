"""NLU benchmark: intent accuracy on phrasings the classifier never saw, per catalog, and time per utterance.

`python -m bench --only nlu` (or `python -m bench.nlu`). The held-out set (`bench/data/nlu_heldout.yaml`)
was written before the classifier and is never used to tune it; the dev set (`nlu_dev.yaml`) may be.
"Top-1" counts the best-ranked intent; "started right" a turn that starts the right intent outright;
"asked, right one offered" a "did you mean A (or B)?" that offers the right one; "none refused" the
share of out-of-scope requests answered with the help text rather than an intent or a question.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import yaml

from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.catalog.spec_io import load_catalog
from orchestrator.engine.runtime.intents import IntentMatcher
from orchestrator.engine.runtime.nlu import TfidfClassifier
from orchestrator.engine.runtime.semantic import SemanticClassifier

from .common import BANKING, p95

DATA = Path(__file__).resolve().parent / "data"
CATALOGS = {"banking": BANKING, "helpdesk": DATA / "helpdesk.yaml", "travel": DATA / "travel.yaml"}


def catalog(name: str) -> CatalogSpec:
    return load_catalog(CATALOGS[name].read_text(), filename=CATALOGS[name].name)


def evaluate(matcher: IntentMatcher, cases: dict[str, list[str]]) -> dict[str, float]:
    top1 = decided = offered = total = refused = nones = 0
    cache = getattr(getattr(matcher.classifier, "embed", None), "cache", {})
    times: list[float] = []
    cpu: list[float] = []  # the process's own CPU time: what an idle machine would take, near enough
    for intent, phrasings in cases.items():
        for text in phrasings:
            cache.clear()  # every phrasing timed as new, even one repeated across catalogs
            started, started_cpu = time.perf_counter(), time.process_time()
            decision = matcher.decide(text)
            times.append((time.perf_counter() - started) * 1000)
            cpu.append((time.process_time() - started_cpu) * 1000)
            if intent == "none":
                nones += 1
                refused += decision.kind == "none"
                continue
            total += 1
            top1 += bool(decision.ranked) and decision.ranked[0].intent == intent
            decided += decision.kind == "intent" and decision.intent == intent
            offered += decision.kind == "ambiguous" and intent in decision.alternatives
    return {"n": total, "top1": top1 / total, "decided": decided / total, "offered": offered / total,
            "none": refused / max(nones, 1), "nones": nones, "median": sorted(times)[len(times) // 2],
            "p95": p95(times), "cpu_median": sorted(cpu)[len(cpu) // 2], "cpu_p95": p95(cpu)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--classifier", choices=("semantic", "tfidf", "both"), default="both")
    options = parser.parse_args(argv)
    held_out = yaml.safe_load((DATA / "nlu_heldout.yaml").read_text())
    dev = yaml.safe_load((DATA / "nlu_dev.yaml").read_text())
    kinds = ("semantic", "tfidf") if options.classifier == "both" else (options.classifier,)
    print("| classifier | catalog | set | phrasings | top-1 | started right | asked, right one offered | "
          "none refused | median ms | p95 ms | CPU median ms | CPU p95 ms |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for kind in kinds:
        for name in CATALOGS:
            spec = catalog(name)
            matcher = IntentMatcher(spec, SemanticClassifier() if kind == "semantic" else TfidfClassifier())
            for label, cases in (("held-out", held_out[name]), ("dev", dev[name])):
                r = evaluate(matcher, cases)
                print(f"| {kind} | {name} | {label} | {r['n']} | {r['top1']:.0%} | {r['decided']:.0%} | "
                      f"{r['offered']:.0%} | {r['none']:.0%} of {r['nones']} | {r['median']:.2f} | {r['p95']:.2f} | "
                      f"{r['cpu_median']:.2f} | {r['cpu_p95']:.2f} |")


if __name__ == "__main__":
    main()
