"""Publishing assistants (service, command, API, screen) and what the public chat API gives away."""

from __future__ import annotations

import base64
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client

from catalog_app.models import VersionStatus
from catalog_app.selectors import version_latest, version_live
from catalog_app.services import catalog_import, version_promote
from orchestrator.assistants.models import Assistant
from orchestrator.assistants.services import studio_test_assistant
from orchestrator.chat.models import Message
from orchestrator.chat.services import message_post, session_create

from .conftest import DEMO_KEY, Widget

pytestmark = pytest.mark.django_db


def _login(username: str) -> Client:
    client = Client()
    client.force_login(get_user_model().objects.get(username=username))
    return client


def _basic(username: str) -> dict[str, str]:
    token = base64.b64encode(f"{username}:{username}".encode()).decode()
    return {"HTTP_AUTHORIZATION": f"Basic {token}"}


# --- one turn per client id ----------------------------------------------------------------------


def test_a_resent_message_runs_one_turn_and_gets_the_same_replies(demo, widget):
    session_id = widget.start().json()["id"]
    url = f"/api/v1/sessions/{session_id}/messages"
    body = {"text": "I'd like to apply for a loan", "client_id": "m-1"}
    first = widget.client.post(url, body, content_type="application/json", headers={"Origin": widget.origin})
    again = widget.client.post(url, body, content_type="application/json", headers={"Origin": widget.origin})
    assert first.status_code == again.status_code == 200
    assert first.json() == again.json() and first.json()["replies"][-1]["element"] == "email"
    assert Message.objects.filter(session_id=session_id, role="user").count() == 1
    # A new id is a new message, even with the same words.
    third = widget.client.post(url, {**body, "client_id": "m-2"}, content_type="application/json",
                               headers={"Origin": widget.origin})
    assert third.status_code == 200
    assert Message.objects.filter(session_id=session_id, role="user").count() == 2


def test_a_resent_sensitive_answer_comes_back_masked(demo):
    session, _ = session_create(assistant=demo)
    message_post(session_id=session.pk, text="I'd like to apply for a loan", client_id="a")
    message_post(session_id=session.pk, text="ada@example.com", client_id="b")
    first = message_post(session_id=session.pk, text="123-45-6789", client_id="c")
    assert message_post(session_id=session.pk, text="123-45-6789", client_id="c") == first
    assert session.messages.filter(role="user").count() == 3


# --- what the public API gives away ----------------------------------------------------------------


def test_the_public_read_is_the_transcript_and_the_state_needs_a_studio_login(demo, widget, studio_debug):
    session_id = widget.start().json()["id"]
    widget.send(session_id, "I'd like to apply for a loan")
    public = widget.read(session_id).json()
    assert set(public) == {"id", "assistant", "transcript"}
    kinds = [line["kind"] for line in public["transcript"]]
    assert kinds[1] == "user" and kinds[-1] == "question"
    assert public["transcript"][-1]["element"] == "email"
    anonymous = Client().get(f"/api/v1/sessions/{session_id}/debug")
    assert anonymous.status_code == 401
    debug = studio_debug(session_id).json()
    assert debug["goals"][0]["intent"] == "apply_loan" and debug["test"] is False


def test_an_explain_error_does_not_list_the_catalog(demo, widget, caplog):
    session_id = widget.start().json()["id"]
    answer = Client().get(f"/api/v1/sessions/{session_id}/explain?kind=how&element=nope")
    assert answer.status_code == 422
    assert answer.json()["detail"] == "unknown element 'nope'"
    assert "loan_status" not in answer.content.decode()
    assert "loan_status" in caplog.text  # the full message is logged


def test_a_disabled_assistant_answers_nobody(demo, widget):
    session_id = widget.start().json()["id"]
    admin = _login("admin")
    answer = admin.patch(f"/api/v1/assistants/{DEMO_KEY}", {"enabled": False}, content_type="application/json")
    assert answer.status_code == 200 and answer.json()["enabled"] is False
    assert widget.start().status_code == 403
    assert widget.send(session_id, "hello").status_code == 403
    assert version_live(catalog=demo.catalog_version.catalog) is None  # nothing live any more


def test_test_sessions_are_not_served_by_the_public_api(demo, widget):
    draft = version_latest(catalog=demo.catalog_version.catalog)
    tester = studio_test_assistant(version=draft)
    session, _ = session_create(assistant=tester)
    assert session.is_test
    assert Widget(widget.client, origin=None).start(tester.key).status_code == 404
    assert Widget(widget.client, origin=None).read(str(session.pk)).status_code == 404
    assert version_live(catalog=draft.catalog) == demo.catalog_version  # a test chat is not live


# --- the command ------------------------------------------------------------------------------------


def test_publish_command_publishes_the_latest_promoted_version(workspace, banking_spec):
    first = version_promote(version=catalog_import(workspace=workspace, spec=banking_spec), user=None)
    catalog_import(workspace=workspace, spec=banking_spec.model_copy(update={"title": "draft"}))
    out = StringIO()
    call_command("publish", "banking", "--key", "bank", "--origin", "https://Shop.example.com/", "https://b.example",
                 "--orchestrator", "s3", "--origin", "http://localhost:8001", stdout=out)
    assistant = Assistant.objects.get(key="bank")
    assert (assistant.catalog_version, assistant.mode) == (first, "s3")
    assert assistant.allowed_origins == ["https://shop.example.com", "https://b.example", "http://localhost:8001"]
    assert "Published assistant 'bank' (s3) on banking version 1" in out.getvalue()
    assert 'data-assistant="bank"' in out.getvalue()
    assert version_live(catalog=first.catalog) == first


def test_publish_command_refuses_drafts_and_catalogs_without_promotion(workspace, banking_spec):
    catalog_import(workspace=workspace, spec=banking_spec)
    with pytest.raises(CommandError, match="has no promoted version"):
        call_command("publish", "banking", "--key", "bank")
    with pytest.raises(CommandError, match="version 1 of 'banking' is a draft; promote it"):
        call_command("publish", "banking", "--key", "bank", "--version", "1")
    with pytest.raises(CommandError, match="unknown catalog 'nope'"):
        call_command("publish", "nope", "--key", "bank")
    assert not Assistant.objects.exists()


def test_publish_command_again_moves_the_assistant(workspace, banking_spec):
    version_promote(version=catalog_import(workspace=workspace, spec=banking_spec), user=None)
    call_command("publish", "banking", "--key", "bank", stdout=StringIO())
    second = version_promote(version=catalog_import(workspace=workspace, spec=banking_spec.model_copy(
        update={"title": "v2"})), user=None)
    out = StringIO()
    call_command("publish", "banking", "--key", "bank", stdout=out)
    assert Assistant.objects.get(key="bank").catalog_version == second
    assert "Updated assistant 'bank'" in out.getvalue()


# --- the API ----------------------------------------------------------------------------------------


def test_admins_publish_switch_and_rotate_over_the_api(demo):
    admin = Client()
    catalog = demo.catalog_version.catalog
    created = admin.post("/api/v1/assistants", {"catalog": "banking", "key": "bank-s3", "orchestrator": "s3",
                                                "allowed_origins": ["https://shop.example.com"]},
                         content_type="application/json", **_basic("admin"))
    assert created.status_code == 201, created.content
    assert created.json() == {"key": "bank-s3", "name": catalog.versions.get(number=1).title, "catalog": "banking",
                              "version": 1, "orchestrator": "s3", "enabled": True,
                              "allowed_origins": ["https://shop.example.com"]}
    draft = version_latest(catalog=catalog)
    refused = admin.patch("/api/v1/assistants/bank-s3", {"version": draft.number}, content_type="application/json",
                          **_basic("admin"))
    assert refused.status_code == 422 and "is a draft" in refused.json()["detail"] + str(refused.json()["errors"])
    rotated = admin.post("/api/v1/assistants/bank-s3/rotate-key", **_basic("admin"))
    assert rotated.status_code == 200
    new_key = rotated.json()["key"]
    assert new_key != "bank-s3" and new_key.startswith("bank-")
    assert Client().post("/api/v1/assistants/bank-s3/sessions").status_code == 404
    assert Client().post(f"/api/v1/assistants/{new_key}/sessions").status_code == 201
    listed = admin.get("/api/v1/assistants?catalog=banking", **_basic("admin")).json()
    assert sorted(a["key"] for a in listed) == sorted([DEMO_KEY, new_key])


def test_analysts_read_but_do_not_publish_over_the_api(demo):
    client = Client()
    assert client.get("/api/v1/assistants", **_basic("analyst")).status_code == 200
    answer = client.post("/api/v1/assistants", {"catalog": "banking", "key": "mine"},
                         content_type="application/json", **_basic("analyst"))
    assert answer.status_code == 403
    assert client.post(f"/api/v1/assistants/{DEMO_KEY}/rotate-key", **_basic("analyst")).status_code == 403
    assert Client().get("/api/v1/assistants").status_code == 401


# --- the screen ---------------------------------------------------------------------------------------


def test_the_assistants_screen_publishes_and_shows_what_is_live(demo):
    admin = _login("admin")
    page = admin.get("/catalogs/banking/assistants/").content.decode()
    assert DEMO_KEY in page and "live on v1" in page and 'data-assistant="demo-banking"' in page
    answer = admin.post("/catalogs/banking/assistants/publish/",
                        {"name": "Shop", "key": "shop", "mode": "planner", "version": demo.catalog_version.pk,
                         "origins": "https://shop.example.com\nhttps://www.example.com"})
    assert answer.status_code == 302
    shop = Assistant.objects.get(key="shop")
    assert shop.allowed_origins == ["https://shop.example.com", "https://www.example.com"]
    bad = admin.post("/catalogs/banking/assistants/publish/",
                     {"key": "bad", "mode": "planner", "version": demo.catalog_version.pk, "origins": "shop.example"})
    assert bad.status_code == 422 and "is not an origin" in bad.content.decode()
    admin.post("/catalogs/banking/assistants/shop/disable/")
    assert Assistant.objects.get(key="shop").enabled is False
    follow = admin.post("/catalogs/banking/assistants/shop/rotate/", follow=True).content.decode()
    assert "The key &#x27;shop&#x27; no longer works" in follow
    assert not Assistant.objects.filter(key="shop").exists()


def test_an_analyst_reads_the_assistants_screen_and_changes_nothing(demo):
    """Issue 24: the screen let an analyst disable, re-key, re-origin and publish; the API refused all four."""
    analyst = _login("analyst")
    page = analyst.get("/catalogs/banking/assistants/").content.decode()
    assert DEMO_KEY in page and "live on v1" in page and 'data-assistant="demo-banking"' in page
    assert "Only an admin of the workspace publishes" in page and "Rotate the key" not in page
    before = Assistant.objects.get(key=DEMO_KEY)
    refused = [
        analyst.post(f"/catalogs/banking/assistants/{DEMO_KEY}/version/", {"version": "1"}),
        analyst.post(f"/catalogs/banking/assistants/{DEMO_KEY}/disable/"),
        analyst.post(f"/catalogs/banking/assistants/{DEMO_KEY}/rotate/"),
        analyst.post(f"/catalogs/banking/assistants/{DEMO_KEY}/origins/", {"origins": "https://evil.example"}),
        analyst.post("/catalogs/banking/assistants/publish/",
                     {"name": "Mine", "key": "mine", "mode": "planner", "version": demo.catalog_version.pk}),
    ]
    assert [r.status_code for r in refused] == [403] * 5
    assert "You cannot do that here" in refused[2].content.decode()
    assert "only an admin of the workspace can rotate" in refused[2].content.decode().lower()
    after = Assistant.objects.get(key=DEMO_KEY)
    assert (after.key, after.enabled, after.allowed_origins) == (before.key, True, before.allowed_origins)
    assert not Assistant.objects.filter(key="mine").exists()


def test_an_admin_switches_the_version_on_the_screen(demo, banking_spec):
    catalog = demo.catalog_version.catalog
    newer = version_promote(version=version_latest(catalog=catalog), user=None)
    admin = _login("admin")
    answer = admin.post(f"/catalogs/banking/assistants/{DEMO_KEY}/version/", {"version": str(newer.number)},
                        follow=True)
    assert f"now runs version {newer.number}" in answer.content.decode()
    demo.refresh_from_db()
    assert demo.catalog_version == newer and newer.status == VersionStatus.PROMOTED
    assert version_live(catalog=catalog) == newer


def test_chat_command_talks_to_published_assistants_only(workspace, banking_spec):
    draft = catalog_import(workspace=workspace, spec=banking_spec)
    session_create(assistant=studio_test_assistant(version=draft))  # the studio's test chat ran the draft
    with pytest.raises(CommandError, match="no assistant runs this catalog"):
        call_command("chat", "banking", stdin=StringIO("hello\n"), stdout=StringIO())
    version_promote(version=draft, user=None)
    call_command("publish", "banking", "--key", "bank", stdout=StringIO())
    out = StringIO()
    call_command("chat", "banking", stdin=StringIO("I'd like to apply for a loan\n"), stdout=out)
    assert "with assistant 'bank'" in out.getvalue() and "email address" in out.getvalue()


def test_every_version_an_enabled_assistant_runs_is_marked_live(demo):
    catalog = demo.catalog_version.catalog
    newer = version_promote(version=version_latest(catalog=catalog), user=None)
    admin = _login("admin")
    admin.post("/catalogs/banking/assistants/publish/", {"key": "bank-new", "mode": "planner", "version": newer.pk})
    page = admin.get("/catalogs/banking/versions/").content.decode()
    for number in (1, newer.number):
        row = page[page.index(f'id="version-{number}"'):].split("</tr>")[0]
        assert "live</span>" in row, number
    admin.post(f"/catalogs/banking/assistants/{DEMO_KEY}/disable/")
    page = admin.get("/catalogs/banking/versions/").content.decode()
    assert "live</span>" not in page[page.index('id="version-1"'):].split("</tr>")[0]
