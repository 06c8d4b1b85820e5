"""An analyst's session in headless Chromium: build a catalog from nothing through the studio's forms.

The plan preview changes when a skill is added, a lint item is fixed from its link, the version is
promoted and exported. Screenshots of the editor and of the graph go to test-artifacts/.
"""

from __future__ import annotations

import re
from io import StringIO
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command
from playwright.sync_api import Locator, Page, expect

from catalog_app.models import Role
from catalog_app.services import membership_set, user_create, workspace_get_or_create_default
from tests.browser.steps import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _log_in(page: Page, base_url: str, username: str, password: str) -> None:
    log_in(page, f"{base_url}/accounts/login/", username, password)
    expect(page.get_by_role("heading", name="Catalogs", exact=True)).to_be_visible()


def _open(page: Page, summary: str) -> Locator:
    """Open the <details> whose summary reads `summary`, and return it."""
    details = page.locator("details", has=page.locator("summary", has_text=summary)).last
    details.locator("summary").first.click()
    return details


def test_build_a_catalog_from_nothing(live_server, page: Page, artifacts):
    workspace = workspace_get_or_create_default()
    admin = user_create(username="ada", password="ada-pass-1")
    membership_set(workspace=workspace, user=admin, role=Role.ADMIN)
    _log_in(page, live_server.url, "ada", "ada-pass-1")

    page.get_by_label("Short name").fill("shop")
    page.get_by_label("Title").fill("Shop assistant")
    page.get_by_role("button", name="Create").click()
    expect(page).to_have_url(re.compile(r"/catalogs/shop/edit/$"))
    preview = page.locator("#preview")

    # An element the user cannot give, and an intent that wants it: no plan yet, and the page says why.
    form = _open(page, "Add an element")
    form.get_by_label("Name", exact=True).fill("order_status")
    form.get_by_label("The user can be asked for it").uncheck()
    form.get_by_role("button", name="Add element").click()
    expect(page.locator("#element-order_status")).to_be_visible()
    form = _open(page, "Add an intent")
    form.get_by_label("Name", exact=True).fill("track_order")
    form.get_by_label("Example utterances").fill("where is my order\nhas my parcel shipped")
    form.get_by_label("Goal: know these elements").fill("order_status")
    form.get_by_role("button", name="Add intent").click()
    expect(preview.locator("#preview-plan-track_order")).to_contain_text("no plan")
    expect(preview.locator("#preview-plan-track_order")).to_contain_text("nothing can establish order_status")

    # Adding a skill: the field offers the existing element for a typo, and the plan appears.
    form = _open(page, "Add a skill")
    form.get_by_label("Name", exact=True).fill("lookup_order")
    form.get_by_label("Inputs").fill("order_id")
    outputs = form.get_by_label("Outputs when it succeeds")
    outputs.press_sequentially("order_stauts", delay=20)
    suggestion = form.get_by_role("button", name="order_status")
    expect(suggestion).to_be_visible()
    suggestion.click()
    expect(outputs).to_have_value("order_status, ")
    form.get_by_label("Add a failure outcome (recommended)").uncheck()
    form.get_by_role("button", name="Add skill").click()
    # order_id is a new name: it becomes an element only when the analyst says so.
    page.get_by_role("button", name="Create element order_id and save").click()
    plan = preview.locator("#preview-plan-track_order")
    expect(plan).to_contain_text("plan found")
    expect(plan.locator("ol.plan-lines > li")).to_have_text(["ask(order_id)", "order_status = lookup_order(order_id)"])

    # The lint panel flags the missing failure path; its link leads to the skill, where it is fixed.
    lint = preview.locator(".lint-item[data-kind='no_failure_path']")
    expect(lint).to_contain_text("single outcome and no failure path")
    lint.get_by_role("link").click()
    expect(page).to_have_url(re.compile(r"#skill-lookup_order$"))
    skill = page.locator("#skill-lookup_order")
    skill.locator("summary", has_text="Edit mode m1").click()
    add_outcome = skill.locator(".outcome-edit.add")
    add_outcome.get_by_label("Outcome").fill("not_found")
    add_outcome.get_by_role("button", name="Add outcome").click()
    expect(page.locator("#skill-lookup_order")).to_contain_text("not_found")
    expect(preview.locator(".lint-item[data-kind='no_failure_path']")).to_have_count(0)
    expect(preview).to_contain_text("Nothing to check")
    page.evaluate("window.scrollTo(0, 0)")  # the previews stick to the top of the view
    page.screenshot(path=str(artifacts / "studio-editor.png"), full_page=True)

    # Promote (an admin may), then export the promoted version.
    page.get_by_role("link", name="Versions").click()
    page.get_by_role("link", name="Promote v1").click()
    expect(page.get_by_role("heading", name="Promote v1?")).to_be_visible()  # a summary to confirm first
    page.get_by_role("button", name="Promote v1 now").click()
    expect(page.locator(".message-success")).to_contain_text("Version 1 is promoted")
    expect(page.locator("#version-1")).to_contain_text("Promoted")
    with page.expect_download() as download:
        page.locator("#version-1").get_by_role("link", name="Export YAML").click()
    exported = yaml.safe_load(Path(download.value.path()).read_text(encoding="utf-8"))
    assert exported["catalog"] == "shop" and exported["title"] == "Shop assistant"
    assert exported["skills"][0]["modes"][0]["outcomes"][1] == {"name": "not_found"}
    assert exported["intents"][0]["examples"] == ["where is my order", "has my parcel shipped"]


def test_a_cycle_is_refused_as_you_choose_the_parent(live_server, page: Page):
    call_command("load_demo", stdout=StringIO())
    _log_in(page, live_server.url, "analyst", "analyst")
    page.goto(f"{live_server.url}/catalogs/banking/edit/")

    document = page.locator("#element-document")
    document.locator("summary").first.click()
    parent = document.get_by_label("Is a kind of")
    parent.press_sequentially("pass", delay=30)  # found by typing, not in a list of every element
    document.get_by_role("button", name="passport").click()
    expect(parent).to_have_value("passport")

    feedback = document.locator(".feedback").filter(has_text="cycle").first
    expect(feedback).to_have_text("the type tree has a cycle: document -> passport -> document")
    document.get_by_role("button", name="Save").first.click()
    expect(page.locator("#element-document")).to_contain_text("the type tree has a cycle")
    expect(page.locator("#element-passport")).to_be_visible()


def test_the_graph_highlights_a_plan(live_server, page: Page, artifacts):
    call_command("load_demo", stdout=StringIO())
    _log_in(page, live_server.url, "analyst", "analyst")
    page.goto(f"{live_server.url}/catalogs/banking/graph/")

    expect(page.locator("#graph svg")).to_be_visible()
    page.get_by_label("Highlight the plan of").select_option("apply_loan")

    expect(page.locator("#graph")).to_contain_text("The plan of apply_loan is highlighted: 8 steps, cost 20.")
    expect(page.locator("#graph svg g#skill-credit_check")).to_be_visible()
    expect(page).to_have_url(re.compile(r"intent=apply_loan"))
    page.screenshot(path=str(artifacts / "studio-graph.png"), full_page=True)


def test_an_analyst_is_not_offered_promotion(live_server, page: Page):
    call_command("load_demo", stdout=StringIO())
    _log_in(page, live_server.url, "analyst", "analyst")
    page.goto(f"{live_server.url}/catalogs/banking/versions/")

    expect(page.get_by_text("Only an admin of the workspace can promote.")).to_be_visible()
    expect(page.get_by_role("button", name=re.compile("Promote"))).to_have_count(0)
