"""Sensitive values are hidden in transcripts: typed by the user and repeated by the assistant."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from orchestrator.engine.runtime.masking import MASK, Scrubber, sensitive_values
from orchestrator.engine.runtime.session import Execution, SessionState
from orchestrator.engine.runtime.skills import SimulatedSkills
from orchestrator.engine.runtime.turns import PlannerOrchestrator


def test_a_typed_ssn_is_hidden():
    assert Scrubber.known_only(["123-45-6789"]).text("sure, it is 123-45-6789.") == f"sure, it is {MASK}."


def test_every_occurrence_and_several_values_are_hidden():
    text = "ssn 123-45-6789, score 712; again 123-45-6789"
    assert Scrubber.known_only(["123-45-6789", "712"]).text(text) == f"ssn {MASK}, score {MASK}; again {MASK}"


def test_money_is_hidden_as_the_user_wrote_it():
    for typed in ("$85,000", "85000", "85,000.00", "85000.00 dollars"):
        assert "85" not in Scrubber.known_only(["85000.00"]).text(f"I earn {typed} a year"), typed


def test_part_of_a_longer_number_or_word_is_left_alone():
    assert Scrubber.known_only(["712"]).text("account 17120, id 7120") == "account 17120, id 7120"


def test_matching_ignores_case():
    assert Scrubber.known_only(["ada@example.com"]).text("Mail ADA@Example.com please") == f"Mail {MASK} please"


def test_nothing_to_hide_leaves_text_and_data_as_they_are():
    data = {"a": ["x", 1, None]}
    assert Scrubber.known_only([]).text("hello") == "hello"
    assert Scrubber.known_only(["", "  "]).data(data) is data


def test_data_is_masked_in_every_string():
    data = {"values": {"credit_score": "712", "loan_status": "approved"}, "list": ["712 points", 712], "n": 3}
    assert Scrubber.known_only(["712"]).data(data) == {
        "values": {"credit_score": MASK, "loan_status": "approved"}, "list": [f"{MASK} points", 712], "n": 3,
    }


def test_sensitive_values_come_from_memory_and_history(banking):
    state = SessionState()
    state.remember("email", "ada@example.com", "user")
    state.remember("ssn", "123-45-6789", "user")
    state.history.append(Execution(step=0, skill="ocr_document", mode="m1", outcome="read", planned_outcome="read",
                                   inputs={"document": "passport.jpg"}, outputs={"ssn": "987-65-4321"},
                                   args=["document"]))
    state.history.append(Execution(step=1, skill="credit_check", mode="m1", outcome="scored",
                                   planned_outcome="scored", inputs={"ssn": "555-55-5555"},
                                   outputs={"credit_score": "712"}, args=["ssn"]))
    assert sensitive_values(banking, state) == ["123-45-6789", "987-65-4321", "555-55-5555", "712"]


def test_a_banking_conversation_masks_user_and_assistant_text(banking, banking_planner):
    bot = PlannerOrchestrator(banking, banking_planner, SimulatedSkills(banking, seed=1))
    state = SessionState()
    said = []
    for text in ("I'd like to apply for a loan", "ada@example.com", "my ssn is 123-45-6789", "yes"):
        replies = bot.turn(state, text).replies
        said.append(text)
        said += [r.text for r in replies] + [str(r.data) for r in replies]
    values = sensitive_values(banking, state)
    assert {"123-45-6789", "712", "85000.00"} <= set(values)
    masked = [Scrubber.known_only(values).text(text) for text in said]
    assert "my ssn is " + MASK in masked
    assert not any("123-45-6789" in t or "712" in t for t in masked)
    assert "ada@example.com" in masked  # not sensitive: kept


def test_a_volunteered_code_fitting_a_sensitive_format_is_scrubbed(helpdesk):
    from orchestrator.engine.runtime.masking import MASK, Scrubber

    scrub = Scrubber(helpdesk)
    assert scrub.text("I forgot my password, my code is 481516 and my id E12345") == (
        f"I forgot my password, my code is {MASK} and my id E12345")


def test_known_sensitive_values_are_scrubbed_in_any_spelling(banking):
    from orchestrator.engine.runtime.masking import MASK, Scrubber

    scrub = Scrubber(banking, ["123-45-6789"], allowed=["ada@example.com"])
    assert scrub.text("ssn 123 45 6789 or 123.45.6789, mail ada@example.com") == (
        f"ssn {MASK} or {MASK}, mail ada@example.com")


@settings(max_examples=200, deadline=None)
@given(digits=st.text("0123456789", min_size=9, max_size=9),
       separators=st.lists(st.sampled_from(["", " ", "-", "."]), min_size=2, max_size=2),
       before=st.sampled_from(["", "my ssn is ", "sure: ", "it's "]),
       after=st.sampled_from(["", " thanks", ", ok?", "."]))
def test_property_a_known_sensitive_value_leaves_no_spelling_behind(banking, digits, separators, before, after):
    from orchestrator.engine.runtime.masking import Scrubber

    value = f"{digits[:3]}-{digits[3:5]}-{digits[5:]}"
    typed = f"{digits[:3]}{separators[0]}{digits[3:5]}{separators[1]}{digits[5:]}"
    scrubbed = Scrubber(banking, [value]).text(f"{before}{typed}{after}")
    assert digits not in "".join(ch for ch in scrubbed if ch.isdigit())


def test_the_guessing_layers_switch_off_and_the_known_values_stay_hidden(banking):
    text = "ssn 123 45 6789, mail bob@example.org, again 123-45-6789"
    assert Scrubber.known_only(["123-45-6789"]).text(text) == (
        f"ssn 123 45 6789, mail bob@example.org, again {MASK}")
    assert Scrubber(banking, ["123-45-6789"], formats=False, shapes=False).text(text) == (
        f"ssn {MASK}, mail bob@example.org, again {MASK}")  # the digit spellings alone
    assert Scrubber(banking, ["123-45-6789"], digits=False, formats=False).text(text) == (
        f"ssn {MASK}, mail {MASK}, again {MASK}")  # the shapes alone: SSN-like, e-mail
    assert Scrubber(banking, ["123-45-6789"]).text(text) == f"ssn {MASK}, mail {MASK}, again {MASK}"


def test_the_shortest_phone_numbers_are_still_hidden_and_a_string_is_scrubbed_once(banking, monkeypatch):
    # Niue's and Saint Helena's numbers have 7 and 8 digits with their country code: the scrubber's
    # shortcut (no phone matching below MIN_PHONE_DIGITS digits) must not skip them.
    scrub = Scrubber(None)
    assert scrub.text("reach me at +683 4002 please") == f"reach me at {MASK} please"
    assert scrub.text("or +290 22001") == f"or {MASK}"
    calls = []
    monkeypatch.setattr(Scrubber, "_scrub", lambda self, text: calls.append(text) or text.upper())
    scrub = Scrubber(banking, ["123-45-6789"])
    assert scrub.data({"a": "apply_loan", "b": ["apply_loan", {"c": "apply_loan"}]}) == {
        "a": "APPLY_LOAN", "b": ["APPLY_LOAN", {"c": "APPLY_LOAN"}]}
    assert calls == ["apply_loan"]  # the same string three times in a turn's data: scrubbed once
