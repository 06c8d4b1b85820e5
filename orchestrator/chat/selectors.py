"""Reads of live assistants and their conversations: for the widget, the CLI and the inspector.

Everything here that shows a session's values masks those of sensitive elements: only the
runtime reads the real ones, from the stored state.
"""

from __future__ import annotations

import uuid
from typing import Any, Literal

from catalog_app.models import Catalog, Workspace
from catalog_app.planning import version_planner
from catalog_app.selectors import version_spec
from orchestrator.assistants.models import Assistant
from orchestrator.chat.compiled import CompiledGet
from orchestrator.chat.end_user import reply_for_end_user
from orchestrator.chat.models import ChatSession, TraceKind
from orchestrator.chat.vault import state_open, state_or_empty
from orchestrator.engine.errors import UnknownName
from orchestrator.engine.runtime.explain import how_item, how_text, what, why
from orchestrator.engine.runtime.masking import MASK, scrubber_for, sensitive_values

RECENT_SESSIONS = 20


def assistant_by_key(*, key: str) -> Assistant | None:
    return Assistant.objects.select_related("catalog_version__catalog", "workspace").filter(key=key).first()


def assistant_for_catalog(*, catalog: Catalog, key: str | None = None) -> Assistant | None:
    """The published, enabled assistant `key` if it runs a version of `catalog`, else the catalog's first by key."""
    assistants = (Assistant.objects.select_related("catalog_version__catalog")
                  .filter(catalog_version__catalog=catalog, studio_test=False, enabled=True))
    if key is not None:
        assistants = assistants.filter(key=key)
    return assistants.order_by("key").first()


def session_uuid(session_id: uuid.UUID | str) -> uuid.UUID | None:
    """The id as a UUID, or None when it is not one (a malformed id is an unknown session)."""
    try:
        return session_id if isinstance(session_id, uuid.UUID) else uuid.UUID(str(session_id))
    except ValueError:
        return None


def session_get(*, session_id: uuid.UUID | str, workspace: Workspace | None = None) -> ChatSession | None:
    """The session, or None if there is none (or it is not in `workspace`, when given)."""
    pk = session_uuid(session_id)
    if pk is None:
        return None
    sessions = ChatSession.objects.select_related("assistant__catalog_version__catalog", "assistant__workspace")
    if workspace is not None:
        sessions = sessions.filter(assistant__workspace=workspace)
    return sessions.filter(pk=pk).first()


# What the chat API leaves unread on every message and session start: the version's frozen spec
# and compiled domain (kilobytes, for a large catalog megabytes, of JSON and PDDL), which the
# runtime takes from its cache per version (`version_spec`), and long texts it does not show.
_UNREAD_OF_VERSION = ("frozen_spec", "compiled_domain", "description", "note")
_VERSION_UNREAD = tuple(f"catalog_version__{name}" for name in _UNREAD_OF_VERSION)


def session_for_message(*, session_id: uuid.UUID | str) -> ChatSession | None:
    """The session with what a message needs of its assistant, its version and catalog, in one query
    that leaves the version's large columns unread (see `_VERSION_UNREAD`). Read on every message."""
    pk = session_uuid(session_id)
    if pk is None:
        return None
    return _SESSION_FOR_MESSAGE.get(pk)


# Compiled once per process: building this query cost more CPU than PostgreSQL spends running it.
_SESSION_FOR_MESSAGE = CompiledGet(
    lambda pk: ChatSession.objects.select_related("assistant__catalog_version__catalog")
    .defer(*(f"assistant__{name}" for name in _VERSION_UNREAD)).filter(pk=pk))


def assistant_for_chat(*, key: str) -> Assistant | None:
    """The assistant `key` with what starting a conversation needs (see `_VERSION_UNREAD`)."""
    return _ASSISTANT_FOR_CHAT.get(key)


_ASSISTANT_FOR_CHAT = CompiledGet(
    lambda key: Assistant.objects.select_related("catalog_version__catalog").defer(*_VERSION_UNREAD).filter(key=key),
    field="key", kind=str)


def session_recent(*, assistant: Assistant, limit: int = RECENT_SESSIONS) -> list[ChatSession]:
    return list(assistant.sessions.order_by("-updated_at")[:limit])


def session_transcript(*, session: ChatSession) -> list[dict[str, Any]]:
    """The conversation as stored (already masked), oldest first."""
    return [
        {"position": m.position, "role": m.role, "kind": m.kind, "text": m.text, "data": m.data,
         "created_at": m.created_at.isoformat()}
        for m in session.messages.order_by("position")
    ]


def session_public(*, session: ChatSession) -> dict[str, Any]:
    """What anyone holding the session id may read back: the transcript the widget redraws
    after a reload (masked as stored), never the state, nor the studio's reasons (`end_user`). The state
    is `session_debug`, for the studio."""
    lines = []
    for m in session.messages.order_by("position"):
        if m.role == "user":
            lines.append({"role": "user", "kind": "user", "text": m.text, "client_id": m.client_id or None})
        else:
            lines.append({"role": "assistant", "kind": m.kind, **reply_for_end_user(m.data), "text": m.text})
    return {"id": str(session.id), "assistant": session.assistant.key, "transcript": lines}


def session_debug(*, session: ChatSession) -> dict[str, Any]:
    """Transcript and state of a session for debugging, with sensitive values masked."""
    spec = version_spec(version=session.assistant.catalog_version)
    state = state_or_empty(session.state)
    values = sensitive_values(spec, state)
    sensitive = {e.name for e in spec.elements if e.sensitive}
    memory = {
        name: {**item.model_dump(mode="json"), "value": MASK if name in sensitive else item.value}
        for name, item in state.memory.items()
    }
    trace = list(session.trace.order_by("position").values("position", "kind", "data"))
    plans = [event["data"] for event in trace if event["kind"] == TraceKind.PLAN]
    debug = {
        "id": str(session.id),
        "assistant": session.assistant.key,
        "mode": session.assistant.mode,
        "test": session.is_test,
        "catalog": session.assistant.catalog_version.catalog.slug,
        "version": session.assistant.catalog_version.number,
        "created_at": session.created_at.isoformat(),
        "updated_at": session.updated_at.isoformat(),
        "transcript": session_transcript(session=session),
        "goals": [{"intent": frame.intent, "goal": frame.goal.model_dump(mode="json")} for frame in state.goals],
        "pending": state.pending.model_dump(mode="json") if state.pending else None,
        "memory": memory,
        "history": [record.model_dump(mode="json") for record in state.history],
        "plan": list(state.plan),
        "cannot_establish": [list(pair) for pair in state.cannot_establish],
        "pruned": [{"action": action, "args": list(args)} for action, args in state.pruned],
        "authorized": list(state.authorized),
        "denied": list(state.denied),
        "plans": plans,
        "plans_discarded": [plan for plan in plans if plan.get("discarded")],
        "executions": [event["data"] for event in trace if event["kind"] == TraceKind.EXECUTION],
        "shares": [event["data"] for event in trace if event["kind"] == TraceKind.SHARE],
    }
    # History inputs and outputs, free-text values, anything that repeats a value: scrubbed too.
    return scrubber_for(spec, state, extra=values).data(debug)


ExplainKind = Literal["what", "how", "why"]


def session_explain(*, session: ChatSession, kind: ExplainKind, element: str | None = None) -> dict[str, Any]:
    """A structured what / how / why for the widget and the inspector, sensitive values masked.

    Raises UnknownName for a how/why without an element, or with one the catalog lacks.
    """
    version = session.assistant.catalog_version
    spec = version_spec(version=version)
    state = state_open(session.state, session_id=session.pk)
    if kind == "what":
        body: dict[str, Any] = {"kind": "what", **what(spec, version_planner(version=version), state).as_dict()}
    else:
        names = [e.name for e in spec.elements]
        if element not in names:
            raise UnknownName("element", element or "(none given)", names)
        if kind == "how":
            item = how_item(spec, state, element)
            body = {"kind": "how", "element": element, "text": how_text(item), "item": item.as_dict()}
        else:
            body = {"kind": "why", **why(spec, state, element).as_dict()}
    return scrubber_for(spec, state).data(body)
