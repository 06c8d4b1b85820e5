"""The learner on simulated banking conversations, and its rules on hand-made observations."""

from orchestrator.engine.learning.learner import Thresholds, learn, safe_preconditions
from orchestrator.engine.learning.observations import CallSeen, Conversation
from orchestrator.engine.learning.refinements import Kind
from orchestrator.engine.learning.scoring import score
from orchestrator.engine.simulation.scenario import differences


def call(status: str, available: set[str], outcome: str | None = "submitted", outputs: frozenset = frozenset(),
         conversation: str = "c") -> CallSeen:
    sent = frozenset({"name", "address", "income", "card_type"})
    return CallSeen(conversation=conversation, skill="submit_credit_card", mode="apply", status=status,
                    outcome=outcome if status == "ok" else None, outputs=outputs or frozenset({"card_status"}),
                    available=frozenset(available) | sent, sent=sent)


def test_the_safe_precondition_set_drops_an_element_only_when_a_success_was_seen_without_it():
    calls = [call("ok", {"email", "ssn"}), call("ok", {"email"}), call("invalid", set())]
    assert safe_preconditions(calls) == {"email", "name", "address", "income", "card_type"}
    assert safe_preconditions([call("invalid", {"email"})]) is None


def test_an_input_is_proposed_when_two_rejections_single_it_out_after_a_single_success(banking_spec):
    # Under SAM one success bounds what the mode needs; a rejection lacking only email then proves
    # email is needed. One such rejection is not enough (it may have had another cause), two are.
    rejected = [call("invalid", {"ssn"}, conversation=f"r{i}") for i in range(3)]
    none = Conversation("z", calls=rejected)  # no success: no safe set, nothing to deduce from
    assert not [r for r in learn(banking_spec, [none]) if r.kind is Kind.INPUT_NEEDED]
    once = Conversation("a", calls=[call("ok", {"email", "ssn"}), *rejected[:1]])
    assert not [r for r in learn(banking_spec, [once]) if r.kind is Kind.INPUT_NEEDED]
    twice = Conversation("b", calls=[call("ok", {"email", "ssn"}), *rejected[:2]])
    (found,) = [r for r in learn(banking_spec, [twice]) if r.kind is Kind.INPUT_NEEDED]
    assert found.change == {"op": "add_input", "skill": "submit_credit_card", "mode": "apply", "element": "email"}
    assert found.evidence["singled_out"] and found.evidence["successes"] == 1
    assert found.confidence == 0.75
    more = Conversation("c", calls=[call("ok", {"email", "ssn"}), *rejected])
    (found,) = [r for r in learn(banking_spec, [more]) if r.kind is Kind.INPUT_NEEDED]
    assert found.evidence["explained"] == 3 and found.evidence["conversations"] == ["r0", "r1", "r2"]
    assert found.confidence == 0.875


def test_an_input_guessed_from_rejections_it_alone_explains_waits_for_five_successes(banking_spec):
    # Three rejections lacked both email and ssn, one lacked only ssn (once: too few to deduce it);
    # ssn alone explains all four, so it is guessed, but only once the safe set rests on 5 successes.
    rejected = [call("invalid", {"loan_amount"}, conversation=f"r{i}") for i in range(3)]
    for count, expected in ((4, 0), (5, 1)):
        calls = [call("ok", {"email", "ssn", "loan_amount"}) for _ in range(count)] + rejected
        calls += [call("invalid", {"loan_amount", "email"}, conversation="s")]  # lacks only ssn: once, not enough
        guessed = [r for r in learn(banking_spec, [Conversation("a", calls=calls)]) if r.kind is Kind.INPUT_NEEDED]
        assert len(guessed) == expected, count
    assert guessed[0].change["element"] == "ssn" and not guessed[0].evidence["singled_out"]
    assert guessed[0].confidence == 0.7


def test_two_elements_the_rejections_cannot_tell_apart_are_both_held_back(banking_spec):
    # email and ssn: every success had both, every rejection lacked both, and neither implies the other.
    calls = [call("ok", {"email", "ssn"}) for _ in range(5)] + [call("invalid", set()) for _ in range(4)]
    calls += [call("ok", {"email", "ssn", "loan_amount"})]
    other = [CallSeen("x", "credit_check", "m1", "ok", "scored", frozenset(), frozenset({"ssn"}), frozenset({"ssn"})),
             CallSeen("y", "lookup_customer", "m1", "ok", "found", frozenset(), frozenset({"email"}),
                      frozenset({"email"}))]
    refinements = learn(banking_spec, [Conversation("a", calls=calls + other)])
    assert not [r for r in refinements if r.kind is Kind.INPUT_NEEDED]


def test_outcomes_never_seen_need_many_calls_and_outcomes_the_spec_lacks_are_added(banking_spec):
    calls = [call("ok", {"email"}) for _ in range(29)] + [call("ok", {"email"}, outcome="waitlisted") for _ in range(2)]
    kinds = {r.key: r for r in learn(banking_spec, [Conversation("a", calls=calls)])}
    assert "outcome_unlisted submit_credit_card.apply.waitlisted" in kinds
    assert "outcome_never submit_credit_card.apply.refused" in kinds  # 31 answered calls, never refused
    fewer = [call("ok", {"email"}) for _ in range(20)]
    assert not [r for r in learn(banking_spec, [Conversation("a", calls=fewer)]) if r.kind is Kind.OUTCOME_NEVER]


def test_slots_never_given_become_unaskable_and_given_ones_do_not(banking_spec):
    never = [Conversation(f"c{i}", asked={"account_number": False, "email": i == 3}) for i in range(5)]
    keys = {r.key for r in learn(banking_spec, never)}
    assert "unfillable account_number" in keys and "unfillable email" not in keys


def test_on_banking_conversations_the_learner_finds_the_truths_and_nothing_false(banking_spec, observed, realistic):
    refinements = learn(banking_spec, observed)
    scores = score(refinements, differences(realistic, banking_spec))
    for kind in ("output_produced", "outcome_unlisted", "unfillable"):
        assert scores[kind].found == scores[kind].expected, kind
    assert all(s.correct == s.proposed for s in scores.values()), scores
    ssn = next(r for r in refinements if r.key == "output_produced lookup_customer.m1.found ssn")
    assert ssn.evidence["with"] >= Thresholds().output_seen and ssn.evidence["conversations"]
    assert all(c in {o.ident for o in observed} for c in ssn.evidence["conversations"])


def test_an_utterance_not_understood_before_a_request_becomes_an_example_of_its_intent(banking_spec):
    from orchestrator.engine.learning.observations import from_trace

    transcript = [
        {"position": 0, "role": "assistant", "kind": "text", "text": "Hello", "data": {}},
        {"position": 1, "role": "user", "kind": "user", "text": "need cash for a car", "data": {}},
        {"position": 2, "role": "assistant", "kind": "text", "text": "Sorry, I did not understand that.", "data": {},
         "mark": "not_understood"},
        {"position": 3, "role": "user", "kind": "user", "text": "I need a loan", "data": {}},
        {"position": 4, "role": "assistant", "kind": "text", "text": "Sure, let's apply for a loan.",
         "data": {"goal": "apply_loan"}, "mark": "started"},
    ]
    seen = from_trace("c1", [], transcript)
    (example,) = [r for r in learn(banking_spec, [seen]) if r.kind is Kind.INTENT_EXAMPLE]
    assert example.change == {"op": "add_example", "intent": "apply_loan", "value": "need cash for a car"}


def test_s3_openings_that_missed_a_skill_the_plan_needs_add_words_to_its_preview(banking_spec):
    conversations = []
    for i in range(3):
        c = Conversation(f"c{i}", intent="check_card_status")
        c.broadcasts = [("where is my plastic parcel", ())]
        conversations.append(c)
    (preview,) = [r for r in learn(banking_spec, conversations) if r.kind is Kind.PREVIEW]
    assert preview.change["skill"] == "submit_credit_card"
    assert preview.change["value"].endswith("parcel plastic where")
    assert preview.evidence["missed"] == 3


def test_goal_extensions_come_from_intents_users_reach_one_after_the_other(banking_spec):
    conversations = [Conversation(f"c{i}", completed=["check_card_status", "apply_loan"]) for i in range(3)]
    (extension,) = [r for r in learn(banking_spec, conversations) if r.kind is Kind.GOAL_EXTENSION]
    assert extension.change == {"op": "add_extension", "intent": "check_card_status", "value": "apply_loan"}
