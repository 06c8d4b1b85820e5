"""Conversation tests over the API, under /api/v1/catalogs/{slug}/conversation-tests (any member;
the policy: admins).

    GET    /catalogs/{slug}/conversation-tests               the catalog's tests
    POST   /catalogs/{slug}/conversation-tests               save a test given whole (201)
    POST   /catalogs/{slug}/conversation-tests/from-session  save a test-chat session as a test (201)
    GET    /catalogs/{slug}/conversation-tests/{id}          one test
    PUT    /catalogs/{slug}/conversation-tests/{id}          change its name, orchestrator or turns
    DELETE /catalogs/{slug}/conversation-tests/{id}          remove it (204)
    POST   /catalogs/{slug}/conversation-tests/runs          run every test on a version (latest by default)
    PUT    /catalogs/{slug}/conversation-tests/policy        require the tests to pass for promotion (admins)

A turn is {"user": text, "expect": {"intents", "asked", "filled", "consent", "skills", "goals": [names]}};
an expectation left out is not checked, an empty list means "none".
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from django.http import HttpRequest
from ninja import Router, Schema, Status
from ninja.errors import HttpError
from pydantic import ConfigDict, Field

from catalog_app.access import api_version, api_workspace
from catalog_app.api_base import ErrorOut, studio_auth
from catalog_app.models import Catalog
from catalog_app.selectors import catalog_get
from orchestrator.chat.selectors import session_get
from orchestrator.engine.errors import UnknownName

from .models import ConversationTest, ConversationTestRun
from .selectors import conversation_test_get, conversation_test_list
from .services import (
    conversation_test_create,
    conversation_test_delete,
    conversation_test_from_session,
    conversation_test_update,
    conversation_tests_policy_set,
    conversation_tests_run,
)

router = Router(tags=["conversation tests"], auth=studio_auth())


class TestIn(Schema):
    model_config = ConfigDict(extra="forbid")

    name: str
    mode: Literal["planner", "s3"] = "planner"
    turns: list[dict[str, Any]]


class TestChangeIn(Schema):
    model_config = ConfigDict(extra="forbid")

    name: str | None = None
    mode: Literal["planner", "s3"] | None = None
    turns: list[dict[str, Any]] | None = None


class FromSessionIn(Schema):
    model_config = ConfigDict(extra="forbid")

    session: str = Field(description="the id of a test-chat session of this catalog")
    name: str


class RunIn(Schema):
    model_config = ConfigDict(extra="forbid")

    version: int | None = Field(default=None, description="version number; the latest when left out")


class PolicyIn(Schema):
    model_config = ConfigDict(extra="forbid")

    required: bool


class TestOut(Schema):
    id: int
    name: str
    mode: str
    turns: list[dict[str, Any]]
    updated_at: datetime


class RunOut(Schema):
    id: int
    version: int
    passed: int
    failed: int
    ok: bool
    results: list[dict[str, Any]]
    created_at: datetime


def _catalog(request: HttpRequest, slug: str) -> Catalog:
    try:
        return catalog_get(workspace=api_workspace(request), slug=slug)
    except UnknownName as exc:
        raise HttpError(404, str(exc)) from exc


def _test(request: HttpRequest, slug: str, test_id: int) -> ConversationTest:
    found = conversation_test_get(catalog=_catalog(request, slug), pk=test_id)
    if found is None:
        raise HttpError(404, f"catalog '{slug}' has no conversation test {test_id}")
    return found


def _run_out(run: ConversationTestRun) -> dict[str, Any]:
    return {"id": run.pk, "version": run.version.number, "passed": run.passed, "failed": run.failed, "ok": run.ok,
            "results": run.results, "created_at": run.created_at}


@router.get("/{slug}/conversation-tests", response={200: list[TestOut], 404: ErrorOut})
def tests_get(request: HttpRequest, slug: str) -> Any:
    return list(conversation_test_list(catalog=_catalog(request, slug)))


@router.post("/{slug}/conversation-tests", response={201: TestOut, 404: ErrorOut, 422: ErrorOut})
def tests_create(request: HttpRequest, slug: str, payload: TestIn) -> Status:
    test = conversation_test_create(catalog=_catalog(request, slug), name=payload.name, mode=payload.mode,
                                    turns=payload.turns, user=request.auth)  # type: ignore[attr-defined]
    return Status(201, test)


@router.post("/{slug}/conversation-tests/from-session", response={201: TestOut, 404: ErrorOut, 422: ErrorOut})
def tests_from_session(request: HttpRequest, slug: str, payload: FromSessionIn) -> Status:
    catalog = _catalog(request, slug)
    session = session_get(session_id=payload.session, workspace=catalog.workspace)
    if session is None or not session.is_test or session.assistant.catalog_version.catalog_id != catalog.pk:
        raise HttpError(404, f"catalog '{slug}' has no test-chat session '{payload.session}'")
    test = conversation_test_from_session(session=session, name=payload.name,
                                          user=request.auth)  # type: ignore[attr-defined]
    return Status(201, test)


@router.put("/{slug}/conversation-tests/policy", response={200: dict[str, bool], 403: ErrorOut, 404: ErrorOut})
def tests_policy(request: HttpRequest, slug: str, payload: PolicyIn) -> dict[str, bool]:
    # An analyst's NotAllowed is a PermissionDenied: config.api answers it 403 with its message.
    policy = conversation_tests_policy_set(catalog=_catalog(request, slug), required=payload.required,
                                           user=request.auth)  # type: ignore[attr-defined]
    return {"required": policy.required}


@router.post("/{slug}/conversation-tests/runs", response={200: RunOut, 404: ErrorOut, 422: ErrorOut})
def tests_run_post(request: HttpRequest, slug: str, payload: RunIn) -> dict[str, Any]:
    version = api_version(request, slug, payload.version)
    return _run_out(conversation_tests_run(version=version, user=request.auth))  # type: ignore[attr-defined]


@router.get("/{slug}/conversation-tests/{test_id}", response={200: TestOut, 404: ErrorOut})
def tests_one(request: HttpRequest, slug: str, test_id: int) -> ConversationTest:
    return _test(request, slug, test_id)


@router.put("/{slug}/conversation-tests/{test_id}", response={200: TestOut, 404: ErrorOut, 422: ErrorOut})
def tests_change(request: HttpRequest, slug: str, test_id: int, payload: TestChangeIn) -> ConversationTest:
    return conversation_test_update(test=_test(request, slug, test_id), user=request.auth,  # type: ignore[attr-defined]
                                    name=payload.name, mode=payload.mode, turns=payload.turns)


@router.delete("/{slug}/conversation-tests/{test_id}", response={204: None, 404: ErrorOut})
def tests_remove(request: HttpRequest, slug: str, test_id: int) -> Status:
    conversation_test_delete(test=_test(request, slug, test_id), user=request.auth)  # type: ignore[attr-defined]
    return Status(204, None)
