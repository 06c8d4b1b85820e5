"""The chat API the embeddable widget talks to; no login: the publishable key names the assistant.

    POST /assistants/{key}/sessions   start a conversation: 201 {"id", "replies"}
    POST /sessions/{id}/messages      {"text"} -> {"replies"}
    GET  /sessions/{id}               the transcript (masked), for a widget redrawing after a reload
    GET  /sessions/{id}/debug         transcript and state, for logged-in studio users of its workspace

Disabled assistants answer 403; the studio's test assistants (drafts) are not served here at all.

A request that carries an `Origin` (a browser) must come from one of the assistant's allowed
origins (403 otherwise); one without (a server, the CLI) is let through. Allowed origins get CORS
headers, also on errors, so the widget can show them. Messages are rate limited per session and
per client address, session starts per address (429 with Retry-After; with the cache down, as
CONCERTO_CHAT_RATE_WHEN_DOWN says). When too many turns already wait on remote skills, a message
gets 503 "busy" with Retry-After before any remote call (`skill_slots`). A message sent while the
session's previous one is still being answered waits a little, then gets 409 with Retry-After (the
widget sends it again with the same client_id). Errors have the shape
{"detail", "errors": [{"path", "message"}]} like the rest of the API.
"""

from __future__ import annotations

import logging
from typing import Any, Literal

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from ninja import Router, Schema, Status
from ninja.errors import HttpError
from pydantic import ConfigDict, Field

from catalog_app.access import api_workspace
from catalog_app.api_base import ErrorOut, studio_auth
from catalog_app.client_ip import client_ip
from orchestrator.assistants.models import Assistant
from orchestrator.chat import rate_limits
from orchestrator.chat.end_user import NOT_ANSWERING, replies_for_end_user
from orchestrator.chat.models import ChatSession
from orchestrator.chat.selectors import (
    assistant_for_chat,
    session_debug,
    session_explain,
    session_for_message,
    session_get,
    session_public,
)
from orchestrator.chat.services import (
    MAX_CLIENT_ID_CHARS,
    MAX_MESSAGE_CHARS,
    MessageInvalid,
    SessionBusy,
    message_post,
    session_create,
)
from orchestrator.chat.skill_slots import SkillsBusy
from orchestrator.chat.vault import session_end
from orchestrator.engine.errors import SpecError, UnknownName

router = Router(tags=["chat"])
log = logging.getLogger(__name__)

ADDRESS_FACTOR = 4  # one address may be several people (an office behind one NAT)
CORS_METHODS = "GET, POST, OPTIONS"


class ReplyOut(Schema):
    # Fields the runtime adds later reach the widget too (it renders what it knows, ignores the rest).
    model_config = ConfigDict(extra="allow")

    kind: Literal["text", "question", "consent", "result", "resumed", "explanation"]
    text: str
    element: str | None = Field(None, description="question: the element asked for")
    skill: str | None = Field(None, description="consent: the skill that would receive the values")
    elements: list[str] | None = Field(None, description="consent: the sensitive elements to share")
    goal: str | None = Field(None, description="result, resumed, offer: the intent")
    data: dict[str, Any] | None = None
    label: str | None = Field(None, description="question: the element's wording")
    hint: str | None = Field(None, description="question: the expected format, e.g. 'an amount, e.g. $20,000'")
    options: list[str] | None = Field(None, description="question: the values to offer as buttons (an enum)")
    skill_label: str | None = Field(None, description="consent: the skill's wording")
    element_labels: list[str] | None = Field(None, description="consent: the elements' wording")


class SessionOut(Schema):
    id: str
    replies: list[ReplyOut]


class WidgetOut(Schema):
    key: str
    title: str  # the assistant's name: the widget's title when its tag gives none


class MessageIn(Schema):
    text: str = Field(description=f"what the user typed; at most {MAX_MESSAGE_CHARS} characters")
    client_id: str = Field("", description="the client's id of this message: a resend with the same id runs no "
                                           f"second turn, the stored replies come back (at most {MAX_CLIENT_ID_CHARS})")


class RepliesOut(Schema):
    replies: list[ReplyOut]


# --- checks ------------------------------------------------------------------------------------------


def _serving(assistant: Assistant) -> None:
    if not assistant.enabled:
        raise HttpError(403, f"assistant '{assistant.key}' is not available")


def _assistant(key: str) -> Assistant:
    assistant = assistant_for_chat(key=key)
    if assistant is None or assistant.studio_test:
        raise HttpError(404, f"unknown assistant '{key}'")
    _serving(assistant)
    return assistant


def _session(session_id: str) -> ChatSession:
    session = session_for_message(session_id=session_id)
    if session is None or session.assistant.studio_test:
        raise HttpError(404, f"unknown session '{session_id}'")
    _serving(session.assistant)
    return session


def _check_origin(request: HttpRequest, response: HttpResponse, assistant: Assistant) -> None:
    """403 for a browser on a page the assistant is not published on; CORS headers otherwise."""
    origin = request.headers.get("Origin")
    if origin is None:
        return
    if origin.rstrip("/").lower() not in assistant.allowed_origins:
        raise HttpError(403, f"origin '{origin}' is not allowed for assistant '{assistant.key}'")
    response["Access-Control-Allow-Origin"] = origin
    response["Access-Control-Expose-Headers"] = "Retry-After"  # the widget waits as told on 409/429
    response["Vary"] = "Origin"


def _limited(response: HttpResponse, *buckets: tuple[str, int]) -> Status | None:
    """429 with Retry-After if a bucket is over its limit this minute (the request counts in each);
    503 with Retry-After if the limits cannot count and the deployment refuses then (`rate_limits`)."""
    verdict = rate_limits.check(*buckets)
    if not verdict.refused:
        return None
    response["Retry-After"] = str(verdict.retry_after)
    if verdict.unavailable:
        return Status(503, {"detail": "the chat is not available right now; try again shortly", "errors": []})
    return Status(429, {"detail": "too many messages; try again in a minute", "errors": []})


def _busy(response: HttpResponse, exc: SkillsBusy) -> Status:
    """Every slot for turns in remote skills is taken (`skill_slots`): nothing ran; send again."""
    response["Retry-After"] = str(exc.retry_after)
    return Status(503, {"detail": str(exc), "errors": []})


def _not_answering(response: HttpResponse, exc: SpecError, where: str) -> Status:
    """The assistant itself is at fault (its catalog cannot be loaded or planned: "the catalog has 1
    problem"): the team's to fix. The log keeps the issues; the user is told in their terms (`end_user`).
    Other errors (a message too long, a conversation that has ended) are the user's and say so."""
    log.error("chat %s: the assistant cannot answer: %s %s", where, exc,
              "; ".join(str(issue) for issue in exc.issues))
    response["Retry-After"] = str(rate_limits.WINDOW)
    return Status(503, {"detail": NOT_ANSWERING, "errors": []})


# --- endpoints ---------------------------------------------------------------------------------------


@router.post("/assistants/{key}/sessions",
             response={201: SessionOut, 403: ErrorOut, 404: ErrorOut, 429: ErrorOut, 503: ErrorOut},
             exclude_none=True, summary="Start a conversation with an assistant")
def session_start(request: HttpRequest, response: HttpResponse, key: str) -> Status:
    assistant = _assistant(key)
    _check_origin(request, response, assistant)
    rate = settings.CONCERTO_CHAT_RATE
    limited = _limited(response, (f"start:{client_ip(request)}", rate))
    if limited:
        return limited
    try:
        session, replies = session_create(assistant=assistant)
    except SkillsBusy as exc:
        return _busy(response, exc)
    except SpecError as exc:
        return _not_answering(response, exc, f"assistant '{assistant.key}'")
    return Status(201, {"id": str(session.id), "replies": replies_for_end_user(replies)})


@router.get("/assistants/{key}/widget", response={200: WidgetOut, 403: ErrorOut, 404: ErrorOut},
            summary="May the widget show on this page? (the page's origin is checked) and the assistant's name")
def assistant_check(request: HttpRequest, response: HttpResponse, key: str) -> Status:
    """Asked by the widget before it shows its launcher: a page the assistant is not published on gets 403
    (and no CORS headers), so the launcher never shows there. Nothing is stored."""
    assistant = _assistant(key)
    _check_origin(request, response, assistant)
    return Status(200, {"key": assistant.key, "title": assistant.name})


@router.post("/sessions/{session_id}/messages",
             response={200: RepliesOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 422: ErrorOut, 429: ErrorOut,
                       503: ErrorOut},
             exclude_none=True, summary="Send a message; the assistant's replies come back "
                                        "(503 with Retry-After when it is too busy: send it again)")
def message_send(request: HttpRequest, response: HttpResponse, session_id: str, payload: MessageIn) -> Status:
    session = _session(session_id)
    _check_origin(request, response, session.assistant)
    rate = settings.CONCERTO_CHAT_RATE
    limited = _limited(response, (f"session:{session.pk}", rate),
                       (f"address:{client_ip(request)}", rate * ADDRESS_FACTOR))
    if limited:
        return limited
    try:
        replies = message_post(session_id=session.pk, text=payload.text, client_id=payload.client_id, known=session)
    except MessageInvalid as exc:
        return Status(422, {"detail": str(exc), "errors": [{"path": exc.path, "message": str(exc)}]})
    except SessionBusy as exc:
        # The previous message's turn still runs: the widget sends this one again (same client_id).
        response["Retry-After"] = str(exc.retry_after)
        return Status(409, {"detail": str(exc), "errors": []})
    except SkillsBusy as exc:
        return _busy(response, exc)
    except SpecError as exc:
        return _not_answering(response, exc, f"session {session.pk}")
    return Status(200, {"replies": replies_for_end_user(replies)})


class EndedOut(Schema):
    ended: bool = Field(description="true when this call ended it; false when it had ended already")


@router.post("/sessions/{session_id}/end", response={200: EndedOut, 403: ErrorOut, 404: ErrorOut},
             summary="End a conversation: the values the user gave are dropped now (the transcript stays)")
def session_end_send(request: HttpRequest, response: HttpResponse, session_id: str) -> Status:
    session = _session(session_id)
    _check_origin(request, response, session.assistant)
    return Status(200, {"ended": session_end(session)})


@router.get("/sessions/{session_id}", response={200: dict[str, Any], 403: ErrorOut, 404: ErrorOut},
            summary="A session's transcript (sensitive values masked), for the widget after a reload")
def session_read(request: HttpRequest, response: HttpResponse, session_id: str) -> Status:
    session = _session(session_id)
    _check_origin(request, response, session.assistant)
    return Status(200, session_public(session=session))


@router.get("/sessions/{session_id}/debug", response={200: dict[str, Any], 401: ErrorOut, 404: ErrorOut},
            auth=studio_auth(), summary="A session's transcript and state, for studio users (values masked)")
def session_debug_read(request: HttpRequest, session_id: str) -> Status:
    # Test sessions too: they are the studio's own. Another workspace's session is a 404.
    session = session_get(session_id=session_id, workspace=api_workspace(request))
    if session is None:
        raise HttpError(404, f"unknown session '{session_id}'")
    return Status(200, session_debug(session=session))


@router.get("/sessions/{session_id}/explain", response={200: dict[str, Any], 403: ErrorOut, 404: ErrorOut,
                                                         422: ErrorOut, 503: ErrorOut},
            summary="What did the assistant do, how did it get a value, why did it need it (structured)")
def session_explain_read(request: HttpRequest, response: HttpResponse, session_id: str,
                         kind: Literal["what", "how", "why"], element: str | None = None) -> Status:
    session = _session(session_id)
    _check_origin(request, response, session.assistant)
    try:
        return Status(200, session_explain(session=session, kind=kind, element=element))
    except UnknownName as exc:
        # The full message lists every element of the catalog: for the log, not for anonymous users.
        log.info("explain refused for session %s: %s", session.pk, exc)
        told = f"unknown element '{element}'" if element else "name the element to explain"
        return Status(422, {"detail": told, "errors": [{"path": "query.element", "message": told}]})
    except SpecError as exc:
        return _not_answering(response, exc, f"session {session.pk}")


# --- CORS preflight: a browser asks before it POSTs JSON from another origin ---------------------------


def _preflight(request: HttpRequest, assistant: Assistant) -> HttpResponse:
    response = HttpResponse(status=204)
    _check_origin(request, response, assistant)
    response["Access-Control-Allow-Methods"] = CORS_METHODS
    response["Access-Control-Allow-Headers"] = "Content-Type"
    response["Access-Control-Max-Age"] = "600"
    return response


@router.api_operation(["OPTIONS"], "/assistants/{key}/sessions", include_in_schema=False)
def session_start_preflight(request: HttpRequest, key: str) -> HttpResponse:
    return _preflight(request, _assistant(key))


@router.api_operation(["OPTIONS"], "/sessions/{session_id}/messages", include_in_schema=False)
def message_send_preflight(request: HttpRequest, session_id: str) -> HttpResponse:
    return _preflight(request, _session(session_id).assistant)


@router.api_operation(["OPTIONS"], "/sessions/{session_id}/end", include_in_schema=False)
def session_end_preflight(request: HttpRequest, session_id: str) -> HttpResponse:
    return _preflight(request, _session(session_id).assistant)


@router.api_operation(["OPTIONS"], "/sessions/{session_id}", include_in_schema=False)
def session_read_preflight(request: HttpRequest, session_id: str) -> HttpResponse:
    return _preflight(request, _session(session_id).assistant)
