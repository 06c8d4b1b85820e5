"""The validation pages: a plan's verdict with its coloured diff, batch uploads, progress polling."""

from __future__ import annotations

import html as entities
import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from orchestrator.jobs.models import JobStatus
from orchestrator.validation.models import TrajectoryAnalysis
from orchestrator.validation.services import analysis_create, analysis_run
from tests.unit.engine.flows import CHECK_BEFORE_CONSENT

from .conftest import BANKING_SAMPLES

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}
VALIDATE = "/catalogs/banking/validate/"


def _text(response) -> str:
    html = re.sub(r"<(script|style)\b.*?</\1>", "", response.content.decode(), flags=re.S)
    return entities.unescape(" ".join(re.sub(r"<[^>]+>", " ", html).split()))


@pytest.mark.parametrize("url", [VALIDATE, "/validation/", "/validation/analyses/1/"])
def test_pages_need_a_login(client, banking, url):
    assert client.get(url).status_code == 302


def test_the_validate_page_offers_the_intents_and_the_planners_plan(logged_in, banking):
    page = logged_in.get(VALIDATE)
    assert page.status_code == 200
    html = page.content.decode()
    assert '<option value="apply_loan" selected>apply_loan</option>' in html
    started = logged_in.get(VALIDATE, {"intent": "apply_loan", "start": "planner"})
    assert "loan_status, loan_id = submit_loan(name, income, credit_score, loan_amount)" in started.content.decode()


def test_posting_a_plan_with_htmx_swaps_in_the_verdict_with_its_diff(logged_in, banking):
    form = {"intent": "apply_loan", "quality": "sound", "known": "", "plan": "\n".join(CHECK_BEFORE_CONSENT),
            "version": "1"}
    answer = logged_in.post(VALIDATE, form, **HTMX)
    html = answer.content.decode()
    assert answer.status_code == 200
    assert html.lstrip().startswith('<section id="verdict"')  # the fragment alone
    assert "not sound" in _text(answer)
    assert '<ins class="diff-add">+ authorize(credit_check)</ins>' in html
    assert "line 2: <code>credit_score = credit_check(ssn)</code>" in html


def test_a_plain_post_renders_the_whole_page_and_garbage_is_listed(logged_in, banking):
    form = {"intent": "apply_loan", "quality": "valid", "plan": "ask(email)\nzzz(", "version": "1"}
    page = logged_in.post(VALIDATE, form)
    assert "<html" in page.content.decode()
    text = _text(page)
    assert "sound but not valid" in text and "Lines ignored" in text and "line 2: zzz(" in text
    assert '<del class="diff-del">- zzz(</del>' in page.content.decode()


def test_bad_form_input_is_a_message_in_the_verdict(logged_in, banking):
    answer = logged_in.post(VALIDATE, {"intent": "apply_loan", "quality": "sound", "plan": "ask(email)",
                                       "known": "emial"}, **HTMX)
    assert "unknown element 'emial'" in _text(answer)
    answer = logged_in.post(VALIDATE, {"intent": "nope", "quality": "sound", "plan": "x"}, **HTMX)
    assert "Select a valid choice" in _text(answer)


def test_uploading_a_batch_creates_an_analysis_and_opens_its_page(logged_in, banking, monkeypatch):
    sent = []
    monkeypatch.setattr("orchestrator.validation.tasks.trajectory_analysis_run.delay", sent.append)
    upload = SimpleUploadedFile("nightly.json", json.dumps(BANKING_SAMPLES).encode(), "application/json")
    answer = logged_in.post("/validation/analyses/", {"samples": upload, "catalog": "banking"})
    analysis = TrajectoryAnalysis.objects.get()
    assert answer.status_code == 302 and answer["Location"] == f"/validation/analyses/{analysis.pk}/"
    assert (analysis.name, analysis.total, analysis.version.catalog.slug) == ("nightly.json", 3, "banking")


def test_an_unreadable_upload_is_refused_on_the_form(logged_in, banking):
    upload = SimpleUploadedFile("bad.json", b"{not json", "application/json")
    answer = logged_in.post("/validation/analyses/", {"samples": upload, "catalog": "banking"})
    assert answer.status_code == 422
    assert "the sequences file is not JSON" in _text(answer)
    no_tools = SimpleUploadedFile("calls.json", json.dumps(BANKING_SAMPLES).encode(), "application/json")
    answer = logged_in.post("/validation/analyses/", {"samples": no_tools})
    assert "brings no tools" in _text(answer)
    assert not TrajectoryAnalysis.objects.exists()


def test_the_progress_bar_is_polled_until_the_answer_is_286(logged_in, workspace, banking):
    analysis = analysis_create(workspace=workspace, samples=BANKING_SAMPLES, version=banking, enqueue=False)
    url = f"/validation/analyses/{analysis.pk}/"
    page = logged_in.get(url).content.decode()
    assert 'hx-trigger="every 1s"' in page and '<progress id="analysis-progress" max="3" value="0">' in page

    TrajectoryAnalysis.objects.filter(pk=analysis.pk).update(status=JobStatus.RUNNING, done=2)
    poll = logged_in.get(url, **HTMX)
    assert poll.status_code == 200
    assert '<progress id="analysis-progress" max="3" value="2">' in poll.content.decode()

    analysis_run(analysis_id=analysis.pk)
    final = logged_in.get(url, **HTMX)
    assert final.status_code == 286  # htmx stops polling
    html = final.content.decode()
    assert "every 1s" not in html
    assert "33.3%" in html  # pass rate: 1 of 3
    assert '<title id="chart-title">Failures per tool</title>' in html
    assert "fetch_weather: 1; submit_credit_card: 1" in html  # most failures first, then by name


def test_the_report_downloads_as_json_and_as_a_standalone_page(logged_in, workspace, banking):
    analysis = analysis_create(workspace=workspace, samples=BANKING_SAMPLES, version=banking, name="nightly",
                               enqueue=False)
    base = f"/validation/analyses/{analysis.pk}/"
    assert logged_in.get(base + "report.json").status_code == 404  # not finished yet
    analysis_run(analysis_id=analysis.pk)
    data = logged_in.get(base + "report.json")
    assert data["Content-Disposition"] == f'attachment; filename="trajectory-analysis-{analysis.pk}.json"'
    assert json.loads(data.content)["count"] == 3
    page = logged_in.get(base + "report.html")
    html = page.content.decode()
    assert page["Content-Disposition"].startswith("attachment")
    assert f"<h1>Trajectory analysis #{analysis.pk}: nightly</h1>" in html
    assert "the skills of catalog banking v1" in html and "<svg" in html and "<style>" in html
    assert "studio.css" not in html  # standalone: nothing to fetch


def test_the_index_lists_catalogs_and_analyses(logged_in, workspace, banking):
    analysis_create(workspace=workspace, samples=BANKING_SAMPLES, version=banking, name="nightly", enqueue=False)
    text = _text(logged_in.get("/validation/"))
    assert "Banking assistant" in text and "nightly" in text and "Queued" in text


def test_a_plan_of_ignored_lines_is_no_plan_not_a_sound_one(logged_in, banking):
    form = {"intent": "apply_loan", "quality": "sound", "known": "", "version": "1",
            "plan": "first we greet the customer\nthen call the manager"}
    answer = logged_in.post(VALIDATE, form, **HTMX)

    page = _text(answer)
    assert "no plan read" in page
    assert "no plan to judge: none of the 2 lines is a step" in page
    assert "✔" not in page and "cost 0" not in page
