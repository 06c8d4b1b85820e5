"""The review queue and promotion pages: members read, admins decide."""

from __future__ import annotations

from django.test import Client

from orchestrator.learning.models import RefinementStatus
from orchestrator.learning.services import refinements_propose


def test_the_queue_shows_evidence_diffs_and_effects_but_no_decision_to_an_analyst(banking, run, logged_in):
    rows = refinements_propose(catalog=banking.catalog, run=run)
    page = logged_in.get("/catalogs/banking/review/")
    text = page.content.decode()
    assert page.status_code == 200
    assert "apply_loan: plan 1 step shorter" in text and f"/simulations/{run.pk}/conversations/" in text
    assert "only an admin" in text and 'name="ids"' not in text
    refused = logged_in.post("/catalogs/banking/review/decide/", {"ids": [rows[0].pk], "action": "accept"})
    assert refused.status_code == 403
    rows[0].refresh_from_db()
    assert rows[0].status == RefinementStatus.PENDING


def test_an_admin_accepts_from_the_page_and_sees_the_new_draft_with_its_diff(banking, run, admin):
    rows = refinements_propose(catalog=banking.catalog, run=run)
    client = Client()
    client.force_login(admin)
    ssn = next(r for r in rows if r.key == "output_produced lookup_customer.m1.found ssn")
    answer = client.post("/catalogs/banking/review/decide/", {"ids": [ssn.pk], "action": "accept"})
    assert answer.status_code == 302 and answer["Location"].endswith("?draft=2")
    page = client.get(answer["Location"]).content.decode()
    assert "Draft v2 made from the accepted refinements" in page and "ssn" in page


def test_the_promotion_page_shows_the_figures_of_the_latest_planner_run(banking, run, logged_in):
    page = logged_in.get("/catalogs/banking/promotion/?version=1").content.decode()
    assert f"#{run.pk}</a>:" in page and "goal success over 80 conversations" in page
    assert "Only an admin" in page
