"""`python -m bench --only values`: values read from what users type, on held-out phrasings.

Each case of bench/data/values_heldout.yaml (written blind, never tuned on) goes through
`extract_value` for an element with the case's format. A misread is a wrong value where another or
none was expected: the dangerous kind, since it can reach a skill. A miss is no value where one was
expected: the question is asked again.

`extract_value` takes no `today`: `dates._date` falls back to `date.today()`, so the bench freezes
`date` in `runtime.dates` (the only module on its path that asks for today) to the file's `today`, here
only, and puts it back after.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from unittest import mock

import yaml

from orchestrator.engine.catalog.formats import kind_of
from orchestrator.engine.catalog.spec import Element
from orchestrator.engine.runtime import dates
from orchestrator.engine.runtime.nlu import extract_value

HELD_OUT = Path(__file__).resolve().parent / "data" / "values_heldout.yaml"
KINDS = ("date", "number", "money", "phone", "email", "enum", "regex", "text")


@dataclass(frozen=True)
class Case:
    format: str
    text: str
    whole_answer: bool
    expected: str | None
    description: str


@dataclass(frozen=True)
class Result:
    case: Case
    got: str | None

    @property
    def verdict(self) -> str:
        """"right", "misread" (a wrong value, or one where none was expected) or "missed"."""
        if self.got == self.case.expected:
            return "right"
        return "missed" if self.got is None else "misread"


def kind(fmt: str) -> str:
    """The table row of a format: its kind, "regex" and "enum" by their prefix, "text" for free text."""
    return kind_of(fmt) or fmt.split(":", 1)[0] or "text"


def load(path: Path = HELD_OUT) -> tuple[date, list[Case]]:
    data = yaml.safe_load(path.read_text())
    defaults = data.get("descriptions", {})
    cases = [Case(c["format"], c["text"], c["whole_answer"], c["expected"],
                  c.get("description") or defaults.get(kind(c["format"]), "the value"))
             for c in data["cases"]]
    return data["today"], cases


@contextmanager
def frozen_today(today: date) -> Iterator[None]:
    """`date.today()` in runtime.dates is `today`; everything else about `date` is unchanged."""
    class Frozen(date):
        @classmethod
        def today(cls) -> date:
            return today

    with mock.patch.object(dates, "date", Frozen):
        yield


def run(cases: Sequence[Case], today: date) -> list[Result]:
    with frozen_today(today):
        return [Result(c, extract_value(Element(name="x", format=c.format, description=c.description), c.text,
                                        whole_answer=c.whole_answer)) for c in cases]


def report(results: Sequence[Result]) -> None:
    print("| format | cases | must be null | read right | misread | missed |")
    print("| --- | --- | --- | --- | --- | --- |")
    rows = [k for k in KINDS if any(kind(r.case.format) == k for r in results)]
    for name in [*rows, "all"]:
        mine = [r for r in results if name in ("all", kind(r.case.format))]
        count = {v: sum(r.verdict == v for r in mine) for v in ("right", "misread", "missed")}
        nulls = sum(r.case.expected is None for r in mine)
        print(f"| {name} | {len(mine)} | {nulls} | {count['right']} ({100 * count['right'] / len(mine):.0f}%) "
              f"| {count['misread']} | {count['missed']} |")
    for verdict in ("misread", "missed"):
        wrong = [r for r in results if r.verdict == verdict]
        print(f"\n{verdict} ({len(wrong)}):")
        for r in wrong:
            asked = "answer" if r.case.whole_answer else "unasked"
            print(f"- {r.case.format} ({asked}) {r.case.text!r}: got {r.got!r}, expected {r.case.expected!r}")


def main(argv: list[str] | None = None) -> None:
    options = argparse.ArgumentParser(prog="python -m bench.values")
    options.add_argument("--data", type=Path, default=HELD_OUT)
    chosen = options.parse_args(argv)
    today, cases = load(chosen.data)
    print(f"values: {len(cases)} cases from {chosen.data.name}, today {today}")
    report(run(cases, today))


if __name__ == "__main__":
    main()
