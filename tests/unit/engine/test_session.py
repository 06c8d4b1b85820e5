"""Session state: serialisable, and the learning rules of the execution manager."""

from orchestrator.engine.catalog.spec import Goal
from orchestrator.engine.planning.task import PlanningState
from orchestrator.engine.runtime.dialogue.frames import ConsentFrame
from orchestrator.engine.runtime.session import Execution, GoalFrame, SessionState


def test_state_round_trips_through_json():
    state = SessionState()
    state.remember("email", "ada@example.com", "user")
    state.remember("income", "90000.00", "skill", skill="lookup_customer", step=0)
    state.push(GoalFrame(intent="apply_loan", goal=Goal(known=("loan_status",))))
    state.history.append(Execution(step=0, skill="lookup_customer", mode="m1", outcome="found",
                                   planned_outcome="found", inputs={"email": "ada@example.com"},
                                   outputs={"income": "90000.00"}))
    state.fail("ask", "ssn", limit=0)
    state.prune("ocr_document-m1-read", ("drivers_license",))
    state.authorize("credit_check")
    state.pending = ConsentFrame(target="credit_check", elements=["ssn"])
    copy = SessionState.model_validate_json(state.model_dump_json())
    assert copy == state
    assert copy.memory["income"].skill == "lookup_customer"


def test_retry_limit_turns_failures_into_cannot_establish():
    state = SessionState()
    assert state.fail("lookup_customer-m1", "name", limit=2) is False
    assert state.cannot_establish == []
    assert state.fail("lookup_customer-m1", "name", limit=2) is True
    assert state.cannot_establish == [("lookup_customer-m1", "name")]
    assert state.fail("lookup_customer-m1", "name", limit=2) is False  # learned once
    # max_retries 1: one unsuccessful call is the most a session may make
    assert state.fail("credit_check-m1", "credit_score", limit=1) is True


def test_goal_stack():
    state = SessionState()
    loan = GoalFrame(intent="apply_loan", goal=Goal(known=("loan_status",)))
    card = GoalFrame(intent="apply_credit_card", goal=Goal(done=("submit_credit_card.apply",)))
    state.push(loan)
    state.push(card)
    assert state.current == card
    assert state.pop() == card and state.current == loan


def test_planning_state_reflects_everything_learned():
    state = SessionState()
    state.remember("email", "a@b.co", "user")
    state.fail("ask", "ssn", limit=0)
    state.prune("ocr_document-m1-read", ("document",))
    state.authorize("submit_loan")
    state.done.append("lookup_customer-m1")
    assert state.planning_state() == PlanningState.of(
        known={"email"}, authorized={"submit_loan"}, cannot_establish={("ask", "ssn")},
        pruned={("ocr_document-m1-read", ("document",))}, done={"lookup_customer-m1"},
    )
