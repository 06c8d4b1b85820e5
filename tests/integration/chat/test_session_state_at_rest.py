"""A session's values are sealed in the database and dropped after the assistant's retention."""

from __future__ import annotations

import json
from datetime import timedelta
from io import StringIO

import pytest
from cryptography.fernet import Fernet
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from orchestrator.chat.models import ChatSession, Message, ShareAudit
from orchestrator.chat.services import message_post, session_create
from orchestrator.chat.vault import SessionEnded, sessions_purge_values, state_open, state_seal
from orchestrator.engine.runtime.session import SessionState

SSN = "123-45-6789"
SCRIPT = ["I'd like to apply for a loan", "ada@example.com", f"my ssn is {SSN}", "yes"]


@pytest.fixture
def talked(demo) -> ChatSession:
    session, _ = session_create(assistant=demo)
    for text in SCRIPT:
        message_post(session_id=session.pk, text=text)
    return ChatSession.objects.get(pk=session.pk)


def _raw_state(session: ChatSession) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT state::text FROM orchestrator_chatsession WHERE id = %s", [session.pk])
        return cursor.fetchone()[0]


def test_the_database_never_holds_a_value_in_clear(talked):
    raw = _raw_state(talked)
    assert SSN not in raw and "ada@example.com" not in raw and "memory" not in raw
    assert state_open(talked.state).memory["ssn"].value == SSN


def test_a_state_written_before_sealing_is_read_and_sealed_at_the_next_save(demo):
    session, _ = session_create(assistant=demo)
    ChatSession.objects.filter(pk=session.pk).update(state=SessionState().model_dump(mode="json"))
    message_post(session_id=session.pk, text="I'd like to apply for a loan")
    assert set(ChatSession.objects.get(pk=session.pk).state) == {"packed"}


def test_a_state_is_compressed_before_it_is_sealed_and_one_sealed_uncompressed_still_opens(talked):
    import zlib

    from orchestrator.chat.vault import _vault

    state = state_open(talked.state)
    # Compressed, the loan conversation's state stays under the 2 KB at which PostgreSQL moves it out of line.
    assert set(talked.state) == {"packed"} and len(_raw_state(talked)) < 2000
    assert json.loads(zlib.decompress(_vault().decrypt(talked.state["packed"].encode())))["memory"]["ssn"]
    uncompressed = {"sealed": _vault().encrypt(state.model_dump_json().encode()).decode()}
    assert len(json.dumps(uncompressed)) > 2000  # as states were sealed before
    ChatSession.objects.filter(pk=talked.pk).update(state=uncompressed)
    message_post(session_id=talked.pk, text="what are you doing?")
    assert state_open(ChatSession.objects.get(pk=talked.pk).state).memory["ssn"].value == SSN


def test_keys_rotate_new_first_old_still_read(talked, settings):
    state = state_open(talked.state)  # sealed with the key derived from SECRET_KEY
    old = Fernet.generate_key().decode()
    settings.CONCERTO_STATE_KEYS = [old]
    sealed = state_seal(state)
    settings.CONCERTO_STATE_KEYS = [Fernet.generate_key().decode(), old]
    assert state_open(sealed).memory["ssn"].value == SSN
    settings.CONCERTO_STATE_KEYS = [Fernet.generate_key().decode()]  # the old key withdrawn
    with pytest.raises(SessionEnded):
        state_open(sealed)


def test_values_are_dropped_after_the_retention_and_the_conversation_ends(talked, demo, client):
    demo.state_retention_hours = 2
    demo.save()
    assert sessions_purge_values(now=timezone.now() + timedelta(hours=1)) == 0
    assert sessions_purge_values(now=timezone.now() + timedelta(hours=3)) == 1
    talked.refresh_from_db()
    assert talked.state == {"purged": True}
    # The transcript (masked) and the audit (no values) stay.
    assert Message.objects.filter(session=talked).count() > len(SCRIPT)
    assert ShareAudit.objects.filter(session=talked).exists()
    with pytest.raises(SessionEnded):
        message_post(session_id=talked.pk, text="hello")
    answer = client.post(f"/api/v1/sessions/{talked.pk}/messages", json.dumps({"text": "hello"}),
                         content_type="application/json", HTTP_ORIGIN="http://127.0.0.1:8000")
    assert answer.status_code == 422 and "has ended" in answer.json()["detail"]
    # The inspector still opens it.
    assert client.get(f"/api/v1/sessions/{talked.pk}", HTTP_ORIGIN="http://127.0.0.1:8000").status_code == 200


def test_the_purge_command_says_how_many(talked, demo):
    ChatSession.objects.filter(pk=talked.pk).update(updated_at=timezone.now() - timedelta(hours=25))
    out = StringIO()
    call_command("purge_sessions", stdout=out)
    assert out.getvalue().strip() == "purged the values of 1 session"
    call_command("purge_sessions", stdout=out)
    assert "purged the values of 0 sessions" in out.getvalue()


def test_ending_a_conversation_drops_its_values_now(talked, demo, client):
    origin = {"HTTP_ORIGIN": "http://127.0.0.1:8000"}
    answer = client.post(f"/api/v1/sessions/{talked.pk}/end", **origin)
    assert answer.status_code == 200 and answer.json() == {"ended": True}
    talked.refresh_from_db()
    assert talked.state == {"purged": True}
    assert Message.objects.filter(session=talked).count() > len(SCRIPT)
    assert client.post(f"/api/v1/sessions/{talked.pk}/end", **origin).json() == {"ended": False}
    refused = client.post(f"/api/v1/sessions/{talked.pk}/messages", json.dumps({"text": "hello"}),
                          content_type="application/json", **origin)
    assert refused.status_code == 422 and "has ended" in refused.json()["detail"]


def test_another_site_cannot_end_a_conversation(talked, client):
    answer = client.post(f"/api/v1/sessions/{talked.pk}/end", HTTP_ORIGIN="https://evil.example")
    assert answer.status_code == 403
    talked.refresh_from_db()
    assert talked.state != {"purged": True}


def test_a_turn_running_when_the_conversation_ends_writes_nothing(talked, monkeypatch):
    from orchestrator.chat import services as chat_services
    from orchestrator.chat.vault import session_end

    build = chat_services.runtime_for

    def ended_mid_turn(assistant, *, seed):
        runtime = build(assistant, seed=seed)
        turn = runtime.bot.turn

        def turn_then_end(state, text):
            log = turn(state, text)
            session_end(talked)  # the user pressed "New conversation" while this turn ran
            return log

        runtime.bot.turn = turn_then_end
        return runtime

    monkeypatch.setattr(chat_services, "runtime_for", ended_mid_turn)
    count = Message.objects.filter(session=talked).count()
    with pytest.raises(chat_services.SessionBusy):
        message_post(session_id=talked.pk, text="$20,000")
    talked.refresh_from_db()
    assert talked.state == {"purged": True}
    assert Message.objects.filter(session=talked).count() == count
