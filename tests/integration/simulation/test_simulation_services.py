"""Simulation runs through the services: checked before saving, chunks idempotent, cancel, figures."""

from __future__ import annotations

import pytest

from orchestrator.engine.errors import ConcertoError, SpecError
from orchestrator.jobs.models import JobStatus
from orchestrator.simulation.models import SimulatedConversation, SimulationRun
from orchestrator.simulation.services import run_cancel, run_chunk, run_create, run_dispatch, run_execute


def test_a_run_computes_every_conversation_once_and_writes_its_figures(workspace, banking, realistic):
    run = run_create(workspace=workspace, version=banking, scenario="realistic", conversations=30, seed=3,
                     chunk_size=7, enqueue=False)
    assert run.differences and run.scenario == realistic
    finished = run_execute(run_id=run.pk)
    assert finished.status == JobStatus.DONE and finished.done == 30
    assert sorted(finished.results.values_list("index", flat=True)) == list(range(30))
    summary = finished.summary
    assert summary["conversations"] == 30
    assert 0 < summary["success_rate"] <= 1
    assert set(summary["per_intent"]) <= {"apply_loan", "apply_credit_card", "check_card_status"}
    stored = finished.results.get(index=0)
    assert stored.transcript[0]["role"] == "assistant" and stored.trace
    assert stored.metrics["turns"] == stored.turns


def test_a_redelivered_chunk_adds_nothing_and_changes_nothing(workspace, banking, realistic):
    run = run_create(workspace=workspace, version=banking, scenario="realistic", conversations=10, chunk_size=10,
                     enqueue=False)
    run_dispatch(run_id=run.pk, send=lambda *chunk: None)
    assert run_chunk(run_id=run.pk, start=0, stop=10) == 10
    first = {c.index: (c.transcript, c.pk) for c in SimulatedConversation.objects.filter(run=run)}
    SimulationRun.objects.filter(pk=run.pk).update(status=JobStatus.RUNNING)  # as if delivered while running
    assert run_chunk(run_id=run.pk, start=0, stop=10) == 0
    again = {c.index: (c.transcript, c.pk) for c in SimulatedConversation.objects.filter(run=run)}
    assert again == first


def test_a_chunk_taken_over_midway_computes_only_what_is_missing(workspace, banking, realistic):
    run = run_create(workspace=workspace, version=banking, scenario="realistic", conversations=12, chunk_size=12,
                     enqueue=False)
    run_dispatch(run_id=run.pk, send=lambda *chunk: None)
    run_chunk(run_id=run.pk, start=0, stop=5)  # what a killed worker had stored
    assert run_chunk(run_id=run.pk, start=0, stop=12) == 7
    run.refresh_from_db()
    assert run.status == JobStatus.DONE
    assert sorted(run.results.values_list("index", flat=True)) == list(range(12))


def test_the_same_seed_gives_the_same_conversations_in_other_chunks(workspace, banking, realistic):
    one = run_execute(run_id=run_create(workspace=workspace, version=banking, scenario="realistic", conversations=8,
                                        seed=5, chunk_size=8, enqueue=False).pk)
    other = run_execute(run_id=run_create(workspace=workspace, version=banking, scenario="realistic", conversations=8,
                                          seed=5, chunk_size=3, enqueue=False).pk)
    assert list(one.results.values_list("transcript", flat=True)) == list(other.results.values_list("transcript",
                                                                                                     flat=True))


def test_a_cancelled_run_stops_and_keeps_what_it_has(workspace, banking, realistic, analyst):
    run = run_create(workspace=workspace, version=banking, scenario="realistic", conversations=50, chunk_size=10,
                     enqueue=False)
    run_dispatch(run_id=run.pk, send=lambda *chunk: None)
    run_chunk(run_id=run.pk, start=0, stop=10)
    cancelled = run_cancel(run=run, user=analyst)
    assert cancelled.status == JobStatus.CANCELLED and cancelled.finished_at is not None
    assert run_chunk(run_id=run.pk, start=10, stop=20) == 0
    assert run.results.count() == 10
    assert run_cancel(run=run, user=analyst).status == JobStatus.CANCELLED  # twice is harmless


def test_bad_input_is_refused_and_nothing_is_saved(workspace, banking, realistic, scenario_data):
    with pytest.raises(ConcertoError, match="unknown scenario 'nope'"):
        run_create(workspace=workspace, version=banking, scenario="nope", conversations=5, enqueue=False)
    with pytest.raises(ConcertoError) as caught:
        run_create(workspace=workspace, version=banking, scenario="realistic", conversations=0, enqueue=False)
    assert caught.value.path == "conversations"
    with pytest.raises(ConcertoError):
        run_create(workspace=workspace, version=banking, scenario="realistic", conversations=5, orchestrator="magic",
                   enqueue=False)
    scenario_data["skills"]["ocr_document"]["failure_rate"] = 2
    scenario_data["unfillable"] = ["pin_code"]
    with pytest.raises(SpecError) as caught:
        run_create(workspace=workspace, version=banking, scenario=scenario_data, conversations=5, enqueue=False)
    assert {i.path for i in caught.value.issues} >= {"skills.ocr_document.failure_rate"}
    assert SimulationRun.objects.count() == 0


def test_a_redelivered_start_sends_only_the_chunks_not_yet_complete(workspace, banking, realistic):
    run = run_create(workspace=workspace, version=banking, scenario="realistic", conversations=9, chunk_size=3,
                     enqueue=False)
    sent: list[tuple[int, int]] = []
    run_dispatch(run_id=run.pk, send=lambda run_id, start, stop: sent.append((start, stop)))
    assert sent == [(0, 3), (3, 6), (6, 9)]
    run_chunk(run_id=run.pk, start=3, stop=6)
    sent.clear()
    run_dispatch(run_id=run.pk, send=lambda run_id, start, stop: sent.append((start, stop)))
    assert sent == [(0, 3), (6, 9)]
    for start, stop in sent:
        run_chunk(run_id=run.pk, start=start, stop=stop)
    sent.clear()
    assert run_dispatch(run_id=run.pk, send=lambda run_id, start, stop: sent.append((start, stop))) == "done"
    assert sent == []
