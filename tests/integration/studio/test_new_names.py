"""A typo in a skill's inputs or outputs never becomes an element without the analyst saying so."""

from __future__ import annotations

import pytest

from catalog_app.editing import element_added, version_edit
from catalog_app.selectors import version_spec

from .conftest import HTMX

pytestmark = pytest.mark.django_db

SKILL = {"new-skill-name": "price_pizza", "new-skill-max_retries": "1", "new-skill-inputs": "piza_size, adress",
         "new-skill-outputs": "price", "new-skill-failure": "on"}


@pytest.fixture
def pizza(empty):
    for name in ("pizza_size", "address"):
        version_edit(version=empty, change=lambda spec, name=name: element_added(spec, name=name))
    empty.refresh_from_db()
    return empty


def _spec(version):
    version.refresh_from_db()
    return version_spec(version=version)


def test_new_names_are_put_to_the_analyst_with_the_close_existing_ones_first(logged_in, pizza):
    response = logged_in.post("/catalogs/shop/v1/skills/add/", SKILL, **HTMX)

    html = response.content.decode()
    assert response.status_code == 422
    assert "Create 3 new elements?" in html
    assert 'data-from="piza_size" data-to="pizza_size"' in html
    assert 'data-from="adress" data-to="address"' in html
    assert 'name="new-skill-create_elements" value="piza_size adress price"' in html
    assert "Not an element yet" in html
    spec = _spec(pizza)
    assert [e.name for e in spec.elements] == ["pizza_size", "address"] and not spec.skills


def test_confirmed_new_names_become_elements(logged_in, pizza):
    response = logged_in.post("/catalogs/shop/v1/skills/add/", {
        **SKILL, "new-skill-inputs": "pizza_size, address", "new-skill-create_elements": "price"}, **HTMX)

    assert response.status_code == 200
    spec = _spec(pizza)
    assert [e.name for e in spec.elements] == ["pizza_size", "address", "price"]
    assert spec.skills[0].modes[0].inputs == ("pizza_size", "address")


def test_a_confirmation_covers_only_the_names_it_lists(logged_in, pizza):
    response = logged_in.post("/catalogs/shop/v1/skills/add/", {
        **SKILL, "new-skill-inputs": "pizza_size, top", "new-skill-create_elements": "price"}, **HTMX)

    assert response.status_code == 422
    assert 'value="top"' in response.content.decode()
    assert not _spec(pizza).skills


def test_typing_a_name_with_nothing_close_says_it_will_be_new(logged_in, pizza):
    response = logged_in.post("/catalogs/shop/v1/skills/add/", {
        **SKILL, "new-skill-inputs": "crust, ", "_validate": "inputs"}, **HTMX)

    assert "<code>crust</code> is not an element yet" in response.content.decode()


def test_elements_left_over_by_a_deleted_skill_are_listed_in_lint(logged_in, pizza):
    logged_in.post("/catalogs/shop/v1/skills/add/", {
        **SKILL, "new-skill-inputs": "pizza_size, adress", "new-skill-create_elements": "adress price"}, **HTMX)
    logged_in.post("/catalogs/shop/v1/skills/price_pizza/delete/", {}, **HTMX)

    preview = logged_in.get("/catalogs/shop/preview/?version=1", **HTMX).content.decode()
    assert 'data-kind="unused_element"' in preview
    assert "Element <code>adress</code> is used by nothing" in preview


INTENT = {"new-intent-name": "track_order", "new-intent-examples": "where is my order",
          "new-intent-goal_known": "order_status"}


def test_a_new_name_in_an_intents_goal_is_offered_as_a_new_element(logged_in, pizza):
    response = logged_in.post("/catalogs/shop/v1/intents/add/", INTENT, **HTMX)

    html = response.content.decode()
    assert response.status_code == 422
    assert "Create 1 new element?" in html
    assert 'name="new-intent-create_elements" value="order_status"' in html
    assert "Not an element yet" in html
    assert not _spec(pizza).intents

    confirmed = logged_in.post("/catalogs/shop/v1/intents/add/",
                               {**INTENT, "new-intent-create_elements": "order_status"}, **HTMX)
    assert confirmed.status_code == 200
    spec = _spec(pizza)
    assert spec.intent("track_order").goal.known == ("order_status",)
    made = spec.element("order_status")
    assert not made.askable  # something a skill finds out, as a new output is, until the analyst says otherwise


def test_a_new_name_added_to_an_existing_intents_goal_is_offered_too(logged_in, pizza):
    logged_in.post("/catalogs/shop/v1/intents/add/", {**INTENT, "new-intent-goal_known": "pizza_size"}, **HTMX)
    edit = {"intent-track_order-name": "track_order", "intent-track_order-examples": "where is my order",
            "intent-track_order-goal_known": "pizza_size, order_status"}
    response = logged_in.post("/catalogs/shop/v1/intents/track_order/", edit, **HTMX)
    assert response.status_code == 422
    assert 'name="intent-track_order-create_elements" value="order_status"' in response.content.decode()
    response = logged_in.post("/catalogs/shop/v1/intents/track_order/",
                              {**edit, "intent-track_order-create_elements": "order_status"}, **HTMX)
    assert response.status_code == 200
    assert _spec(pizza).intent("track_order").goal.known == ("pizza_size", "order_status")
