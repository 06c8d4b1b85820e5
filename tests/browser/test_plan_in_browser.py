from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command
from playwright.sync_api import Page, expect

from catalog_app.services import catalog_import, workspace_get_or_create_default

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _log_in(page: Page, base_url: str, username: str, password: str) -> None:
    page.goto(f"{base_url}/")
    expect(page).to_have_url(re.compile(r"/accounts/login/"))
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Catalogs")).to_be_visible()


def test_analyst_sees_the_apply_loan_plan(live_server, page: Page, artifacts):
    call_command("load_demo", stdout=StringIO())
    _log_in(page, live_server.url, "analyst", "analyst")

    page.get_by_role("row", name=re.compile("Banking assistant")).get_by_role("link", name="Plans").click()

    plan = page.locator("#plan-apply_loan")
    expect(plan).to_contain_text("credit_score = credit_check(ssn)")
    expect(plan).to_contain_text("cost 20")
    expect(plan.locator("ol.plan-lines > li")).to_have_count(8)
    expect(plan.locator("ol.plan-lines > li").last).to_contain_text(
        "loan_status, loan_id = submit_loan(name, income, credit_score, loan_amount)"
    )
    page.screenshot(path=str(artifacts / "banking-plans.png"), full_page=True)


def test_pddl_problem_loads_with_htmx(live_server, page: Page, artifacts):
    call_command("load_demo", stdout=StringIO())
    _log_in(page, live_server.url, "analyst", "analyst")
    page.goto(f"{live_server.url}/catalogs/banking/")
    expect(page.locator(".tree")).to_contain_text("passport")
    page.screenshot(path=str(artifacts / "banking-catalog.png"), full_page=True)

    page.get_by_role("link", name="PDDL").click()
    expect(page.get_by_label("PDDL domain")).to_contain_text("(:action credit_check-m1-scored")
    page.get_by_label("Intent").select_option("apply_loan")

    expect(page.get_by_label("PDDL problem for apply_loan")).to_contain_text("(:goal (and (known loan_status)))")
    # The problem came as a fragment: the page around it was not reloaded.
    expect(page.locator(".site-header")).to_have_count(1)
    page.screenshot(path=str(artifacts / "banking-pddl.png"), full_page=True)


def test_version_picker_swaps_the_page(live_server, page: Page, banking_spec):
    call_command("load_demo", stdout=StringIO())
    revised = banking_spec.model_copy(update={"title": "Banking v2"})
    catalog_import(workspace=workspace_get_or_create_default(), spec=revised)
    _log_in(page, live_server.url, "analyst", "analyst")
    page.goto(f"{live_server.url}/catalogs/banking/")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Banking v2")

    page.get_by_label("Version").select_option("1")

    expect(page.get_by_role("heading", level=1)).to_contain_text("Banking assistant")
    expect(page).to_have_url(re.compile(r"/catalogs/banking/\?version=1$"))
    expect(page.get_by_role("link", name="Plans")).to_have_attribute("href", "/catalogs/banking/plans/?version=1")
