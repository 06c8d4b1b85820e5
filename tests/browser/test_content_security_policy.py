"""Under the Content-Security-Policy the pages still work in a browser, and nothing is blocked."""

from __future__ import annotations

import pytest
from playwright.sync_api import ConsoleMessage, Page, expect

from catalog_app.models import Role
from catalog_app.services import catalog_import, membership_set, user_create, workspace_get_or_create_default
from tests.browser.steps import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _violations(page: Page) -> list[str]:
    seen: list[str] = []

    def note(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text or "Content-Security-Policy" in message.text:
            seen.append(message.text)

    page.on("console", note)
    return seen


def test_the_api_docs_render_swagger_from_our_static_files(live_server, page: Page):
    violations = _violations(page)
    page.goto(f"{live_server.url}/api/v1/docs")
    expect(page.locator("#swagger-ui .title")).to_contain_text("Concerto API")
    expect(page.locator("#swagger-ui")).to_contain_text("/api/v1/catalogs/import")
    assert violations == []


def test_the_editor_works_with_no_violation(live_server, page: Page, banking_spec):
    workspace = workspace_get_or_create_default()
    catalog_import(workspace=workspace, spec=banking_spec)
    user = user_create(username="ada", password="ada-pass-long-1")
    membership_set(workspace=workspace, user=user, role=Role.ANALYST)
    violations = _violations(page)
    log_in(page, f"{live_server.url}/accounts/login/", "ada", "ada-pass-long-1")
    page.goto(f"{live_server.url}/catalogs/banking/edit/")
    # htmx (a static script) fills the preview: the plan of an intent appears.
    expect(page.locator("#preview-plan-apply_loan")).to_contain_text("plan found")
    assert violations == []
