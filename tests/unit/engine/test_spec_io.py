import pytest

from orchestrator.engine.catalog.spec import Goal
from orchestrator.engine.catalog.spec_io import dump_catalog, load_catalog
from orchestrator.engine.catalog.synthetic import synthetic_catalog


def test_yaml_round_trip_equals_the_original(banking):
    assert load_catalog(dump_catalog(banking, "yaml")) == banking


def test_json_round_trip_equals_the_original(banking):
    assert load_catalog(dump_catalog(banking, "json"), fmt="json") == banking


def test_export_is_readable_yaml(banking):
    text = dump_catalog(banking)
    assert text.startswith("catalog: banking\ntitle: Banking assistant\n")
    assert "inputs: [name, income, credit_score, loan_amount]" in text
    assert "privacy" not in text  # defaults are left out


def test_issue_example_shape_is_accepted():
    spec = load_catalog(
        """
catalog: banking
title: Banking assistant
privacy: per_skill
costs: {skill: 1, ask: 5, authorize: 1}
elements:
  - {name: document, description: A document the customer provides}
  - {name: passport, parent: document}
  - {name: email, format: email}
  - {name: name}
  - {name: credit_score, sensitive: true, askable: false}
  - {name: loan_status, askable: false}
skills:
  - name: lookup_customer
    description: Looks up the customer's record in the bank's database
    endpoint: "sim:"
    max_retries: 2
    modes:
      - inputs: [email]
        outcomes:
          - {name: found, outputs: [name]}
          - {name: not_found, outputs: []}
intents:
  - name: apply_loan
    description: Apply for a loan
    examples: ["I'd like to apply for a loan", "can I borrow some money"]
    goal: {known: [loan_status]}
"""
    )
    assert spec.intent("apply_loan").goal == Goal(known=("loan_status",))
    assert spec.skill("lookup_customer").mode_names() == ["m1"]


def test_synthetic_catalogs_are_valid_and_round_trip():
    spec = synthetic_catalog(50, seed=3)
    assert load_catalog(dump_catalog(spec)) == spec


def test_yaml_nested_past_what_the_c_loader_survives_is_refused_not_a_crash():
    from orchestrator.engine.catalog.documents import Unreadable, load_yaml, nesting_bound

    deep = "[" * 200_000 + "]" * 200_000
    assert nesting_bound(deep) > 1_000
    with pytest.raises(Unreadable, match="nests deeper"):
        load_yaml(deep)
    blocks = "".join(f"{' ' * i}k{i}:\n" for i in range(2_000)) + " " * 2_000 + "v"
    with pytest.raises(Unreadable):
        load_yaml(blocks)


def test_the_nesting_bound_is_never_below_the_real_depth():
    from orchestrator.engine.catalog.documents import nesting_bound

    for text, depth in [("a: 1", 1), ("a:\n  b:\n    c: 1", 3), ("- - - x", 3), ("a: [[1, {b: [2]}]]", 5),
                        ("a:\n- b:\n  - c: [1]", 5)]:
        assert nesting_bound(text) >= depth, text
