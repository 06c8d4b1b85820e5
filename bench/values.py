"""`python -m bench --only values`: values read from what users type, on held-out phrasings.

Each case of a held-out file (bench/data/values_heldout.yaml, whose misreads were since fixed, and
values_heldout2.yaml, a second blind set) goes through `extract_value` for an element with the case's
format; `--file NAME` runs one file (a name in bench/data or a path), by default both, a table each.
A misread is a wrong value where another or none was expected: the dangerous kind, since it can reach
a skill. A miss is no value where one was expected: the question is asked again.

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

DATA = Path(__file__).resolve().parent / "data"
HELD_OUT = DATA / "values_heldout.yaml"
HELD_OUT_FILES = (HELD_OUT, DATA / "values_heldout2.yaml")
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


def data_file(name: str) -> Path:
    """A path as given when it exists, else a file of bench/data ("values_heldout2.yaml")."""
    path = Path(name)
    return path if path.exists() else DATA / name


def main(argv: list[str] | None = None) -> None:
    options = argparse.ArgumentParser(prog="python -m bench.values")
    options.add_argument("--file", "--data", dest="files", metavar="NAME", type=data_file, action="append",
                         help="a held-out file (name in bench/data or path), repeatable; default: both")
    chosen = options.parse_args(argv)
    for number, path in enumerate(chosen.files or HELD_OUT_FILES):
        if number:
            print()
        today, cases = load(path)
        print(f"values: {len(cases)} cases from {path.name}, today {today}")
        report(run(cases, today))


if __name__ == "__main__":
    main()
