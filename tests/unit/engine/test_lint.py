"""Lint of catalogs that are valid but probably wrong; each item points at the thing to fix."""

from orchestrator.engine.catalog.lint import lint_catalog
from orchestrator.engine.catalog.spec_io import parse_catalog


def catalog(**parts):
    return parse_catalog({"catalog": "t", **parts})


def kinds(spec):
    return [(item.kind, item.path) for item in lint_catalog(spec)]


def test_banking_has_only_notes_no_errors(banking):
    items = lint_catalog(banking)

    assert {i.severity for i in items} == {"info"}
    unused = [i for i in items if i.kind == "unused_output"]
    assert [(i.subject, i.path) for i in unused] == [("loan_id", "skills[3].modes[0].outcomes[0].outputs[1]")]
    flows = {(i.message.split("`")[1], i.message.split("`")[3]) for i in items if i.kind == "sensitive_flow"}
    assert flows == {
        ("ssn", "credit_check"),
        ("income", "submit_loan"),
        ("credit_score", "submit_loan"),
        ("income", "submit_credit_card"),
    }


def test_an_intent_whose_goal_nothing_establishes_is_an_error_naming_the_element():
    spec = catalog(
        elements=[{"name": "ssn"}, {"name": "score", "askable": False}, {"name": "decision", "askable": False}],
        skills=[
            {
                "name": "decide",
                "modes": [
                    {"inputs": ["score"], "outcomes": [{"name": "ok", "outputs": ["decision"]}, {"name": "failed"}]}
                ],
            }
        ],
        intents=[{"name": "get_decision", "goal": {"known": ["decision"]}}],
    )

    items = lint_catalog(spec)

    assert items[0].kind == "unreachable_intent" and items[0].severity == "error"
    assert items[0].path == "intents[0]"
    assert "nothing can establish `score`" in items[0].message
    assert ("unestablishable_element", "elements[1]") in kinds(spec)
    assert ("unreachable_skill", "skills[0]") in kinds(spec)


# A document reader: the shape of the type-tree cases below.
OCR = {"name": "ocr", "modes": [
    {"inputs": ["document"], "outcomes": [{"name": "read", "outputs": ["name"]}, {"name": "unreadable"}]}]}
READ_NAME = {"name": "read_name", "goal": {"known": ["name"]}}


def test_a_subtype_meets_a_goal_and_an_abstract_parent_is_not_flagged():
    spec = catalog(
        elements=[
            {"name": "document", "askable": False},
            {"name": "passport", "parent": "document"},
            {"name": "name", "askable": False},
        ],
        skills=[OCR], intents=[READ_NAME],
    )

    assert lint_catalog(spec) == []


def test_a_done_goal_of_a_skill_that_cannot_run_is_unreachable():
    spec = catalog(
        elements=[{"name": "token", "askable": False}],
        skills=[
            {"name": "pay", "modes": [{"inputs": ["token"], "outcomes": [{"name": "paid"}, {"name": "declined"}]}]}
        ],
        intents=[{"name": "payment", "goal": {"done": ["pay"]}}],
    )

    item = lint_catalog(spec)[0]

    assert (item.kind, item.subject) == ("unreachable_intent", "payment")
    assert "`token`" in item.message


def test_skills_that_need_each_other_are_explained_as_a_loop():
    spec = catalog(
        elements=[{"name": "a", "askable": False}, {"name": "b", "askable": False}],
        skills=[
            {
                "name": "make_a",
                "modes": [{"inputs": ["b"], "outcomes": [{"name": "ok", "outputs": ["a"]}, {"name": "no"}]}],
            },
            {
                "name": "make_b",
                "modes": [{"inputs": ["a"], "outcomes": [{"name": "ok", "outputs": ["b"]}, {"name": "no"}]}],
            },
        ],
        intents=[{"name": "want_a", "goal": {"known": ["a"]}}],
    )

    item = lint_catalog(spec)[0]

    assert item.kind == "unreachable_intent"
    assert "need each other's outputs first" in item.message


def test_a_single_outcome_mode_has_no_failure_path():
    spec = catalog(
        elements=[{"name": "email"}, {"name": "name", "askable": False}],
        skills=[
            {"name": "lookup", "modes": [{"inputs": ["email"], "outcomes": [{"name": "found", "outputs": ["name"]}]}]}
        ],
        intents=[{"name": "who", "goal": {"known": ["name"]}}],
    )

    assert kinds(spec) == [("no_failure_path", "skills[0].modes[0]")]
    assert "single outcome and no failure path" in lint_catalog(spec)[0].message


def test_a_skill_no_intent_needs_is_unreachable():
    spec = catalog(
        elements=[{"name": "email"}, {"name": "name", "askable": False}, {"name": "weather", "askable": False}],
        skills=[
            {
                "name": "lookup",
                "modes": [
                    {"inputs": ["email"], "outcomes": [{"name": "found", "outputs": ["name"]}, {"name": "missing"}]}
                ],
            },
            {
                "name": "forecast",
                "modes": [
                    {"inputs": ["email"], "outcomes": [{"name": "ok", "outputs": ["weather"]}, {"name": "failed"}]}
                ],
            },
        ],
        intents=[{"name": "who", "goal": {"known": ["name"]}}],
    )

    assert ("unreachable_skill", "skills[1]") in kinds(spec)
    assert ("unused_output", "skills[1].modes[0].outcomes[0].outputs[0]") in kinds(spec)
    assert ("unreachable_skill", "skills[0]") not in kinds(spec)


def test_a_sensitive_subtype_flowing_through_a_parent_input_is_noted():
    spec = catalog(
        elements=[
            {"name": "document"},
            {"name": "passport", "parent": "document", "sensitive": True},
            {"name": "name", "askable": False},
        ],
        skills=[OCR], intents=[READ_NAME],
    )

    [item] = lint_catalog(spec)

    assert (item.kind, item.path) == ("sensitive_flow", "skills[0].modes[0].inputs[0]")
    assert "`passport`" in item.message and "`ocr`" in item.message
