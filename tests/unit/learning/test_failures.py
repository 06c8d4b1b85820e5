"""Learning from rejected calls (inputs named as missing, under SAM's bound), and the precision rule
every kind of refinement is held to (intent examples, extensions)."""

from orchestrator.engine.catalog.spec_io import load_catalog
from orchestrator.engine.learning.learner import learn
from orchestrator.engine.learning.observations import CallSeen, Conversation, from_trace
from orchestrator.engine.learning.refinements import Kind, Refinement
from orchestrator.engine.learning.scoring import example_intent, score_others
from tests.conftest import ROOT

DEMO = ROOT / "catalog_app" / "demo"
SENT = frozenset({"loan_amount"})


def thin():
    return load_catalog((DEMO / "banking-thin.yaml").read_text())


def loan(status: str, available: set[str], named: tuple[str, ...] = (), conversation: str = "c") -> CallSeen:
    return CallSeen(conversation=conversation, skill="submit_loan", mode="m1", status=status,
                    outcome="approved" if status == "ok" else None, outputs=frozenset({"loan_status"}),
                    available=frozenset(available) | SENT, sent=SENT, named=named)


def inputs(spec, *calls: CallSeen) -> dict[str, Refinement]:
    return {r.change["element"]: r for r in learn(spec, [Conversation("a", calls=list(calls))])
            if r.kind is Kind.INPUT_NEEDED}


def test_an_input_a_rejection_names_as_missing_is_proposed_before_any_success():
    # SAM alone learns nothing without a success; the rejection's body proves credit_score is needed.
    spec = thin()
    assert "credit_score" not in spec.skill("submit_loan").mode("m1").inputs
    found = inputs(spec, loan("invalid", {"name"}, named=("credit_score",)))
    assert set(found) == {"credit_score"}
    assert found["credit_score"].evidence["named"] == 1 and found["credit_score"].evidence["safe_set"] is None
    assert found["credit_score"].confidence == 0.9
    # SAM's rule on the same calls proposes nothing (no success)
    assert not inputs(spec, loan("invalid", {"name"}))


def test_a_named_input_a_success_did_without_is_never_proposed():
    # A success without income contradicts "income is needed": the precision guard wins over the body.
    spec = thin()
    found = inputs(spec, loan("ok", {"name", "credit_score"}), loan("invalid", {"name"}, named=("income",)),
                   loan("invalid", {"name"}, named=("income",)))
    assert "income" not in found


def test_a_named_element_the_call_had_is_a_refused_value_not_a_missing_input():
    spec = thin()
    assert not inputs(spec, loan("invalid", {"name", "income"}, named=("income",)))


def test_a_name_that_fits_no_element_or_a_declared_input_is_not_proposed():
    spec = thin()
    assert not inputs(spec, loan("invalid", {"name"}, named=("co_signer",)))
    assert not inputs(spec, loan("invalid", {"name"}, named=("loan_amount",)))  # declared already


def test_a_rejection_explained_by_a_declared_input_singles_nothing_out():
    # Calls kept from a round before credit_score was declared lacked both it and income; once
    # credit_score is declared they must not single income out (they are explained by credit_score).
    spec = thin()
    declared = spec.model_copy(update={"skills": tuple(
        s.model_copy(update={"modes": (s.modes[0].model_copy(update={"inputs": ("loan_amount", "credit_score")}),)})
        if s.name == "submit_loan" else s for s in spec.skills)})
    successes = [loan("ok", {"name", "income", "credit_score"}) for _ in range(3)]
    rejected = [loan("invalid", {"name"}, conversation=f"r{i}") for i in range(3)]  # lacked credit_score and income
    assert "income" not in inputs(declared, *successes, *rejected)
    lacking_income = [loan("invalid", {"name", "credit_score"}, conversation=f"s{i}") for i in range(2)]
    assert "income" in inputs(declared, *successes, *rejected, *lacking_income)  # singled out, twice


def transcript(*messages: tuple) -> list[dict]:
    """Lines (role, kind, text, data[, mark]) as a transcript stores them, the mark beside each line."""
    return [{"position": i, "role": role, "kind": kind, "text": text, "data": data, "mark": mark[0] if mark else ""}
            for i, (role, kind, text, data, *mark) in enumerate(messages)]


SORRY = ("assistant", "text", "Sorry, I did not understand that.", {}, "not_understood")
LOAN = ("assistant", "text", "Sure, let's apply for a loan.", {"goal": "apply_loan"}, "started")  # the start reply


def test_a_reply_to_an_offer_is_never_an_intent_example():
    said = transcript(
        ("assistant", "question", "Would you also like to apply for a credit card?", {}),
        ("user", "user", "sure, why not", {}), SORRY,
        ("user", "user", "I want a loan", {}), LOAN)
    assert from_trace("c", [], said).openings == []
    request = transcript(
        ("user", "user", "money to borrow for a house", {}), SORRY,
        ("user", "user", "I want a loan", {}), LOAN)
    (opening,) = from_trace("c", [], request).openings
    assert (opening.text, opening.intent) == ("money to borrow for a house", "apply_loan")


def test_a_text_heard_before_two_intents_or_without_content_is_never_an_example():
    spec = thin()

    def heard(text: str, intent: str, ident: str) -> Conversation:
        said = transcript(("user", "user", text, {}), SORRY, ("user", "user", "x", {}),
                          ("assistant", "text", f"Sure, let's {intent}.", {"goal": intent}, "started"))
        return from_trace(ident, [], said)

    both = [heard("can you sort out my plastic", "apply_credit_card", "a"),
            heard("can you sort out my plastic", "check_card_status", "b"),
            heard("yes please", "apply_loan", "c"), heard("need cash for a boat purchase", "apply_loan", "d")]
    examples = {(r.change["intent"], r.change["value"]) for r in learn(spec, both) if r.kind is Kind.INTENT_EXAMPLE}
    assert examples == {("apply_loan", "need cash for a boat purchase")}


def test_a_digression_is_not_a_goal_extension():
    spec = thin()
    # card status taken up in the middle of the loan, finished first: not "after the loan, the card"
    digressed = [Conversation(f"d{i}", completed=["check_card_status", "apply_loan"],
                              started=["apply_loan", "check_card_status"]) for i in range(5)]
    assert not [r for r in learn(spec, digressed) if r.kind is Kind.GOAL_EXTENSION]
    went_on = [Conversation(f"w{i}", completed=["apply_loan", "check_card_status"],
                            started=["apply_loan", "check_card_status"]) for i in range(5)]
    (found,) = [r for r in learn(spec, went_on) if r.kind is Kind.GOAL_EXTENSION]
    assert found.change == {"op": "add_extension", "intent": "apply_loan", "value": "check_card_status"}


def test_intent_examples_previews_and_extensions_are_scored_against_a_reference(banking_spec):
    assert example_intent("I would like to apply for a loan please", banking_spec) == "apply_loan"
    assert example_intent("yes please", banking_spec) is None
    def proposal(kind: Kind, **change: str) -> Refinement:
        return Refinement(kind=kind, key=str(change), summary="", change=change)

    proposals = [
        proposal(Kind.INTENT_EXAMPLE, op="add_example", intent="apply_loan", value="I would like to apply for a loan"),
        proposal(Kind.INTENT_EXAMPLE, op="add_example", intent="apply_credit_card", value="sure, why not"),
        proposal(Kind.PREVIEW, op="set_preview", skill="credit_check", value="x"),
    ]
    scores = score_others(proposals, banking_spec)
    assert (scores["intent_example"].proposed, scores["intent_example"].correct) == (2, 1)
    assert (scores["preview"].proposed, scores["preview"].correct) == (1, 1)
    assert scores["goal_extension"].proposed == 0


def test_a_request_that_also_gives_a_value_is_never_an_example():
    spec = thin()

    def heard(text: str, ident: str, given: dict[str, str]) -> Conversation:
        said = transcript(("user", "user", text, {}), SORRY, ("user", "user", "x", {}), LOAN)
        memory = {element: {"value": value, "source": "user"} for element, value in given.items()}
        return from_trace(ident, [], said, {"memory": memory})

    seen = [heard("I need a loan my card type is gold", "a", {"card_type": "gold"}),
            heard("can I borrow some money my loan amount is 25000.00", "b", {"loan_amount": "25000"}),
            heard("need cash for a boat purchase", "c", {"loan_amount": "25000", "card_type": "gold"})]
    examples = {r.change["value"] for r in learn(spec, seen) if r.kind is Kind.INTENT_EXAMPLE}
    assert examples == {"need cash for a boat purchase"}


def test_a_request_stating_a_value_the_sketch_does_not_know_yet_is_never_an_example():
    spec = thin()  # no loan amount element yet
    said = transcript(("user", "user", "I want a credit card My loan amount is large", {}), SORRY,
                      ("user", "user", "x", {}), LOAN)
    other = transcript(("user", "user", "money for a boat please 25000", {}), SORRY, ("user", "user", "x", {}), LOAN)
    assert not [r for r in learn(spec, [from_trace("a", [], said), from_trace("b", [], other)])
                if r.kind is Kind.INTENT_EXAMPLE]
