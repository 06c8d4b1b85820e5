"""A request for another service is refused, not started as the catalog's closest intent: "I want to close my
savings account" started a loan application (the issue's own example). A request of the catalog's own
trade is not refused for being in the list of other services' requests."""

from __future__ import annotations

from orchestrator.engine.runtime.calibration import other_service_requests
from orchestrator.engine.runtime.intents import IntentMatcher
from orchestrator.engine.runtime.semantic import SemanticClassifier


def test_the_project_ships_requests_of_many_trades():
    requests = other_service_requests()
    assert len(requests) >= 400 and len(set(requests)) == len(requests)


def test_closing_a_savings_account_is_refused_by_a_bank_that_only_lends(banking):
    matcher = IntentMatcher(banking, SemanticClassifier())
    decision = matcher.decide("I want to close my savings account")
    assert decision.kind == "none"
    assert decision.reason.startswith("another service's business")
    assert decision.ranked and decision.ranked[0].intent == "apply_loan"  # the ranking is unchanged: what was started


def test_the_banks_own_requests_still_start(banking):
    matcher = IntentMatcher(banking, SemanticClassifier())
    for text, intent in [("I need a loan", "apply_loan"), ("I want a credit card", "apply_credit_card"),
                         ("has my credit card been approved", "check_card_status")]:
        decision = matcher.decide(text)
        assert (decision.kind, decision.intent) == ("intent", intent), text


def test_a_request_of_the_catalogs_own_trade_is_not_refused_for_being_in_the_list():
    # "I'd like to open a savings account" is in the list; here it is this catalog's business
    matcher = IntentMatcher.from_phrases({
        "open_savings": ["open a savings account", "I want to start saving", "new savings account please",
                         "somewhere to put money aside"],
        "apply_loan": ["I need a loan", "can I borrow some money", "apply for a loan", "finance for a car"],
    }, classifier=SemanticClassifier())
    decision = matcher.decide("I'd like to open a savings account")
    assert (decision.kind, decision.intent) == ("intent", "open_savings")
