"""A turn's rows holding JSON are written as VALUES rows: on PostgreSQL, Django's UNNEST form for
several rows has psycopg escape every quote of every document in Python (RowsJSONField)."""

from __future__ import annotations

from django.db import connection
from django.test.utils import CaptureQueriesContext

from orchestrator.chat.models import Message, TraceEvent


def test_a_turns_messages_and_trace_are_inserted_as_rows_not_arrays(demo, widget):
    session = widget.start().json()["id"]
    with CaptureQueriesContext(connection) as queries:
        widget.send(session, "I'd like to apply for a loan")
    tables = ('INSERT INTO "orchestrator_message"', 'INSERT INTO "orchestrator_traceevent"')
    inserts = [q["sql"] for q in queries.captured_queries if q["sql"].startswith(tables)]
    assert len(inserts) == 2, inserts  # the messages and the trace events, each in one statement
    assert not any("UNNEST" in sql for sql in inserts)
    assert Message.objects.filter(session_id=session).count() >= 3  # greeting, the message, a reply
    assert TraceEvent.objects.filter(session_id=session).count() >= 1
    assert all(isinstance(m.data, dict) for m in Message.objects.filter(session_id=session))
