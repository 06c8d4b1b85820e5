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
