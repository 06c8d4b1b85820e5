"""A skill endpoint that hides where it leads is refused when the catalog is authored, with its path."""

from __future__ import annotations

import json
from functools import partial

import pytest

from catalog_app.editing import skill_updated, version_edit
from orchestrator.engine.catalog.spec_io import catalog_to_data
from orchestrator.engine.errors import SpecError


@pytest.mark.parametrize(("endpoint", "fragment"), [
    ("http://[::7f00:1]:8000/score", "an IPv4 address inside an IPv6 one"),
    ("http://[64:ff9b::a00:1]/score", "an IPv4 address inside an IPv6 one"),
    ("gopher://skills.example/score", "is not an http(s) URL"),
])
def test_importing_a_catalog_with_a_disguised_endpoint_is_refused(client, basic_auth, banking_spec, endpoint, fragment):
    data = catalog_to_data(banking_spec)
    data["catalog"] = "ssrf"
    data["skills"][2]["endpoint"] = endpoint
    response = client.post("/api/v1/catalogs/import", json.dumps(data), content_type="application/json",
                           **basic_auth)
    assert response.status_code == 422
    (error,) = response.json()["errors"]
    assert error["path"] == "skills[2].endpoint" and fragment in error["message"]


def test_the_editor_refuses_a_disguised_endpoint(banking):
    with pytest.raises(SpecError) as caught:
        version_edit(version=banking,
                     change=partial(skill_updated, name="credit_check", endpoint="http://[::ffff:a9fe:a9fe]/latest"))
    assert any(i.path.endswith(".endpoint") and "IPv4 address inside" in i.message for i in caught.value.issues)


def _import(client, basic_auth, banking_spec, endpoint: str):
    data = catalog_to_data(banking_spec)
    data["catalog"] = "policy"
    data["skills"][2]["endpoint"] = endpoint
    return client.post("/api/v1/catalogs/import", json.dumps(data), content_type="application/json", **basic_auth)


def test_a_private_address_is_refused_when_authored_if_the_deployment_forbids_it(client, basic_auth, banking_spec,
                                                                                   settings):
    settings.CONCERTO_SKILL_ALLOW_PRIVATE = False
    response = _import(client, basic_auth, banking_spec, "http://10.0.0.5/score")
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {"path": "skills[2].endpoint", "message": "host '10.0.0.5' resolves to a non-public address (10.0.0.5)"}]
    settings.CONCERTO_SKILL_ALLOW_PRIVATE = True
    assert _import(client, basic_auth, banking_spec, "http://10.0.0.5/score").status_code == 201


def test_a_host_outside_the_allowed_list_is_refused_when_authored(client, basic_auth, banking_spec, settings):
    settings.CONCERTO_SKILL_HOSTS = ["*.bank.example"]
    response = _import(client, basic_auth, banking_spec, "https://skills.elsewhere.example/score")
    assert response.status_code == 422
    assert "not in the allowed skill hosts" in response.json()["errors"][0]["message"]
    assert _import(client, basic_auth, banking_spec, "https://score.bank.example/score").status_code == 201
