"""The whole dialogues of bench/data/dialogues as a suite: the development set must pass every check
(commands turn by turn, what is asked, the outcome); the held-out sets (heldout, heldout2 ... heldout6), written
apart and not tuned on, must never send a wrong value nor take anything but a yes as consent (their
command accuracy is what `python -m bench --only dialogue` reports)."""

from __future__ import annotations

import pytest

from bench.dialogue import cases, run_case

DEV = cases("dev")
HELD_OUT = cases("heldout")
HELD_OUT_2 = cases("heldout2")
HELD_OUT_3 = cases("heldout3")
HELD_OUT_4 = cases("heldout4")
HELD_OUT_5 = cases("heldout5")
HELD_OUT_6 = cases("heldout6")
ALL_HELD_OUT = HELD_OUT + HELD_OUT_2 + HELD_OUT_3 + HELD_OUT_4 + HELD_OUT_5 + HELD_OUT_6


@pytest.mark.parametrize("case", DEV, ids=[f"{c['catalog']}: {c['name']}" for c in DEV])
def test_development_dialogues(case):
    result = run_case(case)
    assert result.problems == []


@pytest.mark.parametrize("case", ALL_HELD_OUT, ids=[f"{c['catalog']}: {c['name']}" for c in ALL_HELD_OUT])
def test_held_out_dialogues_send_no_wrong_value_and_take_no_consent_without_a_yes(case):
    result = run_case(case)
    assert result.wrong_values == 0, result.problems
    assert result.consent_violations == 0, result.problems


def test_the_sets_cover_four_catalogs_unlike_banking():
    assert {c["catalog"] for c in HELD_OUT} == {"shop", "access", "reports", "clinic"}
    assert len(HELD_OUT) >= 15


def test_the_second_held_out_set_covers_two_new_catalogs():
    assert {c["catalog"] for c in HELD_OUT_2} == {"gym", "carhire"}
    assert all(sum(c["catalog"] == name for c in HELD_OUT_2) >= 8 for name in ("gym", "carhire"))
