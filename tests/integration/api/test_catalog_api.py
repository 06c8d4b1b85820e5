from __future__ import annotations

import json

import pytest
import yaml
from django.test import Client

from catalog_app.models import Catalog, CatalogVersion, Role, Workspace
from catalog_app.selectors import version_spec
from catalog_app.services import catalog_import, membership_set, user_create, version_promote
from orchestrator.assistants.services import assistant_create
from orchestrator.engine.catalog.spec_io import MAX_SPEC_BYTES, catalog_to_data, dump_catalog, load_catalog
from orchestrator.engine.catalog.synthetic import synthetic_catalog

pytestmark = pytest.mark.django_db
BASE = "/api/v1/catalogs"
APPLY_LOAN_LAST = "loan_status, loan_id = submit_loan(name, income, credit_score, loan_amount)"


def _plan(client: Client, body: dict, slug: str = "banking"):
    return client.post(f"{BASE}/{slug}/plan", json.dumps(body), content_type="application/json")


def _import(client: Client, text: str, content_type: str = "application/yaml", **extra):
    return client.post(f"{BASE}/import", text, content_type=content_type, **extra)


# --- list, import, export -----------------------------------------------------------------------


def test_list_shows_latest_and_live_versions(api, banking, banking_spec, workspace):
    promoted = version_promote(version=banking, user=None)
    assistant_create(workspace=workspace, version=promoted, key="banking-live")  # live: an assistant runs it
    catalog_import(workspace=workspace, spec=banking_spec.model_copy(update={"title": "Banking 2"}))

    response = api.get(f"{BASE}/")

    assert response.status_code == 200
    assert response.json() == [
        {"slug": "banking", "title": "Banking 2", "latest_version": 2, "latest_status": "draft", "live_version": 1}
    ]


def test_import_yaml_then_json_numbers_versions(api, banking_spec):
    first = _import(api, dump_catalog(banking_spec, "yaml"))
    second = _import(api, dump_catalog(banking_spec, "json"), content_type="application/json")

    assert first.status_code == 201, first.content
    assert first.json() == {"slug": "banking", "version": 1, "status": "draft"}
    assert second.status_code == 201, second.content
    assert second.json()["version"] == 2
    assert CatalogVersion.objects.filter(catalog__slug="banking").count() == 2


def test_import_records_the_user(api, analyst, banking_spec):
    _import(api, dump_catalog(banking_spec))

    assert CatalogVersion.objects.get().created_by == analyst


def test_bad_catalog_is_422_with_paths_and_saves_nothing(api, banking_spec):
    data = catalog_to_data(banking_spec)
    data["skills"][2]["modes"][0]["inputs"] = ["ssn", "shoe_size"]
    data["intents"][0]["goal"] = {"known": ["loan_mood"]}

    response = _import(api, yaml.safe_dump(data))

    assert response.status_code == 422
    body = response.json()
    paths = [error["path"] for error in body["errors"]]
    assert "skills[2].modes[0].inputs[1]" in paths
    assert "intents[0].goal.known[0]" in paths
    assert body["detail"] == f"the catalog has {len(paths)} problems"
    assert "shoe_size" in body["errors"][paths.index("skills[2].modes[0].inputs[1]")]["message"]
    assert not Catalog.objects.exists()
    assert not CatalogVersion.objects.exists()


def test_malformed_json_names_the_line(api):
    response = _import(api, '{"catalog": "x",\n  "elements": [}', content_type="application/json")

    assert response.status_code == 422
    assert response.json()["errors"][0]["path"] == "line 2, column 16"
    assert "malformed JSON" in response.json()["errors"][0]["message"]


def test_oversized_body_is_refused(api, banking_spec, settings):
    settings.CATALOG_MAX_BYTES = 64 * 1024
    padding = "#" * settings.CATALOG_MAX_BYTES
    response = _import(api, f"{dump_catalog(banking_spec)}{padding}\n")

    assert response.status_code == 413
    assert "the limit is 65,536 bytes (CATALOG_MAX_BYTES)" in response.json()["detail"]
    assert not Catalog.objects.exists()


def test_a_catalog_over_one_mebibyte_is_imported(api):
    """A public tool catalog of thousands of tools is over 1 MiB: the default limit takes it."""
    spec = synthetic_catalog(1800, seed=2)
    text = json.dumps(catalog_to_data(spec), indent=2)
    assert len(text) > 1024 * 1024 and len(text) < MAX_SPEC_BYTES

    response = _import(api, text, content_type="application/json")

    assert response.status_code == 201, response.content[:300]
    assert len(version_spec(version=Catalog.objects.get().versions.get()).skills) == 1800


@pytest.mark.parametrize(("fmt", "content_type"), [("yaml", "application/yaml"), ("json", "application/json")])
def test_export_round_trips(api, banking_spec, fmt, content_type):
    _import(api, dump_catalog(banking_spec, fmt), content_type=content_type)

    response = api.get(f"{BASE}/banking/export", {"format": fmt, "version": 1})

    assert response.status_code == 200
    assert response["Content-Type"] == content_type
    assert load_catalog(response.content, fmt) == banking_spec


def test_export_of_unknown_version_is_404(api, banking):
    response = api.get(f"{BASE}/banking/export", {"version": 7})

    assert response.status_code == 404
    assert response.json()["detail"] == "unknown version of catalog 'banking' '7' (known: 1)"


# --- PDDL and plans -----------------------------------------------------------------------------


def test_pddl_domain_and_problem(api, banking):
    response = api.get(f"{BASE}/banking/pddl", {"intent": "apply_loan", "known": "email, name"})

    assert response.status_code == 200
    body = response.json()
    assert "(:action credit_check-m1-scored" in body["domain"]
    assert "(:goal (and (known loan_status)))" in body["problem"]
    assert "(known email)" in body["problem"] and "(known name)" in body["problem"]


def test_pddl_without_intent_has_no_problem(api, banking):
    body = api.get(f"{BASE}/banking/pddl").json()

    assert body["problem"] is None
    assert "(define (domain banking)" in body["domain"]


def test_pddl_with_unknown_known_element_is_422(api, banking):
    response = api.get(f"{BASE}/banking/pddl", {"intent": "apply_loan", "known": "email,shoe_size"})

    assert response.status_code == 422
    assert response.json()["errors"][0]["path"] == "known[1]"


def test_plan_for_intent(api, banking):
    response = _plan(api, {"intent": "apply_loan"})

    assert response.status_code == 200
    body = response.json()
    assert (body["solved"], body["cost"], body["message"], body["blockers"]) == (True, 20, None, [])
    assert body["steps"][-1] == {
        "kind": "skill",
        "line": APPLY_LOAN_LAST,
        "skill": "submit_loan",
        "args": ["name", "income", "credit_score", "loan_amount"],
        "outputs": ["loan_status", "loan_id"],
        "cost": 1,
    }
    assert body["steps"][0] == {
        "kind": "ask", "line": "ask(email)", "skill": "ask", "args": ["email"], "outputs": ["email"],
        "cost": 5,
    }


def test_plan_for_goal_with_known_and_cannot(api, banking):
    response = _plan(api, {"goal": {"done": ["submit_credit_card.apply"]}, "cannot": ["ask:email"]})

    lines = [step["line"] for step in response.json()["steps"]]
    assert "name, address, email, income = lookup_customer(account_number)" in lines
    assert "ask(email)" not in lines

    known = _plan(api, {"intent": "apply_loan", "known": ["ssn", "name", "income", "loan_amount"]}).json()
    assert [step["line"] for step in known["steps"]] == [
        "authorize(credit_check)",
        "credit_score = credit_check(ssn)",
        "authorize(submit_loan)",
        APPLY_LOAN_LAST,
    ]


def test_plan_of_a_given_version(api, banking, banking_spec, workspace):
    data = catalog_to_data(banking_spec)
    data["intents"] = [i for i in data["intents"] if i["name"] != "apply_loan"]
    catalog_import(workspace=workspace, spec=load_catalog(json.dumps(data), "json"))

    assert _plan(api, {"intent": "apply_loan", "version": 1}).json()["cost"] == 20
    assert _plan(api, {"intent": "apply_loan"}).status_code == 422


def test_unsolvable_plan_is_200_naming_the_element(api, banking):
    response = _plan(api, {"intent": "apply_loan", "cannot": ["credit_check-m1:credit_score"]})

    assert response.status_code == 200
    body = response.json()
    assert (body["solved"], body["cost"], body["steps"]) == (False, None, [])
    assert "nothing can establish credit_score" in body["message"]
    assert [blocker["element"] for blocker in body["blockers"]] == ["credit_score"]


def test_unknown_intent_is_422(api, banking):
    response = _plan(api, {"intent": "buy_yacht"})

    assert response.status_code == 422
    body = response.json()
    assert body["detail"].startswith("unknown intent 'buy_yacht'")
    assert body["errors"] == [{"path": "intent", "message": body["detail"]}]


@pytest.mark.parametrize(
    ("body", "path", "fragment"),
    [
        ({"goal": {"known": ["yacht"]}}, "goal", "unknown element 'yacht'"),
        ({"goal": {"done": ["submit_credit_card.cancel"]}}, "goal", "unknown mode"),
        ({"intent": "apply_loan", "known": ["name", "yacht"]}, "known[1]", "unknown element 'yacht'"),
        ({"intent": "apply_loan", "cannot": ["email"]}, "cannot", "OPERATION:ELEMENT"),
        ({"intent": "apply_loan", "cannot": ["teleport:email"]}, "cannot", "unknown operation 'teleport'"),
        ({"intent": "apply_loan", "cannot": ["ask:yacht"]}, "cannot", "unknown element 'yacht'"),
    ],
)
def test_unknown_names_in_a_plan_request_are_422(api, banking, body, path, fragment):
    response = _plan(api, body)

    assert response.status_code == 422
    error = response.json()["errors"][0]
    assert error["path"] == path
    assert fragment in error["message"]


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({"intent": "apply_loan", "goal": {"known": ["loan_status"]}}, "body"),
        ({}, "body"),
        ({"intent": "apply_loan", "known": "name"}, "body.known"),
        ({"intent": "apply_loan", "knwon": ["name"]}, "body.knwon"),
    ],
)
def test_malformed_plan_request_is_422(api, banking, body, path):
    response = _plan(api, body)

    assert response.status_code == 422
    payload = response.json()
    assert payload["detail"] == "invalid request"
    assert [error["path"] for error in payload["errors"]] == [path]


# --- access -------------------------------------------------------------------------------------


def test_other_workspace_catalog_is_404(banking, banking_spec):
    other = Workspace.objects.create(name="Other", slug="other")
    stranger = user_create(username="stranger", password="secret-pass-2")
    membership_set(workspace=other, user=stranger, role=Role.ANALYST)
    client = Client()
    client.force_login(stranger)

    assert client.get(f"{BASE}/").json() == []
    assert client.get(f"{BASE}/banking/pddl").status_code == 404
    assert _plan(client, {"intent": "apply_loan"}).status_code == 404
    # The stranger's own import of the same slug is a separate catalog.
    assert _import(client, dump_catalog(banking_spec)).json()["version"] == 1


def test_user_without_workspace_is_403(db):
    client = Client()
    client.force_login(user_create(username="loner", password="secret-pass-3"))

    assert client.get(f"{BASE}/").status_code == 403


def test_anonymous_is_401(banking):
    client = Client()

    assert client.get(f"{BASE}/").status_code == 401
    assert _plan(client, {"intent": "apply_loan"}).status_code == 401
    assert client.get(f"{BASE}/", HTTP_AUTHORIZATION="Basic YW5hOndyb25n").status_code == 401  # ana:wrong
    assert client.get(f"{BASE}/").json() == {"detail": "Unauthorized", "errors": []}


def test_basic_auth_for_scripts(banking, basic_auth, banking_spec):
    client = Client(enforce_csrf_checks=True)

    assert client.get(f"{BASE}/", **basic_auth).status_code == 200
    assert _import(client, dump_catalog(banking_spec), **basic_auth).status_code == 201


def test_session_post_needs_csrf(analyst, banking):
    client = Client(enforce_csrf_checks=True)
    client.force_login(analyst)

    assert _plan(client, {"intent": "apply_loan"}).status_code == 403
    assert client.get(f"{BASE}/").status_code == 200


def test_openapi_lists_the_paths(client):
    response = client.get("/api/v1/openapi.json")

    assert response.status_code == 200
    paths = response.json()["paths"]
    for path in ("/", "/import", "/{slug}/export", "/{slug}/pddl", "/{slug}/plan"):
        assert f"{BASE}{path}" in paths
    assert client.get("/api/docs").status_code == 302
