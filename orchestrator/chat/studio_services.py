"""The studio's test chat: talk to the version being edited (a draft) without publishing it.

Same runtime and session storage as live chat (`services`): a test session belongs to the
version's hidden test assistant (`assistants.services.studio_test_assistant`), so it is marked as
a test session everywhere and never served by the public API.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from catalog_app.models import CatalogVersion
from orchestrator.assistants.services import studio_test_assistant
from orchestrator.chat.hints import reply_with_hints
from orchestrator.chat.models import ChatSession, TraceKind
from orchestrator.chat.runtime import runtime_for
from orchestrator.chat.services import message_post, session_create
from orchestrator.modes import AssistantMode


@dataclass
class StudioTurn:
    """One exchange as the panel shows it: what was said, and what the orchestrator did."""

    text: str
    replies: list[dict[str, Any]]
    plans: list[dict[str, Any]] = field(default_factory=list)
    executions: list[dict[str, Any]] = field(default_factory=list)


def studio_greeting(*, version: CatalogVersion, mode: str = AssistantMode.PLANNER) -> StudioTurn:
    """What a new test conversation opens with; no session is stored until the analyst says something
    (the panel reloads after every edit: sessions nobody talked in would pile up)."""
    runtime = runtime_for(studio_test_assistant(version=version, mode=mode), seed=0)
    try:
        return StudioTurn(text="", replies=[reply_with_hints(runtime.spec, r.as_dict()) for r in runtime.bot.greet()])
    finally:
        runtime.release()


def studio_message_post(*, session: ChatSession | None, version: CatalogVersion, mode: str,
                        text: str) -> tuple[ChatSession, StudioTurn]:
    """One message of a test conversation (started by it when `session` is None), with the plans
    and skill calls of its turn, read back from the trace."""
    if session is None:
        session, _ = session_create(assistant=studio_test_assistant(version=version, mode=mode))
    client_id = uuid.uuid4().hex
    replies = message_post(session_id=session.pk, text=text, client_id=client_id, known=session)
    position = session.messages.filter(client_id=client_id).values_list("position", flat=True).first()
    events = session.trace.filter(data__turn=position).order_by("position")
    return session, StudioTurn(
        text=text, replies=replies,
        plans=[e.data for e in events if e.kind == TraceKind.PLAN],
        executions=[e.data for e in events if e.kind == TraceKind.EXECUTION],
    )
