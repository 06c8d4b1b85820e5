"""Tool specs to catalog skills: OpenAPI 3 documents and function-calling specs, good and malformed."""

from pathlib import Path

import pytest

from orchestrator.engine.catalog.lint import lint_catalog
from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.catalog.spec_io import catalog_to_data, parse_catalog
from orchestrator.engine.catalog.toolspec import (
    apply_proposal,
    element_name,
    load_tools,
    parse_function_specs,
    parse_tools,
    propose,
)
from orchestrator.engine.errors import SpecError

DATA = Path(__file__).resolve().parents[2] / "integration" / "studio" / "data"


def openapi_tools():
    return load_tools((DATA / "lending-openapi.yaml").read_text(), "lending-openapi.yaml")


def problems(data) -> list[str]:
    with pytest.raises(SpecError) as caught:
        parse_tools(data)
    return [str(issue) for issue in caught.value.issues]


# --- OpenAPI --------------------------------------------------------------------------------------


def test_each_operation_becomes_a_tool_with_its_inputs_and_outputs():
    tools = {t.name: t for t in openapi_tools()}

    assert list(tools) == ["findCustomer", "checkCredit", "submitLoan", "getLoan"]
    find = tools["findCustomer"]
    assert find.source == "GET /customers" and find.description == "Find a customer by email address"
    # The header parameter is transport, not conversation; the optional flag is kept but not required.
    assert [(p.name, p.required) for p in find.inputs] == [("email", True), ("include_closed", False)]
    assert [p.name for p in find.outputs] == ["customerId", "fullName", "email"]


def test_path_parameters_request_bodies_and_allof_are_read():
    tools = {t.name: t for t in openapi_tools()}

    credit = tools["checkCredit"]
    assert [(p.name, p.required) for p in credit.inputs] == [("customerId", True), ("ssn", True)]
    assert credit.inputs[1].sensitive and credit.inputs[1].pattern.startswith("^[0-9]{3}")
    loan = tools["submitLoan"]
    assert [(p.name, p.required) for p in loan.inputs] == [
        ("customerId", True),
        ("amount", True),
        ("creditScore", True),
        ("purpose", False),
    ]
    assert [p.name for p in loan.outputs] == ["loanId", "status"]
    assert loan.inputs[3].enum == ("car", "home", "study")


def test_an_openapi_proposal_is_a_valid_catalog_that_plans_end_to_end():
    proposal = propose(openapi_tools(), CatalogSpec(catalog="lending"))

    assert [s.name for s in proposal.skills] == ["find_customer", "check_credit", "submit_loan", "get_loan"]
    submit = proposal.skills[2]
    assert submit.modes[0].inputs == ("customer_id", "amount", "credit_score")
    assert [(o.name, o.outputs) for o in submit.modes[0].outcomes] == [
        ("success", ("loan_id", "status")),
        ("failure", ()),
    ]
    elements = {e.name: e for e in proposal.elements}
    assert elements["email"].format == "email" and elements["email"].askable
    assert elements["ssn"].sensitive and elements["ssn"].format.startswith("regex:")
    assert elements["credit_score"].format == "number"
    # Produced only, never taken: not something to ask the user.
    assert not elements["status"].askable and not elements["scored_at"].askable
    assert proposal.names["creditScore"] == "credit_score"
    assert any("include_closed" in w for w in proposal.warnings)

    spec = parse_catalog(catalog_to_data(apply_proposal(CatalogSpec(catalog="lending"), proposal)))
    spec = spec.model_copy(update={"intents": ()})
    assert {s.name for s in spec.skills} == {"find_customer", "check_credit", "submit_loan", "get_loan"}
    assert all(item.kind != "no_failure_path" for item in lint_catalog(spec))


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"swagger": "2.0", "paths": {}}, "swagger: Swagger 2 documents are not supported"),
        ({"openapi": "4.0", "paths": {"/a": {}}}, "openapi: unsupported OpenAPI version '4.0'"),
        ({"openapi": "3.0.0", "paths": {}}, "paths: the document has no paths"),
        ({"openapi": "3.0.0", "paths": {"/a": {"summary": "x"}}}, "paths: the document has no operations"),
        ({"openapi": "3.0.0", "paths": {"/a": ["get"]}}, "paths./a: a path item must be a mapping"),
        (
            {"openapi": "3.0.0", "paths": {"/a": {"get": {"operationId": "a"}}}},
            "paths./a.get.responses: an operation needs its responses",
        ),
        (
            {
                "openapi": "3.0.0",
                "paths": {"/a": {"get": {"responses": {"200": {"$ref": "#/components/responses/Nope"}}}}},
            },
            "paths./a.get.responses.200: $ref '#/components/responses/Nope' points to nothing in the document",
        ),
        (
            {"openapi": "3.0.0", "paths": {"/a": {"get": {"parameters": [{"in": "query"}], "responses": {"200": {}}}}}},
            "paths./a.get.parameters[0]: a parameter needs a 'name' and an 'in'",
        ),
        (
            {
                "openapi": "3.0.0",
                "paths": {
                    "/a": {
                        "get": {"operationId": "x", "responses": {"200": {}}},
                        "post": {"operationId": "x", "responses": {"200": {}}},
                    }
                },
            },
            "paths./a.post.operationId: duplicate tool 'x' (first at paths./a.get.operationId)",
        ),
    ],
)
def test_malformed_openapi_documents_say_where(data, expected):
    assert any(p.startswith(expected) for p in problems(data)), problems(data)


def test_a_remote_ref_is_refused():
    doc = {"openapi": "3.0.0", "paths": {"/a": {"get": {"responses": {"200": {"$ref": "https://x/y.yaml"}}}}}}

    assert problems(doc) == [
        "paths./a.get.responses.200: cannot follow $ref 'https://x/y.yaml' "
        "(only local references like #/components/...)"
    ]


# --- function specs -------------------------------------------------------------------------------


def test_function_specs_in_every_parameter_style():
    tools = load_tools((DATA / "travel-functions.json").read_bytes(), "travel-functions.json")

    search, book, weather = tools
    assert search.name == "Flights_Search" and search.requirements_known
    assert [p.name for p in search.required_inputs()] == ["origin", "destination", "date"]
    assert [p.name for p in search.outputs] == ["flight_id", "price"]
    assert [p.name for p in book.inputs] == ["flight_id", "passport_number"]  # query_parameters
    assert book.inputs[1].sensitive
    assert weather.name == "get_weather" and [p.name for p in weather.required_inputs()] == ["destination"]
    assert weather.outputs == ()


def test_function_specs_share_elements_and_chain():
    proposal = propose(load_tools((DATA / "travel-functions.json").read_text()))

    skills = {s.name: s for s in proposal.skills}
    assert skills["flights_book"].modes[0].inputs == ("flight_id", "passport_number")
    assert skills["flights_search"].modes[0].outcomes[0].outputs == ("flight_id", "price")
    elements = {e.name: e for e in proposal.elements}
    assert elements["date"].format == "date" and elements["price"].format == "number"
    assert elements["flight_id"].askable  # some tool takes it, so a user who has it may give it
    assert not elements["booking_reference"].askable


def test_simple_lists_and_name_only_parameters():
    tools = parse_function_specs(
        {
            "tools": [
                {"name": "ping", "parameters": ["host"], "output_parameters": [{"name": "latency", "type": "number"}]},
                {"name": "echo", "parameters": {"text": "string"}},
            ]
        }
    )

    assert [(t.name, [p.name for p in t.inputs], [p.name for p in t.outputs]) for t in tools] == [
        ("ping", ["host"], ["latency"]),
        ("echo", ["text"], []),
    ]
    assert tools[1].inputs[0].type == "string"


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ("just text", "expected an OpenAPI 3 document or a list of function specs"),
        ([], "the document lists no functions"),
        ([{"description": "no name"}], "[0].name: every function spec needs a 'name'"),
        ([{"name": "a"}, "b"], "[1]: a function spec must be a mapping with 'name' and 'parameters'"),
        (
            [{"name": "a", "parameters": 3}],
            "[0].parameters: parameters must be a JSON schema, a mapping of names, or a list",
        ),
        (
            [{"name": "a", "output_parameters": [{"type": "string"}]}],
            "[0].output_parameters[0]: a parameter needs a 'name'",
        ),
        ([{"name": "a"}, {"name": "a"}], "[1]: duplicate tool 'a' (first at [0])"),
    ],
)
def test_malformed_function_specs_say_where(data, expected):
    assert expected in problems(data)


def test_malformed_json_is_a_spec_error_with_the_line():
    with pytest.raises(SpecError) as caught:
        load_tools('[{"name": "a",', "tools.json")

    assert caught.value.issues[0].path.startswith("line 1")
    assert "malformed JSON" in caught.value.issues[0].message


# --- proposals against an existing catalog --------------------------------------------------------


def test_existing_elements_are_reused_and_near_misses_flagged(banking):
    tools = parse_tools(
        [
            {
                "name": "notify",
                "parameters": {"emial": {"type": "string", "required": True}, "ssn": {"required": True}},
            },
            {"name": "credit_check", "parameters": ["ssn"]},
        ]
    )

    proposal = propose(tools, banking)

    assert proposal.reused == ("ssn",)
    assert [e.name for e in proposal.elements] == ["emial"]
    assert proposal.suggestions == {"emial": ["email"]}
    assert [s.name for s in proposal.skills] == ["notify"]
    assert "the catalog already has a skill 'credit_check'" in proposal.warnings[0]

    merged = apply_proposal(banking, proposal, replace={"emial": "email"})
    spec = parse_catalog(catalog_to_data(merged))
    assert spec.skill("notify").modes[0].inputs == ("email", "ssn")
    assert "emial" not in {e.name for e in spec.elements}


def test_only_the_chosen_skills_and_their_elements_are_applied():
    proposal = propose(load_tools((DATA / "travel-functions.json").read_text()))

    spec = apply_proposal(CatalogSpec(catalog="trip"), proposal, skills=["get_weather"])

    assert [s.name for s in spec.skills] == ["get_weather"]
    # The optional `units` is kept, for the skill's second mode (with_options), not dropped.
    assert [e.name for e in spec.elements] == ["destination", "units"]
    assert [m.inputs for m in spec.skills[0].modes] == [("destination",), ("destination", "units")]


def test_names_that_clash_or_are_reserved_are_made_valid():
    assert element_name("domain") == "domain_value"
    assert element_name("Customer ID") == "customer_id"
    tools = parse_tools([{"name": "weather", "parameters": ["city"], "output_parameters": ["weather"]}])

    proposal = propose(tools, CatalogSpec(catalog="w"))

    assert [s.name for s in proposal.skills] == ["weather_skill"]
    parse_catalog(catalog_to_data(apply_proposal(CatalogSpec(catalog="w"), proposal)))


def test_number_bounds_become_the_elements_format_in_both_exclusive_spellings():
    def element(schema):
        tools = parse_function_specs({"tools": [{"name": "pay", "parameters": {
            "type": "object", "properties": {"amount": schema}, "required": ["amount"]}}]})
        return {e.name: e for e in propose(tools).elements}["amount"].format

    assert element({"type": "number", "minimum": 100, "maximum": 5000}) == "number:100..5000"
    assert element({"type": "integer", "exclusiveMinimum": 0}) == "number:1.."  # JSON Schema: a number
    assert element({"type": "integer", "minimum": 0, "exclusiveMinimum": True, "maximum": 10,
                    "exclusiveMaximum": True}) == "number:1..9"  # OpenAPI 3.0: booleans
    assert element({"type": "number", "maximum": 0.5}) == "number:..0.5"
    assert element({"type": "number", "minimum": 1234567}) == "number:1234567.."
    assert element({"type": "number"}) == "number"
    assert element({"type": "number", "minimum": True}) == "number"  # not a number: no bound
    # The bounds refuse an amount out of range before any call.
    from orchestrator.engine.catalog.formats import parse_format

    bounded = parse_format(element({"type": "number", "minimum": 100, "maximum": 5000}))
    assert (bounded.lower, bounded.upper) == (100.0, 5000.0)
