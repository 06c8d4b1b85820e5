"""A third intent close to the best is offered too ("did you mean A, B, or C?"), and any of the three can
be picked by name or by its place; an unsure request's close runner-up is offered beside it even when
its own closest phrase is under the refuse threshold."""

from __future__ import annotations

from orchestrator.engine.runtime.calibration import Calibration
from orchestrator.engine.runtime.intents import IntentMatcher
from orchestrator.engine.runtime.nlu import IntentGuess
from orchestrator.engine.runtime.session import SessionState
from orchestrator.engine.runtime.skills import SimulatedSkills
from orchestrator.engine.runtime.turns import PlannerOrchestrator

from .given_ranking import GivenRanking

CLOSE = [IntentGuess("apply_loan", 0.50, 0.55), IntentGuess("apply_credit_card", 0.47, 0.50),
         IntentGuess("check_card_status", 0.42, 0.45)]  # leads of 6% and 16%, where the margin is 10%


def given(rankings: dict[str, list[IntentGuess]]) -> GivenRanking:
    """The ranking given per message, a poor fit for any other; refuse 0.3, start 0.35, margin 10%."""
    return GivenRanking(rankings, [IntentGuess("apply_loan", 0.05, 0.05)],
                        Calibration(floor=0.3, sure=0.35, margin=0.10))


def test_a_third_intent_within_twice_the_margin_is_offered(banking):
    decision = IntentMatcher(banking, given({"something": CLOSE})).decide("something")
    assert decision.kind == "ambiguous"
    assert decision.alternatives == ("apply_loan", "apply_credit_card", "check_card_status")


def test_a_third_intent_further_off_or_not_fitting_is_not(banking):
    far = [*CLOSE[:2], IntentGuess("check_card_status", 0.39, 0.45)]  # 22% behind
    unfit = [*CLOSE[:2], IntentGuess("check_card_status", 0.42, 0.28)]  # its closest phrase below the floor
    for ranked in (far, unfit):
        decision = IntentMatcher(banking, given({"something": ranked})).decide("something")
        assert decision.alternatives == ("apply_loan", "apply_credit_card")


def test_an_unsure_requests_close_runner_up_is_offered_though_under_the_floor(banking):
    # 0.33 is under the start threshold (0.35); the card's closest phrase (0.28) is under the floor (0.30),
    # but its score is 12% behind, within 1.5 margins (15%): "did you mean A or B?", not "did you mean A?"
    unsure = [IntentGuess("apply_loan", 0.33, 0.40), IntentGuess("apply_credit_card", 0.29, 0.28),
              IntentGuess("check_card_status", 0.10, 0.12)]
    decision = IntentMatcher(banking, given({"something": unsure})).decide("something")
    assert decision.kind == "ambiguous"
    assert decision.alternatives == ("apply_loan", "apply_credit_card")


def test_an_unsure_requests_runner_up_further_off_is_not(banking):
    unsure = [IntentGuess("apply_loan", 0.33, 0.40), IntentGuess("apply_credit_card", 0.27, 0.28),  # 18% behind
              IntentGuess("check_card_status", 0.10, 0.12)]
    decision = IntentMatcher(banking, given({"something": unsure})).decide("something")
    assert decision.kind == "ambiguous"
    assert decision.alternatives == ("apply_loan",)


def test_the_third_of_three_can_be_picked_by_its_place(banking, banking_planner):
    bot = PlannerOrchestrator(banking, banking_planner, SimulatedSkills(banking, seed=1),
                              classifier=given({"something about money": CLOSE}))
    state = SessionState()
    question = bot.turn(state, "something about money").replies[-1]
    assert question.data["choices"] == ["apply_loan", "apply_credit_card", "check_card_status"]
    assert all(i.description in question.text for i in banking.intents)  # "Did you mean to A, to B, or to C?"
    bot.turn(state, "the third one")
    assert state.current is not None and state.current.intent == "check_card_status"
