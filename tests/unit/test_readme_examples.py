"""The README's catalog and scenario examples are what a user copies first: they must load as written."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from orchestrator.engine.catalog.spec_io import load_catalog
from orchestrator.engine.simulation.scenario import parse_scenario

ROOT = Path(__file__).resolve().parents[2]


def _examples() -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", (ROOT / "README.md").read_text(), re.S)


def test_the_spec_example_is_a_valid_catalog_with_a_plan_for_each_intent():
    from orchestrator.engine.planning.planner import Planner

    spec = load_catalog(next(b for b in _examples() if b.startswith("catalog:")), filename="example.yaml")
    planner = Planner.for_spec(spec)
    assert [i.name for i in spec.intents if not planner.plan(i.goal).solved] == []


def test_the_scenario_example_fits_the_demo_catalog():
    scenario = next(b for b in _examples() if b.startswith("scenario:"))
    banking = load_catalog((ROOT / "catalog_app" / "demo" / "banking.yaml").read_text(), filename="banking.yaml")
    assert parse_scenario(yaml.safe_load(scenario), banking).scenario == "realistic"
