"""A turn's rows holding JSON are written as VALUES rows: on PostgreSQL, Django's UNNEST form for
several rows has psycopg escape every quote of every document in Python (RowsJSONField); there the
turn's write is one statement written by hand (the session's UPDATE, then the INSERTs)."""

from __future__ import annotations

from django.db import connection
from django.test.utils import CaptureQueriesContext

from orchestrator.chat.models import Message, TraceEvent


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
