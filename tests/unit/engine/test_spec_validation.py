"""Every kind of bad catalog is refused with the path of each fault, all reported together."""

import copy

import pytest

from orchestrator.engine.catalog.spec_io import MAX_SPEC_BYTES, catalog_to_data, load_catalog, parse_catalog
from orchestrator.engine.errors import SpecError


@pytest.fixture
def data(banking):
    return copy.deepcopy(catalog_to_data(banking))


def faults(data) -> list[str]:
    with pytest.raises(SpecError) as caught:
        parse_catalog(data)
    return [str(issue) for issue in caught.value.issues]


def test_unknown_element_in_an_input_is_named_with_its_path(data):
    data["skills"][2]["modes"][0]["inputs"] = ["ssn", "emial"]
    assert faults(data) == ["skills[2].modes[0].inputs[1]: unknown element 'emial'"]


def test_all_faults_are_reported_together(data):
    data["skills"][0]["modes"][1]["outcomes"][0]["outputs"].append("nmae")
    data["intents"][0]["goal"]["known"] = ["loan_stat"]
    data["elements"][1]["parent"] = "docment"
    assert faults(data) == [
        "elements[1].parent: unknown element 'docment'",
        "skills[0].modes[1].outcomes[0].outputs[4]: unknown element 'nmae'",
        "intents[0].goal.known[0]: unknown element 'loan_stat'",
    ]


def test_duplicate_names(data):
    data["elements"].append({"name": "email"})
    data["skills"].append(copy.deepcopy(data["skills"][2]))
    data["skills"].append({"name": "income", "modes": [{"inputs": [], "outcomes": [{"name": "ok"}]}]})
    assert faults(data) == [
        "elements[16].name: duplicate element 'email' (first at elements[5].name)",
        "skills[6].name: 'income' is already the name of an element",
        "skills[5].name: duplicate skill 'credit_check' (first at skills[2].name)",
    ]


def test_cycle_in_the_type_tree_is_shown_as_a_loop(data):
    data["elements"][0]["parent"] = "passport"  # document -> passport -> document
    assert faults(data) == ["elements[0].parent: the type tree has a cycle: document -> passport -> document"]


def test_names_must_be_identifiers_and_not_pddl_keywords(data):
    data["elements"][3]["name"] = "Full Name"
    data["elements"].append({"name": "and"})
    data["skills"][1]["name"] = "9lives"
    issues = faults(data)
    assert "elements[3].name: 'Full Name' is not a valid name: use lowercase letters, digits and " \
           "underscores, starting with a letter" in issues
    assert "elements[16].name: 'and' is a reserved word of PDDL or of the compilation" in issues
    assert any(i.startswith("skills[1].name: '9lives' is not a valid name") for i in issues)


def test_empty_modes_and_outcomes(data):
    data["skills"][1]["modes"] = []
    data["skills"][2]["modes"][0]["outcomes"] = []
    assert faults(data) == [
        "skills[1].modes: a skill needs at least one mode",
        "skills[2].modes[0].outcomes: a mode needs at least one outcome",
    ]


def test_goals_naming_unknown_things(data):
    data["intents"][1]["goal"] = {"done": ["submit_credit_card.renew", "fly"]}
    data["intents"][0]["extensions"] = ["apply_mortgage"]
    data["intents"][2]["goal"] = {}
    assert faults(data) == [
        "intents[0].extensions[0]: unknown intent 'apply_mortgage'",
        "intents[1].goal.done[0]: skill 'submit_credit_card' has no mode 'renew' (modes: apply, status)",
        "intents[1].goal.done[1]: unknown skill 'fly'",
        "intents[2].goal: the goal names nothing: give known elements and/or done skills",
    ]


def test_bad_formats_and_unknown_fields(data):
    data["elements"][5]["format"] = "regex:[0-9"
    data["elements"][6]["format"] = "colour"
    data["skills"][0]["modes"][0]["ouputs"] = ["name"]
    issues = faults(data)
    assert "skills[0].modes[0]: unknown field 'ouputs'" in issues
    assert any(i.startswith("elements[5].format: invalid regular expression") for i in issues) is False
    # structural faults come first: fix them and the cross-reference faults show
    del data["skills"][0]["modes"][0]["ouputs"]
    issues = faults(data)
    assert issues[0].startswith("elements[5].format: invalid regular expression")
    assert issues[1].startswith("elements[6].format: unknown format 'colour'")


def test_wrong_types_are_located(data):
    data["skills"][2]["max_retries"] = "twice"
    assert faults(data) == [
        "skills[2].max_retries: Input should be a valid integer, unable to parse string as an integer"
    ]


def test_malformed_yaml_names_the_line():
    with pytest.raises(SpecError) as caught:
        load_catalog("catalog: x\nelements:\n  - {name: a\n  - b\n")
    # libyaml says "did not find expected", the Python loader "expected": the place is what matters.
    assert str(caught.value).startswith("line 5, column 1: malformed YAML: ")
    assert "expected ',' or '}'" in str(caught.value)


def test_malformed_json_names_the_line():
    with pytest.raises(SpecError) as caught:
        load_catalog('{"catalog": "x",\n "elements": [}', fmt="json")
    assert str(caught.value).startswith("line 2, column 15: malformed JSON")


def test_not_a_mapping():
    with pytest.raises(SpecError, match="a catalog must be a mapping"):
        load_catalog("- just\n- a list\n")


def test_oversized_file_is_refused_before_parsing():
    with pytest.raises(SpecError, match=f"the limit is {MAX_SPEC_BYTES:,} bytes"):
        load_catalog("#" * (MAX_SPEC_BYTES + 1))


@pytest.mark.parametrize(("endpoint", "fragment"), [
    ("ftp://skills.example/x", "is not an http(s) URL"),
    ("file:///etc/passwd", "is not an http(s) URL"),
    ("http://[::7f00:1]/x", "an IPv4 address inside an IPv6 one"),
    ("http://[64:ff9b::a00:1]/x", "an IPv4 address inside an IPv6 one"),
    ("http://2130706433/x", "is a number"),
    ("http://admin:pw@skills.example/x", "user name or password"),
    ("http://skills.example:99999/x", "not a well-formed URL"),
])
def test_a_skill_endpoint_is_checked_when_authored(data, endpoint, fragment):
    data["skills"][1]["endpoint"] = endpoint
    (fault,) = faults(data)
    assert fault.startswith("skills[1].endpoint: ") and fragment in fault


@pytest.mark.parametrize("endpoint", ["sim:", "https://skills.bank.example/score", "http://127.0.0.1:8001/x",
                                      "http://[::1]:8001/x", "http://10.0.0.5/x"])
def test_plain_endpoints_pass_authoring(data, endpoint):
    # Private addresses are the deployment's call (CONCERTO_SKILL_ALLOW_PRIVATE), checked at call time.
    data["skills"][1]["endpoint"] = endpoint
    parse_catalog(data)


@pytest.mark.parametrize("where", ["elements", "skills", "intents"])
def test_a_name_ending_in_a_newline_is_refused(data, where):
    data[where][0]["name"] = data[where][0]["name"] + "\n"
    assert any(f.startswith(f"{where}[0].name: ") and "is not a valid name" in f for f in faults(data))


def test_a_catalog_slug_ending_in_a_newline_is_refused(data):
    data["catalog"] = "banking\n"
    assert any(f.startswith("catalog: ") for f in faults(data))
