"""The S3 orchestrator: score, select top-k above a threshold, sequence, execute."""

import pytest

from orchestrator.engine.runtime.s3 import S3Orchestrator, Scored
from orchestrator.engine.runtime.session import SessionState
from orchestrator.engine.runtime.skills import SimulatedSkills


@pytest.fixture
def s3(banking, banking_planner):
    return S3Orchestrator(banking, banking_planner, SimulatedSkills(banking, seed=3))


def test_scores_are_normalised_confidences(s3):
    scored = s3.score("check my credit card application status")
    assert abs(sum(s.score for s in scored) - 1.0) < 1e-9
    assert scored[0].skill == "submit_credit_card"
    assert all(a.score >= b.score for a, b in zip(scored, scored[1:], strict=False))


def test_selector_keeps_top_k_above_threshold(s3):
    scored = [Scored("a", 0.5), Scored("b", 0.3), Scored("c", 0.2)]
    assert s3.select(scored) == ["a", "b"]  # k = 2, and c is under the threshold anyway
    s3.top_k = 3
    assert s3.select(scored) == ["a", "b"]


def test_sequencer_puts_producers_first(s3):
    assert s3.sequence(["credit_check", "ocr_document"]) == ["ocr_document", "credit_check"]
    assert s3.sequence(["submit_loan", "credit_check"]) == ["credit_check", "submit_loan"]


def test_executes_the_selected_skill_after_filling_its_inputs(s3):
    state = SessionState()
    replies = s3.turn(state, "please look up my customer record").replies
    assert replies[-1].kind == "question" and replies[-1].element == "email"
    replies = s3.turn(state, "ada@example.com").replies
    assert replies[-1].kind == "result" and replies[-1].data["values"]["name"] == "Ada Lovelace"
    assert s3.invoker.calls == [("lookup_customer", "m1", {"email": "ada@example.com"})]


def test_consent_before_a_sensitive_input(s3):
    state = SessionState()
    state.remember("ssn", "123-45-6789", "user")
    reply = s3.turn(state, "what is my credit score at the bureau").replies[-1]
    assert reply.kind == "consent" and reply.skill == "credit_check"
    assert s3.invoker.calls == []
    s3.turn(state, "no")
    assert s3.invoker.calls == []


def test_stateless_baseline_cannot_chain_what_it_lacks(s3):
    # The planner would chain lookup, credit check and submission; S3 only runs what it selected.
    replies = s3.turn(SessionState(), "I want to borrow money").replies
    assert replies[-1].text.startswith("I cannot use submit loan: I am missing")
    assert "credit score" in replies[-1].text


def test_nothing_matches(s3):
    assert s3.turn(SessionState(), "sing me a song").replies[-1].text == "Sorry, none of my skills can help with that."


def test_the_selection_is_in_the_replys_data_and_the_learner_reads_it_not_the_words(s3):
    from orchestrator.engine.learning.observations import from_trace

    state = SessionState()
    said = s3.turn(state, "please look up my customer record").replies[0]
    assert said.data["selected"] == ["lookup_customer"] and "lookup_customer" in said.data["scores"]
    none = s3.turn(SessionState(), "zzzz qqqq").replies[0]
    assert none.data["selected"] == []
    # Reworded replies: the learner still reads which skills were kept.
    transcript = [{"role": "user", "kind": "user", "text": "look me up", "data": {}},
                  {"role": "assistant", "kind": "text", "text": "On it.", "data": said.as_dict(), "mark": ""},
                  {"role": "user", "kind": "user", "text": "zzzz", "data": {}},
                  {"role": "assistant", "kind": "text", "text": "No luck.", "data": none.as_dict(), "mark": ""}]
    assert from_trace("c", [], transcript).broadcasts == [("look me up", ("lookup_customer",)), ("zzzz", ())]
