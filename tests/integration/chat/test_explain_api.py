"""Explanations over the chat API, as the widget asks for them, and in the session inspector."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.test import Client

pytestmark = pytest.mark.django_db

LOAN = ["I'd like to apply for a loan", "ada@example.com", "111-22-3333", "yes", "$20,000", "yes", "no"]


@pytest.fixture
def session_id() -> str:
    call_command("load_demo", stdout=io.StringIO())
    client = Client()
    session = client.post("/api/v1/assistants/demo-banking/sessions").json()["id"]
    for text in LOAN:
        assert client.post(f"/api/v1/sessions/{session}/messages", {"text": text},
                           content_type="application/json").status_code == 200
    return session


def explain(session_id: str, query: str) -> tuple[int, dict]:
    response = Client().get(f"/api/v1/sessions/{session_id}/explain?{query}")
    return response.status_code, response.json()


def test_what_lists_the_landmarks_as_items(session_id):
    status, body = explain(session_id, "kind=what")
    assert status == 200 and body["goal"] == "apply_loan"
    assert [i["element"] for i in body["items"]] == ["name", "income", "ssn", "credit_score", "loan_amount",
                                                     "loan_status"]
    assert body["items"][3]["skill"] == "credit_check" and body["items"][3]["inputs"][0]["element"] == "ssn"


def test_how_drills_down_to_the_user(session_id):
    status, body = explain(session_id, "kind=how&element=credit_score")
    assert status == 200
    assert body["item"]["skill"] == "credit_check"
    assert body["item"]["inputs"] == [{"element": "ssn", "label": "your social security number", "source": "user",
                                       "skill": None, "skill_label": None, "inputs": []}]


def test_why_gives_the_step_and_the_chain(session_id):
    status, body = explain(session_id, "kind=why&element=ssn")
    assert status == 200
    assert body["used_by"]["skill"] == "credit_check"
    assert [step["skill"] for step in body["chain"]] == ["credit_check", "submit_loan"]


def test_why_of_a_decision_is_chained(session_id):
    status, body = explain(session_id, "kind=why&element=loan_status")
    assert body["chained"]["feature"] == "credit_score"
    assert [link["element"] for link in body["chained"]["trail"]] == ["credit_score", "ssn"]


def test_sensitive_values_are_masked(session_id):
    for query in ("kind=what", "kind=how&element=ssn", "kind=why&element=ssn"):
        assert "111-22-3333" not in str(explain(session_id, query)[1])


def test_bad_requests(session_id):
    assert explain(session_id, "kind=how")[0] == 422
    assert explain(session_id, "kind=how&element=nope")[0] == 422
    assert explain(session_id, "kind=when")[0] == 422
    assert Client().get("/api/v1/sessions/00000000-0000-0000-0000-000000000000/explain?kind=what").status_code == 404


def test_the_inspector_shows_what_the_user_would_be_told(session_id, django_user_model):
    from catalog_app.models import Role
    from catalog_app.services import membership_set, workspace_get_or_create_default

    user = django_user_model.objects.create_user("insp", password="x-pass-123456")
    membership_set(workspace=workspace_get_or_create_default(), user=user, role=Role.ANALYST)
    client = Client()
    client.force_login(user)
    page = client.get(f"/sessions/{session_id}/").content.decode()
    assert "To apply for a loan, I collected your full name and your yearly income" in page
    assert "I got your credit score from credit check" in page


def test_an_explanation_in_the_transcript_is_not_labelled_as_a_question(session_id, django_user_model):
    from catalog_app.models import Role
    from catalog_app.services import membership_set, workspace_get_or_create_default

    client = Client()
    said = client.post(f"/api/v1/sessions/{session_id}/messages", {"text": "how did you get my credit score?"},
                       content_type="application/json")
    assert said.status_code == 200
    user = django_user_model.objects.create_user("insp2", password="x-pass-123456")
    membership_set(workspace=workspace_get_or_create_default(), user=user, role=Role.ANALYST)
    client.force_login(user)
    page = client.get(f"/sessions/{session_id}/").content.decode()

    assert "asks credit_score" not in page  # the user asked about it; the assistant did not ask for it
    assert "about credit_score" in page
