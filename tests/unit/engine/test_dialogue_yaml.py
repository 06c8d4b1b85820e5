"""The whole dialogues of bench/data/dialogues as a suite: the development set must pass every check
(commands turn by turn, what is asked, the outcome); the held-out set, written apart and not tuned
on, must never send a wrong value nor take anything but a yes as consent (its command accuracy is
what `python -m bench --only dialogue` reports)."""

from __future__ import annotations

import pytest

from bench.dialogue import cases, run_case

DEV = cases("dev")
HELD_OUT = cases("heldout")


@pytest.mark.parametrize("case", DEV, ids=[f"{c['catalog']}: {c['name']}" for c in DEV])
def test_development_dialogues(case):
    result = run_case(case)
    assert result.problems == []


@pytest.mark.parametrize("case", HELD_OUT, ids=[f"{c['catalog']}: {c['name']}" for c in HELD_OUT])
def test_held_out_dialogues_send_no_wrong_value_and_take_no_consent_without_a_yes(case):
    result = run_case(case)
    assert result.wrong_values == 0, result.problems
    assert result.consent_violations == 0, result.problems


def test_the_sets_cover_four_catalogs_unlike_banking():
    assert {c["catalog"] for c in HELD_OUT} == {"shop", "access", "reports", "clinic"}
    assert len(HELD_OUT) >= 15
