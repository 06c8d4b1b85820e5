"""`python -m bench --only replies`: yes/no replies and "stop" read right, on development and held-out sets.

The held-out set (bench/data/replies_heldout.yaml) was written apart from the rules and is never
tuned on. `none` rows are sentences that must not be read as a yes or a no ("no internet at home").
"""

from __future__ import annotations

import time
from pathlib import Path

import yaml

from orchestrator.engine.runtime.acts import control_act
from orchestrator.engine.runtime.polarity import yes_no

from .common import p95

DATA = Path(__file__).resolve().parent / "data"
SETS = {"development": DATA / "replies_dev.yaml", "held-out": DATA / "replies_heldout.yaml"}
STOPS = DATA / "stops_heldout.yaml"  # "stop" rows must stop the request, "not" rows must not


def main() -> None:
    print("| set | kind | read right | misread | us per reply (p95) |")
    print("| --- | --- | --- | --- | --- |")
    for name, path in SETS.items():
        for kind, replies in yaml.safe_load(path.read_text()).items():
            expected = None if kind == "none" else kind
            wrong, times = [], []
            for reply in replies:
                start = time.perf_counter()
                got = yes_no(reply)
                times.append((time.perf_counter() - start) * 1e6)
                if got != expected:
                    wrong.append(f"{reply!r} -> {got}")
            right = len(replies) - len(wrong)
            print(f"| {name} | {kind} | {right}/{len(replies)} ({100 * right / len(replies):.0f}%) "
                  f"| {'; '.join(wrong) or '-'} | {p95(times):.0f} |")
    for kind, messages in yaml.safe_load(STOPS.read_text()).items():
        wrong = [repr(m) for m in messages if (control_act(m) == "stop") != (kind == "stop")]
        right = len(messages) - len(wrong)
        print(f"| stops, held-out | {kind} | {right}/{len(messages)} ({100 * right / len(messages):.0f}%) "
              f"| {'; '.join(wrong) or '-'} | - |")


if __name__ == "__main__":
    main()
