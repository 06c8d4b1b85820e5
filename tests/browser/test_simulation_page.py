"""An analyst starts a simulation from the catalog, watches the progress turn into plots, opens a conversation."""

from __future__ import annotations

import re
import threading
from io import StringIO
from unittest import mock

import pytest
from django.core.management import call_command
from playwright.sync_api import Page, expect

from orchestrator.simulation.services import run_execute
from tests.browser.steps import log_in, work_in_background

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


GO = threading.Event()  # set once the test has seen the run waiting



def test_start_a_run_watch_its_progress_become_plots_and_open_a_conversation(live_server, page: Page, artifacts):
    call_command("load_demo", stdout=StringIO())
    log_in(page, f"{live_server.url}/accounts/login/?next=/catalogs/banking/", "analyst", "analyst")
    page.get_by_role("link", name="Simulate").click()
    expect(page.get_by_role("heading", name="Simulate conversations")).to_be_visible()
    page.get_by_label("Orchestrator").select_option("planner")
    page.get_by_label("Conversations").fill("60")
    page.get_by_label("Seed").fill("1")
    with mock.patch("orchestrator.simulation.tasks.simulation_start.delay",
                    side_effect=lambda run_id: work_in_background(GO, lambda: run_execute(run_id=run_id))):
        page.get_by_role("button", name="Start the run").click()
        expect(page).to_have_url(re.compile(r"/simulations/\d+/$"))
        expect(page.locator("#simulation-status progress")).to_be_visible()
        expect(page.locator("#simulation-status")).to_contain_text("0 of 60 conversations")
        GO.set()
        expect(page.locator("#simulation-status")).to_contain_text("Goal success per intent", timeout=120_000)
    expect(page.locator("#simulation-status svg")).to_have_count(7)
    expect(page.locator("#simulation-status progress")).to_have_count(0)
    page.screenshot(path=str(artifacts / "simulation-run.png"), full_page=True)

    page.locator(".conversations a").first.click()
    expect(page).to_have_url(re.compile(r"/simulations/\d+/conversations/0/$"))
    expect(page.get_by_role("heading", name=re.compile("Conversation #0"))).to_be_visible()
    expect(page.locator("#inspector .transcript")).to_contain_text("Hello!")
    expect(page.get_by_text("simulated", exact=True)).to_be_visible()
