"""An analyst writes a scenario in the browser: generated from the catalog, a fault shown at its field and nothing
saved, then saved and simulated without a terminal."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command
from playwright.sync_api import Page, expect

from orchestrator.simulation.models import SimulationScenario
from tests.browser.steps import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_generate_a_default_scenario_fix_a_fault_at_its_field_and_save_it(live_server, page: Page, artifacts):
    call_command("load_demo", "--cold-start", stdout=StringIO())
    log_in(page, f"{live_server.url}/accounts/login/?next=/catalogs/banking-thin/", "analyst", "analyst")
    page.get_by_role("link", name="Scenarios").click()
    page.get_by_role("link", name="Generate a default scenario from the catalog").click()
    expect(page.get_by_role("status")).to_contain_text("Generated from the catalog")
    expect(page.get_by_label("Name", exact=True)).to_have_value("default")
    page.get_by_label("Name", exact=True).fill("fresh")
    page.get_by_label("apply_loan", exact=True).fill("5")
    page.get_by_label("email: share who cannot give it", exact=True).fill("2")
    page.get_by_label("m1: inputs it really needs").first.fill("ssn, nosuch")  # lookup_customer's only mode
    page.get_by_role("button", name="Save the scenario").click()
    email = page.get_by_label("email: share who cannot give it", exact=True)
    expect(email).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#f-users-cannot-email-error")).to_contain_text("less than or equal to 1")
    expect(page.get_by_label("apply_loan", exact=True)).to_have_value("5")  # what was typed is kept
    page.screenshot(path=str(artifacts / "scenario-form-errors.png"), full_page=True)
    assert not SimulationScenario.objects.filter(name="fresh").exists()  # nothing half-saved
    email.fill("0.2")
    page.get_by_role("button", name="Save the scenario").click()
    expect(page.locator("#f-skills-lookup_customer-modes-m1-inputs-error")).to_contain_text("unknown element 'nosuch'")
    assert not SimulationScenario.objects.filter(name="fresh").exists()
    page.get_by_label("m1: inputs it really needs").first.fill("email")
    page.get_by_role("button", name="Save the scenario").click()
    expect(page).to_have_url(re.compile(r"/scenarios/\?version=\d+&saved=fresh$"))
    expect(page.get_by_role("status")).to_contain_text("Scenario 'fresh' saved: revision 1")
    stored = SimulationScenario.objects.get(name="fresh")
    assert stored.data["users"]["goals"]["apply_loan"] == 5 and stored.data["users"]["cannot"] == {"email": 0.2}
    assert stored.data["skills"] == {"lookup_customer": {"modes": {"m1": {"inputs": ["email"]}}}}
    page.get_by_role("link", name="Simulate it").click()
    expect(page.get_by_label("Scenario", exact=True)).to_contain_text("fresh")
