"""Conversation tests by API (members save and run, admins set the gate) and by `test_conversations` (CI)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from orchestrator.conversation_tests.models import ConversationTest

from .conftest import LOAN, ssn_not_sensitive, talk

pytestmark = pytest.mark.django_db
BASE = "/api/v1/catalogs/banking/conversation-tests"


def _post(client: Client, path: str, body: dict, auth: dict) -> object:
    return client.post(path, body, content_type="application/json", **auth)


def test_a_member_saves_a_session_lists_and_runs_the_tests(client, banking, basic_auth):
    session = talk(banking, LOAN[:2])
    saved = _post(client, f"{BASE}/from-session", {"session": str(session.pk), "name": "email first"}, basic_auth)
    assert saved.status_code == 201, saved.content
    assert saved.json()["turns"][1]["expect"]["skills"] == ["lookup_customer"]
    listed = client.get(BASE, **basic_auth).json()
    assert [t["name"] for t in listed] == ["email first"]
    run = _post(client, f"{BASE}/runs", {"version": 1}, basic_auth)
    assert run.status_code == 200 and run.json()["ok"] and run.json()["passed"] == 1


def test_a_test_given_whole_is_checked_and_reports_its_first_difference(client, banking, basic_auth):
    bad = _post(client, BASE, {"name": "t", "turns": [{"user": "hi", "expect": {"asked": "email"}}]}, basic_auth)
    assert bad.status_code == 422 and bad.json()["errors"][0]["path"] == "turns[0].expect.asked"
    made = _post(client, BASE, {"name": "wrong ask", "turns": [
        {"user": "I'd like to apply for a loan", "expect": {"intents": ["apply_loan"], "asked": ["ssn"]}}]}, basic_auth)
    assert made.status_code == 201
    result = _post(client, f"{BASE}/runs", {}, basic_auth).json()
    assert not result["ok"]
    assert result["results"][0] | {"test": 0} == {"test": 0, "name": "wrong ask", "passed": False, "turn": 1,
                                                  "user": "I'd like to apply for a loan",
                                                  "difference": "asked for: expected ssn, got email"}
    test_id = made.json()["id"]
    fixed = client.put(f"{BASE}/{test_id}", {"turns": [{"user": "I'd like to apply for a loan",
                                                        "expect": {"asked": ["email"]}}]},
                       content_type="application/json", **basic_auth)
    assert fixed.status_code == 200 and _post(client, f"{BASE}/runs", {}, basic_auth).json()["ok"]
    assert client.delete(f"{BASE}/{test_id}", **basic_auth).status_code == 204
    assert not ConversationTest.objects.exists()


def test_only_admins_require_the_tests(client, banking, basic_auth, admin_auth):
    body = {"required": True}
    refused = client.put(f"{BASE}/policy", body, content_type="application/json", **basic_auth)
    assert refused.status_code == 403
    allowed = client.put(f"{BASE}/policy", body, content_type="application/json", **admin_auth)
    assert allowed.status_code == 200 and allowed.json() == {"required": True}


def test_another_catalogs_or_unknown_session_is_a_404(client, banking, basic_auth):
    assert _post(client, f"{BASE}/from-session", {"session": "nope", "name": "x"}, basic_auth).status_code == 404
    assert client.get("/api/v1/catalogs/nosuch/conversation-tests", **basic_auth).status_code == 404


def _command(*args: str) -> tuple[int, str]:
    out = StringIO()
    try:
        call_command("test_conversations", *args, stdout=out)
    except CommandError as exc:
        return exc.returncode, out.getvalue() + str(exc)
    return 0, out.getvalue()


def test_the_command_exits_0_when_all_pass_1_on_a_failure_and_2_on_bad_input(banking, loan_test, analyst):
    status, text = _command("banking", "--version", "1")
    assert status == 0 and "1 passed, 0 failed" in text and "pass  loan with consent" in text
    ssn_not_sensitive(banking, analyst)
    status, text = _command("banking")  # the latest: version 2, where the SSN needs no consent
    assert status == 1 and "FAIL  loan with consent: turn 3 ('123-45-6789'): asked for" in text
    assert _command("nosuch")[0] == 2
    assert _command("banking", "--version", "9")[0] == 2
