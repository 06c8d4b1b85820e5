"""`python -m bench --only values` reads its cases, freezes today for dates and sorts each result."""

from __future__ import annotations

from datetime import date

from bench import values
from orchestrator.engine.runtime import dates

CASES = """
today: 2031-05-01
descriptions: {date: the date, money: the amount}
cases:
  - {format: date, text: "tomorrow", whole_answer: true, expected: "2031-05-02"}
  - {format: money, text: "I have 2 kids", whole_answer: false, expected: null}
  - {format: "enum:small|large", text: "large", whole_answer: true, expected: small}
"""


def test_the_bench_runs_three_cases_and_tells_a_misread(tmp_path, capsys):
    path = tmp_path / "values.yaml"
    path.write_text(CASES)
    today, cases = values.load(path)
    assert today == date(2031, 5, 1) and cases[1].description == "the amount"
    results = values.run(cases, today)
    assert [r.verdict for r in results] == ["right", "right", "misread"]  # the file's today, not the clock's
    assert dates.date is date  # today is put back
    values.main(["--data", str(path)])
    out = capsys.readouterr().out
    assert "| all | 3 | 1 | 2 (67%) | 1 | 0 |" in out
    assert "- enum:small|large (answer) 'large': got 'large', expected 'small'" in out


def test_a_file_is_chosen_by_its_name_in_bench_data_and_both_run_by_default():
    assert values.data_file("values_heldout2.yaml") == values.DATA / "values_heldout2.yaml"
    assert [p.name for p in values.HELD_OUT_FILES] == ["values_heldout.yaml", "values_heldout2.yaml"]
    assert all(p.exists() for p in values.HELD_OUT_FILES)
