"""Rejection bodies of real APIs read into the parameters they name (learning/rejections.py)."""

import json

import pytest

from orchestrator.engine.runtime.rejections import named_elements, named_parameters

BODIES = [
    # FastAPI / pydantic 2: every missing field, each at its location
    ({"detail": [{"type": "missing", "loc": ["body", "income"], "msg": "Field required", "input": {}},
                 {"type": "missing", "loc": ["body", "credit_score"], "msg": "Field required", "input": {}}]},
     ("income", "credit_score")),
    # pydantic 1, a query parameter
    ({"detail": [{"loc": ["query", "loan_amount"], "msg": "field required", "type": "value_error.missing"}]},
     ("loan_amount",)),
    # ajv: a required property
    ({"errors": [{"instancePath": "", "schemaPath": "#/required", "keyword": "required",
                  "params": {"missingProperty": "email"}, "message": "must have required property 'email'"}]},
     ("email",)),
    # ajv: a bad value at a JSON pointer
    ({"errors": [{"instancePath": "/applicant/income", "keyword": "type", "params": {"type": "number"},
                  "message": "must be number"}]}, ("income",)),
    ({"errors": [{"field": "card_type", "message": "is not one of standard, gold"}]}, ("card_type",)),
    ({"errors": [{"path": "$.name", "message": "required"}]}, ("name",)),
    ({"errors": [{"param": "ssn", "msg": "Invalid value", "location": "body"}]}, ("ssn",)),  # express-validator
    ({"errors": {"income": ["can't be blank"], "address": ["can't be blank"]}}, ("income", "address")),  # Rails
    # RFC 9457 problem details
    ({"type": "https://example.net/validation-error", "title": "Your request is not valid.",
      "invalid-params": [{"name": "age", "reason": "must be a positive integer"}]}, ("age",)),
    # Stripe
    ({"error": {"type": "invalid_request_error", "message": "Missing required param: amount.", "param": "amount"}},
     ("amount",)),
    # an error object with only a message
    ({"error": {"message": "you are missing required parameter 'customer_name'", "code": 400}}, ("customer_name",)),
    # Concerto's own contract, with the optional list
    ({"invalid": True, "message": "cannot process", "missing": ["income"]}, ("income",)),
    ({"invalid": True, "message": "it also needs name and address"}, ("name", "address")),
    # plain messages
    ("it also needs credit_score, income", ("credit_score", "income")),
    ("Field creditScore is required", ("creditScore",)),
    ("the 'ssn' field is missing", ("ssn",)),
    ("Invalid parameter: loan_amount", ("loan_amount",)),
    # JSON text is parsed first
    (json.dumps({"detail": [{"loc": ["body", "email"], "msg": "field required"}]}), ("email",)),
]


@pytest.mark.parametrize(("body", "names"), BODIES)
def test_common_error_shapes_give_the_parameters_they_name(body, names):
    assert named_parameters(body) == names


@pytest.mark.parametrize("body", [
    {"detail": "Not authenticated"},
    {"detail": [{"loc": ["body"], "msg": "field required", "type": "missing"}]},  # the whole body: no field
    {"message": "Bad Request"},
    "the skill rejected these inputs",
    "the skill did not answer in time",
    "<html>bad gateway</html>",
    None,
    [],
])
def test_a_body_naming_no_parameter_names_none(body):
    assert named_parameters(body) == ()


def test_names_are_matched_to_exactly_one_element():
    elements = ["credit_score", "income", "name", "name_x", "account-id"]
    # camelCase, a dotted path, another case, dashes: each read as the one element it fits
    assert named_elements(["creditScore", "body.income", "Name", "account_id"], elements) == (
        "credit_score", "income", "name", "account-id")
    assert named_elements(["unknown", "x"], elements) == ()
    # a name fitting two elements is ambiguous and left out
    assert named_elements(["loan_amount"], ["loan_amount", "Loan-Amount"]) == ()
