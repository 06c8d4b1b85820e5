"""A turn's rows holding JSON are written as VALUES rows: on PostgreSQL, Django's UNNEST form for
several rows has psycopg escape every quote of every document in Python (RowsJSONField); there the
turn's write is one statement written by hand (the session's UPDATE, then the INSERTs)."""

from __future__ import annotations

from django.db import connection
from django.test.utils import CaptureQueriesContext

from orchestrator.chat.models import ChatSession, Message, TraceEvent


def test_a_turns_messages_and_trace_are_inserted_as_rows_not_arrays(demo, widget):
    session = widget.start().json()["id"]
    with CaptureQueriesContext(connection) as queries:
        widget.send(session, "I'd like to apply for a loan")
    tables = ('INSERT INTO "orchestrator_message"', 'INSERT INTO "orchestrator_traceevent"')
    if connection.vendor == "postgresql":
        # By hand (services._turn_write_by_hand): the session's UPDATE and both INSERTs in one statement.
        writes = [q["sql"] for q in queries.captured_queries if any(table in q["sql"] for table in tables)]
        assert len(writes) == 1, writes
        assert writes[0].startswith('WITH claimed AS (UPDATE "orchestrator_chatsession"')
        assert all(table in writes[0] for table in tables)
        assert "VALUES" in writes[0] and "UNNEST" not in writes[0]
        assert not any(q["sql"] in ("BEGIN", "COMMIT") for q in queries.captured_queries)
    else:
        inserts = [q["sql"] for q in queries.captured_queries if q["sql"].startswith(tables)]
        assert len(inserts) == 2, inserts  # the messages and the trace events, each in one statement
        assert not any("UNNEST" in sql for sql in inserts)
    assert Message.objects.filter(session_id=session).count() >= 3  # greeting, the message, a reply
    assert TraceEvent.objects.filter(session_id=session).count() >= 1
    assert all(isinstance(m.data, dict) for m in Message.objects.filter(session_id=session))


def test_a_session_starts_in_one_statement_with_every_column_the_model_has(demo, widget):
    with CaptureQueriesContext(connection) as queries:
        session = widget.start().json()["id"]
    writes = [q["sql"] for q in queries.captured_queries if q["sql"].startswith(("INSERT", "WITH", "UPDATE"))]
    if connection.vendor == "postgresql":
        # By hand (services._session_insert_by_hand): the session's row and its greeting, no BEGIN/COMMIT.
        assert len(writes) == 1 and writes[0].startswith('WITH created AS (INSERT INTO "orchestrator_chatsession"')
        assert 'INSERT INTO "orchestrator_message"' in writes[0]
        assert not any(q["sql"] in ("BEGIN", "COMMIT") for q in queries.captured_queries)
        # A field added to the model must be written here too (or have a database default).
        columns = writes[0].split("(", 2)[2].split(")")[0]
        assert {f.column for f in ChatSession._meta.concrete_fields} == {c.strip() for c in columns.split(",")}
    row = ChatSession.objects.get(pk=session)
    assert row.assistant_id == demo.pk and row.catalog_version_id == demo.catalog_version_id
    assert row.mode == demo.mode and row.trace_count == 0 and row.lease_token is None
    assert row.created_at is not None and row.created_at == row.updated_at
    greeting = list(Message.objects.filter(session_id=session).order_by("position"))
    assert [m.position for m in greeting] == list(range(row.message_count)) and greeting
    assert all(m.role == "assistant" and isinstance(m.data, dict) and m.created_at == row.created_at
               for m in greeting)
    assert widget.send(session, "I'd like to apply for a loan").status_code == 200
