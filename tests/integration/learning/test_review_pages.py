"""The review queue and promotion pages: members read, admins decide."""

from __future__ import annotations

import json
import re

from django.test import Client

from catalog_app.selectors import version_spec
from orchestrator.learning.models import Refinement, RefinementStatus
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


def test_the_run_to_learn_from_defaults_to_the_latest_finished_run(banking, run, logged_in):
    page = logged_in.get("/catalogs/banking/review/").content.decode()
    select = re.search(r'<select id="learn-run" name="run">(.*?)</select>', page, re.S).group(1)
    options = re.findall(r'<option value="(\d*)"( selected)?', select)
    assert options[0] == (str(run.pk), " selected")  # the first click learns from it, not from "none"
    assert [value for value, chosen in options if chosen] == [str(run.pk)]


def test_a_finished_learning_job_draws_the_page_again_so_the_queue_shows_its_refinements(banking, run, logged_in):
    from orchestrator.learning.models import LearningJob
    from orchestrator.learning.services import learning_job_execute

    job = LearningJob.objects.create(catalog=banking.catalog, run=run)
    polled = logged_in.get(f"/catalogs/banking/review/jobs/{job.pk}/", headers={"HX-Request": "true"})
    assert "HX-Refresh" not in polled  # still queued: the status alone
    learning_job_execute(job_id=job.pk)
    polled = logged_in.get(f"/catalogs/banking/review/jobs/{job.pk}/", headers={"HX-Request": "true"})
    assert polled.status_code == 286 and polled["HX-Refresh"] == "true"
    page = logged_in.get(f"/catalogs/banking/review/?job={job.pk}").content.decode()
    assert "pending review" in page and "Nothing to review" not in page and 'class="refinement' in page


def test_a_refinement_is_edited_in_fields_of_its_kind_and_json_is_only_the_fallback(banking, run, admin):
    rows = refinements_propose(catalog=banking.catalog, run=run)
    client = Client()
    client.force_login(admin)
    ssn = next(r for r in rows if r.key == "output_produced lookup_customer.m1.found ssn")
    page = client.get("/catalogs/banking/review/").content.decode()
    card = page[page.index(f'data-key="{ssn.key}"'):]
    card = card[:card.index("</article>")]
    for field, label, value in (("skill", "Skill", "lookup_customer"), ("mode", "Mode", "m1"),
                                ("outcome", "Outcome", "found"), ("element", "Output to add", "ssn")):
        assert f'<label for="edit-{ssn.pk}-{field}">{label}</label>' in card
        assert re.search(rf'name="edit-{ssn.pk}-{field}" value="{value}"', card)
    assert "Advanced: the change as JSON" in card
    # The admin renames the output in its field (the JSON fallback left as it was): that is what is accepted.
    original = json.dumps(ssn.change, indent=1)
    answer = client.post("/catalogs/banking/review/decide/", {
        "ids": [ssn.pk], "action": "accept", f"edit-{ssn.pk}-skill": "lookup_customer",
        f"edit-{ssn.pk}-mode": "m1", f"edit-{ssn.pk}-outcome": "found", f"edit-{ssn.pk}-element": "address",
        f"original-{ssn.pk}": original, f"change-{ssn.pk}": original})
    assert answer.status_code == 302, answer
    ssn.refresh_from_db()
    assert ssn.status == RefinementStatus.ACCEPTED and ssn.edited
    assert ssn.change["element"] == "address" and ssn.change["op"] == "add_output"
    found = next(o for o in version_spec(version=ssn.draft).skill("lookup_customer").modes[0].outcomes
                 if o.name == "found")
    assert "address" in found.outputs and "ssn" not in found.outputs


def test_a_number_field_that_is_not_a_number_is_said_and_nothing_is_decided(banking, admin):
    retries = Refinement.objects.create(
        catalog=banking.catalog, version=banking, source="run", kind="retry_limit", key="retry_limit credit_check",
        subject="credit_check", change={"op": "set_retries", "skill": "credit_check", "value": 3},
        summary="credit_check: 3 attempts", confidence=0.9)
    client = Client()
    client.force_login(admin)
    page = client.get("/catalogs/banking/review/").content.decode()
    assert f'<label for="edit-{retries.pk}-value">Attempts at most</label>' in page
    answer = client.post("/catalogs/banking/review/decide/", {"ids": [retries.pk], "action": "accept",
                                                               f"edit-{retries.pk}-value": "three"}, follow=True)
    assert "is not a whole number" in answer.content.decode()
    retries.refresh_from_db()
    assert retries.status == RefinementStatus.PENDING
