"""The editor through the Django test client: forms, validation as you type, previews, lint."""

from __future__ import annotations

import html as html_lib
import json
import re

import pytest

from catalog_app.selectors import version_spec
from catalog_app.services import version_promote

from .conftest import HTMX

pytestmark = pytest.mark.django_db


def text(response) -> str:
    html = re.sub(r"<(script|style)\b.*?</\1>", "", response.content.decode(), flags=re.S)
    return html_lib.unescape(" ".join(re.sub(r"<[^>]+>", " ", html).split()))


def spec_of(version):
    version.refresh_from_db()
    return version_spec(version=version)


def test_the_editor_shows_the_catalog_and_fetches_forms_and_previews_when_asked(logged_in, banking):
    response = logged_in.get("/catalogs/banking/edit/")

    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="element-passport"' in html and 'id="skill-credit_check"' in html and 'id="intent-apply_loan"' in html
    # A card's form is not in the page: opening the card fetches it.
    assert 'action="/catalogs/banking/v1/elements/passport/"' not in html
    assert 'hx-get="/catalogs/banking/v1/forms/element/passport/" hx-trigger="toggle once"' in html
    # Every field validates as it is typed, against the same URL that saves it.
    assert 'hx-post="/catalogs/banking/v1/skills/add/"' in html
    assert 'hx-vals="{&quot;_validate&quot;: &quot;inputs&quot;}"' in html
    # The previews come in a request of their own, as soon as the page has loaded.
    assert 'hx-trigger="load, catalog-changed from:body"' in html
    assert "credit_score = credit_check(ssn)" not in text(response)

    form = logged_in.get("/catalogs/banking/v1/forms/element/passport/", **HTMX).content.decode()
    assert 'action="/catalogs/banking/v1/elements/passport/"' in form
    assert 'value="document"' in form  # its parent, in a search field rather than a list of every element
    preview = logged_in.get("/catalogs/banking/preview/?version=1", **HTMX)
    page = text(preview)
    # Each step as a sentence, the code one click away, the cost in words.
    assert "Ask the user for their email address" in page and "Ask consent to share ssn with credit_check" in page
    assert "Show as code" in page
    assert "cost 20 = 3 skill calls × 1 + 3 questions to the user × 5" in page
    assert "credit_score = credit_check(ssn)" in page
    assert "Things to check 5" in page
    assert "Output loan_id of submit_loan is used by nothing" in page
    domain = logged_in.get("/catalogs/banking/preview/?version=1&part=domain", **HTMX).content.decode()
    assert "(:action credit_check-m1-scored" in domain
    problem = logged_in.get("/catalogs/banking/preview/?version=1&part=problem&intent=apply_loan", **HTMX)
    assert "(:goal" in problem.content.decode()


def test_the_preview_fragment_shows_the_problem_of_a_chosen_intent(logged_in, banking):
    response = logged_in.get("/catalogs/banking/preview/?version=1&intent=check_card_status", **HTMX)

    html = response.content.decode()
    assert html.lstrip().startswith('<aside id="preview"')
    assert 'hx-trigger="catalog-changed from:body"' in html
    problem = logged_in.get("/catalogs/banking/preview/?version=1&part=problem&intent=check_card_status", **HTMX)
    assert "(:goal (and (known card_status) (done submit_credit_card-status)))" in problem.content.decode()


def test_adding_an_element_saves_it_and_refreshes_the_previews(logged_in, banking):
    response = logged_in.post("/catalogs/banking/v1/elements/add/", {
        "new-element-name": "phone", "new-element-description": "your phone number", "new-element-askable": "on",
        "new-element-format_kind": "phone"}, **HTMX)

    assert response.status_code == 200
    assert "catalog-changed" in json.loads(response["HX-Trigger-After-Settle"])  # announced after the swap
    assert "Element added." in text(response)
    assert spec_of(banking).element("phone").format == "phone"


def test_a_bounded_format_is_kept_by_the_editor_and_a_bad_bound_refused(logged_in, banking):
    """`money:1000..50000` and `date:future` say what a value may be; the form kept only the kind before."""
    response = logged_in.post("/catalogs/banking/v1/elements/add/", {
        "new-element-name": "budget", "new-element-description": "your budget", "new-element-askable": "on",
        "new-element-format_kind": "money", "new-element-format_detail": "1000..50000"}, **HTMX)
    assert response.status_code == 200
    assert spec_of(banking).element("budget").format == "money:1000..50000"
    refused = logged_in.post("/catalogs/banking/v1/elements/add/", {
        "new-element-name": "trip_date", "new-element-description": "the trip", "new-element-askable": "on",
        "new-element-format_kind": "date", "new-element-format_detail": "soon"}, **HTMX)
    assert "future or past" in text(refused)
    assert "trip_date" not in {e.name for e in spec_of(banking).elements}


def test_without_htmx_an_edit_redirects_to_the_thing_edited(logged_in, banking):
    response = logged_in.post("/catalogs/banking/v1/skills/credit_check/", {
        "skill-credit_check-name": "credit_check", "skill-credit_check-max_retries": "2",
        "skill-credit_check-endpoint": "sim:"})

    assert (response.status_code, response["Location"]) == (302, "/catalogs/banking/edit/#skill-credit_check")
    assert spec_of(banking).skill("credit_check").max_retries == 2


def test_a_bad_name_is_refused_next_to_its_field_and_nothing_is_saved(logged_in, banking):
    response = logged_in.post("/catalogs/banking/v1/elements/add/", {"new-element-name": "Phone Number"}, **HTMX)

    assert response.status_code == 422
    html = response.content.decode()
    feedback = html[html.index('id="id_new-element-name-feedback"'):]
    assert "is not a valid name: use lowercase letters" in feedback[:400]
    assert 'aria-invalid="true"' in html
    assert "Phone Number" not in {e.name for e in spec_of(banking).elements}


def test_validation_as_you_type_refuses_a_cycle_without_saving(logged_in, banking):
    response = logged_in.post("/catalogs/banking/v1/elements/document/", {
        "element-document-name": "document", "element-document-parent": "passport", "_validate": "parent"}, **HTMX)

    assert response.status_code == 200
    assert "the type tree has a cycle: document -> passport -> document" in text(response)
    assert spec_of(banking).element("document").parent is None


def test_validation_as_you_type_offers_the_existing_element(logged_in, banking):
    response = logged_in.post("/catalogs/banking/v1/elements/add/", {
        "new-element-name": "e_mail", "_validate": "name"}, **HTMX)

    assert "Did you mean email ? It already exists" in text(response)
    assert 'href="#element-email"' in response.content.decode()


def test_inputs_are_searched_and_corrected_as_you_type(logged_in, banking):
    response = logged_in.post("/catalogs/banking/v1/skills/add/", {
        "new-skill-name": "notify", "new-skill-max_retries": "1", "new-skill-inputs": "emial, acc",
        "_validate": "inputs"}, **HTMX)

    html = response.content.decode()
    assert 'data-from="emial" data-to="email"' in html
    assert 'data-from="" data-to="account_number"' in html  # completes the word being typed
    assert "notify" not in {s.name for s in spec_of(banking).skills}


def test_a_change_that_breaks_a_plan_says_which_intent_and_why(logged_in, banking):
    response = logged_in.post("/catalogs/banking/v1/skills/credit_check/modes/0/outcomes/0/", {
        "outcome-credit_check-0-0-name": "scored", "outcome-credit_check-0-0-outputs": ""}, **HTMX)

    page = text(response)
    assert response.status_code == 200
    assert ("This change broke an intent. Intent apply_loan has no plan: nothing can establish credit_score" in page)
    preview = text(logged_in.get("/catalogs/banking/preview/?version=1", **HTMX))
    assert "no plan" in preview and "nothing can establish credit_score" in preview


def test_a_refused_delete_says_where_the_element_is_used(logged_in, banking):
    response = logged_in.post("/catalogs/banking/v1/elements/ssn/delete/", {}, **HTMX)

    assert response.status_code == 422
    assert "ssn cannot be deleted: it is an output of ocr_document" in text(response)


def test_a_delete_that_is_allowed(logged_in, banking):
    response = logged_in.post("/catalogs/banking/v1/intents/check_card_status/delete/", {}, **HTMX)

    assert response.status_code == 200
    assert [t.name for t in spec_of(banking).intents] == ["apply_loan", "apply_credit_card"]


def test_building_a_catalog_from_nothing(logged_in, empty):
    post = logged_in.post
    post("/catalogs/shop/v1/skills/add/", {"new-skill-name": "lookup_order", "new-skill-max_retries": "1",
                                           "new-skill-inputs": "order_id", "new-skill-outputs": "order_status",
                                           "new-skill-failure": "on",
                                           "new-skill-create_elements": "order_id order_status"}, **HTMX)
    post("/catalogs/shop/v1/intents/add/", {"new-intent-name": "track_order",
                                            "new-intent-examples": "where is my order",
                                            "new-intent-goal_known": "order_status"}, **HTMX)
    post("/catalogs/shop/v1/settings/", {"settings-title": "Shop", "settings-privacy": "per_element",
                                         "settings-cost_skill": "1", "settings-cost_ask": "4",
                                         "settings-cost_authorize": "1"}, **HTMX)

    spec = spec_of(empty)
    assert spec.intent("track_order").examples == ("where is my order",)
    assert (spec.title, spec.privacy, spec.costs.ask) == ("Shop", "per_element", 4)
    page = text(logged_in.get("/catalogs/shop/preview/?version=1", **HTMX))
    assert "order_status = lookup_order(order_id)" in page
    assert "ask(order_id)" in page


def test_an_intent_needs_a_goal(logged_in, empty):
    response = logged_in.post("/catalogs/shop/v1/intents/add/", {"new-intent-name": "chat"}, **HTMX)

    assert response.status_code == 422
    assert "Say what the request achieves" in text(response)


def test_a_promoted_version_is_read_only(logged_in, banking):
    version_promote(version=banking, user=None)

    page = logged_in.get("/catalogs/banking/edit/")
    response = logged_in.post("/catalogs/banking/v1/elements/add/", {"new-element-name": "phone"}, **HTMX)

    assert "Create a draft from version 1" in text(page)
    assert "/v1/elements/add/" not in page.content.decode()
    assert response.status_code == 422
    assert "is promoted and cannot change" in text(response)


def test_the_graph_highlights_the_plan_of_an_intent(logged_in, banking):
    response = logged_in.get("/catalogs/banking/graph/?intent=apply_loan")

    html = response.content.decode()
    assert response.status_code == 200
    assert '<svg' in html and 'id="skill-credit_check"' in html and 'id="element-ssn"' in html
    assert "The plan of apply_loan is highlighted: 8 steps, cost 20." in text(response)
    fragment = logged_in.get("/catalogs/banking/graph/?intent=apply_credit_card", HTTP_HX_TARGET="graph", **HTMX)
    assert fragment.content.decode().lstrip().startswith('<figure id="graph"')
    assert logged_in.get("/catalogs/banking/graph/?intent=nope").status_code == 404


def test_the_list_page_creates_a_catalog(logged_in, workspace):
    response = logged_in.post("/catalogs/new/", {"new-slug": "travel", "new-title": "Travel"})

    assert (response.status_code, response["Location"]) == (302, "/catalogs/travel/edit/")
    again = logged_in.post("/catalogs/new/", {"new-slug": "travel"})
    assert again.status_code == 422 and "already a catalog named" in text(again)
