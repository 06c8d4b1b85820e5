"""`manage.py simulate`: records a run, prints its figures (or one JSON object); 2 on bad input."""

from __future__ import annotations

import json
from io import StringIO

import pytest
import yaml
from django.core.management import call_command
from django.core.management.base import CommandError

from orchestrator.simulation.models import SimulationRun

from .conftest import DEMO


def simulate(*args: str) -> str:
    out = StringIO()
    call_command("simulate", *args, stdout=out)
    return out.getvalue()


def test_the_command_runs_the_chunks_and_prints_json(banking, realistic):
    data = json.loads(simulate("banking", "--conversations", "9", "--seed", "3", "--json"))
    assert {"id", "conversations", "success_rate"} <= set(data)
    assert data["conversations"] == 9 and data["status"] == "done"
    assert SimulationRun.objects.get(pk=data["id"]).results.count() == 9


def test_the_command_prints_figures_and_reads_a_scenario_file(banking, tmp_path):
    text = simulate("banking", "--conversations", "5", "--scenario", str(DEMO / "banking-scenario.yaml"),
                    "--orchestrator", "s3", "--version", str(banking.number))
    assert "goal success:" in text and "s3 orchestrator" in text


def test_bad_input_exits_2_and_saves_nothing(banking, realistic, tmp_path, scenario_data):
    scenario_data["skills"]["credit_check"]["modes"]["m7"] = {}
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(scenario_data))
    for args in (["--conversations", "0"], ["--conversations", "3", "--scenario", "nope"],
                 ["--conversations", "3", "--scenario", str(bad)], ["--conversations", "3", "--version", "9"],
                 ["--conversations", "3", "--scenario", str(tmp_path / "missing.yaml")]):
        with pytest.raises(CommandError) as caught:
            simulate("banking", *args)
        assert caught.value.returncode == 2, args
    with pytest.raises(CommandError) as caught:
        simulate("banking", "--conversations", "3", "--scenario", str(bad))
    assert "skills.credit_check.modes.m7" in str(caught.value)
    assert SimulationRun.objects.count() == 0


def test_load_demo_stores_the_banking_scenario_and_on_request_the_thin_catalog(db):
    from orchestrator.simulation.models import SimulationScenario

    call_command("load_demo", stdout=StringIO())
    assert list(SimulationScenario.objects.values_list("catalog__slug", "name")) == [("banking", "realistic")]
    call_command("load_demo", "--cold-start", stdout=StringIO())
    call_command("load_demo", "--cold-start", stdout=StringIO())  # idempotent
    assert sorted(SimulationScenario.objects.values_list("catalog__slug", "name")) == [
        ("banking", "realistic"), ("banking-thin", "realistic")]
    data = json.loads(simulate("banking-thin", "--orchestrator", "s3", "--conversations", "4", "--json"))
    assert data["status"] == "done" and data["scenario"] == "realistic"
