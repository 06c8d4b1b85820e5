"""Sensitivity follows derived values: a chart drawn from a salary table needs consent before it is
published (catalog/sensitivity.py), decided where plans are made, not in the dialogue."""

from __future__ import annotations

import warnings

import pytest

from orchestrator.engine.catalog.sensitivity import sensitivity
from orchestrator.engine.catalog.spec import Goal
from orchestrator.engine.catalog.spec_io import load_catalog
from orchestrator.engine.planning.compile import compile_catalog
from orchestrator.engine.planning.downward import run_driver
from orchestrator.engine.planning.pddl import domain_text, problem_text
from orchestrator.engine.planning.planner import Planner
from orchestrator.engine.planning.task import PlanningState

CHARTS = """
catalog: charts
privacy: {privacy}
elements:
  - {{name: department, format: "enum:sales|finance", description: the department}}
  - {{name: salary_table, sensitive: {sensitive}, askable: false, description: the salary figures}}
  - {{name: chart, askable: false, description: the chart}}
  - {{name: thumbnail, askable: false, description: a small picture of the chart}}
  - {{name: chart_url, askable: false, description: the published chart}}
  - {{name: order_id, askable: false, description: the order}}
  - {{name: card_number, sensitive: true, description: your card number}}
  - {{name: tracking, askable: false, description: the tracking page}}
  - {{name: note, description: a note to post}}
  - {{name: summary, parent: note, askable: false, description: a summary of the figures}}
  - {{name: post_url, askable: false, description: the posted note}}
skills:
  - name: read_salaries
    description: Reads the salary figures of a department
    modes: [{{inputs: [department], outcomes: [{{name: ok, outputs: [salary_table]}}]}}]
  - name: draw_chart
    description: Draws a chart from figures
    modes: [{{inputs: [salary_table], outcomes: [{{name: ok, outputs: [chart]}}]}}]
  - name: shrink
    description: Makes a thumbnail of a chart
    modes: [{{inputs: [chart], outcomes: [{{name: ok, outputs: [thumbnail]}}]}}]
  - name: publish_chart
    description: Publishes a chart on the intranet
    preview: publish chart intranet
    effects: world
    modes: [{{inputs: [thumbnail], outcomes: [{{name: ok, outputs: [chart_url]}}]}}]
  - name: place_order
    description: Places an order paid by card
    effects: world
    modes: [{{inputs: [card_number], outcomes: [{{name: ok, outputs: [order_id]}}]}}]
  - name: publish_tracking
    description: Publishes the order's tracking page
    effects: world
    modes: [{{inputs: [order_id], outcomes: [{{name: ok, outputs: [tracking]}}]}}]
  - name: summarize
    description: Summarizes figures
    modes: [{{inputs: [salary_table], outcomes: [{{name: ok, outputs: [summary]}}]}}]
  - name: post
    description: Posts a note on the notice board
    effects: world
    modes: [{{inputs: [note], outcomes: [{{name: ok, outputs: [post_url]}}]}}]
intents:
  - {{name: publish_chart, description: publish a salary chart, examples: [publish a salary chart],
     goal: {{known: [chart_url]}}}}
  - {{name: track, description: publish the tracking page, examples: [publish my tracking page],
     goal: {{known: [tracking]}}}}
"""

PUBLISH = Goal(known=("chart_url",))


def charts(privacy: str = "per_skill", sensitive: bool = True):
    text = CHARTS.format(privacy=privacy, sensitive=str(sensitive).lower())
    return load_catalog(text, filename="charts.yaml")


def test_a_value_computed_from_a_sensitive_one_carries_it_down_a_chain():
    found = sensitivity(charts())
    assert found.derived == {"chart": ("salary_table",), "thumbnail": ("salary_table",),
                             "summary": ("salary_table",)}
    # an order number is the receipt of a world-changing act, not a copy of the card number
    assert "order_id" not in found.derived and "chart_url" not in found.derived
    assert found.needs_consent("thumbnail", world=True) and not found.needs_consent("thumbnail", world=False)
    assert found.needs_consent("card_number", world=False)


def test_nothing_is_derived_from_values_nobody_marked_sensitive():
    assert sensitivity(charts(sensitive=False)).derived == {}


@pytest.mark.parametrize("privacy, consent", [("per_skill", "authorize(publish_chart)"),
                                               ("per_element", "authorize(thumbnail)")])
def test_publishing_a_chart_of_sensitive_figures_is_planned_after_consent(privacy, consent):
    lines = Planner(compile_catalog(charts(privacy))).plan(PUBLISH).lines
    assert consent in lines
    assert lines.index(consent) < lines.index("chart_url = publish_chart(thumbnail)")
    # the computing skill in between asks nothing more than it did
    assert not any(line.startswith(("authorize(shrink)", "authorize(chart)")) for line in lines)


def test_publishing_a_chart_of_ordinary_figures_needs_no_consent():
    lines = Planner(compile_catalog(charts(sensitive=False))).plan(PUBLISH).lines
    assert not [line for line in lines if line.startswith("authorize")]


def test_a_receipt_of_a_world_changing_act_needs_no_new_consent():
    lines = Planner(compile_catalog(charts())).plan(Goal(known=("tracking",))).lines
    assert "authorize(publish_tracking)" not in lines and "authorize(place_order)" in lines


POST = Goal(known=("post_url",))


@pytest.mark.parametrize("privacy", ["per_skill", "per_element"])
def test_the_pddl_and_the_reference_planners_agree_on_the_derived_consent(privacy):
    from orchestrator.engine.planning.up_bridge import oneshot_plan_cost

    compiled = compile_catalog(charts(privacy))
    assert "(derived ?x - element)" in domain_text(compiled)
    assert "(derived thumbnail)" in problem_text(compiled, PUBLISH)
    planner = Planner(compiled)
    # `post` takes any note: only a summary of the figures needs consent (sensitive or derived, per value)
    cases = [(PUBLISH, PlanningState()), (PUBLISH, PlanningState.of(known={"chart"})),
             (POST, PlanningState.of(known={"summary"})), (POST, PlanningState())]
    costs = []
    for goal, state in cases:
        fast = planner.plan(goal, state).cost
        costs.append(fast)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert fast == oneshot_plan_cost(compiled, goal, state)
        assert fast == run_driver(domain_text(compiled, state), problem_text(compiled, goal, state))
    assert costs[2] == 2  # authorize, then post the summary (1 each): cheaper than asking for a note (5)
    assert planner.plan(POST, cases[2][1]).lines[0].startswith("authorize(")


def test_catalogs_without_derived_values_keep_their_pddl(banking):
    assert "derived" not in domain_text(compile_catalog(banking))


def test_lint_names_a_derived_value_going_to_a_world_changing_skill():
    from orchestrator.engine.catalog.lint import lint_catalog

    flows = [i for i in lint_catalog(charts()) if i.kind == "sensitive_flow"]
    derived = [i for i in flows if "computed from sensitive `salary_table`" in i.message]
    assert {i.subject for i in derived} >= {"publish_chart"}
    assert not [i for i in flows if i.subject == "shrink"]  # computing from a chart shares nothing new


def test_lint_warns_of_a_skill_called_for_its_effect_that_receives_a_derived_value_unmarked():
    from orchestrator.engine.catalog.lint import lint_catalog

    assert not [i for i in lint_catalog(charts()) if i.kind == "unmarked_effects"]  # every act is marked
    # The analyst forgot `effects: world` on a skill that returns nothing: it e-mails the chart.
    text = CHARTS.format(privacy="per_skill", sensitive="true").replace("intents:", """  - name: email_chart
    description: E-mails a chart to a list
    modes: [{inputs: [chart], outcomes: [{name: ok, outputs: []}, {name: bounced, outputs: []}]}]
  - name: print_thumbnail
    description: Prints the thumbnail
    modes: [{inputs: [thumbnail], outcomes: [{name: ok, outputs: [post_url]}, {name: jammed, outputs: []}]}]
intents:
  - {name: print, description: print the chart, examples: [print the chart], goal: {done: [print_thumbnail]}}""")
    warned = {i.subject: i for i in lint_catalog(load_catalog(text, filename="charts.yaml"))
              if i.kind == "unmarked_effects"}
    assert set(warned) == {"email_chart", "print_thumbnail"}  # returns nothing; a goal asks it done
    assert warned["email_chart"].severity == "warning" and "`salary_table`" in warned["email_chart"].message
    assert warned["email_chart"].path.startswith("skills[") and warned["email_chart"].path.endswith(".modes[0]")
