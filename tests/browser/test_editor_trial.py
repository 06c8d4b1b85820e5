"""What a first analyst trial tripped on, replayed in headless Chromium: typos, refusals, focus, phones.

Screenshots of the editor at desktop and phone width go to test-artifacts/.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from catalog_app.editing import element_added, version_edit
from catalog_app.models import Role
from catalog_app.services import catalog_create, membership_set, user_create, workspace_get_or_create_default

from .test_studio_build import _log_in, _open

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def pizza(live_server):
    """A pizza shop catalog with a size and an address, and an analyst logged in to it."""
    workspace = workspace_get_or_create_default()
    analyst = user_create(username="ana", password="ana-pass-1")
    membership_set(workspace=workspace, user=analyst, role=Role.ANALYST)
    version = catalog_create(workspace=workspace, slug="pizza", title="Pizza orders", user=analyst)
    for name in ("pizza_size", "address"):
        version_edit(version=version, change=lambda spec, name=name: element_added(spec, name=name))
    return live_server.url


def _editor(page: Page, base: str) -> None:
    _log_in(page, base, "ana", "ana-pass-1")
    page.goto(f"{base}/catalogs/pizza/edit/")


def test_typos_in_a_skill_are_never_saved_as_elements_without_asking(pizza, page: Page):
    _editor(page, pizza)
    form = _open(page, "Add a skill")
    form.get_by_label("Name", exact=True).fill("price_order")
    inputs = form.get_by_label("Inputs")
    inputs.fill("piza_size, adress")
    form.get_by_label("Outputs when it succeeds").fill("price")
    form.get_by_role("button", name="Add skill").click()

    question = page.locator(".confirm-new")
    expect(question).to_contain_text("Create 3 new elements?")
    expect(question).to_be_focused()  # the question takes the focus, where the analyst is
    expect(page.locator("#skills")).to_contain_text("No skills yet")
    question.get_by_role("button", name="pizza_size").click()  # the existing name, offered first
    question.get_by_role("button", name="address").click()
    expect(inputs).to_have_value("pizza_size, address, ")
    form.get_by_role("button", name="Add skill").click()
    page.get_by_role("button", name="Create element price and save").click()

    expect(page.locator("#skill-price_order")).to_contain_text("pizza_size, address")
    expect(page.locator("#element-adress")).to_have_count(0)
    expect(page.locator("#element-piza_size")).to_have_count(0)
    expect(page.locator("#skill-price_order")).to_be_focused()  # the focus stays on the card saved


def test_a_refused_delete_is_said_in_its_card_in_view_and_focused(pizza, page: Page):
    _editor(page, pizza)
    form = _open(page, "Add an intent")
    form.get_by_label("Name", exact=True).fill("deliver")
    form.get_by_label("Goal: know these elements").fill("address")
    form.get_by_role("button", name="Add intent").click()
    expect(page.locator("#intent-deliver")).to_be_visible()

    element = page.locator("#element-address")
    element.locator("summary").first.click()
    page.once("dialog", lambda dialog: dialog.accept())
    element.get_by_role("button", name="Delete element").click()

    refusal = page.locator("#element-address .card-refusal")
    expect(refusal).to_contain_text("address")
    expect(refusal).to_be_focused()
    expect(refusal).to_be_in_viewport()


def test_the_editor_at_desktop_and_phone_width(pizza, browser: Browser, artifacts):
    for name, viewport in (("desktop", {"width": 1280, "height": 900}), ("phone", {"width": 360, "height": 780})):
        context = browser.new_context(viewport=viewport)
        page = context.new_page()
        _editor(page, pizza)
        expect(page.locator("#preview")).to_contain_text("Plans")
        page.screenshot(path=str(artifacts / f"editor-{name}.png"), full_page=True)
        # Nothing wider than the screen: no sideways scrolling on a phone.
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, f"the editor is {overflow}px wider than a {viewport['width']}px screen"
        if name == "desktop":  # lint and PDDL are one click away at the top of the sidebar, not below the fold
            index = page.locator(".preview-index")
            expect(index.get_by_role("link", name=re.compile("Things to check"))).to_be_in_viewport()
            expect(index.get_by_role("link", name="PDDL")).to_be_in_viewport()
        if name == "phone":
            link = page.get_by_role("link", name=re.compile("plans and checks", re.I))
            expect(link).to_be_in_viewport()  # the preview is reachable from the top
            for other in ("/", "/sessions/"):  # the catalog list and the sessions inspector
                page.goto(f"{pizza}{other}")
                wider = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
                assert wider <= 0, f"{other} is {wider}px wider than a 360px screen"
            page.goto(f"{pizza}/")
            page.screenshot(path=str(artifacts / "catalog-list-phone.png"), full_page=True)
        context.close()


def test_saving_one_form_never_drops_what_was_typed_in_another(pizza, page: Page):
    _editor(page, pizza)
    form = _open(page, "Add a skill")
    form.get_by_label("Name", exact=True).fill("check_address")
    form.get_by_label("Inputs").fill("address")
    form.get_by_label("Outputs when it succeeds").fill("address")
    form.get_by_role("button", name="Add skill").click()
    skill = page.locator("#skill-check_address")
    expect(skill).to_be_visible()

    skill.locator("summary", has_text="Edit mode m1").click()
    outcome = skill.locator(".outcome-edit").first.get_by_label("Outcome")
    outcome.fill("delivered")  # a rename typed, not saved
    questions: list[str] = []

    def answer(dialog):
        questions.append(dialog.message)
        dialog.dismiss()

    page.once("dialog", answer)
    skill.get_by_role("button", name="Save mode").click()
    expect(outcome).to_have_value("delivered")  # still there: the analyst was asked and said no
    assert questions and "Save outcome" in questions[0]
    skill.locator(".outcome-edit").first.get_by_role("button", name="Save outcome").click()
    expect(page.locator("#skill-check_address")).to_contain_text("delivered")


def test_the_pizza_build_has_no_silent_mistake_and_every_edit_can_be_undone(pizza, page: Page):
    _editor(page, pizza)
    preview = page.locator("#preview")
    form = _open(page, "Add a skill")
    form.get_by_label("Name", exact=True).fill("place_order")
    form.get_by_label("Inputs").fill("piza_size, adress, toppings")
    form.get_by_label("Outputs when it succeeds").fill("order_id")
    form.get_by_role("button", name="Add skill").click()
    question = page.locator(".confirm-new")
    expect(question).to_contain_text("piza_size")
    question.get_by_role("button", name="pizza_size").click()
    question.get_by_role("button", name="address").click()
    form.get_by_role("button", name="Add skill").click()
    page.get_by_role("button", name="Create elements toppings, order_id and save").click()
    expect(page.locator("#skill-place_order")).to_contain_text("pizza_size, address, toppings")

    form = _open(page, "Add an intent")
    form.get_by_label("Name", exact=True).fill("order_pizza")
    form.get_by_label("Example utterances").fill("I want a pizza")
    form.get_by_label("Goal: know these elements").fill("order_id")
    form.get_by_role("button", name="Add intent").click()
    plan = preview.locator("#preview-plan-order_pizza")
    expect(plan).to_contain_text("plan found")
    expect(plan.locator("ol.plan-steps > li").first).to_have_text("Ask the user for the pizza size")
    expect(plan).to_contain_text("cost 16 = 1 skill call × 1 + 3 questions to the user × 5")

    # Undo the intent, then redo it: the editor says what each takes back.
    page.get_by_role("button", name=re.compile("^↶ Undo: Intent added")).click()
    expect(page.locator("#intent-order_pizza")).to_have_count(0)
    page.get_by_role("button", name=re.compile("^↷ Redo: Intent added")).click()
    expect(page.locator("#intent-order_pizza")).to_be_visible()

    names = page.locator("#elements-list code.element").all_inner_texts()
    assert sorted(names) == ["address", "order_id", "pizza_size", "toppings"]  # no typo became an element
