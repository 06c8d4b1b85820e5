"""Saving a test-chat conversation as a test, running a catalog's tests on a version, and the promotion gate."""

from __future__ import annotations

import pytest

from catalog_app.editing import EditRefused, NotAllowed, version_promote_checked
from catalog_app.models import VersionStatus
from orchestrator.conversation_tests.models import ConversationTestRun
from orchestrator.conversation_tests.selectors import run_latest
from orchestrator.conversation_tests.services import (
    conversation_test_from_session,
    conversation_test_update,
    conversation_tests_policy_set,
    conversation_tests_run,
)
from orchestrator.engine.errors import ConcertoError
from orchestrator.engine.runtime.masking import MASK

from .conftest import LOAN, ssn_not_sensitive, talk

pytestmark = pytest.mark.django_db


def test_a_saved_conversation_keeps_its_turns_and_their_structure(loan_test):
    turns = loan_test.turns
    assert [t["user"] for t in turns] == LOAN  # the SSN the transcript masks is read back from the sealed state
    assert MASK not in turns[2]["user"]
    assert turns[0]["expect"]["intents"] == ["apply_loan"] and turns[0]["expect"]["asked"] == ["email"]
    assert turns[1]["expect"]["skills"] == ["lookup_customer"] and "email" in turns[1]["expect"]["filled"]
    assert turns[2]["expect"]["consent"] == ["credit_check"] and turns[2]["expect"]["filled"] == ["ssn"]
    assert turns[3]["expect"]["skills"] == ["credit_check"] and turns[3]["expect"]["asked"] == ["loan_amount"]
    assert all(t["expect"]["goals"] == [] for t in turns)


def test_a_test_passes_on_its_version_every_time(banking, loan_test, analyst):
    first = conversation_tests_run(version=banking, user=analyst)
    second = conversation_tests_run(version=banking, user=analyst)
    assert (first.passed, first.failed) == (1, 0) == (second.passed, second.failed)
    assert run_latest(version=banking) == second


def test_an_edit_that_drops_a_consent_fails_the_test_at_that_turn(banking, loan_test, analyst):
    draft = ssn_not_sensitive(banking, analyst)
    run = conversation_tests_run(version=draft, user=analyst)
    assert (run.passed, run.failed) == (0, 1)
    result = run.results[0]
    assert result["turn"] == 3 and result["user"] == "123-45-6789"
    assert result["difference"].startswith("asked for: expected none, got loan_amount")
    # Expecting only the consent (the rest unchecked) points at it.
    turns = [dict(t) for t in loan_test.turns]
    turns[2] = {"user": turns[2]["user"], "expect": {"consent": ["credit_check"]}}
    conversation_test_update(test=loan_test, user=analyst, turns=turns)
    run = conversation_tests_run(version=draft, user=analyst)
    assert run.results[0]["difference"] == "consent asked for: expected credit_check, got none"


def test_wording_is_not_checked(banking, loan_test, analyst):
    from catalog_app.editing import version_edit
    from catalog_app.services import version_create_draft, version_promote

    draft = version_create_draft(version=version_promote(version=banking, user=analyst), user=analyst)
    version_edit(version=draft, change=lambda spec: spec.model_copy(update={"elements": tuple(
        e.model_copy(update={"question": "Which email should we use?"}) if e.name == "email" else e
        for e in spec.elements)}), user=analyst)
    assert conversation_tests_run(version=draft, user=analyst).ok


def test_bad_turns_are_refused_with_the_path_at_fault(loan_test, analyst):
    with pytest.raises(ConcertoError) as caught:
        conversation_test_update(test=loan_test, user=analyst,
                                 turns=[{"user": "hi", "expect": {"asked": ["not a name"]}}])
    assert caught.value.path == "turns[0].expect.asked"
    with pytest.raises(ConcertoError) as caught:
        conversation_test_update(test=loan_test, user=analyst, turns=[{"user": "hi", "expect": {"said": []}}])
    assert "unknown expectation 'said'" in str(caught.value)
    with pytest.raises(ConcertoError, match="at least one user turn"):
        conversation_test_update(test=loan_test, user=analyst, turns=[])


def test_only_an_admin_requires_the_tests(banking, analyst):
    with pytest.raises(NotAllowed):
        conversation_tests_policy_set(catalog=banking.catalog, required=True, user=analyst)


def test_required_tests_gate_promotion_of_a_version_that_fails_them(banking, loan_test, analyst, admin):
    draft = ssn_not_sensitive(banking, analyst)
    conversation_tests_policy_set(catalog=banking.catalog, required=True, user=admin)
    with pytest.raises(EditRefused, match=r"1 of 1 conversation tests fail on version 2 \(first: 'loan with "
                                          r"consent' at turn 3: asked for"):
        version_promote_checked(version=draft, user=admin)
    assert draft.status == VersionStatus.DRAFT
    conversation_tests_policy_set(catalog=banking.catalog, required=False, user=admin)
    assert version_promote_checked(version=draft, user=admin).status == VersionStatus.PROMOTED


def test_required_tests_also_gate_switching_a_published_assistant_to_the_planner(banking, loan_test, analyst, admin):
    from orchestrator.assistants.services import assistant_publish, assistant_update
    from orchestrator.modes import AssistantMode

    draft = ssn_not_sensitive(banking, analyst)
    promoted = version_promote_checked(version=draft, user=admin)  # not required yet: it goes
    assistant, _ = assistant_publish(user=admin, catalog=banking.catalog, version=promoted, mode=AssistantMode.S3)
    conversation_tests_policy_set(catalog=banking.catalog, required=True, user=admin)
    with pytest.raises(EditRefused, match="conversation tests fail"):
        assistant_update(user=admin, assistant=assistant, mode=AssistantMode.PLANNER)
    assistant.refresh_from_db()
    assert assistant.mode == AssistantMode.S3


def test_required_tests_that_pass_let_the_version_go(banking, loan_test, admin):
    conversation_tests_policy_set(catalog=banking.catalog, required=True, user=admin)
    assert version_promote_checked(version=banking, user=admin).status == VersionStatus.PROMOTED
    assert ConversationTestRun.objects.get().ok  # the gate's own run, kept with the promotion


def test_a_volunteered_sensitive_value_is_written_back_into_its_own_turn(banking, analyst):
    said = ["I'd like to apply for a loan, my ssn is 123-45-6789", "ada@example.com", "my ssn is 123-45-6789"]
    session = talk(banking, said)
    texts = [m.text for m in session.messages.filter(role="user").order_by("position")]
    assert MASK in texts[0] and MASK in texts[2]  # the transcript hides it
    test = conversation_test_from_session(session=session, name="volunteered", user=analyst)
    assert [t["user"] for t in test.turns] == said
    assert conversation_tests_run(version=banking, user=analyst).ok
