"""What / how / why on recorded banking conversations, and the landmark-based summary."""

from __future__ import annotations

import pytest

from orchestrator.engine.runtime.explain import how_item, what, why
from tests.unit.engine.test_runtime import Conversation

REJECTED_LOAN = [
    "I'd like to apply for a loan",
    "unknown@example.com",  # a lookup that finds nothing: a misstep
    "ada@example.com",
    "111-22-3333",  # this customer's score is 540: the loan is rejected
    "yes",
    "$20,000",
    "yes",
    "no",  # no credit card, thanks
]


@pytest.fixture
def rejected(banking, banking_planner) -> Conversation:
    chat = Conversation(banking, banking_planner)
    for text in REJECTED_LOAN:
        chat.say(text)
    assert chat.state.memory["loan_status"].value == "rejected"
    return chat


def test_what_names_the_landmarks_in_collection_order(rejected, banking, banking_planner):
    summary = what(banking, banking_planner, rejected.state)
    assert [i.element for i in summary.items] == [
        "name", "income", "ssn", "credit_score", "loan_amount", "loan_status"]
    assert "email" not in summary.text  # the account number could have done instead: no landmark
    assert summary.text.startswith("To apply for a loan, I collected your full name and your yearly income "
                                   "(from lookup customer); your social security number (you told me)")


def test_what_leaves_out_the_failed_lookup(rejected, banking, banking_planner):
    failed = rejected.state.history[0]
    assert failed.skill == "lookup_customer" and failed.outputs == {}
    summary = what(banking, banking_planner, rejected.state)
    assert "not found" not in summary.text and "unknown@example.com" not in summary.text


def test_what_takes_learning_into_account(banking, banking_planner):
    chat = Conversation(banking, banking_planner)
    for text in ["I'd like to apply for a loan", "I don't know my email", "12345678", "123-45-6789", "yes",
                 "$10,000", "yes"]:
        chat.say(text)
    assert "account_number" not in [i.element for i in what(banking, banking_planner, chat.state).items]
    # Had the income not been askable either, the account number would have been the only way to it:
    chat.state.cannot_establish.append(("ask", "income"))
    assert "account_number" in [i.element for i in what(banking, banking_planner, chat.state).items]


def test_how_chains_end_at_what_the_user_gave(rejected, banking):
    item = how_item(banking, rejected.state, "loan_status")
    assert item.skill == "submit_loan"
    leaves, stack = [], [item]
    while stack:
        node = stack.pop()
        stack.extend(node.inputs)
        if not node.inputs:
            leaves.append(node)
    assert {leaf.source for leaf in leaves} == {"user"}
    assert {leaf.element for leaf in leaves} == {"email", "ssn", "loan_amount"}


def test_why_follows_the_regression_and_skips_missteps(rejected, banking):
    answer = why(banking, rejected.state, "ssn")
    assert answer.used_by.skill == "credit_check"
    assert [r.skill for r in answer.chain] == ["credit_check", "submit_loan"]
    email = why(banking, rejected.state, "email")
    assert email.used_by.skill == "lookup_customer" and email.used_by.outputs  # the lookup that worked
    assert all(record.outputs for record in email.chain)  # the failed lookup is never a reason


def test_chained_explanation_of_a_rejected_loan_reaches_the_user(rejected, banking):
    answer = why(banking, rejected.state, "loan_status")
    chained = answer.chained
    assert chained is not None and chained.feature == "credit_score" and chained.value == "rejected"
    assert [i.element for i in chained.trail] == ["credit_score", "ssn"]
    assert chained.trail[-1].source == "user"
    assert answer.text == (
        "The decision on your loan is rejected mainly because of your credit score, which credit check "
        "(asks the credit bureau for the customer's credit score) worked out from your social security "
        "number, which you gave me.")


def test_the_chat_answers_in_words(rejected):
    assert rejected.last("why was my loan rejected?").text.startswith("The decision on your loan is rejected")
    assert rejected.last("how did you get my credit score?").text.startswith(
        "I got your credit score from credit check")
    assert rejected.last("what did you do?").data["kind"] == "what"


def test_nothing_done_yet(banking, banking_planner):
    chat = Conversation(banking, banking_planner)
    assert chat.last("what did you do?").text == "I have not done anything for you yet."
