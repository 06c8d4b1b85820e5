"""Writes of conversations with live assistants: start a session, post a message.

A message takes the session's lease (`lease_token`, `lease_until`: one conditional UPDATE), runs
its turn with no database transaction open (skill calls may be slow), then writes the turn in one
short transaction that re-locks the row, checks the lease is still its own and clears it. So two
messages to one session run one after the other, each on the state the other left; a slow skill
holds up its own session only, and no database lock or connection transaction while it waits;
a failure leaves nothing half-saved. A message finding the lease taken waits a little, then gets
SessionBusy (the API's 409 with Retry-After). A lease lapses after CONCERTO_CHAT_LEASE_SECONDS,
so a worker killed mid-turn blocks its session that long at most; a turn whose lease lapsed and
was taken over writes nothing.
A turn whose first remote skill call finds every slot taken (`skill_slots`) stops there with
SkillsBusy: no remote skill of it ran, and nothing of it is written.
Transcripts and traces are stored with the values of sensitive elements masked; the session
state keeps them (the runtime must send them on), encrypted at rest (`vault`).
"""

from __future__ import annotations

import json
import time
import uuid
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Exists, Q
from django.utils import timezone

from orchestrator.assistants.models import Assistant
from orchestrator.chat.hints import reply_with_hints
from orchestrator.chat.models import ChatSession, Message, MessageRole, ShareAudit, TraceEvent, TraceKind
from orchestrator.chat.runtime import runtime_for
from orchestrator.chat.selectors import session_for_message, session_uuid
from orchestrator.chat.vault import PURGED, state_open, state_seal
from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.errors import ConcertoError
from orchestrator.engine.runtime.masking import Scrubber, scrubber_for, sensitive_values
from orchestrator.engine.runtime.nlu import control_act
from orchestrator.engine.runtime.session import SessionState
from orchestrator.engine.runtime.turns import TurnLog

MAX_MESSAGE_CHARS = 2000


class SessionNotFound(ConcertoError):
    def __init__(self, session_id: object):
        super().__init__(f"unknown session '{session_id}'")


class SessionBusy(ConcertoError):
    """Another message of the session is being answered (or took over a lapsed turn): send again."""

    def __init__(self, session_id: object, *, retry_after: int, lapsed: bool = False):
        told = ("the turn took too long and the conversation went on without it; send the message again"
                if lapsed else "the previous message of this conversation is still being answered; "
                               f"send again in {retry_after} s")
        super().__init__(f"session '{session_id}': {told}")
        self.retry_after = retry_after


class MessageInvalid(ConcertoError):
    """An empty or oversized message; `path` names the request field, as the API reports it."""

    path = "text"


class ClientIdInvalid(MessageInvalid):
    path = "client_id"


MAX_CLIENT_ID_CHARS = 64


# --- sessions --------------------------------------------------------------------------------------


def _seed(session: ChatSession, turn: int) -> int:
    """The simulated skills' seed for one turn: from the session, so a replay draws the same.

    The runtime (and with it the simulator's random generator) is rebuilt every turn, since only
    the state persists; mixing in the turn keeps successive turns from repeating one draw.
    """
    return session.id.int % 2**32 + turn


def session_create(*, assistant: Assistant) -> tuple[ChatSession, list[dict[str, Any]]]:
    """A new conversation with `assistant`, greeted; the greeting is the transcript's first line."""
    session = ChatSession(assistant=assistant, state=state_seal(SessionState()),
                          catalog_version_id=assistant.catalog_version_id, mode=assistant.mode)
    runtime = runtime_for(assistant, seed=_seed(session, 0))
    try:
        replies = [reply_with_hints(runtime.spec, reply.as_dict()) for reply in runtime.bot.greet()]
    finally:
        runtime.release()
    session.message_count = len(replies)
    rows = _assistant_rows(0, replies, None)
    if _by_hand():
        _session_insert_by_hand(session, rows)
    else:
        _session_insert(session, rows)
    return session, replies


@transaction.atomic
def _session_insert(session: ChatSession, rows: list[dict[str, Any]]) -> None:
    session.save()
    Message.objects.bulk_create(Message(session=session, **row) for row in rows)


def _check_text(text: str) -> str:
    text = text.strip()
    if not text:
        raise MessageInvalid("the message is empty")
    if len(text) > MAX_MESSAGE_CHARS:
        raise MessageInvalid(f"the message is {len(text)} characters long; at most {MAX_MESSAGE_CHARS} are read")
    return text


def _check_client_id(client_id: str) -> str:
    client_id = client_id.strip()
    if len(client_id) > MAX_CLIENT_ID_CHARS:
        raise ClientIdInvalid(f"the client id is longer than {MAX_CLIENT_ID_CHARS} characters")
    return client_id


def _replies_to(session: ChatSession, client_id: str) -> list[dict[str, Any]] | None:
    """The stored (masked) replies to the user message the widget sent as `client_id`, if it ran."""
    asked = session.messages.filter(role=MessageRole.USER, client_id=client_id).values_list("position", flat=True)
    position = asked.first()
    if position is None:
        return None
    following = session.messages.filter(position__gt=position).order_by("position")
    replies = []
    for message in following:
        if message.role == MessageRole.USER:
            break
        replies.append(message.data)
    return replies


def _lease_take(session_id: uuid.UUID, token: uuid.UUID, *, known: ChatSession | None = None,
                client_id: str = "") -> bool:
    """Take the session's lease, if it is free or has lapsed: one statement, atomic on its own.

    With `known` (the session as the caller read it), only if the row is still that version (no
    turn landed since: every turn adds messages) and, with `client_id`, that message never ran:
    then `known` is current and need not be read again. The count is checked on the row itself,
    so a turn landing while this statement waits for the row makes it take nothing.
    """
    now = timezone.now()
    until = now + timedelta(seconds=settings.CONCERTO_CHAT_LEASE_SECONDS)
    if _by_hand():
        sql = [f'UPDATE "{_SESSIONS}" SET lease_token = %s, lease_until = %s'
               " WHERE id = %s AND (lease_token IS NULL OR lease_until < %s)"]
        args: list[Any] = [token, until, session_id, now]
        if known is not None:
            sql.append("AND message_count = %s AND trace_count = %s AND NOT (state = %s::jsonb)")
            args += [known.message_count, known.trace_count, _PURGED_JSON]
            if client_id:
                sql.append(f'AND NOT EXISTS (SELECT 1 FROM "{_MESSAGES}" WHERE session_id = %s AND client_id = %s)')
                args += [session_id, client_id]
        with connection.cursor() as cursor:
            cursor.execute(" ".join(sql), args)
            return cursor.rowcount > 0
    rows = ChatSession.objects.filter(Q(lease_token__isnull=True) | Q(lease_until__lt=now), pk=session_id)
    if known is not None:
        rows = rows.filter(message_count=known.message_count, trace_count=known.trace_count).exclude(state=PURGED)
        if client_id:
            rows = rows.exclude(Exists(Message.objects.filter(session_id=session_id, client_id=client_id)))
    return bool(rows.update(lease_token=token, lease_until=until))


def _lease_release(session_id: uuid.UUID, token: uuid.UUID) -> None:
    ChatSession.objects.filter(pk=session_id, lease_token=token).update(lease_token=None, lease_until=None)


def _lease_wait(session_id: uuid.UUID, token: uuid.UUID, client_id: str,
                known: ChatSession | None) -> tuple[ChatSession, list | None]:
    """The session with its lease taken by `token`, or the stored replies of `client_id` (no lease).

    Another message's turn holds the lease: wait for it a little (CONCERTO_CHAT_LEASE_WAIT
    seconds), then SessionBusy; the widget sends again with the same client id.
    """
    if known is not None and _lease_take(session_id, token, known=known, client_id=client_id):
        return known, None  # one statement: the common case under load
    deadline = time.monotonic() + settings.CONCERTO_CHAT_LEASE_WAIT
    pause = 0.02
    while True:
        taken = _lease_take(session_id, token)
        session = session_for_message(session_id=session_id)
        if session is None:
            raise SessionNotFound(session_id)
        # A copy of a message whose turn has landed: its replies, whoever holds the lease now.
        stored = _replies_to(session, client_id) if client_id else None
        if stored is not None:
            if taken:
                _lease_release(session_id, token)
            return session, stored
        if taken:
            return session, None
        if time.monotonic() >= deadline:
            raise SessionBusy(session_id, retry_after=max(1, round(settings.CONCERTO_CHAT_LEASE_WAIT)))
        time.sleep(pause)
        pause = min(pause * 2, 0.2)


def message_post(*, session_id: uuid.UUID | str, text: str, client_id: str = "",
                 known: ChatSession | None = None) -> list[dict[str, Any]]:
    """One user message through the orchestrator; the assistant's replies, as the API gives them.

    A message that carries a `client_id` already seen in this session runs no turn: its stored
    replies come back (masked as stored), so a widget may resend after a network blip. The check
    runs with the session's lease held, so two copies racing each other run one turn. `known`:
    the session as the caller just read it (with its assistant), reused if it is still current.
    """
    text = _check_text(text)
    client_id = _check_client_id(client_id)
    pk = session_uuid(session_id)
    if pk is None:
        raise SessionNotFound(session_id)
    token = uuid.uuid4()
    session, stored = _lease_wait(pk, token, client_id, known if known is not None and known.pk == pk else None)
    if stored is not None:
        return stored
    try:
        # No transaction is open here: a slow skill holds this session's lease, no database lock.
        started = time.monotonic()
        position = session.message_count
        runtime = runtime_for(session.assistant, seed=_seed(session, position))
        state = state_open(session.state, session_id=session.pk)
        hidden = _answer_hidden(runtime.spec, state, text)
        before = sensitive_values(runtime.spec, state)

        try:
            log = runtime.bot.turn(state, text)
        finally:
            runtime.release()  # the turn's remote skills are done: another turn may call its own

        values = list(dict.fromkeys(before + sensitive_values(runtime.spec, state)))
        if hidden and Scrubber.known_only(values).text(text) == text:
            values.append(text)  # an unread answer to a sensitive question: hidden whole
        scrub = scrubber_for(runtime.spec, state, extra=values)
        replies = [reply_with_hints(runtime.spec, reply.as_dict()) for reply in log.replies]
        marks = [reply.mark or "" for reply in log.replies]
        elapsed = round((time.monotonic() - started) * 1000)
        _turn_save(session, token, position, text, client_id, state, log, replies, scrub, elapsed, marks)
    except BaseException:
        _lease_release(pk, token)  # nothing of the turn was written; the next message may run
        raise
    return replies


def _turn_save(session: ChatSession, token: uuid.UUID, position: int, text: str, client_id: str,
               state: SessionState, log: TurnLog, replies: list[dict[str, Any]], scrub: Scrubber,
               elapsed_ms: int | None = None, marks: list[str] | None = None) -> None:
    """The turn's rows, written all or nothing if the lease is still ours; the lease is cleared.

    The session's UPDATE comes first: it takes the row lock and checks the lease in one statement
    (no row: the lease lapsed and another message took the session over, so nothing is written).
    Under our lease nobody else writes, so the counts are still the ones the turn started from.
    On PostgreSQL that UPDATE and the INSERTs are one statement (data-modifying WITH clauses, each
    INSERT only if the UPDATE found the row), atomic on its own: one round trip, no BEGIN/COMMIT.
    """
    start = session.trace_count
    events = _trace_events(position, log, scrub)
    # The rows' fields as dicts (a model instance costs ~30x more to build; the ORM path makes them).
    user = {"position": position, "role": MessageRole.USER, "kind": "user", "text": scrub.text(text), "data": {},
            "client_id": client_id, "turn_ms": elapsed_ms, "mark": ""}
    messages = [user, *_assistant_rows(position + 1, replies, scrub, marks)]
    traces = [{"position": start + offset, "kind": kind, "data": data} for offset, (kind, data) in enumerate(events)]
    shares = [{"assistant_id": session.assistant_id, "element": s.element, "skill": s.skill, "consent": s.consent,
               "step": s.step} for s in log.shares]
    sealed = state_seal(state)
    if _by_hand():
        claimed = _turn_write_by_hand(session.pk, token, position, start, sealed, messages, traces, shares)
    else:
        claimed = _turn_write(session.pk, token, position, start, sealed, messages, traces, shares)
    if not claimed:
        raise SessionBusy(session.pk, retry_after=1, lapsed=True)


@transaction.atomic
def _turn_write(pk: uuid.UUID, token: uuid.UUID, position: int, start: int, sealed: dict[str, Any],
                messages: list[dict], traces: list[dict], shares: list[dict]) -> bool:
    claimed = (ChatSession.objects.filter(pk=pk, lease_token=token, message_count=position, trace_count=start)
               .update(state=sealed, message_count=position + len(messages), trace_count=start + len(traces),
                       updated_at=timezone.now(), lease_token=None, lease_until=None))
    if not claimed:
        return False
    Message.objects.bulk_create(Message(session_id=pk, **row) for row in messages)
    if traces:
        TraceEvent.objects.bulk_create(TraceEvent(session_id=pk, **row) for row in traces)
    if shares:
        ShareAudit.objects.bulk_create(ShareAudit(session_id=pk, **row) for row in shares)
    return True


# --- PostgreSQL: the statements of every message written by hand -------------------------------------
# Compiling the ORM's UPDATEs and bulk INSERTs cost more CPU than PostgreSQL spends running them
# (bench/turn_cost.py). The same statements and conditions as the ORM's (the other vendors use it).

_SESSIONS, _MESSAGES, _TRACES, _SHARES = (m._meta.db_table for m in (ChatSession, Message, TraceEvent, ShareAudit))
_PURGED_JSON = json.dumps(PURGED)


def _by_hand() -> bool:
    return connection.vendor == "postgresql"


def _insert_if_claimed(name: str, table: str, columns: str, casts: tuple[str, ...],
                       rows: list[tuple], after: str = "claimed") -> tuple[str, list[Any]]:
    """One WITH clause inserting `rows` into `table` if the clause `after` wrote the session's row."""
    row = "(" + ", ".join(f"%s::{cast}" for cast in casts) + ")"
    sql = (f'{name} AS (INSERT INTO "{table}" ({columns}) SELECT * FROM (VALUES {", ".join([row] * len(rows))}) '
           f"AS v({columns}) WHERE EXISTS (SELECT 1 FROM {after}))")
    return sql, [value for r in rows for value in r]


_MESSAGE_COLUMNS = "session_id, position, role, kind, text, data, created_at, client_id, turn_ms, mark"
_MESSAGE_CASTS = ("uuid", "integer", "varchar", "varchar", "text", "jsonb", "timestamptz", "varchar", "integer",
                  "varchar")


def _message_values(pk: uuid.UUID, messages: list[dict[str, Any]], now: Any) -> list[tuple]:
    return [(pk, m["position"], m["role"], m["kind"], m["text"], json.dumps(m["data"]), now, m["client_id"],
             m["turn_ms"], m["mark"]) for m in messages]


def _session_insert_by_hand(session: ChatSession, messages: list[dict[str, Any]]) -> None:
    """The session's row and its greeting in one statement (atomic on its own: no BEGIN/COMMIT), the
    same columns as `_session_insert`'s save() writes; `session` then reads as saved."""
    now = timezone.now()
    session.created_at = session.updated_at = now
    sql = (f'WITH created AS (INSERT INTO "{_SESSIONS}" (id, assistant_id, state, message_count, trace_count,'
           " created_at, updated_at, lease_token, lease_until, catalog_version_id, mode)"
           " VALUES (%s, %s, %s::jsonb, %s, %s, %s, %s, NULL, NULL, %s, %s) RETURNING id)")
    args: list[Any] = [session.pk, session.assistant_id, json.dumps(session.state), session.message_count,
                       session.trace_count, now, now, session.catalog_version_id, session.mode]
    if messages:
        clause, values = _insert_if_claimed("greeting", _MESSAGES, _MESSAGE_COLUMNS, _MESSAGE_CASTS,
                                            _message_values(session.pk, messages, now), after="created")
        sql += ", " + clause
        args += values
    _execute_alone(sql + " SELECT count(*) FROM created", args)
    session._state.adding = False
    session._state.db = connection.alias


def _turn_write_by_hand(pk: uuid.UUID, token: uuid.UUID, position: int, start: int, sealed: dict[str, Any],
                        messages: list[dict], traces: list[dict], shares: list[dict]) -> bool:
    now = timezone.now()
    clauses = [f'claimed AS (UPDATE "{_SESSIONS}" SET state = %s::jsonb, message_count = %s, trace_count = %s,'
               " updated_at = %s, lease_token = NULL, lease_until = NULL"
               " WHERE id = %s AND lease_token = %s AND message_count = %s AND trace_count = %s RETURNING id)"]
    args: list[Any] = [json.dumps(sealed), position + len(messages), start + len(traces), now,
                       pk, token, position, start]
    inserts = [
        ("messages", _MESSAGES, _MESSAGE_COLUMNS, _MESSAGE_CASTS, _message_values(pk, messages, now)),
        ("traces", _TRACES, "session_id, position, kind, data, created_at",
         ("uuid", "integer", "varchar", "jsonb", "timestamptz"),
         [(pk, t["position"], t["kind"], json.dumps(t["data"]), now) for t in traces]),
        ("shares", _SHARES, "session_id, assistant_id, element, skill, consent, step, created_at",
         ("uuid", "bigint", "varchar", "varchar", "varchar", "integer", "timestamptz"),
         [(pk, a["assistant_id"], a["element"], a["skill"], a["consent"], a["step"], now) for a in shares]),
    ]
    for name, table, columns, casts, rows in inserts:
        if rows:
            sql, values = _insert_if_claimed(name, table, columns, casts, rows)
            clauses.append(sql)
            args += values
    return _execute_alone("WITH " + ", ".join(clauses) + " SELECT count(*) FROM claimed", args) > 0


def _execute_alone(sql: str, args: list[Any]) -> int:
    """Run one statement and return its single number: on its own it is atomic (no BEGIN/COMMIT);
    inside a caller's transaction, in a savepoint, as the ORM paths would be."""
    if connection.in_atomic_block:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, args)
            return cursor.fetchone()[0]
    with connection.cursor() as cursor:
        cursor.execute(sql, args)
        return cursor.fetchone()[0]


def _answer_hidden(spec: CatalogSpec, state: SessionState, text: str) -> bool:
    """Is `text` the answer to a question for a sensitive value?

    Such an answer may hold the value mistyped (an SSN without dashes), which the masking by known
    values cannot find; side questions and control words ("stop", "why?") are not answers.
    """
    pending = state.pending
    if pending is None or pending.kind != "ask" or not pending.element or control_act(text) is not None:
        return False
    return spec.element(pending.element).sensitive


def _trace_events(turn: int, log: TurnLog, scrub: Scrubber) -> list[tuple[str, dict[str, Any]]]:
    """Plans, skill calls and shares of one turn (`turn`: the position of the user's message), masked.

    The engine's log keeps the order within each kind, not across kinds, so they are stored
    kind by kind; `turn` groups them with the message that caused them.
    """
    events: list[tuple[str, dict[str, Any]]] = []
    events += [(TraceKind.PLAN, p.event()) for p in log.plans]
    events += [(TraceKind.EXECUTION, e.model_dump(mode="json")) for e in log.executions]
    events += [(TraceKind.SHARE, s.event()) for s in log.shares]
    return [(kind, scrub.data({"turn": turn, **data})) for kind, data in events]


def _assistant_rows(start: int, replies: list[dict[str, Any]], scrub: Scrubber | None,
                    marks: list[str] | None = None) -> list[dict[str, Any]]:
    marks = marks or [""] * len(replies)
    return [
        {"position": start + offset, "role": MessageRole.ASSISTANT, "kind": reply["kind"],
         "text": scrub.text(reply["text"]) if scrub else reply["text"], "data": scrub.data(reply) if scrub else reply,
         "client_id": "", "turn_ms": None, "mark": mark}
        for offset, (reply, mark) in enumerate(zip(replies, marks, strict=True))
    ]
