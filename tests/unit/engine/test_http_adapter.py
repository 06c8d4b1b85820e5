"""Imported OpenAPI operations become HTTP skills: the request as the document describes it, the answer read back."""

from __future__ import annotations

import json

import httpx

from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.catalog.toolspec import apply_proposal, load_tools, propose
from orchestrator.engine.runtime.http_adapter import HttpApiSkills
from orchestrator.engine.runtime.skill_http import EndpointPolicy
from orchestrator.engine.runtime.skills import Invokers, SimulatedSkills

PETSTORE = {
    "openapi": "3.0.0",
    "servers": [{"url": "https://pets.example.com/v1"}],
    "paths": {
        "/pets/{petId}": {"get": {
            "operationId": "get_pet",
            "parameters": [{"name": "petId", "in": "path", "required": True, "schema": {"type": "string"}},
                           {"name": "lang", "in": "query", "schema": {"type": "string"}}],
            "responses": {"200": {"description": "a pet", "content": {"application/json": {"schema": {
                "type": "object", "properties": {"name": {"type": "string"}, "kind": {"type": "string"}}}}}}}}},
        "/pets": {"post": {
            "operationId": "add_pet",
            "requestBody": {"content": {"application/json": {"schema": {
                "type": "object", "required": ["name"],
                "properties": {"name": {"type": "string"}, "tag": {"type": "string"}}}}}},
            "responses": {"201": {"description": "made", "content": {"application/json": {"schema": {
                "type": "object", "properties": {"pet_id": {"type": "string"}}}}}}}}},
        "/owners": {"get": {
            "operationId": "list_owners",
            "parameters": [{"name": "limit", "in": "query", "schema": {"type": "integer"}}],
            "responses": {"200": {"description": "owners"}}}},
    },
}


def _spec() -> CatalogSpec:
    proposal = propose(load_tools(json.dumps(PETSTORE)))
    return apply_proposal(CatalogSpec(catalog="pets"), proposal, skills=[s.name for s in proposal.skills])


def _caller(handler, secrets=lambda name: None, hosts=("pets.example.com",)) -> HttpApiSkills:
    policy = EndpointPolicy(allowed_hosts=list(hosts), resolver=lambda host: ["93.184.216.34"])
    return HttpApiSkills(policy, secrets, attempts=1, client=httpx.Client(transport=httpx.MockTransport(handler)))


def test_an_imported_operation_keeps_its_server_path_method_and_optional_parameters():
    spec = _spec()
    get_pet = spec.skill("get_pet")

    assert get_pet.endpoint == "https://pets.example.com/v1/pets/{petId}"  # not `sim:`
    assert get_pet.http.method == "get"
    assert [(p.element, p.location) for p in get_pet.http.params] == [("pet_id", "path"), ("lang", "query")]
    assert [m.inputs for m in get_pet.modes] == [("pet_id",), ("pet_id", "lang")]  # the option is not dropped
    assert spec.skill("add_pet").http.method == "post"
    assert [(s.status, s.outcome) for s in get_pet.http.statuses] == [("2xx", "success"), ("4xx", "failure")]


def test_inputs_go_to_the_path_the_query_and_the_body_and_outputs_come_back():
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.method == "GET":
            return httpx.Response(200, json={"name": "Rex", "kind": "dog"})
        return httpx.Response(201, json={"pet_id": "p-7"})

    spec = _spec()
    caller = _caller(handler)
    got = caller.call(spec.skill("get_pet"), "with_options", {"pet_id": "a b", "lang": "fr"})
    made = caller.call(spec.skill("add_pet"), "m1", {"name": "Rex"})

    assert (got.status, got.outcome, got.outputs) == ("ok", "success", {"name": "Rex", "kind": "dog"})
    assert str(seen[0].url) == "https://pets.example.com/v1/pets/a%20b?lang=fr"
    assert (made.outcome, made.outputs) == ("success", {"pet_id": "p-7"})
    assert seen[1].method == "POST" and json.loads(seen[1].content) == {"name": "Rex"}


def test_the_status_picks_the_outcome_and_a_server_error_is_an_error():
    spec = _spec()
    missing = _caller(lambda request: httpx.Response(404, json={"error": "no such pet"}))
    broken = _caller(lambda request: httpx.Response(503))

    assert missing.call(spec.skill("get_pet"), "m1", {"pet_id": "9"}).outcome == "failure"
    assert broken.call(spec.skill("get_pet"), "m1", {"pet_id": "9"}).status == "error"


def test_a_named_secret_is_sent_as_a_header_and_a_missing_one_is_said():
    sent: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request.headers.get("Authorization", ""))
        return httpx.Response(200, json={"name": "Rex", "kind": "dog"})

    spec = _spec()
    skill = spec.skill("get_pet")
    skill = skill.model_copy(update={"http": skill.http.model_copy(update={"secret": "pets-key"})})
    keyed = _caller(handler, secrets=lambda name: "s3cr3t" if name == "pets-key" else None)
    ok = keyed.call(skill, "m1", {"pet_id": "1"})
    unset = _caller(handler).call(skill, "m1", {"pet_id": "1"})

    assert ok.outcome == "success" and sent == ["Bearer s3cr3t"]
    assert unset.status == "error" and "pets-key" in unset.message and "s3cr3t" not in unset.message


def test_the_ssrf_policy_still_applies_and_sim_stays_available():
    spec = _spec()
    called: list[str] = []
    caller = _caller(lambda request: called.append(str(request.url)) or httpx.Response(200), hosts=("other.example",))

    refused = caller.call(spec.skill("get_pet"), "m1", {"pet_id": "1"})
    assert refused.status == "error" and "not in the allowed skill hosts" in refused.message and not called

    trying = spec.skill("get_pet").model_copy(update={"endpoint": "sim:"})
    routed = Invokers(SimulatedSkills(spec, seed=1), None, caller).call(trying, "m1", {"pet_id": "1"})
    assert routed.status == "ok" and not called  # `sim:` still simulates, binding or not
