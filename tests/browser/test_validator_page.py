from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command
from playwright.sync_api import Page, expect

from catalog_app.models import Workspace
from catalog_app.selectors import catalog_get, version_latest
from orchestrator.validation.services import analysis_create, analysis_run
from tests.browser.steps import log_in
from tests.integration.validation.conftest import BANKING_SAMPLES
from tests.unit.engine.flows import CHECK_BEFORE_CONSENT

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _log_in(page: Page, base_url: str) -> None:
    log_in(page, f"{base_url}/accounts/login/", "analyst", "analyst")
    expect(page.get_by_role("heading", name="Catalogs")).to_be_visible()


def test_an_analyst_pastes_a_plan_and_reads_the_verdict_and_diff(live_server, page: Page, artifacts):
    call_command("load_demo", stdout=StringIO())
    _log_in(page, live_server.url)
    page.goto(f"{live_server.url}/catalogs/banking/validate/")

    page.get_by_label("Intent").select_option("apply_loan")
    page.get_by_label(re.compile(r"^sound")).check()
    page.get_by_label("Plan", exact=True).fill("\n".join([*CHECK_BEFORE_CONSENT, "call the manager"]))
    page.get_by_role("button", name="Validate").click()

    verdict = page.locator("#verdict")
    # The first plan of a fresh server process waits for the planner binary to load (seconds).
    expect(verdict.locator(".determination")).to_have_text(re.compile(r"not sound"), timeout=30_000)
    expect(verdict.locator("ins.diff-add")).to_have_text("+ authorize(credit_check)")
    expect(verdict.locator("del.diff-del")).to_have_text("- call the manager")
    expect(verdict).to_contain_text("line 9: call the manager")
    # Only the verdict was swapped in: the form keeps what was typed.
    expect(page.get_by_label("Plan", exact=True)).to_have_value(re.compile("call the manager"))
    page.screenshot(path=str(artifacts / "validator-verdict.png"), full_page=True)

    page.get_by_role("button", name="Start from the planner's plan").click()
    # The page part is swapped: a fresh verdict, and the planner's plan in place of ours.
    expect(page.locator("#verdict")).to_contain_text("the verdict shows here")
    plan = page.get_by_label("Plan", exact=True)
    expect(plan).not_to_have_value(re.compile("call the manager"))
    expect(plan).to_have_value(re.compile(r"credit_score = credit_check\(ssn\)"))
    page.get_by_label(re.compile(r"^optimal")).check()
    page.get_by_role("button", name="Validate").click()
    expect(page.locator("#verdict .determination")).to_have_text(re.compile(r"optimal"))


def test_a_finished_analysis_shows_its_figures_and_chart(live_server, page: Page, artifacts):
    call_command("load_demo", stdout=StringIO())
    workspace = Workspace.objects.get(slug="default")
    version = version_latest(catalog=catalog_get(workspace=workspace, slug="banking"))
    analysis = analysis_create(workspace=workspace, samples=BANKING_SAMPLES, version=version, name="nightly",
                               enqueue=False)
    _log_in(page, live_server.url)
    page.goto(f"{live_server.url}/validation/analyses/{analysis.pk}/")
    expect(page.locator("#analysis-progress")).to_be_visible()

    analysis_run(analysis_id=analysis.pk)  # the worker's part; the page's polling picks it up

    expect(page.get_by_role("img", name="Failures per tool")).to_be_visible(timeout=10_000)
    expect(page.locator(".figures")).to_contain_text("33.3%")
    expect(page.locator("#analysis-progress")).to_have_count(0)
    page.screenshot(path=str(artifacts / "trajectory-analysis.png"), full_page=True)
