"""The greeting and the help offer only the requests the planner can plan: an intent whose goal nothing can
reach (an element no skill gives and the user is never asked for) is not advertised."""

from __future__ import annotations

from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.planning.planner import Planner
from orchestrator.engine.runtime.s3 import S3Orchestrator
from orchestrator.engine.runtime.session import SessionState
from orchestrator.engine.runtime.skills import SimulatedSkills
from orchestrator.engine.runtime.turns import PlannerOrchestrator

SPEC = CatalogSpec.model_validate({
    "catalog": "shop",
    "elements": [{"name": "order_id"}, {"name": "order_status", "askable": False},
                 {"name": "refund_status", "askable": False}],
    "skills": [{"name": "lookup_order", "modes": [{"inputs": ["order_id"],
                                                    "outcomes": [{"name": "found", "outputs": ["order_status"]}]}]}],
    "intents": [
        {"name": "track_order", "description": "track an order", "examples": ["where is my order"],
         "goal": {"known": ["order_status"]}},
        # Nothing gives refund_status and the user is never asked for it: no plan.
        {"name": "refund_order", "description": "refund an order", "examples": ["I want my money back"],
         "goal": {"known": ["refund_status"]}},
    ],
})


def test_the_planner_knows_which_goals_it_can_reach_without_searching():
    planner = Planner.for_spec(SPEC)
    assert planner.can_plan(SPEC.intent("track_order").goal)
    assert not planner.can_plan(SPEC.intent("refund_order").goal)


def test_the_greeting_and_the_help_advertise_only_intents_with_a_plan():
    planner = Planner.for_spec(SPEC)
    bot = PlannerOrchestrator(SPEC, planner, SimulatedSkills(SPEC, seed=1))
    [greeting] = bot.greet()
    assert "track an order" in greeting.text and "refund" not in greeting.text
    unread = bot.turn(SessionState(), "blorp fizzle wug").replies
    assert any("track an order" in r.text for r in unread) and not any("refund" in r.text for r in unread)


def test_s3_which_does_not_plan_still_offers_every_intent():
    planner = Planner.for_spec(SPEC)
    [greeting] = S3Orchestrator(SPEC, planner, SimulatedSkills(SPEC, seed=1)).greet()
    assert "track an order" in greeting.text and "refund an order" in greeting.text
