"""validate_plan and analyze_trajectories, as a user at a terminal runs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.conftest import ROOT, database_url
from tests.unit.engine.flows import CHECK_BEFORE_CONSENT

from .conftest import BANKING_SAMPLES

pytestmark = pytest.mark.django_db


@pytest.fixture
def plan_file(tmp_path):
    path = tmp_path / "plan.txt"
    path.write_text("\n".join(CHECK_BEFORE_CONSENT) + "\n")
    return path


@pytest.fixture
def samples_file(tmp_path):
    path = tmp_path / "samples.json"
    path.write_text(json.dumps(BANKING_SAMPLES))
    return path


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "DATABASE_URL": database_url()}, timeout=120)


@pytest.mark.django_db(transaction=True)  # committed rows: the command runs in its own process
def test_validate_plan_exit_codes(banking, plan_file, tmp_path):
    fixed = tmp_path / "fixed.txt"
    fixed.write_text("\n".join([CHECK_BEFORE_CONSENT[0], CHECK_BEFORE_CONSENT[2], CHECK_BEFORE_CONSENT[1],
                                *CHECK_BEFORE_CONSENT[3:]]))
    sound = run("validate_plan", "banking", "--intent", "apply_loan", "--plan", str(fixed), "--quality", "sound")
    assert sound.returncode == 0, sound.stderr
    unsound = run("validate_plan", "banking", "--intent", "apply_loan", "--plan", str(plan_file), "--quality", "sound")
    assert unsound.returncode == 1
    assert "+ authorize(credit_check)" in unsound.stdout.splitlines()
    bad = run("validate_plan", "banking", "--intent", "nope", "--plan", str(plan_file))
    assert bad.returncode == 2 and "unknown intent 'nope'" in bad.stderr and "Traceback" not in bad.stderr
    bad_option = run("validate_plan", "banking", "--intent", "apply_loan", "--plan", str(plan_file), "--quality", "x")
    assert bad_option.returncode == 2


def test_validate_plan_prints_the_verdict_and_the_diff(banking, plan_file, capsys):
    with pytest.raises(SystemExit) as exited:
        call_command("validate_plan", "banking", "--intent", "apply_loan", "--plan", str(plan_file), "--quality",
                     "sound")
    assert exited.value.code == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("no: not sound: 2 steps cannot run (line 2, credit_score = credit_check(ssn)")
    assert "fixed plan (cost 21), as a diff of the plan given:" in out
    assert out[-1] == "  loan_status, loan_id = submit_loan(name, income, credit_score, loan_amount)"


def test_validate_plan_as_json_with_an_explicit_goal(banking, tmp_path, capsys):
    plan = tmp_path / "plan.txt"
    plan.write_text("ask(email)\nname, address, account_number, income = lookup_customer(email)\n")
    call_command("validate_plan", "banking", "--goal-known", "name", "--plan", str(plan), "--json",
                 "--quality", "valid")
    assert json.loads(capsys.readouterr().out)["determination"] is True
    # Asking for the name outright is cheaper than asking for an email and looking it up.
    with pytest.raises(SystemExit):
        call_command("validate_plan", "banking", "--goal-known", "name", "--plan", str(plan), "--json")
    report = json.loads(capsys.readouterr().out)
    assert (report["valid"], report["optimal"], report["cost"], report["optimal_cost"]) == (True, False, 6, 5)
    assert report["fixed"] == {"cost": 5, "lines": ["ask(name)"]}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--intent", "apply_loan", "--known", "emial"], "unknown element 'emial'"),
        (["--intent", "apply_loan", "--goal-known", "name"], "give either --intent or a goal"),
        (["--goal-done", "fly"], "unknown skill 'fly'"),
    ],
)
def test_validate_plan_bad_input_exits_2(banking, plan_file, args, message):
    with pytest.raises(CommandError, match=message) as raised:
        call_command("validate_plan", "banking", "--plan", str(plan_file), *args)
    assert raised.value.returncode == 2


def test_analyze_trajectories_against_a_catalog(banking, samples_file, tmp_path, capsys):
    out, html = tmp_path / "report.json", tmp_path / "report.html"
    call_command("analyze_trajectories", "banking", str(samples_file), "--out", str(out), "--html", str(html))
    text = capsys.readouterr().out.splitlines()
    assert text[:5] == ["sequences: 3", "passed: 1 (33.3%)", "error-free once repaired: 2",
                        "compression rate: 20.0% (1 of 5 calls removed)", "troubled indices: 1, 2"]
    assert "  fetch_weather       1" in text
    assert json.loads(out.read_text())["count"] == 3
    assert "<svg" in html.read_text()


def test_analyze_trajectories_against_tool_specs(tmp_path, capsys, db):
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([{"name": "get_weather", "query_parameters": {"city": {"required": True}}}]))
    calls = tmp_path / "calls.json"
    calls.write_text(json.dumps([{"name": "get_weather", "arguments": {}, "label": "var1"}]))
    call_command("analyze_trajectories", str(calls), "--tools", str(tools), "--json")
    report = json.loads(capsys.readouterr().out)
    assert report["errors_per_type"] == {"missing_parameter": 1}


def test_analyze_trajectories_reads_a_directory_of_openapi_files_and_judges_goals(tmp_path, capsys, db):
    # As NESTFUL ships its executable tools: one OpenAPI document per tool in a folder.
    folder = tmp_path / "open_api_specs"
    folder.mkdir()
    for name, param, out in (("SearchLocation", "query", "geoId"), ("SearchHotels", "geoId", "hotelId")):
        (folder / f"{name}.json").write_text(json.dumps({"openapi": "3.0.2", "paths": {f"/{name}": {"get": {
            "operationId": name, "parameters": [{"name": param, "in": "query", "required": True}],
            "responses": {"200": {"content": {"application/json": {"schema": {
                "type": "object", "properties": {out: {"type": "string"}}}}}}}}}}}))
    calls = tmp_path / "calls.json"
    calls.write_text(json.dumps([{"input": "Hotels in Rome", "output": [
        {"name": "SearchLocation", "arguments": {"query": "Rome"}, "label": "var1"},
        {"name": "SearchLocation", "arguments": {"query": "Paris"}, "label": "var2"},
        {"name": "SearchHotels", "arguments": {"geoId": "$var1.geoId$"}, "label": "var3"},
        {"name": "var_result", "arguments": {"hotels": "$var3$"}}]}]))
    call_command("analyze_trajectories", str(calls), "--tools", str(folder), "--goals")
    text = capsys.readouterr().out
    assert "passed: 1 (100.0%)" in text and "against their goals: sound 1/1, valid 1/1, optimal 0/1" in text
    assert "  goals: valid but not optimal: it costs 3; the least possible is 2" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope", "samples.json"], "unknown catalog 'nope'"),
        (["banking", "missing.json"], "No such file"),
        (["banking", "samples.json", "--tools", "tools.json"], "a catalog slug or --tools, not both"),
        (["samples.json"], "brings no tools"),
    ],
)
def test_analyze_trajectories_bad_input_exits_2(banking, samples_file, monkeypatch, args, message):
    monkeypatch.chdir(samples_file.parent)
    with pytest.raises(CommandError, match=message) as raised:
        call_command("analyze_trajectories", *args)
    assert raised.value.returncode == 2
