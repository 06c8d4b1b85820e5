"""Scenarios in the browser (issue 23): the form, errors at the field with nothing saved, revisions tied to catalog
versions, and "generate a default scenario" so a new catalog can be simulated at once."""

from __future__ import annotations

import re

import pytest

from catalog_app.services import catalog_import
from orchestrator.engine.catalog.spec_io import load_catalog
from orchestrator.simulation.models import ScenarioRevision, SimulationScenario
from orchestrator.simulation.services import run_create, run_execute

from .conftest import DEMO

pytestmark = pytest.mark.django_db


def errors_at(html: str) -> dict[str, str]:
    return dict(re.findall(r'<p class="error" id="(f-[^"]*)-error">([^<]*)</p>', html))


def test_the_default_scenario_of_a_new_catalog_is_generated_saved_and_simulated_at_once(workspace, logged_in):
    thin = catalog_import(workspace=workspace, spec=load_catalog((DEMO / "banking-thin.yaml").read_bytes(), "yaml"))
    simulations = logged_in.get("/catalogs/banking-thin/simulations/").content.decode()
    assert "PUT /api/v1" not in simulations and "/catalogs/banking-thin/scenarios/edit/?version=1&amp;generate=1" \
        in simulations
    form = logged_in.get("/catalogs/banking-thin/scenarios/edit/?generate=1").content.decode()
    fields = dict(re.findall(r'<input id="[^"]*" name="([^"]*)" type="text"[^>]*value="([^"]*)"', form))
    assert fields["scenario"] == "default" and fields["users.goals.apply_loan"] == "1"
    posted = {"version": "1", **fields}
    answer = logged_in.post("/catalogs/banking-thin/scenarios/save/", posted)
    assert answer.status_code == 302 and answer["Location"].endswith("saved=default")
    stored = SimulationScenario.objects.get(catalog=thin.catalog, name="default")
    revision = stored.revisions.get()
    assert revision.number == 1 and revision.version == thin and revision.data == stored.data
    run = run_execute(run_id=run_create(workspace=workspace, version=thin, scenario="default", conversations=6,
                                        enqueue=False).pk)
    assert run.status == "done" and run.summary["conversations"] == 6
    listing = logged_in.get(answer["Location"]).content.decode()
    assert "Scenario 'default' saved: revision 1, checked against version 1" in listing


def test_a_bad_form_shows_each_fault_at_its_field_and_saves_nothing(banking, realistic, logged_in):
    before = realistic.data
    form = logged_in.get("/catalogs/banking/scenarios/edit/?name=realistic").content.decode()
    assert 'name="skills.submit_loan.modes.m1.inputs"' in form
    answer = logged_in.post("/catalogs/banking/scenarios/save/", {
        "version": "1", "scenario": "realistic", "users.goals.apply_loan": "lots", "users.cannot.email": "0.5",
        "skills.credit_check.failure_rate": "0.1"})
    assert answer.status_code == 422
    assert errors_at(answer.content.decode()) == {"f-users-goals-apply_loan": "&#x27;lots&#x27; is not a number"}
    answer = logged_in.post("/catalogs/banking/scenarios/save/", {
        "version": "1", "scenario": "realistic", "users.refuse.ssn": "1.5"})
    assert answer.status_code == 422
    assert list(errors_at(answer.content.decode())) == ["f-users-refuse-ssn"]
    answer = logged_in.post("/catalogs/banking/scenarios/save/", {
        "version": "1", "scenario": "realistic", "skills.submit_loan.modes.m1.inputs": "name, nosuch",
        "skills.credit_check.modes.m1.extra_outcomes": "lost: nosuch2 @ 0.1"})
    assert answer.status_code == 422
    found = errors_at(answer.content.decode())
    assert found["f-skills-submit_loan-modes-m1-inputs"] == "unknown element &#x27;nosuch&#x27;"
    assert found["f-skills-credit_check-modes-m1-extra_outcomes"] == "unknown element &#x27;nosuch2&#x27;"
    realistic.refresh_from_db()
    assert realistic.data == before and ScenarioRevision.objects.filter(scenario=realistic).count() == 1


def _form_fields(html: str) -> dict[str, str]:
    fields = dict(re.findall(r'<input id="[^"]*" name="([^"]*)" type="text"[^>]*value="([^"]*)"', html))
    fields |= {name: value for name, value in re.findall(r'<textarea id="[^"]*" name="([^"]*)"[^>]*>([^<]*)</textarea>',
                                                          html)}
    fields |= {name: "on" for name in re.findall(r'type="checkbox" id="[^"]*" name="([^"]*)" checked', html)}
    return {k: v.replace("&#x27;", "'").replace("&amp;", "&") for k, v in fields.items()}


def test_a_scenario_edited_in_the_form_round_trips_and_adds_a_revision(banking, realistic, logged_in):
    fields = _form_fields(logged_in.get("/catalogs/banking/scenarios/edit/?name=realistic").content.decode())
    answer = logged_in.post("/catalogs/banking/scenarios/save/", {"version": "1", **fields})
    assert answer.status_code == 302, answer.content.decode()[:3000]
    realistic.refresh_from_db()
    assert realistic.revisions.count() == 2
    first, second = realistic.revisions.order_by("number")
    assert second.data == first.data  # the form read the whole scenario, and wrote it back the same


def test_an_earlier_revision_opens_in_the_form_and_saving_it_restores_it_as_the_newest(banking, realistic, logged_in):
    fields = _form_fields(logged_in.get("/catalogs/banking/scenarios/edit/?name=realistic").content.decode())
    changed = {**fields, "users.goals.apply_loan": "9"}
    assert logged_in.post("/catalogs/banking/scenarios/save/", {"version": "1", **changed}).status_code == 302
    first = realistic.revisions.get(number=1)
    assert realistic.revisions.get(number=2).data["users"]["goals"]["apply_loan"] == 9
    listing = logged_in.get("/catalogs/banking/scenarios/").content.decode()
    assert "name=realistic&amp;revision=1" in listing and "revision=2" not in listing  # the newest is the scenario
    form = logged_in.get("/catalogs/banking/scenarios/edit/?name=realistic&revision=1").content.decode()
    assert "Revision 1 of &#x27;realistic&#x27;" in form
    restored = _form_fields(form)
    assert float(restored["users.goals.apply_loan"]) == first.data["users"]["goals"]["apply_loan"] != 9
    assert logged_in.post("/catalogs/banking/scenarios/save/", {"version": "1", **restored}).status_code == 302
    realistic.refresh_from_db()
    assert realistic.revisions.count() == 3 and realistic.data == first.data == realistic.revisions.get(number=3).data
    for bad in ("7", "x"):
        assert logged_in.get(f"/catalogs/banking/scenarios/edit/?name=realistic&revision={bad}").status_code == 404


def test_the_api_gives_the_default_scenario_of_a_version(banking, basic_auth):
    from django.test import Client

    body = Client().get("/api/v1/catalogs/banking/scenarios-default", **basic_auth).json()
    assert body["data"]["scenario"] == "default" and set(body["data"]["users"]["goals"]) == {
        "apply_loan", "apply_credit_card", "check_card_status"}
    assert body["values_needed"] == []
