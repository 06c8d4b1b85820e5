"""An admin accepts two refinements and rejects one: a new draft appears with its diff; an analyst cannot decide."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from playwright.sync_api import Page, expect

from catalog_app.models import Catalog
from orchestrator.learning.models import Refinement, RefinementStatus
from orchestrator.learning.services import refinements_propose
from orchestrator.simulation.services import run_create, run_execute
from tests.browser.steps import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def log_in_to_review(page: Page, url: str, who: str) -> None:
    log_in(page, f"{url}/accounts/login/?next=/catalogs/banking/review/", who, who)


def test_an_admin_accepts_two_and_rejects_one_and_an_analyst_only_reads(live_server, page: Page, artifacts):
    call_command("load_demo", stdout=StringIO())
    catalog = Catalog.objects.get(slug="banking")
    versions_before = catalog.versions.count()
    version = catalog.versions.order_by("number").first()
    run = run_create(workspace=catalog.workspace, version=version, scenario="realistic", conversations=80, seed=3,
                     enqueue=False)
    run = run_execute(run_id=run.pk)
    rows = refinements_propose(catalog=catalog, run=run)
    assert len(rows) >= 3
    ssn = next(r for r in rows if r.key == "output_produced lookup_customer.m1.found ssn")
    second = next(r for r in rows if r is not ssn and not r.breaks)
    other = next(r for r in rows if r not in (ssn, second))

    log_in_to_review(page, live_server.url, "admin")
    expect(page.get_by_role("heading", name="Pending refinements")).to_be_visible()
    card = page.locator(f'article[data-key="{ssn.key}"]')
    expect(card).to_contain_text("apply_loan: plan 1 step shorter")
    expect(card.get_by_role("link", name=f"run {run.pk} #", exact=False).first).to_be_visible()
    page.get_by_label(f"select {ssn.key}").check()
    page.get_by_label(f"select {second.key}").check()
    page.get_by_role("button", name="Accept selected").click()
    heading = page.get_by_role("heading", name="made from the accepted refinements")
    expect(heading).to_be_visible()
    draft = page.locator(".draft-made")
    expect(draft).to_contain_text("ssn")
    expect(draft).to_contain_text(second.subject)
    page.get_by_label(f"select {other.key}").check()
    page.get_by_role("button", name="Reject selected").click()
    expect(page.get_by_role("status").first).to_contain_text("Rejected 1")
    page.screenshot(path=str(artifacts / "review-queue.png"), full_page=True)
    statuses = dict(Refinement.objects.filter(pk__in=[ssn.pk, second.pk, other.pk]).values_list("pk", "status"))
    assert statuses == {ssn.pk: RefinementStatus.ACCEPTED, second.pk: RefinementStatus.ACCEPTED,
                        other.pk: RefinementStatus.REJECTED}
    assert catalog.versions.count() == versions_before + 1  # one new draft, from the accepted two

    page.context.clear_cookies()
    log_in_to_review(page, live_server.url, "analyst")
    expect(page.locator("#read-only")).to_contain_text("only an admin")
    expect(page.get_by_role("button", name="Accept selected")).to_have_count(0)
    expect(page.locator('input[name="ids"]')).to_have_count(0)


def test_learning_from_the_page_is_a_job_whose_status_the_page_follows(live_server, page: Page, monkeypatch,
                                                                       tmp_path, artifacts):
    import json
    from types import SimpleNamespace

    from orchestrator.learning.models import LearningJob
    from orchestrator.learning.services import learning_job_execute

    call_command("load_demo", stdout=StringIO())
    catalog = Catalog.objects.get(slug="banking")
    version = catalog.versions.order_by("number").first()
    run = run_execute(run_id=run_create(workspace=catalog.workspace, version=version, scenario="realistic",
                                        conversations=40, seed=3, enqueue=False).pk)
    queued: list[int] = []
    # The worker is this test. The task itself is replaced, not its `delay`: the page's request runs in
    # the live server's thread, where Celery's current app (thread-local) may not be this thread's.
    monkeypatch.setattr("orchestrator.learning.tasks.learning_job_run", SimpleNamespace(delay=queued.append))
    calls = tmp_path / "cards.json"
    calls.write_text(json.dumps([{"output": [{"name": "lookup_customer.m1", "arguments": {"email": "a@b.com"}}]}]))

    log_in_to_review(page, live_server.url, "admin")
    expect(page.get_by_label("Simulation run")).to_have_value(str(run.pk))  # the latest run, not "none"
    page.get_by_label("and imported tool-call trajectories").set_input_files(str(calls))
    page.get_by_role("button", name="Propose refinements").click()
    status = page.locator("#learning-job")
    expect(status).to_contain_text("queued")
    expect(status).to_contain_text("cards.json")
    assert queued and not Refinement.objects.exists()  # the request only queued the job
    job = learning_job_execute(job_id=queued[0])
    assert job.status == "done" and job.proposed > 0
    expect(page.locator("#learning-job")).to_contain_text(f"{job.proposed} refinements pending review")
    # The page is drawn again when the job is done: the queue below shows what it proposed, no click needed.
    expect(page.locator("article.refinement")).to_have_count(job.proposed)
    expect(page.get_by_text("Nothing to review")).to_have_count(0)
    page.screenshot(path=str(artifacts / "review-learning-job.png"), full_page=True)
    assert LearningJob.objects.get(pk=job.pk).trajectories_name == "cards.json"
