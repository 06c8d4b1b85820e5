"""The studio's conversation-test pages: save from the test chat, edit, run all, and the promotion's part."""

from __future__ import annotations

import pytest
from django.test import Client

from orchestrator.conversation_tests.models import ConversationTest, ConversationTestPolicy

from .conftest import LOAN, talk

pytestmark = pytest.mark.django_db


def test_the_test_chat_saves_its_conversation_as_a_test(logged_in, banking):
    session = talk(banking, LOAN[:2])
    answer = logged_in.post("/catalogs/banking/tests/save/", {"session": str(session.pk), "name": "loan start"})
    assert answer.status_code == 200 and "Saved as test" in answer.content.decode()
    assert ConversationTest.objects.get().turns[0]["expect"]["asked"] == ["email"]
    again = logged_in.post("/catalogs/banking/tests/save/", {"session": str(session.pk), "name": "loan start"})
    assert "already has a test named" in again.content.decode()
    empty = logged_in.post("/catalogs/banking/tests/save/", {"session": "", "name": "nothing"})
    assert "say something in the test chat first" in empty.content.decode()
    panel = logged_in.get("/catalogs/banking/test-chat/?version=1").content.decode()
    assert 'hx-post="/catalogs/banking/tests/save/"' in panel


def test_run_all_shows_pass_and_fail_with_the_first_difference(logged_in, loan_test):
    page = logged_in.get("/catalogs/banking/tests/?version=1").content.decode()
    assert "loan with consent" in page and "have not been run on v1" in page
    assert logged_in.post("/catalogs/banking/tests/run/", {"version": "1"}).status_code == 302
    page = logged_in.get("/catalogs/banking/tests/?version=1").content.decode()
    assert "v1: 1 passed, 0 failed" in page
    # Break the test in its form: turn 1 now expects the SSN to be asked.
    form = logged_in.get(f"/catalogs/banking/tests/{loan_test.pk}/?version=1").content.decode()
    assert 'name="turn-0-asked" value="email"' in form and 'name="turn-4-user" value=""' in form
    data = {"name": "loan with consent", "mode": "planner", "rows": "5", "version": "1"}
    for index, turn in enumerate(loan_test.turns):
        data[f"turn-{index}-user"] = turn["user"]
        for key, names in turn["expect"].items():
            data[f"turn-{index}-{key}"] = ", ".join(names)
    data["turn-0-asked"], data["turn-1-filled"] = "ssn", "*"
    assert logged_in.post(f"/catalogs/banking/tests/{loan_test.pk}/", data).status_code == 302
    loan_test.refresh_from_db()
    assert loan_test.turns[0]["expect"]["asked"] == ["ssn"] and "filled" not in loan_test.turns[1]["expect"]
    logged_in.post("/catalogs/banking/tests/run/", {"version": "1"})
    page = logged_in.get("/catalogs/banking/tests/?version=1").content.decode()
    assert "v1: 0 passed, 1 failed" in page and "turn 1" in page and "asked for: expected ssn, got email" in page


def test_a_bad_form_is_shown_again_with_the_fault(logged_in, loan_test):
    data = {"name": "loan with consent", "mode": "planner", "rows": "1", "version": "1",
            "turn-0-user": "hi", "turn-0-asked": "two words"}
    answer = logged_in.post(f"/catalogs/banking/tests/{loan_test.pk}/", data)
    assert answer.status_code == 200 and "turns[0].expect.asked" in answer.content.decode()


def test_the_promotion_page_shows_the_tests_and_only_admins_change_the_gate(logged_in, loan_test, admin):
    promotion = logged_in.get("/catalogs/banking/promotion/?version=1").content.decode()
    assert 'hx-get="/catalogs/banking/tests/gate/?version=1"' in promotion
    fragment = logged_in.get("/catalogs/banking/tests/gate/?version=1").content.decode()
    assert "does not require the conversation tests" in fragment and "tests-required-box" not in fragment
    assert logged_in.post("/catalogs/banking/tests/policy/", {"required": "on", "version": "1"}).status_code == 403
    admin_client = Client()
    admin_client.force_login(admin)
    assert "tests-required-box" in admin_client.get("/catalogs/banking/tests/gate/?version=1").content.decode()
    assert admin_client.post("/catalogs/banking/tests/policy/", {"required": "on", "version": "1"}).status_code == 302
    assert ConversationTestPolicy.objects.get().required
    assert "requires every conversation test to pass" in logged_in.get(
        "/catalogs/banking/tests/gate/?version=1").content.decode()


def test_a_versions_promotion_summary_shows_the_tests_and_their_forms_return_there(logged_in, loan_test, admin):
    admin_client = Client()
    admin_client.force_login(admin)
    summary = admin_client.get("/catalogs/banking/v1/promote/confirm/").content.decode()
    assert 'hx-get="/catalogs/banking/tests/gate/?version=1"' in summary
    here = "http://testserver/catalogs/banking/v1/promote/confirm/"
    fragment = admin_client.get("/catalogs/banking/tests/gate/?version=1", headers={"HX-Current-URL": here})
    assert f'name="back" value="{here}"' in fragment.content.decode()
    ran = admin_client.post("/catalogs/banking/tests/run/", {"version": "1", "back": here})
    assert ran.status_code == 302 and ran["Location"] == here
    elsewhere = admin_client.post("/catalogs/banking/tests/run/", {"version": "1", "back": "https://evil.example/"})
    assert elsewhere["Location"] == "/catalogs/banking/tests/?version=1"
