"""Simulation pages: start a run from the catalog, progress that stops polling, plots, compare, the inspector."""

from __future__ import annotations

from unittest import mock

from orchestrator.simulation.models import SimulationRun
from orchestrator.simulation.services import run_create, run_execute


def test_the_catalog_page_starts_a_run(banking, realistic, logged_in):
    page = logged_in.get("/catalogs/banking/simulations/")
    assert page.status_code == 200
    assert b"Start the run" in page.content and b'value="realistic"' in page.content
    with mock.patch("orchestrator.simulation.tasks.simulation_start.delay"):
        answer = logged_in.post("/catalogs/banking/simulations/start/", {
            "version": banking.number, "scenario": "realistic", "orchestrator": "planner", "conversations": 12,
            "seed": 4})
    run = SimulationRun.objects.get()
    assert answer.status_code == 302 and answer.url == f"/simulations/{run.pk}/"
    assert (run.conversations, run.seed, run.orchestrator, run.created_by.username) == (12, 4, "planner", "ana")
    progress = logged_in.get(f"/simulations/{run.pk}/", headers={"HX-Request": "true"})
    assert progress.status_code == 200 and b"<progress" in progress.content
    assert b'hx-trigger="every 1s"' in progress.content
    run_execute(run_id=run.pk)
    done = logged_in.get(f"/simulations/{run.pk}/", headers={"HX-Request": "true"})
    assert done.status_code == 286  # htmx stops polling
    assert b"Goal success per intent" in done.content and done.content.count(b"<svg") == 7
    assert b"hx-trigger" not in done.content


def test_a_bad_form_is_shown_again_with_its_errors(banking, realistic, logged_in):
    answer = logged_in.post("/catalogs/banking/simulations/start/", {
        "version": banking.number, "scenario": "realistic", "orchestrator": "planner", "conversations": 0, "seed": 0})
    assert answer.status_code == 422
    assert SimulationRun.objects.count() == 0


def test_two_runs_side_by_side_and_a_conversation_in_the_inspector(workspace, banking, realistic, logged_in):
    runs = [run_execute(run_id=run_create(workspace=workspace, version=banking, scenario="realistic", conversations=8,
                                          orchestrator=kind, enqueue=False).pk) for kind in ("s3", "planner")]
    page = logged_in.get(f"/simulations/compare/?a={runs[0].pk}&b={runs[1].pk}")
    assert page.status_code == 200
    assert page.content.count(b"<svg") == 7 and b"s3" in page.content and b"planner" in page.content
    listed = logged_in.get("/catalogs/banking/simulations/")
    assert b"Compare run" in listed.content
    inspector = logged_in.get(f"/simulations/{runs[1].pk}/conversations/0/")
    assert inspector.status_code == 200
    for text in (b"simulated", b"Transcript", b"Goal stack", b"What the simulated user did"):
        assert text in inspector.content
    poll = logged_in.get(f"/simulations/{runs[1].pk}/conversations/0/", headers={"HX-Request": "true"})
    assert poll.status_code == 286 and b'id="inspector"' in poll.content  # over: the inspector stops polling
    assert logged_in.get(f"/simulations/{runs[1].pk}/conversations/99/").status_code == 404
