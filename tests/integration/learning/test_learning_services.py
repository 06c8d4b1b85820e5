"""Refinements proposed from a run, refreshed rather than doubled, decided by admins into one new draft."""

from __future__ import annotations

import pytest

from catalog_app.editing import NotAllowed
from catalog_app.models import VersionStatus
from catalog_app.selectors import version_spec
from orchestrator.engine.errors import ConcertoError
from orchestrator.learning.models import Refinement, RefinementStatus
from orchestrator.learning.services import refinements_decide, refinements_propose


def test_a_run_yields_pending_refinements_with_evidence_and_effects(banking, run):
    rows = refinements_propose(catalog=banking.catalog, run=run)
    keys = {r.key for r in rows}
    assert "output_produced lookup_customer.m1.found ssn" in keys
    ssn = next(r for r in rows if r.key == "output_produced lookup_customer.m1.found ssn")
    assert ssn.status == RefinementStatus.PENDING and ssn.subject == "lookup_customer"
    assert ssn.evidence["conversations"][0].startswith(f"run:{run.pk}:")
    assert "apply_loan: plan 1 step shorter" in [e["text"] for e in ssn.effects]
    again = refinements_propose(catalog=banking.catalog, run=run)
    assert Refinement.objects.filter(catalog=banking.catalog).count() == len(again) == len(rows)


def test_accepting_forms_a_new_draft_with_a_readable_diff_and_rejecting_only_marks(banking, run, admin):
    rows = {r.key: r for r in refinements_propose(catalog=banking.catalog, run=run)}
    ssn = rows["output_produced lookup_customer.m1.found ssn"]
    never = next(r for k, r in rows.items() if k.startswith("outcome_never"))
    other = next(r for r in rows.values() if r not in (ssn, never))
    decision = refinements_decide(catalog=banking.catalog, user=admin, accept=[ssn.pk, never.pk], reject=[other.pk])
    draft = decision.draft
    assert draft.status == VersionStatus.DRAFT and draft.number == banking.number + 1
    spec = version_spec(version=draft)
    assert "ssn" in spec.skill("lookup_customer").mode("m1").outcomes[0].outputs
    assert any("lookup_customer" in str(c) and "ssn" in str(c) for c in decision.diff)
    assert version_spec(version=banking) != spec  # the version learned on is untouched
    for row, status in ((ssn, "accepted"), (never, "accepted"), (other, "rejected")):
        row.refresh_from_db()
        assert row.status == status and row.decided_by == admin
    assert ssn.draft == draft and other.draft is None


def test_an_analyst_cannot_decide_and_nothing_changes(banking, run, analyst):
    (first, *_) = refinements_propose(catalog=banking.catalog, run=run)
    with pytest.raises(NotAllowed):
        refinements_decide(catalog=banking.catalog, user=analyst, accept=[first.pk])
    first.refresh_from_db()
    assert first.status == RefinementStatus.PENDING
    assert banking.catalog.versions.count() == 1


def test_an_edit_that_does_not_fit_the_catalog_is_refused_and_no_draft_is_made(banking, run, admin):
    (first, *_) = refinements_propose(catalog=banking.catalog, run=run)
    broken = {**first.change, "skill": "no_such_skill"}
    with pytest.raises(ConcertoError, match="does not fit"):
        refinements_decide(catalog=banking.catalog, user=admin, accept=[first.pk], edits={first.pk: broken})
    assert banking.catalog.versions.count() == 1


def test_learning_needs_a_finished_run_of_the_same_catalog(banking, run):
    run.status = "running"
    run.save()
    with pytest.raises(ConcertoError, match="finished run"):
        refinements_propose(catalog=banking.catalog, run=run)
    with pytest.raises(ConcertoError, match="from a simulation run"):
        refinements_propose(catalog=banking.catalog)


def test_a_stored_scenario_naming_a_removed_outcome_is_carried_over_to_the_draft(banking, run, admin):
    from orchestrator.simulation.models import SimulationScenario

    rows = refinements_propose(catalog=banking.catalog, run=run)
    never = [r for r in rows if r.kind == "outcome_never"]
    assert never
    decision = refinements_decide(catalog=banking.catalog, user=admin, accept=[r.pk for r in never])
    carried = SimulationScenario.objects.get(catalog=banking.catalog, name=f"realistic-v{decision.draft.number}")
    for row in never:
        change = row.change
        outcomes = carried.data["skills"][change["skill"]]["modes"][change["mode"]].get("outcomes", {})
        assert change["outcome"] not in outcomes


def test_live_sessions_are_read_with_their_trace_and_transcript(workspace, banking):
    from catalog_app.services import version_promote
    from orchestrator.assistants.services import assistant_create
    from orchestrator.chat.services import message_post, session_create
    from orchestrator.learning.services import session_conversations

    assistant = assistant_create(workspace=workspace, version=version_promote(version=banking, user=None), key="live")
    session, _ = session_create(assistant=assistant)
    message_post(session_id=session.pk, text="what is the status of my card application")
    message_post(session_id=session.pk, text="CC-104233")
    (seen,) = session_conversations(catalog=banking.catalog)
    assert seen.ident == f"session:{session.pk}"
    assert seen.asked.get("card_application_id") is True
    assert [(c.skill, c.mode, c.status) for c in seen.calls] == [("submit_credit_card", "status", "ok")]
    assert refinements_propose(catalog=banking.catalog, sessions=True) == []  # one conversation proves nothing
