"""Learning from "did you mean ...?": a pick, or an offer turned down then a request that starts, labels the
request asked about; answers ("no", "the second") and phrases labelled two ways are never proposed."""

from __future__ import annotations

from typing import Any

from orchestrator.engine.learning.learner import learn
from orchestrator.engine.learning.observations import from_trace
from orchestrator.engine.learning.refinements import Kind

HELLO = ("assistant", "text", "Hello! What would you like to do?", {})
OFFER = ("assistant", "question", "Did you mean to check the status of a credit card application, or to apply for "
         "a credit card?", {"data": {"choices": ["check_card_status", "apply_credit_card"]}})
EMAIL = ("assistant", "question", "What is your email address?", {"element": "email"})


SORRY = ("assistant", "text", "Sorry, I did not understand that.", {}, "not_understood")


def user(text: str) -> tuple[str, str, str, dict]:
    return ("user", "user", text, {})


def sure(intent: str) -> tuple[str, str, str, dict, str]:
    return ("assistant", "text", f"Sure, let's {intent}.", {"goal": intent}, "started")


def conversation(ident: str, *lines: tuple) -> Any:
    # lines: (role, kind, text, data[, mark]); the mark stands beside the line, as the chat stores it
    transcript = [{"position": i, "role": role, "kind": kind, "text": text, "data": data,
                   "mark": mark[0] if mark else ""}
                  for i, (role, kind, text, data, *mark) in enumerate((HELLO, *lines))]
    return from_trace(ident, [], transcript)


def examples(banking_spec, *conversations) -> dict[tuple[str, str], Any]:
    found = [r for r in learn(banking_spec, list(conversations)) if r.kind is Kind.INTENT_EXAMPLE]
    return {(r.change["intent"], r.change["value"]): r for r in found}


def test_a_pick_labels_the_request_asked_about_with_its_count_and_conversations(banking_spec):
    picked = [conversation(f"c{i}", user("a card"), OFFER, user("the second"), sure("apply_credit_card"), EMAIL)
              for i in range(2)]
    found = examples(banking_spec, *picked)
    assert list(found) == [("apply_credit_card", "a card")]
    row = found[("apply_credit_card", "a card")]
    assert row.evidence == {"seen": 2, "picked": 2, "conversations": ["c0", "c1"]}
    assert "picked apply_credit_card" in row.summary


def test_an_offer_turned_down_then_a_request_that_starts_labels_it_and_the_no_is_never_an_example(banking_spec):
    declined = conversation(
        "c0", user("a card"), OFFER, user("no"),
        ("assistant", "text", "All right. I can ...", {}),
        ("assistant", "text", "Sorry, I did not understand that. I can ...", {}, "not_understood"),  # as said today
        user("I want a credit card"), sure("apply_credit_card"))
    found = examples(banking_spec, declined)
    assert list(found) == [("apply_credit_card", "a card")]
    assert found[("apply_credit_card", "a card")].evidence["declined"] == 1


def test_a_phrase_picked_for_two_intents_or_for_both_is_never_proposed(banking_spec):
    first = conversation("c0", user("a card"), OFFER, user("the first"), sure("check_card_status"))
    second = conversation("c1", user("a card"), OFFER, user("the second"), sure("apply_credit_card"))
    both = conversation("c2", user("my card please"), OFFER, user("both"), sure("check_card_status"),
                        sure("apply_credit_card"))
    assert examples(banking_spec, first, second, both) == {}


def test_an_answer_to_a_question_is_never_a_request_even_where_it_was_not_understood(banking_spec):
    # "shop money" answered a question in one conversation; said with nothing asked elsewhere, it is still refused
    answered = conversation("c0", user("I want a credit card"), sure("apply_credit_card"), EMAIL, user("shop money"))
    unheard = conversation("c1", user("shop money"), SORRY,
                           user("I want a credit card"), sure("apply_credit_card"))
    assert list(examples(banking_spec, unheard)) == [("apply_credit_card", "shop money")]
    assert examples(banking_spec, answered, unheard) == {}


def test_a_request_asked_about_mid_question_or_already_an_example_is_not_proposed(banking_spec):
    mid = conversation("c0", user("I need a loan"), sure("apply_loan"), EMAIL, user("a card"), OFFER,
                       user("the second"), sure("apply_credit_card"))
    known = conversation("c1", user("I need a loan"), OFFER, user("the second"), sure("apply_credit_card"))
    assert examples(banking_spec, mid, known) == {}
