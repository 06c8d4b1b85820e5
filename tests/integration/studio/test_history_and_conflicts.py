"""Undo and redo of the editor's edits, and a save on a draft that changed meanwhile."""

from __future__ import annotations

import pytest

from catalog_app.editing import element_added, element_updated, version_edit
from catalog_app.selectors import version_spec

from .conftest import HTMX

pytestmark = pytest.mark.django_db


def _spec(version):
    version.refresh_from_db()
    return version_spec(version=version)


def _add_element(client, name: str, revision: int):
    return client.post("/catalogs/shop/v1/elements/add/", {
        "new-element-name": name, "new-element-askable": "on", "_revision": str(revision)}, **HTMX)


def test_each_edit_can_be_undone_and_redone_back_to_the_start(logged_in, empty):
    _add_element(logged_in, "email", 0)
    _add_element(logged_in, "phone", 1)

    page = logged_in.get("/catalogs/shop/edit/").content.decode()
    assert "Undo<span class=\"step-label\">: Element added.</span>" in page
    undone = logged_in.post("/catalogs/shop/v1/undo/", {}, **HTMX)
    assert undone.status_code == 200 and "Undone: Element added." in undone.content.decode()
    assert [e.name for e in _spec(empty).elements] == ["email"]
    logged_in.post("/catalogs/shop/v1/undo/", {}, **HTMX)
    assert [e.name for e in _spec(empty).elements] == []
    nothing = logged_in.post("/catalogs/shop/v1/undo/", {}, **HTMX).content.decode()
    assert "nothing to undo" in nothing
    logged_in.post("/catalogs/shop/v1/redo/", {}, **HTMX)
    logged_in.post("/catalogs/shop/v1/redo/", {}, **HTMX)
    assert [e.name for e in _spec(empty).elements] == ["email", "phone"]
    assert empty.revision == 6  # every undo and redo is a new revision: caches keyed on it stay right


def test_a_new_edit_after_an_undo_drops_the_redo(logged_in, empty):
    _add_element(logged_in, "email", 0)
    logged_in.post("/catalogs/shop/v1/undo/", {}, **HTMX)
    _spec(empty)
    _add_element(logged_in, "phone", empty.revision)

    assert "nothing to redo" in logged_in.post("/catalogs/shop/v1/redo/", {}, **HTMX).content.decode()
    assert [e.name for e in _spec(empty).elements] == ["phone"]


def test_a_save_on_a_draft_changed_meanwhile_says_what_changed_and_keeps_the_input(logged_in, empty):
    version_edit(version=empty, change=lambda s: element_added(s, name="adress"), label="Element added.")
    empty.refresh_from_db()
    opened_at = empty.revision
    # Someone else renames the element while this analyst's form is open.
    version_edit(version=empty, change=lambda s: element_updated(s, name="adress", new_name="address"))

    response = logged_in.post("/catalogs/shop/v1/elements/adress/", {
        "element-adress-name": "adress", "element-adress-description": "where the pizza goes",
        "element-adress-askable": "on", "_revision": str(opened_at)}, **HTMX)

    html = response.content.decode()
    assert response.status_code == 409  # not a bare 404: the element is gone under its old name
    assert "Your change was not saved: this draft changed since you opened the form." in html
    assert "element address" in html and "element adress" in html  # the rename, as the diff says it
    assert "where the pizza goes" in html  # what was typed is still there
    assert 'name="element-adress-description" value="where the pizza goes"' in html  # ready to apply again
    assert [e.name for e in _spec(empty).elements] == ["address"]


def test_a_stale_form_is_refused_even_when_its_target_still_exists(logged_in, empty):
    _add_element(logged_in, "email", 0)
    _add_element(logged_in, "phone", 1)

    stale = _add_element(logged_in, "fax", 1)
    assert stale.status_code == 409
    assert "element phone" in stale.content.decode()
    again = _add_element(logged_in, "fax", 2)  # "apply my change" posts the same values at the new revision
    assert again.status_code == 200
    assert [e.name for e in _spec(empty).elements] == ["email", "phone", "fax"]
