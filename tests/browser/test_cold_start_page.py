"""An admin runs a cold-start campaign on banking-thin from the studio: the form, the rounds polled until the
campaign finishes, the plot of success per round beside the hand-written banking catalog."""

from __future__ import annotations

import re
import threading
from io import StringIO
from unittest import mock

import pytest
from django.core.management import call_command
from playwright.sync_api import Page, expect

from orchestrator.cold_start.services import round_execute
from tests.browser.steps import log_in, work_in_background

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

GO = threading.Event()  # set once the test has seen the campaign waiting for its first round



def test_an_admin_runs_a_campaign_and_watches_the_rounds_become_a_plot(live_server, page: Page, artifacts):
    call_command("load_demo", "--cold-start", stdout=StringIO())
    log_in(page, f"{live_server.url}/accounts/login/?next=/catalogs/banking-thin/", "admin", "admin")
    page.get_by_role("link", name="Cold start").click()
    expect(page.get_by_role("heading", name="Cold start", exact=True)).to_be_visible()
    page.get_by_label("Conversations", exact=True).fill("30")
    page.get_by_label("Max rounds", exact=True).fill("2")
    page.get_by_label("Reference", exact=True).select_option("banking")
    page.get_by_label(re.compile("Simulation-only sandbox")).check()
    page.get_by_label("Confidence", exact=True).fill("0.9")
    with mock.patch("orchestrator.cold_start.tasks.cold_start_round.delay",
                    side_effect=lambda round_id: work_in_background(GO, lambda: round_execute(round_id=round_id))):
        page.get_by_role("button", name="Start the campaign").click()
        expect(page).to_have_url(re.compile(r"/cold-start/\d+/$"))
        expect(page.locator("#campaign-state")).to_have_text("Running a round")
        expect(page.locator("#campaign-status table.rounds")).to_contain_text("Queued")
        GO.set()
        expect(page.locator("#campaign-state")).to_have_text("Finished", timeout=120_000)
    chart = page.locator("#campaign-status figure.chart svg")
    expect(chart).to_have_count(1)
    expect(chart.locator("text", has_text=re.compile(r"^round 1: v\d+ s3$"))).to_have_count(1)
    expect(chart.locator("text", has_text=re.compile(r"^reference banking v\d+ planner$"))).to_have_count(1)
    expect(page.locator("#campaign-status table.rounds tbody tr").first).to_contain_text("Done")
    page.screenshot(path=str(artifacts / "cold-start-campaign.png"), full_page=True)
    page.locator("#campaign-status table.rounds a").first.click()
    expect(page).to_have_url(re.compile(r"/simulations/\d+/$"))
