"""Learning as a Celery job from the review page and the API, and imported tool-call trajectories as its input."""

from __future__ import annotations

import html
import json
from io import StringIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import Client

from orchestrator.jobs.models import JobStatus
from orchestrator.learning.models import LearningJob, Refinement
from orchestrator.learning.services import learning_job_create, learning_job_execute, refinements_learn

EMAIL = "input_needed submit_credit_card.apply email"


def card_calls(count: int) -> list[dict]:
    """Recorded card applications that worked without the customer's email being known (NESTFUL layout)."""
    arguments = {"name": "Ada", "address": "1 Main St", "income": "85000.00", "card_type": "gold"}
    return [{"sample_id": f"t{i}", "output": [{"name": "submit_credit_card.apply", "arguments": arguments,
                                                 "label": "var1"}]} for i in range(count)]


def test_a_call_recorded_without_an_element_takes_it_off_what_a_run_taught(banking, run):
    # The run's rejections single email out (the card really needs it); recorded calls that worked
    # without it contradict that, and SAM then keeps email out of the safe set: the proposal goes.
    _, taught = refinements_learn(catalog=banking.catalog, run=run)
    assert EMAIL in {p.key for p in taught}
    _, both = refinements_learn(catalog=banking.catalog, run=run, trajectories=card_calls(1))
    assert EMAIL not in {p.key for p in both}


def test_the_review_page_queues_a_job_and_polls_its_status_until_it_is_done(banking, run, logged_in, monkeypatch,
                                                                            django_capture_on_commit_callbacks):
    sent: list[int] = []
    monkeypatch.setattr("orchestrator.learning.tasks.learning_job_run.delay", sent.append)
    with django_capture_on_commit_callbacks(execute=True):
        answer = logged_in.post("/catalogs/banking/review/learn/", {"run": run.pk})
    job = LearningJob.objects.get()
    assert answer.status_code == 302 and answer["Location"].endswith(f"?job={job.pk}") and sent == [job.pk]
    assert not Refinement.objects.exists()  # nothing learned in the request
    page = logged_in.get(answer["Location"]).content.decode()
    assert f"Learning job #{job.pk}: queued" in page and f"/review/jobs/{job.pk}/" in page
    polled = logged_in.get(f"/catalogs/banking/review/jobs/{job.pk}/")
    assert polled.status_code == 200 and "queued" in polled.content.decode()
    done = learning_job_execute(job_id=job.pk)
    assert done.status == JobStatus.DONE and done.proposed == Refinement.objects.count() > 0
    polled = logged_in.get(f"/catalogs/banking/review/jobs/{job.pk}/")
    assert polled.status_code == 286  # htmx stops polling
    assert f"{done.proposed} refinements pending review" in polled.content.decode()
    assert learning_job_execute(job_id=job.pk).proposed == done.proposed  # a redelivered job changes nothing
    assert Refinement.objects.count() == done.proposed


def test_a_running_job_is_left_to_its_worker_until_it_is_stale(banking, run, settings):
    from datetime import timedelta

    from django.utils import timezone

    job = learning_job_create(catalog=banking.catalog, run=run, enqueue=False)
    LearningJob.objects.filter(pk=job.pk).update(status=JobStatus.RUNNING, started_at=timezone.now())
    assert learning_job_execute(job_id=job.pk).status == JobStatus.RUNNING  # a duplicate delivery
    assert not Refinement.objects.exists()
    gone = timezone.now() - timedelta(seconds=settings.CONCERTO_JOB_STALE_SECONDS + 1)
    LearningJob.objects.filter(pk=job.pk).update(started_at=gone)  # its worker died long ago
    assert learning_job_execute(job_id=job.pk).status == JobStatus.DONE


def test_a_trajectories_file_uploaded_on_the_page_goes_with_the_job(banking, run, logged_in, monkeypatch):
    monkeypatch.setattr("orchestrator.learning.tasks.learning_job_run.delay", lambda pk: None)
    upload = SimpleUploadedFile("cards.jsonl", "\n".join(json.dumps(s) for s in card_calls(2)).encode())
    answer = logged_in.post("/catalogs/banking/review/learn/", {"run": run.pk, "trajectories": upload})
    job = LearningJob.objects.get()
    assert answer.status_code == 302 and job.trajectories_name == "cards.jsonl" and len(job.trajectories) == 2
    learning_job_execute(job_id=job.pk)
    keys = set(Refinement.objects.values_list("key", flat=True))
    assert keys and EMAIL not in keys
    assert set(Refinement.objects.values_list("source", flat=True)) == {"run+trajectories"}


@pytest.mark.parametrize(("content", "says"), [
    (b"not json at all", "is not JSON"),
    (b'[{"output": [{"arguments": {}}]}]', "trajectories[0].output[0].name"),
    (b'[{"output": [{"name": "send_fax", "arguments": {}}]}]', "no call names a skill of catalog 'banking'"),
    (b'[{"output": [{"name": "submit_credit_card.fax", "arguments": {}}]}]', "has no mode 'fax'"),
    (b'[{"output": [{"name": "submit_credit_card", "arguments": {}}]}]', "as submit_credit_card.MODE with one of"),
])
def test_a_bad_trajectories_file_is_refused_at_once_with_where_it_is_wrong(banking, logged_in, basic_auth, content,
                                                                           says, tmp_path):
    answer = logged_in.post("/catalogs/banking/review/learn/",
                            {"trajectories": SimpleUploadedFile("bad.json", content)}, follow=True)
    assert says in html.unescape(answer.content.decode()) and not LearningJob.objects.exists()
    if content.startswith(b"["):
        for endpoint in ("learn", "jobs"):
            refused = Client().post(f"/api/v1/catalogs/banking/refinements/{endpoint}",
                                    json.dumps({"trajectories": json.loads(content)}),
                                    content_type="application/json", **basic_auth)
            assert refused.status_code == 422 and says in refused.json()["detail"], refused.json()
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(CommandError) as failed:
        call_command("learn", "banking", "--trajectories", str(path), stdout=StringIO())
    assert failed.value.returncode == 2 and says in str(failed.value)


def test_the_api_queues_a_job_and_answers_its_status(banking, run, basic_auth, monkeypatch,
                                                     django_capture_on_commit_callbacks):
    sent: list[int] = []
    monkeypatch.setattr("orchestrator.learning.tasks.learning_job_run.delay", sent.append)
    client = Client()
    with django_capture_on_commit_callbacks(execute=True):
        queued = client.post("/api/v1/catalogs/banking/refinements/jobs",
                             json.dumps({"run": run.pk, "trajectories": card_calls(1)}),
                             content_type="application/json", **basic_auth)
    assert queued.status_code == 202 and queued.json()["status"] == "queued" and sent == [queued.json()["id"]]
    learning_job_execute(job_id=sent[0])
    status = client.get(f"/api/v1/catalogs/banking/refinements/jobs/{sent[0]}", **basic_auth).json()
    assert status["status"] == "done" and status["proposed"] == Refinement.objects.count() > 0
    assert client.get("/api/v1/catalogs/banking/refinements/jobs/999999", **basic_auth).status_code == 404
    unfinished = run.__class__.objects.filter(pk=run.pk)
    unfinished.update(status=JobStatus.RUNNING)
    refused = client.post("/api/v1/catalogs/banking/refinements/jobs", json.dumps({"run": run.pk}),
                          content_type="application/json", **basic_auth)
    assert refused.status_code == 422 and "learn from a finished run" in refused.json()["detail"]


def test_learn_reads_a_trajectories_file_from_the_command_line(banking, run, tmp_path):
    path = tmp_path / "cards.json"
    path.write_text(json.dumps(card_calls(1)))
    out = StringIO()
    call_command("learn", "banking", "--run", str(run.pk), "--trajectories", str(path), "--json", stdout=out)
    data = json.loads(out.getvalue())
    assert data["trajectories"] == str(path) and data["refinements"]
    assert EMAIL not in {r["key"] for r in data["refinements"]}
