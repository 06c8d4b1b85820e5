"""The catalog graph: its description, its Graphviz source, and the SVG that `dot` draws."""

import shutil

import pytest

from orchestrator.engine.catalog.graph import (
    GraphUnavailable,
    catalog_graph,
    plan_highlight,
    render_svg,
    to_dot,
)

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")


def test_nodes_and_edges_of_banking(banking):
    graph = catalog_graph(banking)

    kinds = {n.id: n.kind for n in graph.nodes}
    assert kinds["skill-credit_check"] == "skill" and kinds["element-ssn"] == "element"
    assert kinds["intent-apply_loan"] == "intent"
    assert {n.name for n in graph.nodes if n.sensitive} == {"ssn", "income", "credit_score"}
    edges = {(e.source, e.target, e.kind, e.label) for e in graph.edges}
    assert ("element-ssn", "skill-credit_check", "input", "") in edges
    # credit_check gives a score only when it scores: the arrow says which outcome.
    assert ("skill-credit_check", "element-credit_score", "output", "scored") in edges
    assert ("element-passport", "element-document", "is_a", "is a") in edges
    assert ("element-loan_status", "intent-apply_loan", "goal", "goal") in edges
    assert ("skill-submit_credit_card", "intent-apply_credit_card", "goal", "goal") in edges
    assert not graph.highlighted


def test_a_plan_highlights_its_skills_elements_and_flows(banking, banking_planner):
    plan = banking_planner.plan(banking.intent("apply_loan").goal)

    graph = catalog_graph(banking, plan_highlight(plan.steps, "apply_loan"))

    lit = {n.name for n in graph.nodes if n.highlighted}
    assert {"credit_check", "submit_loan", "ssn", "credit_score", "loan_status", "apply_loan"} <= lit
    assert "submit_credit_card" not in lit
    steps = {n.name: n.step for n in graph.nodes if n.step}
    assert steps["submit_loan"] == len(plan.steps)  # the last step
    flows = {(e.source, e.target) for e in graph.edges if e.highlighted and e.kind != "goal"}
    assert ("element-ssn", "skill-credit_check") in flows
    assert ("skill-submit_credit_card", "element-income") not in flows


def test_dot_source_marks_sensitive_elements_without_relying_on_colour(banking):
    source = to_dot(catalog_graph(banking))

    ssn = next(line for line in source.splitlines() if line.strip().startswith("\"element-ssn\"")
               or line.strip().startswith("element-ssn"))
    assert "peripheries=2" in ssn and "sensitive" in ssn
    assert "rankdir=LR" in source


@needs_dot
def test_render_svg_draws_every_node(banking):
    svg = render_svg(catalog_graph(banking), "banking")

    assert svg.startswith("<svg")
    for node_id in ("skill-credit_check", "element-ssn", "intent-apply_loan"):
        assert f'id="{node_id}"' in svg
    assert ">sensitive</text>" in svg


def test_a_huge_catalog_is_refused_before_drawing(banking):
    from orchestrator.engine.catalog.synthetic import synthetic_catalog

    big = synthetic_catalog(skills=300)

    with pytest.raises(GraphUnavailable, match="drawn for at most"):
        render_svg(catalog_graph(big))
