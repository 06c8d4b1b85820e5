
"""Versions from the page (draft, roll back, diff, export, import) and skills from tool specs."""

from __future__ import annotations

import html as html_lib
import json
import re
from functools import partial
from pathlib import Path

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile

from catalog_app import editing
from catalog_app.models import CatalogVersion
from catalog_app.selectors import version_spec
from orchestrator.engine.catalog.spec_io import dump_catalog, load_catalog

from .conftest import HTMX

pytestmark = pytest.mark.django_db
DATA = Path(__file__).resolve().parent / "data"


def edit(change, *, version, **fields):
    """One editor change applied to a draft, as the studio's forms apply it."""
    return editing.version_edit(version=version, change=partial(change, **fields))


def text(response) -> str:
    html = re.sub(r"<(script|style)\b.*?</\1>", "", response.content.decode(), flags=re.S)
    return html_lib.unescape(" ".join(re.sub(r"<[^>]+>", " ", html).split()))


def latest(catalog_slug: str = "banking") -> CatalogVersion:
    return CatalogVersion.objects.filter(catalog__slug=catalog_slug).order_by("-number").first()


def test_roll_back_is_a_new_draft_with_the_old_content(logged_in, banking, banking_spec):
    edit(editing.skill_updated, version=banking, name="credit_check", max_retries=3, description="changed")
    logged_in.post("/catalogs/banking/v1/draft/")  # v2: a copy of v1 as it is now
    edit(editing.element_added, version=latest(), name="phone")

    response = logged_in.post("/catalogs/banking/v2/draft/")

    assert (response.status_code, response["Location"]) == (302, "/catalogs/banking/edit/")
    v3 = latest()
    assert v3.number == 3 and v3.is_draft and v3.note == "copied from version 2"
    assert "phone" in {e.name for e in version_spec(version=v3).elements}


def test_the_diff_between_two_versions_reads_as_sentences(logged_in, banking):
    logged_in.post("/catalogs/banking/v1/draft/")
    edit(editing.skill_updated, version=latest(), name="credit_check", max_retries=2)
    edit(editing.element_updated, version=latest(), name="ssn", sensitive=False, format="text")

    response = logged_in.get("/catalogs/banking/diff/?old=1&new=2", **HTMX)

    items = re.findall(r'<li class="change change-(\w+)">.*?</span>(.*?)</li>', response.content.decode())
    assert items == [
        ("changed", "element ssn: format regex:^[0-9]{3}-[0-9]{2}-[0-9]{4}$ -&gt; text"),
        ("changed", "element ssn: no longer sensitive"),
        ("changed", "skill credit_check: retry limit 1 -&gt; 2"),
    ]
    same = logged_in.get("/catalogs/banking/diff/?old=1&new=1", **HTMX)
    assert "No differences" in text(same)
    assert logged_in.get("/catalogs/banking/diff/?old=1&new=9", **HTMX).status_code == 422


def test_export_downloads_yaml_and_json_that_import_back(logged_in, banking, banking_spec):
    as_yaml = logged_in.get("/catalogs/banking/export/?version=1&format=yaml")
    as_json = logged_in.get("/catalogs/banking/export/?format=json")

    assert as_yaml["Content-Disposition"] == 'attachment; filename="banking-v1.yaml"'
    assert load_catalog(as_yaml.content, "yaml") == banking_spec
    assert load_catalog(as_json.content, "json") == banking_spec
    assert logged_in.get("/catalogs/banking/export/?format=xml").status_code == 404


def test_import_from_the_page_makes_a_new_draft(logged_in, banking, banking_spec):
    changed = banking_spec.model_copy(update={"title": "Banking, imported"})
    upload = SimpleUploadedFile("banking.json", dump_catalog(changed, "json").encode(), "application/json")

    response = logged_in.post("/catalogs/import/", {"import-file": upload, "catalog": "banking"})

    assert response.status_code == 302
    assert (latest().number, version_spec(version=latest()).title) == (2, "Banking, imported")


def test_a_malformed_import_says_why_and_saves_nothing(logged_in, banking):
    bad = yaml.safe_dump({"catalog": "banking", "elements": [{"name": "x"}],
                          "skills": [{"name": "s", "modes": []}, {"name": "t", "mode": []}]})

    response = logged_in.post("/catalogs/import/", {"import-text": bad, "catalog": "banking"})

    assert response.status_code == 422
    page = text(response)
    assert "The file cannot be imported (3 problems); nothing was saved." in page
    assert "skills[0].modes : a skill needs at least one mode" in page
    assert "skills[1] : unknown field 'mode'" in page
    assert latest().number == 1


def test_importing_another_catalogs_file_into_this_one_is_refused(logged_in, banking, banking_spec):
    other = banking_spec.model_copy(update={"catalog": "cards"})

    response = logged_in.post("/catalogs/import/", {"import-text": dump_catalog(other), "catalog": "banking"})

    assert response.status_code == 422
    assert "this file is catalog 'cards', not 'banking'" in text(response)


def test_import_from_the_list_page_creates_the_catalog(logged_in, workspace, banking_spec):
    response = logged_in.post("/catalogs/import/", {"import-text": dump_catalog(banking_spec)})

    assert (response.status_code, response["Location"]) == (302, "/catalogs/banking/edit/")


# --- tool specs -----------------------------------------------------------------------------------


def test_an_openapi_document_is_reviewed_before_anything_is_saved(logged_in, banking):
    upload = SimpleUploadedFile("lending.yaml", (DATA / "lending-openapi.yaml").read_bytes())

    response = logged_in.post("/catalogs/banking/tools/", {"tools-file": upload, "step": "review"})

    assert response.status_code == 200
    html = response.content.decode()
    assert 'name="skills" value="check_credit" checked' in html
    assert "Already in the catalog, used as they are: email, ssn, credit_score, loan_id" in text(response)
    assert version_spec(version=latest()) == version_spec(version=banking)  # nothing saved yet

    document = re.search(r'<textarea name="document"[^>]*>(.*?)</textarea>', html, re.S).group(1)
    added = logged_in.post("/catalogs/banking/tools/", {
        "step": "add", "document": _unescape(document), "skills": ["find_customer", "check_credit"],
        "use-customer_id": "account_number"})

    assert added.status_code == 302 and added["Location"] == "/catalogs/banking/edit/#skills"
    spec = version_spec(version=latest())
    assert spec.skill("check_credit").modes[0].inputs == ("account_number", "ssn")
    assert {"find_customer", "check_credit"} <= {s.name for s in spec.skills}
    assert "submit_loan_skill" not in {s.name for s in spec.skills} and "customer_id" not in {
        e.name for e in spec.elements}


def _unescape(html: str) -> str:
    return html_lib.unescape(html)


def test_function_specs_are_imported(logged_in, empty):
    document = (DATA / "travel-functions.json").read_text()

    review = logged_in.post("/catalogs/shop/tools/", {"tools-text": document, "step": "review"})
    added = logged_in.post("/catalogs/shop/tools/", {
        "step": "add", "document": document, "skills": ["flights_search", "flights_book", "get_weather"]})

    assert "flights_book" in text(review)
    assert added.status_code == 302
    spec = version_spec(version=latest("shop"))
    assert [s.name for s in spec.skills] == ["flights_search", "flights_book", "get_weather"]
    assert spec.element("passport_number").sensitive


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        ("openapi: 3.0.0\npaths: {}\n", "paths : the document has no paths"),
        ('{"swagger": "2.0", "paths": {}}', "Swagger 2 documents are not supported"),
        ('[{"name": "a", "parameters": 7}]', "[0].parameters : parameters must be a JSON schema"),
        ("[{name: a, ", "malformed YAML"),
        ("", "Choose a file or paste the document."),
    ],
)
def test_malformed_tool_specs_say_why_and_save_nothing(logged_in, banking, document, expected):
    response = logged_in.post("/catalogs/banking/tools/", {"tools-text": document, "step": "review"})

    assert response.status_code == 422
    assert expected in text(response)
    assert latest().number == 1 and version_spec(version=latest()) == version_spec(version=banking)


def test_a_tampered_review_is_checked_again(logged_in, banking):
    response = logged_in.post("/catalogs/banking/tools/", {
        "step": "add", "document": json.dumps([{"name": "x", "parameters": ["Bad Name!"]}]), "skills": ["x"]})

    assert response.status_code in (302, 422)
    if response.status_code == 422:
        assert "nothing was saved" in text(response)
    else:  # the name was made valid on the way in
        assert "bad_name" in {e.name for e in version_spec(version=latest()).elements}
