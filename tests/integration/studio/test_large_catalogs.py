"""The editor on a large catalog: cards by page, forms fetched when opened, names found by search."""

from __future__ import annotations

import re

import pytest

from catalog_app.selectors import version_spec
from catalog_app.services import catalog_import
from orchestrator.engine.catalog.synthetic import synthetic_catalog

from .conftest import HTMX

pytestmark = pytest.mark.django_db


@pytest.fixture
def big(workspace):
    spec = synthetic_catalog(300, seed=3).model_copy(update={"catalog": "big"})
    return catalog_import(workspace=workspace, spec=spec)


def test_the_editor_of_300_skills_shows_a_page_of_cards_and_no_card_forms(logged_in, big):
    response = logged_in.get("/catalogs/big/edit/")

    html = response.content.decode()
    assert response.status_code == 200
    assert len(re.findall(r'<article class="card skill"', html)) == 20
    assert len(re.findall(r'<li id="element-', html)) == 50
    # The "add" forms and the settings, nothing per card: the old page had over 1,000 forms here.
    assert html.count("<form") < 20
    assert html.count("<option") < 30  # no list of every element: the parent is found by typing
    assert len(html) < 300_000
    assert "page 1 of 15" in html


def test_skills_are_searched_and_paged_without_the_rest_of_the_page(logged_in, big):
    found = logged_in.get("/catalogs/big/v1/list/skills/?skills_q=s29", **HTMX).content.decode()
    page_3 = logged_in.get("/catalogs/big/v1/list/skills/?skills_page=3", **HTMX).content.decode()

    assert found.lstrip().startswith('<div id="skills-list"')
    shown = re.findall(r'<article class="card skill" id="skill-([^"]+)"', found)
    assert shown == ["s29", *(f"s29{k}" for k in range(10))]
    assert "11 matching" in found
    assert re.findall(r'id="skill-(s\d+)"', page_3)[:1] == ["s40"]
    assert logged_in.get("/catalogs/big/v1/list/nothing/", **HTMX).status_code == 404


def test_a_refused_edit_shows_the_page_that_holds_its_card_with_the_form_open(logged_in, big):
    response = logged_in.post("/catalogs/big/v1/skills/s250/", {
        "skill-s250-name": "s1", "skill-s250-max_retries": "1", "skill-s250-endpoint": "sim:"}, **HTMX)

    html = response.content.decode()
    assert response.status_code == 422
    assert 'id="skill-s250"' in html and "page 13 of 15" in html
    assert 'action="/catalogs/big/v1/skills/s250/"' in html
    assert "already a skill named" in html


def test_the_parent_of_an_element_is_found_by_typing(logged_in, big, banking):
    typed = logged_in.post("/catalogs/banking/v1/elements/add/", {
        "new-element-name": "visa", "new-element-parent": "docu", "_validate": "parent"}, **HTMX)
    misspelt = logged_in.post("/catalogs/banking/v1/elements/add/", {
        "new-element-name": "visa", "new-element-parent": "documnet", "_validate": "parent"}, **HTMX)

    assert 'data-from="" data-to="document"' in typed.content.decode()
    assert 'data-from="documnet" data-to="document"' in misspelt.content.decode()
    spec = version_spec(version=big)
    child = next(e for e in spec.elements if e.parent is None and e.name not in ("e0", "e1"))
    refused = logged_in.post(f"/catalogs/big/v1/elements/{child.name}/", {
        f"element-{child.name}-name": child.name, f"element-{child.name}-parent": "nowhere"}, **HTMX)
    assert refused.status_code == 422
    assert "There is no element named nowhere" in refused.content.decode()
    saved = logged_in.post(f"/catalogs/big/v1/elements/{child.name}/", {
        f"element-{child.name}-name": child.name, f"element-{child.name}-parent": "e1",
        f"element-{child.name}-askable": "on"}, **HTMX)
    assert saved.status_code == 200
    big.refresh_from_db()
    assert version_spec(version=big).element(child.name).parent == "e1"


def test_a_mode_form_is_fetched_with_its_outcomes(logged_in, big):
    html = logged_in.get("/catalogs/big/v1/forms/skill/s7/modes/0/", **HTMX).content.decode()

    assert 'action="/catalogs/big/v1/skills/s7/modes/0/"' in html
    assert 'action="/catalogs/big/v1/skills/s7/modes/0/outcomes/1/"' in html
    assert 'action="/catalogs/big/v1/skills/s7/modes/0/outcomes/add/"' in html
    assert logged_in.get("/catalogs/big/v1/forms/skill/s7/modes/9/", **HTMX).status_code == 404


def test_the_graph_of_a_large_catalog_draws_a_neighbourhood_or_a_plan(logged_in, big):
    whole = logged_in.get("/catalogs/big/graph/").content.decode()
    around = logged_in.get("/catalogs/big/graph/?focus=s5").content.decode()
    plan = logged_in.get("/catalogs/big/graph/?intent=i0").content.decode()
    typo = logged_in.get("/catalogs/big/graph/?focus=s5x").content.decode()

    assert "too big to draw whole" in whole and "<svg" not in whole
    assert "<svg" in around and "Drawn around <code>s5</code>" in around
    assert around.count('class="node"') < 400
    assert "<svg" in plan and "Only the plan of <code>i0</code> is drawn" in plan
    assert "There is no skill, element or intent named s5x. Did you mean" in typo
